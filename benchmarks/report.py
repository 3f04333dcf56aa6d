"""One benchmark report: every benchmark script of this folder run in turn, in a fresh process
each, with its own side-by-side tables, into one page of the documentation site
(``docs/benchmarks.md``, and its figures as data in ``docs/benchmarks.json``: see
``report_data.py``) with the machine, the library versions, the date and commit, how each
figure was measured (the script's own description), a link to the script, and its charts.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/report.py [--out docs/benchmarks.md] [--quick]

``make bench-report`` runs it. The figures are what this machine gave in this run: compare the
ratios inside a table (candidates measured side by side), not numbers across reports. A script
that fails is reported with its error and the others still run.

``--update SCRIPT ...`` re-runs those scripts' sections only and puts them in place of the old
ones in the existing page: each says when and at which commit it was re-run, and the header
lists them, so a reader sees which tables are newer than the rest. With ``--add``, a section the
page lacks (a new script) is added at its place in the report's order.
"""

from __future__ import annotations

import argparse
import ast
import os
import platform
import re
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from report_data import escape_text, write_data

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: Where the site's pages link a script (the repository of ``repo_url`` in mkdocs.yml).
SCRIPTS_URL = "https://github.com/ulidkeys/ulidkeys/blob/main/benchmarks/"
#: Libraries whose versions a reader needs to compare a figure.
VERSIONS = ["boto3", "botocore", "moto", "python-ulid", "dask", "distributed", "polars"]
# A script names the chart it wrote as "chart: docs/img/NAME.png": shown on the page.
_CHART = re.compile(r"^chart: docs/(img/[\w.-]+\.png)$", re.MULTILINE)

#: (script, arguments, arguments with --quick, what it measures). Heaviest last.
SECTIONS: list[tuple[str, list[str], list[str], str]] = [
    ("generate.py", [], ["--rounds", "3"], "Generating and parsing ids, vs python-ulid and peers"),
    ("plan.py", [], [], "Planning: calls and keys read by window and layout"),
    ("s3_parse.py", [], ["--repeat", "5"], "S3 pages: the fast page reader vs botocore"),
    ("dynamodb_parse.py", [], ["--repeat", "5"], "DynamoDB pages: the fast reader vs botocore"),
    ("s3_overhead.py", [], ["--keys", "50000"], "S3 listing: the library's own work per key"),
    (
        "s3_breakdown.py",
        [],
        ["--keys", "20000", "--repeat", "3"],
        "S3 listing: where the client CPU per key goes",
    ),
    (
        "s3_breakdown.py",
        ["--columns"],
        ["--columns", "--keys", "20000", "--repeat", "3"],
        "S3 listing as pages of columns: where the client CPU per key goes",
    ),
    ("s3_window.py", [], ["--keys", "20000"], "S3 windows on moto: calls and keys read"),
    ("dynamodb_window.py", [], ["--items", "5000"], "DynamoDB windows on moto: calls, items"),
    ("dynamodb_split.py", [], ["--items", "20000"], "DynamoDB: one chain vs time-split"),
    (
        "dynamodb_collection.py",
        [],
        ["--items", "6000"],
        "DynamoDB collections: latest(20) and an hour of three kinds",
    ),
    (
        "s3_scale.py",
        ["--latency", "30"],
        ["--quick", "--keys", "20000"],
        "S3 at scale over HTTP: split, no split, the paginator",
    ),
    (
        "s3_scale.py",
        ["--split-only", "--keys", "1000000", "--latency", "30"],
        ["--split-only", "--keys", "200000", "--latency", "30"],
        "S3 at scale: a day of 1,000,000 keys, split",
    ),
    (
        "s3_columns.py",
        [],
        ["--keys", "20000", "--million", "200000", "--repeat", "1"],
        "S3 listing as pages of columns: columns, items and the paginator",
    ),
    (
        "spark_rows.py",
        [],
        ["--keys", "20000", "--repeat", "1"],
        "Spark's S3 source: a partition's rows from pages of columns and from dicts",
    ),
    ("s3_gc.py", [], ["--keys", "20000"], "S3: what the garbage collector costs a split listing"),
    (
        "dask_window.py",
        ["--keys", "1000000"],
        ["--keys", "100000"],
        "A window on a Dask cluster of 1, 2, 4 workers",
    ),
    ("consume.py", [], ["--runs", "4"], "Consumers: exactly once, what each run reads"),
    (
        "directory_memory.py",
        [],
        ["--keys-per-day", "10000", "--days", "3"],
        "Directory buckets: memory of newest-first listings",
    ),
    ("async_windows.py", [], ["--keys", "20000"], "The asyncio shell vs the thread shell"),
    ("faults.py", [], ["--windows", "50"], "Fault injection: windows exact under failures"),
]


