"""The Python examples of the README and docs/ run as written.

The S3 and DynamoDB snippets use a few names a real program would already have (``s3``,
``table``, ``body``, ``since``, ``until``): the test provides them, backed by moto. A comment
``# -> TEXT`` after a ``print(...)`` is what that line prints (``...`` matches anything), and is
checked.
"""

from __future__ import annotations

import asyncio
import builtins
import importlib.util
import io
import os
import re
import sys
from collections import defaultdict
from pathlib import Path
from types import ModuleType
from typing import Any

import boto3
import pytest
from faults import moto_server
from moto import mock_aws

from ulidkeys.dynamodb import Entity
from ulidkeys.ids.registry import REGISTRATIONS, names
from ulidkeys.planning.periods import PERIOD_NAMES, PERIODS
from ulidkeys.s3 import KeyLayout
from ulidkeys.timeinput import now_ms, to_ms
from ulidkeys.ulid import ULID

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
#: A page whose blocks use the names a real program would already have (``s3``, ``table``,
#: ``body``, ``since``, ``until``), as the README's do; other pages' blocks start their own moto.
READMELIKE = "<!-- docs-test: readme-names -->"
#: The first line of a block that cannot run here (it needs real AWS, say), with the reason.
NOT_RUN = "# not run: "
#: A page whose blocks run in order on one SparkSession: tests/integrations/test_spark_docs.py
#: runs them (they need Java, and it is slow), not the tests of this file.
SPARK_SESSION = "<!-- docs-test: spark-session -->"
BLOCKS = [
    (str(doc.relative_to(ROOT)), block)
    for doc in DOCS
    for block in re.findall(r"```python\n(.*?)```", doc.read_text(), flags=re.S)
]
NAMES_GIVEN = {
    str(doc.relative_to(ROOT))
    for doc in DOCS
    if doc.name == "README.md" or READMELIKE in doc.read_text()
}
#: The blocks this file runs (the others are on a page marked SPARK_SESSION).
RUN_HERE = [
    index
    for index, (name, _block) in enumerate(BLOCKS)
    if SPARK_SESSION not in (ROOT / name).read_text()
]
SHOWN = re.compile(r"print\(.*\)\s+# -> (.*)$")


def shown_output(block: str) -> dict[int, re.Pattern[str]]:
    """Line number -> what the ``# -> TEXT`` comment on that line says it prints."""
    found = {}
    for number, line in enumerate(block.splitlines(), start=1):
        match = SHOWN.search(line)
        if match:
            parts = match.group(1).rstrip().split("...")
            found[number] = re.compile(".*?".join(re.escape(part) for part in parts))
    return found


class PrintsByLine:
    """A ``print`` that also records, per line of the block being run, what it printed."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.lines: dict[int, list[str]] = defaultdict(list)

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        text = io.StringIO()
        builtins.print(*args, **{**kwargs, "file": text})
        caller = sys._getframe(1)
        if caller.f_code.co_filename == self.filename:
            self.lines[caller.f_lineno].append(text.getvalue().rstrip("\n"))
        builtins.print(*args, **kwargs)


def test_readme_has_examples() -> None:
    readme = [block for name, block in BLOCKS if name == "README.md"]
    assert len(readme) >= 4, "the README shows runnable examples for each part"


def test_every_python_block_runs_or_is_marked(capsys: pytest.CaptureFixture[str]) -> None:
    """How many blocks run and how many are marked as not run (each with its reason)."""
    marked = [(name, block.splitlines()[0]) for name, block in BLOCKS if block.startswith(NOT_RUN)]
    assert all(len(line) > len(NOT_RUN) + 3 for _, line in marked), "a marked block says why"
    on_spark = len(BLOCKS) - len(RUN_HERE)
    with capsys.disabled():
        print(
            f"\ndocs: {len(BLOCKS) - len(marked)} python blocks run ({on_spark} of them on a "
            f"SparkSession, by tests/integrations/test_spark_docs.py), {len(marked)} marked not run"
        )
    assert len(BLOCKS) - len(marked) >= 25  # the site shows examples on every guide


def _aws_names() -> dict[str, Any]:
    """What the README's AWS snippets assume exists: a bucket client and a table."""
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket="photos")
    app = Entity(pk="Org#{org}", sk="Post#{id}")  # the README's table: PK/SK strings
    table = boto3.resource("dynamodb", region_name="us-east-1").create_table(
        **app.table_definition("app")
    )
    return {
        "s3": s3,
        "table": table,
        "body": b"<jpeg bytes>",
        "since": "2020-01-01T00:00:00Z",
        "until": "now",
    }


@pytest.mark.slow  # every example of the docs, on moto
@pytest.mark.parametrize("index", RUN_HERE, ids=lambda i: f"{BLOCKS[i][0]}-{i}")
def test_readme_example_runs(
    index: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, os.environ.get(name, "testing"))
    name, block = BLOCKS[index]
    if block.startswith(NOT_RUN):
        pytest.skip(f"marked as not run: {block.splitlines()[0][len(NOT_RUN) :]}")
    with mock_aws():  # docs/ examples start their own moto; README snippets get _aws_names()
        given = _aws_names() if name in NAMES_GIVEN else {}
        run_block(block, f"{name} block {index}", {"__name__": "docs", **given})


