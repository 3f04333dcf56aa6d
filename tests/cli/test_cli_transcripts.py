"""The CLI guide's listing and query transcripts are what the CLI prints against moto.

``docs/howto/cli.md`` marks such a block with ``<!-- transcript: moto -->`` before its
``console`` fence. This test fills moto with the objects and items the transcripts show (a
bucket ``photos``, a table ``app``), runs every ``$ ulidkeys`` line of those blocks and compares
stdout + stderr with the lines below it; ``...`` in the page stands for what differs on every
run (upload times, cursors, the rest of a long line) and matches any text within a line; a
command ending in ``2>/dev/null`` is compared on stdout alone.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from ulidkeys.cli import main
from ulidkeys.dynamodb import Entity

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "howto" / "cli.md"
MARKER = "<!-- transcript: moto -->"
#: The objects of the transcripts: three uploads of the window and one of another suffix.
OBJECTS = [
    "uploads/dt=2024-05-17/hr=09/01HY2WF4M0XKQ6J3WB5S8Z7DQA.jpg",
    "uploads/dt=2024-05-17/hr=09/01HY2XKRG0BH3VNY8Q2M5C7D9E.jpg",
    "uploads/dt=2024-05-17/hr=09/01HY2XKRG0BH3VNY8Q2M5C7D9F.png",
    "uploads/dt=2024-05-17/hr=09/01HY2Z1HB0T4W6X8Y0Z2A4C6E8.jpg",
]
POST = Entity(pk="Org#{org}", sk="Post#{id}")
#: The items of the transcripts (DynamoDB JSON).
ITEMS = [
    {"id": "01HY2WF4M0XKQ6J3WB5S8Z7DQA", "likes": {"N": "1486"}, "score": {"N": "4.75"}},
    {"id": "01HY2Z1HB0T4W6X8Y0Z2A4C6E8", "likes": {"N": "7"}, "tags": {"L": [{"S": "news"}]}},
]


def transcripts() -> list[tuple[str, str]]:
    """``(command, output)`` of every ``$ ulidkeys`` line of the guide's moto blocks."""
    found = []
    pattern = re.escape(MARKER) + r"\s*```console\n(.*?)```"
    for block in re.findall(pattern, GUIDE.read_text(), flags=re.S):
        for part in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, output = part.partition("\n")
            found.append((command, output))
    return found


def shown(output: str) -> re.Pattern[str]:
    """The page's output as a pattern: ``...`` matches any text within a line."""
    return re.compile(".*?".join(map(re.escape, output.split("..."))) + r"\Z")


def test_the_guide_has_moto_transcripts() -> None:
    commands = [command for command, _ in transcripts()]
    assert len(commands) >= 4
    assert any(command.startswith("ulidkeys ls ") for command in commands)
    assert any(command.startswith("ulidkeys query ") for command in commands)


def test_moto_transcripts_are_what_the_cli_prints(
    aws_credentials: None, capsys: pytest.CaptureFixture[str]
) -> None:
    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="photos")
        for key in OBJECTS:
            s3.put_object(Bucket="photos", Key=key, Body=b"x" * 1024)
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        dynamodb.create_table(**POST.table_definition("app"))  # type: ignore[arg-type]
        for item in ITEMS:
            keys = {k: {"S": v} for k, v in POST.keys(org="acme", id=item["id"]).items()}
            extra = {k: v for k, v in item.items() if k != "id"}
            dynamodb.put_item(TableName="app", Item={**keys, **extra})
        for command, output in transcripts():
            argv = shlex.split(command)
            assert argv[0] == "ulidkeys"
            quiet = argv[-1] == "2>/dev/null"  # the page shows stdout alone
            main(argv[1:-1] if quiet else argv[1:])
            captured = capsys.readouterr()
            printed = captured.out if quiet else captured.out + captured.err
            assert shown(output).match(printed), f"{command}\n--- printed:\n{printed}"