def git_commit() -> str:
    try:
        answer = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return answer.stdout.strip()


def how_measured(script: str) -> str:
    """The script's docstring up to its usage line: what it measures and how."""
    source = (HERE / script).read_text()
    text = ast.get_docstring(ast.parse(source)) or ""
    paragraphs = []
    for paragraph in text.split("\n\n"):
        if paragraph.startswith((" ", "\t")):
            break  # the command line that runs it (shown with the section)
        paragraphs.append(" ".join(paragraph.split()))
    described = re.sub(r" ?Run:( ``[^`]*``\.?)?", "", " ".join(paragraphs))
    described = re.sub(r":[a-z]+:`", "`", re.sub(r"^Benchmark: ", "", described)).strip()
    return escape_text(described[:1].upper() + described[1:])


def versions() -> str:
    """``name version`` of ulidkeys and of the libraries compared or used (installed ones)."""
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for name in ["ulidkeys", *VERSIONS]:
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            continue
    return ", ".join(found)


def _aligned(line: str) -> bool:
    """A row of a table a script printed as aligned columns of text (not Markdown), or the
    rule under its header."""
    text = line.strip()
    if len(text) > 3 and set(text) == {"-"}:
        return True
    return "  " in text and not text.startswith(("|", "- ", "#", "!", "```"))


