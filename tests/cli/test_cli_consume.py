"""``ulidkeys ls/query --checkpoint``: each run prints only what is new, then advances it."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from ulidkeys import ULID
from ulidkeys.cli import main
from ulidkeys.dynamodb import Entity
from ulidkeys.s3 import KeyLayout

LAYOUT = KeyLayout("uploads/", period="day")
POST = Entity(pk="Org#{org}", sk="Post#{id}")


@pytest.fixture
def aws(aws_credentials: None) -> Iterator[None]:
    with mock_aws():
        yield


def minutes_ago(minutes: float) -> str:
    return str(ULID.new(at=int(time.time() * 1000 - minutes * 60_000)))


def printed_keys(out: str) -> list[str]:
    return [line.split("\t")[0] for line in out.splitlines()]


def test_ls_checkpoint_prints_only_what_is_new(
    aws: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    s3 = boto3.client("s3")
    s3.create_bucket(Bucket="photos")
    old = sorted(LAYOUT.key_for(minutes_ago(m)) for m in (9, 8, 7))
    for key in old:
        s3.put_object(Bucket="photos", Key=key, Body=b"x")
    for where in (str(tmp_path / "cp.json"), "s3://photos/checkpoints/ls.json"):
        argv = ["ls", "s3://photos/uploads/", "--period", "day", "--since", "1h"]
        argv = [a if a != "1h" else str(int(time.time() * 1000) - 3_600_000) for a in argv]
        argv += ["--checkpoint", where]
        assert main(argv) == 0
        first = capsys.readouterr()
        assert printed_keys(first.out) == old and "3 new objects" in first.err
        assert main(argv) == 0
        assert capsys.readouterr().out == ""
    # named 45 s ago, uploaded only now: below the watermark (now - settle) of the last run,
    # inside its overlap - printed, and counted late
    new = LAYOUT.key_for(minutes_ago(0.75))
    s3.put_object(Bucket="photos", Key=new, Body=b"x")
    assert main(argv) == 0
    last = capsys.readouterr()
    assert printed_keys(last.out) == [new] and "1 late" in last.err
    assert json.loads(s3.get_object(Bucket="photos", Key="checkpoints/ls.json")["Body"].read())


def test_query_checkpoint_prints_only_what_is_new(
    aws: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    resource = boto3.resource("dynamodb")
    resource.meta.client.create_table(**POST.table_definition("app"))
    table = resource.Table("app")
    items = [POST.keys(org="acme", id=minutes_ago(m)) for m in (5, 4)]
    for item in items:
        table.put_item(Item=item)
    argv = ["query", "--table", "app", "--pk", "Org#{org}", "--sk", "Post#{id}"]
    argv += ["--field", "org=acme", "--since", str(int(time.time() * 1000) - 3_600_000)]
    argv += ["--checkpoint", str(tmp_path / "q.json")]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert [json.loads(line)["SK"] for line in out.splitlines()] == [i["SK"] for i in items]
    assert main(argv) == 0
    assert capsys.readouterr().out == ""


def test_checkpoint_refuses_options_it_cannot_honour(
    aws: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cp = str(tmp_path / "cp.json")
    assert main(["ls", "s3://photos/", "--latest", "3", "--checkpoint", cp]) == 2
    assert "--latest does not go with --checkpoint" in capsys.readouterr().err
    assert main(["ls", "s3://photos/", "--checkpoint", "s3://photos/"]) == 2
    assert "must name an object" in capsys.readouterr().err
    Path(cp).write_text("{damaged")
    assert main(["ls", "s3://photos/", "--since", "0", "--checkpoint", cp]) == 2
    assert "damaged" in capsys.readouterr().err


def test_explain_with_a_checkpoint_prints_the_next_run_and_changes_nothing(
    aws: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--explain --checkpoint``: the next run's window (from the stored watermark) and its
    calls as pasteable aws commands; the checkpoint untouched, so the run that follows still
    prints what is new."""
    s3 = boto3.client("s3")
    s3.create_bucket(Bucket="photos")
    cp = tmp_path / "cp.json"
    since = str(int(time.time() * 1000) - 3_600_000)
    argv = ["ls", "s3://photos/uploads/", "--period", "day", "--since", since]
    argv += ["--checkpoint", str(cp)]
    assert main([*argv, "--explain"]) == 0  # before any run: no checkpoint yet
    first = capsys.readouterr().out
    assert "no checkpoint yet" in first and "aws s3api list-objects-v2" in first
    assert not cp.exists()
    assert main(argv) == 0  # a real run stores the checkpoint
    capsys.readouterr()
    stored = cp.read_text()
    new = LAYOUT.key_for(minutes_ago(0.75))  # inside the overlap of the next run
    s3.put_object(Bucket="photos", Key=new, Body=b"x")
    assert main([*argv, "--explain"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# next run from the checkpoint (") and "watermark" in out
    assert "--start-after" in out and "aws s3api list-objects-v2" in out
    assert cp.read_text() == stored
    assert main(argv) == 0
    assert printed_keys(capsys.readouterr().out) == [new]

    resource = boto3.resource("dynamodb")
    resource.meta.client.create_table(**POST.table_definition("app"))
    query = ["query", "--table", "app", "--pk", "Org#{org}", "--sk", "Post#{id}"]
    query += ["--field", "org=acme", "--since", since, "--checkpoint", str(tmp_path / "q.json")]
    assert main([*query, "--explain"]) == 0
    out = capsys.readouterr().out
    assert "no checkpoint yet" in out and "aws dynamodb query" in out and "Org#acme" in out
    assert not (tmp_path / "q.json").exists()
