"""The Python examples of the README and docs/ run as written.

The S3 and DynamoDB snippets use a few names a real program would already have (``s3``,
``table``, ``body``, ``since``, ``until``): the test provides them, backed by moto.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from ulidkeys.dynamodb import Entity

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCKS = [
    (doc.name, block)
    for doc in DOCS
    for block in re.findall(r"```python\n(.*?)```", doc.read_text(), flags=re.S)
]


def test_readme_has_examples() -> None:
    readme = [block for name, block in BLOCKS if name == "README.md"]
    assert len(readme) >= 4, "the README shows runnable examples for each part"


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


@pytest.mark.parametrize("index", range(len(BLOCKS)), ids=lambda i: f"{BLOCKS[i][0]}-{i}")
def test_readme_example_runs(
    index: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, os.environ.get(name, "testing"))
    name, block = BLOCKS[index]
    with mock_aws():  # docs/ examples start their own moto; README snippets get _aws_names()
        given = _aws_names() if name == "README.md" else {}
        exec(compile(block, f"{name} block {index}", "exec"), {"__name__": "docs", **given})
