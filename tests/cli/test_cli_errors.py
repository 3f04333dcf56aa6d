"""The command line's failures and odd inputs, in-process: one line on stderr, exit 2 for a
mistake in the command or the AWS set-up, exit 1 for a failure AWS reported, no traceback."""

from __future__ import annotations

import io
import json
import re
import shlex
import socket
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from ulidkeys import ULID
from ulidkeys.cli import main
from ulidkeys.cli.new import NEW_CHUNK
from ulidkeys.dynamodb import Entity
from ulidkeys.s3 import KeyLayout

START = 1_715_936_400_000  # 2024-05-17T09:00:00Z
WINDOW = ["--since", "2024-05-17T09:00:00Z", "--until", "2024-05-17T10:00:00Z"]
POST = Entity(pk="Org#{org}", sk="Post#{id}")
QUERY = ["query", "--pk", "Org#{org}", "--sk", "Post#{id}", "--field", "org=acme"]


@pytest.fixture
def aws(aws_credentials: None) -> Iterator[None]:
    with mock_aws():
        yield


def fails(capsys: pytest.CaptureFixture[str], argv: list[str], status: int, *words: str) -> str:
    """Run ``argv``; it must exit ``status`` with one line on stderr holding ``words``."""
    assert main(argv) == status
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert all(word in err for word in words), err
    return err


def test_aws_failures_exit_1_with_one_line(aws: None, capsys: pytest.CaptureFixture[str]) -> None:
    fails(capsys, ["ls", "s3://nosuch/up/", "--since", "2h"], 1, "NoSuchBucket", "s3://nosuch/")
    fails(capsys, [*QUERY, "--table", "nope", "--since", "2h"], 1, "'nope' not found")
    client = boto3.client("dynamodb")
    client.create_table(**POST.table_definition("app"))  # type: ignore[arg-type]
    fails(
        capsys,
        [*QUERY, "--table", "app", "--since", "2h", "--pk-attr", "pk"],
        1,
        "ValidationException",
        "--pk-attr",
    )


def test_setup_mistakes_exit_2(
    aws: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ls = ["ls", "s3://photos/up/", "--since", "2h"]
    fails(capsys, [*ls, "--endpoint-url", "notaurl"], 2, "'notaurl' is not an http(s) URL")
    fails(capsys, [*ls, "--profile", "nope"], 2, "profile (nope) could not be found")
    monkeypatch.setenv("AWS_PROFILE", "nope")
    fails(capsys, ls, 2, "--profile / AWS_PROFILE")
    monkeypatch.delenv("AWS_PROFILE")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    monkeypatch.delenv("AWS_DEFAULT_REGION")
    # the variable the message names is the one botocore reads: AWS_REGION alone is not read
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    fails(
        capsys,
        [*QUERY, "--table", "app", "--since", "2h"],
        2,
        "pass --region",
        "AWS_DEFAULT_REGION",
    )
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    assert main([*QUERY, "--table", "app", "--since", "2h"]) == 1  # on to AWS: no such table


def test_no_credentials_exit_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    argv = ["ls", "s3://photos/up/", "--since", "2h", "--region", "us-east-1"]
    fails(capsys, argv, 2, "no AWS credentials", "aws configure")


def test_unreachable_endpoint_exits_1(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    argv = ["ls", "s3://photos/up/", "--since", "2h", "--region", "us-east-1"]
    fails(capsys, [*argv, "--endpoint-url", f"http://127.0.0.1:{port}"], 1, "could not reach")


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["ls", "s3:///plain/", "--since", "2h", "--explain"], "bucket name is empty"),
        (["ls", "s3://Bad_Bucket!/", "--since", "2h", "--explain"], "not an S3 bucket name"),
        (["ls", "s3://Bad_Bucket!/", "--since", "2h"], "not an S3 bucket name"),
        (["ls", "photos/uploads/", "--since", "2h"], "s3://BUCKET/PREFIX"),
        (["ls", "s3://photos/uploads", "--since", "2h"], "write s3://photos/uploads/"),
        (["range", "--since", "2h", "--prefix", "uploads"], "write uploads/"),
        (["range", "--since", "2h", "--prefix", "/uploads/"], "starts with '/'"),
        (["range", "--since", "2h", "--prefix", "up\x07/"], "control character"),
        (["ls", "s3://photos/up\x07/", "--since", "2h"], "control character"),
        (["range", "--since", "2h", "--bucket", "Bad_Bucket!"], "not an S3 bucket name"),
        (["new", "--at", "²"], "printable ASCII"),
        (["new", "--at", "1715936400"], "'1715936400s' for seconds"),
        (["new", "-n", "-5"], "'-5' is not a count"),
        (["new", "-n", "-1"], "'-1' is not a count"),
        (["new", "-n", "٣"], "is not a count"),
        (["ls", "s3://photos/up/", "--latest", "1" + "0" * 30], "is more than"),
        (["query", "--pk", "P", "--sk", "S#{id}", "--limit", "-1"], "is not a count"),
        (["ls", "s3://photos/up/", "--checkpoint", "cp", "--settle", "nan"], "seconds >= 0"),
        (["ls", "s3://photos/up/", "--since", "2h", "--output", "xml"], "invalid choice"),
        (["range", "--since", "1h", "--max-prefixes", "0"], "at least 1 prefix"),
    ],
)
def test_user_mistakes_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    with pytest.raises(SystemExit) as exited:  # argparse's own exit, or main's status
        raise SystemExit(main(argv))
    assert exited.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing printed before the refusal (range --max-prefixes 0)
    assert captured.err.count("\n") == 1 and words in captured.err, captured.err


