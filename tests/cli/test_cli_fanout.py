"""``ls --slice I/N``, ``ls --manifest`` (on moto) and ``athena``, and the manifest format: slices
printed by separate runs are the window, nothing twice; manifests parse back to exactly the
window's keys (commas, spaces, '+', unicode in keys), written locally or to S3."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, unquote_plus

import boto3
import pytest
from hypothesis import given
from hypothesis import strategies as st
from moto import mock_aws

from ulidkeys import ULID
from ulidkeys.cli import main
from ulidkeys.emit.manifests import MANIFEST_SPEC, manifest_line, parse_manifest, write_manifest
from ulidkeys.errors import InvalidValue
from ulidkeys.s3 import KeyLayout

START = 1_715_936_400_000  # 2024-05-17T09:00:00Z
PREFIX = "my photos, été+1/"  # a comma, spaces, a plus and accents in every key
LAYOUT = KeyLayout(prefix=PREFIX, shards=3, period="hour", suffix=".jpg")
LOCATION = "s3://cli-bucket/" + PREFIX
LAYOUT_ARGS = ["--shards", "3", "--period", "hour", "--suffix", ".jpg", "--region", "us-east-1"]
WINDOW = ["--since", "2024-05-17T09:00:00Z", "--until", "2024-05-17T10:00:00Z"]


@pytest.fixture(scope="module")
def s3() -> Iterator[Any]:
    with mock_aws():
        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket="cli-bucket")
        times = [START + i * 61_001 for i in range(60)] + [START - 1, START + 3_600_000]
        for ms in times:
            client.put_object(Bucket="cli-bucket", Key=LAYOUT.key_for(ULID.new(at=ms)), Body=b"")
        yield client


class OneClient:
    """A session that hands out one client: a new boto3 client per CLI run costs ~0.3 s."""

    def __init__(self, client: Any) -> None:
        self.s3 = client

    def client(self, service: str, endpoint_url: str | None = None) -> Any:
        assert service == "s3"
        return self.s3


@pytest.fixture(autouse=True)
def one_client(s3: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ulidkeys.cli.ls.aws_session", lambda args: OneClient(s3))


def listed(capsys: pytest.CaptureFixture[str], *argv: str) -> list[str]:
    assert main(["ls", LOCATION, *LAYOUT_ARGS, *argv]) == 0
    return [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()]


def test_slices_printed_by_separate_runs_are_the_window(
    s3: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = listed(capsys, *WINDOW)
    assert len(whole) == 60
    for n in (1, 4, 7):
        parts = [listed(capsys, *WINDOW, "--slice", f"{i}/{n}") for i in range(n)]
        union = [key for part in parts for key in part]
        assert union == whole  # slices in time order, each in id order: the window itself
        assert all(part for part in parts)  # evenly spread keys: no slice is empty


def test_explain_prints_the_slice_plan(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ls", "s3://photos/u/", *WINDOW, "--slice", "1/4", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "2024-05-17T09:15:00.000Z .. 2024-05-17T09:30:00.000Z" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--slice", "4/4", *WINDOW], "0 .. N-1"),
        (["--slice", "a/4", *WINDOW], "I/N"),
        (["--slice", "1", *WINDOW], "I/N"),
        (["--slice", "0/0", *WINDOW], "0 .. N-1"),
        (["--slice", "0/2", "--since", "2024-05-17T09:00:00Z"], "fixed --until"),
        (["--slice", "0/2", "--since", "2024-05-17T09:00:00Z", "--until", "now"], "fixed"),
        (["--slice", "0/2", "--latest", "3"], "--latest"),
        (["--slice", "0/2", *WINDOW, "--checkpoint", "c.json"], "--checkpoint"),
    ],
)
def test_slice_mistakes_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    assert main(["ls", "s3://photos/u/", *extra, "--explain"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_manifest_to_a_file_is_exactly_the_window(
    s3: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    whole = listed(capsys, *WINDOW)
    target = tmp_path / "window.csv"
    assert main(["ls", LOCATION, *LAYOUT_ARGS, *WINDOW, "--manifest", str(target)]) == 0
    out, err = capsys.readouterr()
    assert out == "" and f"manifest of {len(whole)} objects" in err
    text = target.read_text(encoding="utf-8")
    assert text.isascii() and all(line.count(",") == 1 for line in text.splitlines())
    assert list(parse_manifest(text.splitlines())) == [("cli-bucket", key) for key in whole]
    assert not (tmp_path / "window.csv.part").exists()
    # a slice's manifest holds the slice
    assert main([*_ls(), *WINDOW, "--slice", "0/2", "--manifest", str(target)]) == 0
    first = [key for _, key in parse_manifest(target.read_text().splitlines())]
    assert first == listed(capsys, *WINDOW, "--slice", "0/2") and 0 < len(first) < len(whole)


def test_manifest_of_what_is_new_since_a_checkpoint(
    s3: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target, checkpoint = tmp_path / "new.csv", str(tmp_path / "checkpoint.json")
    argv = [*_ls(), "--since", "2024-05-17T09:00:00Z", "--checkpoint", checkpoint, "--settle", "0"]
    assert main([*argv, "--manifest", str(target)]) == 0
    first = [key for _, key in parse_manifest(target.read_text().splitlines())]
    assert len(first) == 61  # the window's 60 and the one at 10:00, not the one before 09:00
    capsys.readouterr()
    assert main([*argv, "--manifest", str(target)]) == 0  # nothing new: an empty manifest
    assert target.read_text() == ""


def _ls() -> list[str]:
    return ["ls", LOCATION, *LAYOUT_ARGS]


def test_manifest_to_s3_prints_the_create_job_manifest(
    s3: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = listed(capsys, *WINDOW)
    assert main([*_ls(), *WINDOW, "--manifest", "s3://cli-bucket/manifests/m.csv"]) == 0
    out, _ = capsys.readouterr()
    manifest = json.loads(out)
    assert manifest["Spec"] == MANIFEST_SPEC
    head = s3.head_object(Bucket="cli-bucket", Key="manifests/m.csv")
    assert manifest["Location"] == {
        "ObjectArn": "arn:aws:s3:::cli-bucket/manifests/m.csv",
        "ETag": head["ETag"].strip('"'),
    }
    body = s3.get_object(Bucket="cli-bucket", Key="manifests/m.csv")["Body"].read().decode()
    assert list(parse_manifest(body.splitlines())) == [("cli-bucket", key) for key in whole]
    assert main([*_ls(), *WINDOW, "--manifest", "s3://cli-bucket/dir/"]) == 2
    assert "must name an object" in capsys.readouterr().err


# --- the format ---------------------------------------------------------------------------------

# any text S3 takes as a key: no surrogates (not UTF-8), at least one character
keys = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40)


@given(st.lists(keys, max_size=20))
def test_manifest_round_trip(names: list[str]) -> None:
    out = io.StringIO()
    assert write_manifest(({"Key": name} for name in names), "bkt", out) == len(names)
    lines = out.getvalue().splitlines()
    assert len(lines) == len(names)  # newlines in keys are encoded too
    assert all(line.isascii() and line.count(",") == 1 for line in lines)
    assert list(parse_manifest(lines)) == [("bkt", name) for name in names]
    for line, name in zip(lines, names, strict=True):
        # what AWS's Lambda examples decode task keys with gives the key back too
        assert unquote_plus(line.split(",")[1]) == unquote(line.split(",")[1]) == name


def test_manifest_line_examples() -> None:
    assert manifest_line("b", "a b,c+d/é.jpg") == "b,a%20b%2Cc%2Bd/%C3%A9.jpg\n"
    assert manifest_line("b", "uploads/01HY2WF4M0.jpg") == "b,uploads/01HY2WF4M0.jpg\n"


@pytest.mark.parametrize("line", ["nocomma", ",key", "bucket,", "b,k,extra"])
def test_parse_refuses_lines_that_are_not_bucket_key(line: str) -> None:
    with pytest.raises(InvalidValue, match="manifest line 1"):
        list(parse_manifest([line]))


# --- athena -------------------------------------------------------------------------------------


def test_athena_prints_the_table_and_the_where_of_a_window(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["athena", "s3://logs/app/", "--shards", "4", "--period", "hour"]
    window = ["--since", "2024-05-17T09:30:00Z", "--until", "2024-05-19T03:00:00Z"]
    assert main([*argv, "--first-day", "2024-01-01", "--table", "app", *window]) == 0
    out = capsys.readouterr().out
    assert out.startswith("CREATE EXTERNAL TABLE `app` (`line` string)\n")
    assert "'storage.location.template' = 's3://logs/app/${shard}/dt=${dt}/hr=${hr}/'" in out
    assert "'projection.dt.range' = '2024-01-01,NOW'" in out
    assert out.endswith(
        "WHERE ((dt = '2024-05-17' AND hr >= 9) OR dt = '2024-05-18' OR "
        "(dt = '2024-05-19' AND hr <= 2))\n"
    )
    assert main(["athena", "s3://logs/app/", "--period", "day", "--first-day", "May"]) == 2
    assert "first_day='May'" in capsys.readouterr().err