def run_block(block: str, filename: str, namespace: dict[str, Any]) -> None:
    """Run ``block`` in ``namespace`` and check what each ``# -> TEXT`` line printed."""
    prints = PrintsByLine(filename)
    namespace["print"] = prints
    exec(compile(block, filename, "exec"), namespace)
    for line, expected in shown_output(block).items():
        printed = prints.lines[line]
        assert printed, f"{filename} line {line} shows output but printed nothing"
        for text in printed:
            assert expected.fullmatch(text), (
                f"{filename} line {line}: the comment says {expected.pattern!r}, "
                f"it printed {text!r}"
            )


def test_shown_output_is_checked() -> None:
    """The ``# -> TEXT`` comments exist, and the checker reads ``...`` as a wildcard."""
    marked = [shown_output(block) for _, block in BLOCKS]
    assert sum(len(m) for m in marked) >= 5
    pattern = shown_output("print(x)  # -> events/018f85c7-... done")[1]
    assert pattern.fullmatch("events/018f85c7-9280-7000 done")
    assert not pattern.fullmatch("events/018f85a4-9280-7000 done")


def test_images_the_docs_show_exist() -> None:
    """Every ``![...](path)`` of the README and docs/ names a committed file (the benchmark
    charts under docs/img/)."""
    shown = [
        (doc, target)
        for doc in DOCS
        for target in re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", doc.read_text())
    ]
    assert len(shown) >= 4
    missing = [f"{doc.name}: {t}" for doc, t in shown if not (doc.parent / t).is_file()]
    assert not missing, missing


@pytest.mark.slow  # moto's HTTP server and aiobotocore
def test_readme_async_example_runs_against_moto_server(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's asyncio handler, called: aiobotocore cannot use moto's in-process mock,
    so its default client is pointed at moto's HTTP server (``AWS_ENDPOINT_URL``)."""
    [block] = [b for _, b in BLOCKS if "async def handler" in b]
    layout = KeyLayout("uploads/", shards=4, period="day")
    in_window = [layout.key_for(str(ULID.new(to_ms("2024-05-17T09:30:00Z") + i))) for i in range(3)]
    recent = layout.key_for(str(ULID.new(now_ms() - 600_000)))
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with moto_server() as endpoint:
        monkeypatch.setenv("AWS_ENDPOINT_URL", endpoint)
        s3 = boto3.client("s3")
        s3.create_bucket(Bucket="photos")
        for key in [*in_window, recent]:
            s3.put_object(Bucket="photos", Key=key, Body=b"")
        namespace: dict[str, Any] = {"__name__": "docs"}
        exec(compile(block, "README async block", "exec"), namespace)
        asyncio.run(namespace["handler"]({}, None))
    printed = capsys.readouterr().out.split()
    assert printed[:3] == in_window  # in time order (the ids are 1 ms apart)
    assert printed[3] == "4" and printed[4].startswith("uk1.")  # a call a shard; the cursor
    assert printed[5:] == [recent, recent]  # the newest object; the one new in the last hour


def _hook(name: str = "scheme_table") -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        f"{name}_hook", ROOT / "docs" / "hooks" / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_period_table_is_generated_from_the_registry() -> None:
    # one row per defined period, in the registry's order, its examples the period's own label
    # and folder; the page that shows it holds the marker, not a hand-written table
    hook = _hook("period_table")
    rows = hook.render_table().splitlines()[2:]
    assert len(rows) == len(PERIODS)
    for row, period in zip(rows, PERIODS, strict=True):
        assert row.startswith(f"| `{period.size}` | `{period.form}`: ")
        assert f"`{period.label(hook.EXAMPLE_MS)}`" in row
        assert f"`{period.folder(hook.EXAMPLE_MS)}`" in row
        assert ("| yes |" in row) == period.for_layouts
    markdown = (ROOT / "docs" / "s3.md").read_text()
    assert hook.TABLE_MARK in markdown
    rendered = hook.on_page_markdown(markdown, None, None, None)
    assert all(f"| `{name}` |" in rendered for name in PERIOD_NAMES)
    assert "docs/hooks/period_table.py" in (ROOT / "mkdocs.yml").read_text()


def test_scheme_tables_are_generated_from_the_registry() -> None:
    # The scheme tables are the hook's rendering of the registry (a new scheme module is a new
    # row with no edit to the docs): one row per registration, in its order, each example an
    # id of its scheme; the pages that show one hold the marker, not a hand-written table.
    hook = _hook()
    rows = hook.render_table().splitlines()[2:]
    assert len(rows) == len(REGISTRATIONS)
    for row, entry in zip(rows, REGISTRATIONS, strict=True):
        assert row.startswith(f"| `{entry.name}`")
        made = hook.example(entry)
        assert made == "" or entry.scheme_for(made).parse(made) == made
        assert made == "" or f"`{made}`" in row
    for page in ("docs/howto/schemes.md", "docs/explain/choosing-a-scheme.md"):
        markdown = (ROOT / page).read_text()
        assert hook.TABLE_MARK in markdown
        rendered = hook.on_page_markdown(markdown, None, None, None)
        assert all(f"`{name}`" in rendered for name in names())
    reference = hook.on_page_markdown(hook.MODULES_MARK, None, None, None)
    assert "::: ulidkeys.ids.sonyflake" in reference and "::: ulidkeys.ids.ksuid" in reference
    assert "::: ulidkeys.ids.inspection" not in reference  # it reads the registry, declares none