def as_markdown(output: str) -> str:
    """The script's output as Markdown: its Markdown tables as tables, tables of aligned text
    as preformatted blocks, each other line of text its own paragraph (not run together with
    the next), each chart it wrote shown as an image; text outside code shown as printed
    (``escape_text``: ``<ulid>`` is no HTML tag)."""
    lines: list[str] = []
    fenced = aligned = False
    for line in _CHART.sub(lambda found: f"![chart]({found.group(1)})", output).splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and aligned and not _aligned(line):
            lines += ["```", ""]  # the end of a block of aligned text
            aligned = False
        if not fenced and not aligned and _aligned(line):
            lines += ["", "```text"]
            aligned = True
        if aligned:
            lines.append(line)
            continue
        if not fenced and lines and lines[-1] and line.startswith("|") != lines[-1].startswith("|"):
            lines.append("")  # a table starts or ends: a block of its own
        lines.append(line if fenced or line.startswith("```") else escape_text(line))
        if not fenced and line.strip() and not line.startswith(("|", "```")):
            lines.append("")
    if aligned:
        lines.append("```")
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def run(script: str, arguments: list[str], timeout: float) -> tuple[str, float, bool]:
    """The script's output, its wall time, and whether it succeeded."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    began = time.perf_counter()
    try:
        answer = subprocess.run(
            [sys.executable, str(HERE / script), *arguments],
            capture_output=True,
            text=True,
            cwd=HERE,
            env=environment,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return f"(stopped after {timeout:.0f} s)", time.perf_counter() - began, False
    seconds = time.perf_counter() - began
    if answer.returncode != 0:
        tail = "\n".join(answer.stderr.strip().splitlines()[-15:])
        return f"(failed, exit {answer.returncode})\n\n```\n{tail}\n```", seconds, False
    return answer.stdout.strip(), seconds, True


def section(
    script: str, title: str, arguments: list[str], timeout: float
) -> tuple[list[str], bool]:
    """The lines of one section of the page (the script run now), and whether it succeeded."""
    print(f"running {script} ...", file=sys.stderr, flush=True)
    output, seconds, ok = run(script, arguments, timeout)
    shown = " ".join([script, *arguments])
    return [
        f"## {title}",
        "",
        f"**How:** {how_measured(script)}",
        "",
        f"[`benchmarks/{script}`]({SCRIPTS_URL}{script}), run as `{shown}` ({seconds:.0f} s).",
        "",
        as_markdown(output),
        "",
    ], ok


#: The header line that lists sections re-run after the page was made (``--update``).
_RERUN = "- re-run since (`--update`): "


def updated(page: str, sections: dict[str, list[str]], stamp: str) -> str:
    """``page`` with the sections of ``sections`` (title -> new lines) in place of their old
    text, each marked with ``stamp`` (when and at which commit), and the header's list of
    re-run sections brought up to date. A title the page lacks is refused."""
    head, *parts = re.split(r"^(?=## )", page, flags=re.MULTILINE)
    titles = [part.splitlines()[0][3:] for part in parts]
    missing = sorted(set(sections) - set(titles))
    if missing:
        raise SystemExit(f"the page has no section {missing[0]!r}: run the whole report instead")
    for index, title in enumerate(titles):
        if title in sections:
            lines = sections[title]
            parts[index] = "\n".join([*lines[:2], f"*Re-run {stamp}.*", "", *lines[2:]]) + "\n"
    rerun = sorted({*_rerun_titles(head), *sections})
    head_lines = [line for line in head.splitlines() if not line.startswith(_RERUN)]
    listed = "; ".join(f'"{title}"' for title in rerun)
    at = next(i for i, line in enumerate(head_lines) if line.startswith("- compare ratios"))
    head_lines.insert(at, f"{_RERUN}{listed} (each says when)")
    return "\n".join(head_lines) + "\n" + "".join(parts)


def with_places(page: str, order: list[str], new: set[str]) -> str:
    """``page`` with an empty section for each title of ``new`` it lacks, placed after the
    section that comes before it in ``order`` (the report's order; first if none does), so
    :func:`updated` can fill it in."""
    head, *parts = re.split(r"^(?=## )", page, flags=re.MULTILINE)
    titles = [part.splitlines()[0][3:] for part in parts]
    for title in order:
        if title not in new or title in titles:
            continue
        before = [t for t in order[: order.index(title)] if t in titles]
        at = titles.index(before[-1]) + 1 if before else 0
        if at == len(parts) and parts and not parts[-1].endswith("\n\n"):
            parts[-1] += "\n"
        parts.insert(at, f"## {title}\n\n")
        titles.insert(at, title)
    return head + "".join(parts)


def _rerun_titles(head: str) -> list[str]:
    for line in head.splitlines():
        if line.startswith(_RERUN):
            return re.findall(r'"([^"]+)"', line)
    return []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "benchmarks.md")
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a few minutes)")
    parser.add_argument("--only", nargs="*", default=None, help="run these scripts only")
    parser.add_argument(
        "--update",
        nargs="+",
        metavar="SCRIPT",
        help="re-run these scripts' sections and put them in place of the old ones in the page",
    )
    parser.add_argument(
        "--add",
        action="store_true",
        help="with --update: a section the page lacks is added at its place in the report",
    )
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per script")
    args = parser.parse_args()
    now = datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    if args.update:
        update(args, now)
        return
    lines = [
        "# Benchmarks",
        "",
        "Every benchmark of the repository's `benchmarks/` folder, run by `make bench-report`"
        + (" (`QUICK=1`: smaller sizes)" if args.quick else "")
        + " in a fresh process each. Each section says what its script measures and how, and "
        "links the script; the tables are the script's own output.",
        "",
        f"- made {now} at commit `{git_commit()}`",
        f"- Python {platform.python_version()} on {platform.platform()}, {os.cpu_count()} cores"
        " (a shared machine: other jobs may run on it)",
        f"- {versions()}",
        "- compare ratios within a table (measured side by side in one run), not figures across "
        "reports or machines",
        "",
    ]
    failed = []
    for script, full, quick, title in SECTIONS:
        if args.only is not None and script not in args.only:
            continue
        new_lines, ok = section(script, title, quick if args.quick else full, args.timeout)
        lines += new_lines
        if not ok:
            failed.append(script)
    args.out.write_text("\n".join(lines) + "\n")
    finish(args.out, failed)


def update(args: argparse.Namespace, now: str) -> None:
    """``--update``: the named scripts' sections re-run into the existing page."""
    known = {script for script, *_ in SECTIONS}
    unknown = sorted(set(args.update) - known)
    if unknown:
        raise SystemExit(f"no section runs {unknown[0]!r}; the scripts: {', '.join(sorted(known))}")
    if args.quick:
        raise SystemExit("--update keeps the page's sizes: it cannot be --quick")
    sections: dict[str, list[str]] = {}
    failed = []
    for script, full, _quick, title in SECTIONS:
        if script in args.update:
            sections[title], ok = section(script, title, full, args.timeout)
            if not ok:
                failed.append(script)
    page = args.out.read_text()
    if args.add:
        page = with_places(page, [title for *_, title in SECTIONS], set(sections))
    page = updated(page, sections, f"{now} at commit `{git_commit()}`")
    args.out.write_text(page)
    finish(args.out, failed)


def finish(page: Path, failed: list[str]) -> None:
    # The same figures as data (every table as rows of cells), parsed back from the page just
    # written so the two cannot differ: the docs' figures are checked against it.
    write_data(page, page.with_suffix(".json"))
    print(f"wrote {page} and {page.with_suffix('.json')}", file=sys.stderr)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