def test_debug_shows_the_traceback(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from ulidkeys.errors import InvalidTime

    with pytest.raises(InvalidTime):
        main(["new", "--at", "²", "--debug"])
    with pytest.raises(InvalidTime):
        main(["--debug", "new", "--at", "²"])
    monkeypatch.setenv("ULIDKEYS_DEBUG", "1")
    with pytest.raises(InvalidTime):
        main(["new", "--at", "²"])


def test_new_monotonic_at_a_time_and_streaming(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", "-n", "3", "--monotonic", "--at", "1715936400s"]) == 0
    ids = capsys.readouterr().out.split()
    assert ids == sorted(ids) and len(set(ids)) == 3
    assert {ULID.parse(i).timestamp_ms for i in ids} == {START}
    assert int(ULID.parse(ids[2])) - int(ULID.parse(ids[0])) == 2  # a +1 run
    # more than one chunk (and than MAX_BATCH would allow in one call), increasing throughout
    assert main(["new", "-n", "70000", "--monotonic", "--at", "2024-05-17T09:00:00Z"]) == 0
    ids = capsys.readouterr().out.split()
    assert len(ids) == 70_000 and ids == sorted(ids) and len(set(ids)) == 70_000
    assert main(["new", "-n", "0"]) == 0 and capsys.readouterr().out == ""
    assert main(["new", "-n", "2", "--at", "90s", "-o", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [sorted(row) for row in rows] == [["id", "time", "timestamp_ms"]] * 2
    assert main(["new", "-n", "2", "--at", "1715936400000ms", "-o", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["time"] for row in rows] == ["2024-05-17T09:00:00.000Z"] * 2


class ClosedPipe(io.StringIO):
    """stdout of `| head -1`: the first line goes through, then the reader is gone."""

    def write(self, text: str) -> int:
        if self.getvalue():
            raise BrokenPipeError(32, "Broken pipe")
        return super().write(text)


def test_closed_pipe_stops_quietly(
    aws: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    s3 = boto3.client("s3")
    s3.create_bucket(Bucket="photos")
    layout = KeyLayout("uploads/")
    for i in range(5):
        s3.put_object(Bucket="photos", Key=layout.key_for(ULID.new(at=START + i)), Body=b"")
    client = boto3.client("dynamodb")
    client.create_table(**POST.table_definition("app"))  # type: ignore[arg-type]
    for i in range(5):
        keys = POST.keys(org="acme", id=ULID.new(at=START + i))
        client.put_item(TableName="app", Item={k: {"S": v} for k, v in keys.items()})
    for argv in (
        ["new", "-n", "200000"],
        ["ls", "s3://photos/uploads/", *WINDOW],
        [*QUERY, "--table", "app", *WINDOW],
        ["inspect", *(str(ULID.new()) for _ in range(3))],
    ):
        pipe = ClosedPipe()
        monkeypatch.setattr("sys.stdout", pipe)
        assert main(argv) == 141
        assert 1 <= pipe.getvalue().count("\n") <= NEW_CHUNK  # `new` writes a chunk at once
        assert "Traceback" not in capsys.readouterr().err


def test_ls_latest_with_a_suffix_prints_n_objects_of_that_suffix(
    aws: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """The newest keys have other extensions: the N newest ``.jpg`` are older than them, and
    are still the ones printed (fetched from the cursor), never fewer than N."""
    s3 = boto3.client("s3")
    s3.create_bucket(Bucket="photos")
    layout = KeyLayout("uploads/", suffix=".jpg")
    jpgs = [ULID.new(at=START + i * 1000) for i in range(5)]
    pngs = [ULID.new(at=START + 10_000 + i * 1000) for i in range(7)]  # all newer
    for u in jpgs:
        s3.put_object(Bucket="photos", Key=layout.key_for(u), Body=b"")
    for u in pngs:
        s3.put_object(Bucket="photos", Key=layout.key_for(u, ext="png"), Body=b"")
    ls = ["ls", "s3://photos/uploads/", "--suffix", ".jpg", "--until", "2024-05-17T10:00:00Z"]
    for n, expected in [(3, jpgs[:-4:-1]), (5, jpgs[::-1]), (9, jpgs[::-1])]:
        assert main([*ls, "--latest", str(n), "-o", "jsonl"]) == 0
        out, err = capsys.readouterr()
        assert [json.loads(line)["Key"] for line in out.splitlines()] == [
            layout.key_for(u) for u in expected
        ]
        assert f"{len(expected)} objects (7 with another suffix left out)" in err
    assert main(["ls", "s3://photos/uploads/", "--latest", "3", "-o", "jsonl"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3  # without --suffix: any extension


def test_output_formats_of_ls_and_query(aws: None, capsys: pytest.CaptureFixture[str]) -> None:
    s3 = boto3.client("s3")
    s3.create_bucket(Bucket="photos")
    layout = KeyLayout("uploads/", suffix=".jpg")
    ids = [ULID.new(at=START + i * 1000) for i in range(3)]
    for u in ids:
        s3.put_object(Bucket="photos", Key=layout.key_for(u), Body=b"jpeg")
        s3.put_object(Bucket="photos", Key=layout.key_for(u, ext="png"), Body=b"png")
        s3.put_object(Bucket="photos", Key=layout.key_for(u, ext=".tar.jpg"), Body=b"tar")
    ls = ["ls", "s3://photos/uploads/", *WINDOW]
    assert main([*ls, "--suffix", ".jpg", "-o", "json"]) == 0
    out, err = capsys.readouterr()
    rows = json.loads(out)
    assert [row["Key"] for row in rows] == [layout.key_for(u) for u in ids]  # no .png, .tar.jpg
    assert "3 objects (6 with another suffix left out)" in err
    row = rows[0]
    assert sorted(row) == ["ETag", "Key", "LastModified", "Size", "StorageClass"]
    assert row["Size"] == 4 and row["StorageClass"] == "STANDARD" and row["ETag"].startswith('"')
    assert row["LastModified"].endswith("Z") and "T" in row["LastModified"]
    assert main([*ls, "-o", "jsonl"]) == 0  # without --suffix: every extension
    assert len(capsys.readouterr().out.splitlines()) == 9
    assert main([*ls, "--suffix", ".jpg"]) == 0
    first = capsys.readouterr().out.splitlines()[0].split("\t")
    assert first[:2] == [layout.key_for(ids[0]), "4"] and first[2].endswith("Z")

    client = boto3.client("dynamodb")
    client.create_table(**POST.table_definition("app"))  # type: ignore[arg-type]
    table = boto3.resource("dynamodb").Table("app")
    big = Decimal("12345678901234567890.123456789")
    table.put_item(
        Item={
            **POST.keys(org="acme", id=ids[0]),
            "n": 1486,
            "big": big,
            "tags": {"b", "a"},
            "blob": b"\x00\x01",
            "ok": True,
            "nested": {"m": [Decimal("1.5"), None]},
        }
    )
    query = [*QUERY, "--table", "app", *WINDOW]
    assert main([*query, "-o", "json"]) == 0
    out = capsys.readouterr().out
    assert '"n": 1486' in out and f'"big": {big}' in out  # JSON numbers, all digits kept
    (item,) = json.loads(out, parse_float=Decimal)
    assert item["big"] == big and item["tags"] == ["a", "b"] and item["blob"] == "AAE="
    assert item["nested"] == {"m": [Decimal("1.5"), None]} and item["ok"] is True
    assert main([*query, "-o", "text"]) == 0
    sort_key, body = capsys.readouterr().out.rstrip("\n").split("\t")
    assert sort_key == f"Post#{ids[0]}" and json.loads(body)["n"] == 1486


def test_range_output_and_end_of_time(capsys: pytest.CaptureFixture[str]) -> None:
    end = ["range", "--since", "2024-05-17T09:00:00Z", "--until", str(1 << 48)]
    assert main(end) == 0
    out = capsys.readouterr().out
    assert "upper (<)   none: the window runs to the end of time" in out
    assert "80000000000000000000000000" not in out
    assert main([*end, "-o", "json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["upper"] is None and row["until"] == "end of time"
    argv = ["range", *WINDOW, "--prefix", "up/", "--max-prefixes", "2", "-o", "jsonl"]
    assert main(argv) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["lower"] == "up/01HY2WF4M00000000000000000" and len(row["cover"]) <= 2
    assert main(["range", "--resolution", "-o", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 10
    assert main(["inspect", str(ULID.min_for(START)), str(ULID.max_for(START)), "-o", "json"]) == 0
    assert [r["timestamp_ms"] for r in json.loads(capsys.readouterr().out)] == [START, START]


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0 and capsys.readouterr().out.startswith("ulidkeys 0.")


def readme_transcripts() -> list[tuple[str, str]]:
    """``(command, output)`` of every ``$ ulidkeys`` line in the CLI guide's console blocks."""
    readme = (Path(__file__).resolve().parents[2] / "docs/howto/cli.md").read_text()
    found = []
    # Blocks marked "<!-- transcript: moto -->" need moto: test_cli_transcripts.py runs them.
    for block in re.findall(r"(?<!-->\n)```console\n(.*?)```", readme, flags=re.S):
        for part in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, output = part.partition("\n")
            found.append((command, output))
    return found


def test_readme_transcripts_are_what_the_cli_prints(capsys: pytest.CaptureFixture[str]) -> None:
    transcripts = readme_transcripts()
    assert len(transcripts) >= 6
    for command, output in transcripts:
        argv = shlex.split(command)
        assert argv[0] == "ulidkeys"
        main(argv[1:])
        captured = capsys.readouterr()
        assert captured.out + captured.err == output, command
