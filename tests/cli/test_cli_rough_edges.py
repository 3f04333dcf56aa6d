"""The command line's rough edges (issue 22), each with its input, exit status and the one
line on stderr: a day given as a time, --slice with relative times, bucket names S3 refuses,
boto3 missing, --shards 0, query --latest / --index / a window from the epoch over buckets."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from ulidkeys.cli import build_parser, main
from ulidkeys.dynamodb import Entity, Index, Table
from ulidkeys.ulid import ULID

START = 1_715_936_400_000  # 2024-05-17T09:00:00Z


def one_line(capsys: pytest.CaptureFixture[str], argv: list[str], *words: str) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1, err
    assert all(word in err for word in words), err


@pytest.mark.parametrize("day", ["2024-05-17", "2024-05-17Z", "2024-05-17+00:00"])
def test_a_day_is_answered_with_a_time_that_works(
    day: str, capsys: pytest.CaptureFixture[str]
) -> None:
    one_line(capsys, ["range", "--since", day], "is a day, not a time", "2024-05-17T00:00:00Z")
    assert (
        main(["range", "--since", "2024-05-17T00:00:00Z", "--until", "2024-05-18T00:00:00Z"]) == 0
    )


def test_slice_names_the_real_reason(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["ls", "s3://photos/u/", "--since", "1h", "--until", "now", "--slice", "0/4"]
    one_line(capsys, [*argv, "--explain"], "--slice needs a fixed --since")


def test_bucket_names_s3_refuses_are_refused_here(capsys: pytest.CaptureFixture[str]) -> None:
    for location in ("s3://No_Such/", "s3://a/"):
        one_line(capsys, ["ls", location, "--since", "1h", "--explain"], "not an S3 bucket name")
    one_line(capsys, ["ls", "s3://No_Such/", "--since", "1h"], "capitals and '_'")


def test_without_boto3_the_extra_is_named(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "boto3", None)  # `import boto3` now raises ImportError
    one_line(capsys, ["ls", "s3://photos/u/", "--since", "1h"], "pip install 'ulidkeys[aws]'")
    argv = ["query", "--table", "t", "--pk", "Org#{org}", "--sk", "Post#{id}", "--field", "org=a"]
    one_line(capsys, [*argv, "--since", "1h"], "query calls AWS and needs boto3")


def test_shards_0_means_none_for_query_as_for_ls(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--pk", "Org#{org}", "--sk", "Post#{id}", "--field", "org=a"]
    base += ["--since", "2024-05-17T09:00:00Z", "--until", "2024-05-17T10:00:00Z"]
    assert main(["query", *base, "--shards", "0", "--explain"]) == 0
    with_none = capsys.readouterr().out
    assert main(["query", *base, "--explain"]) == 0
    assert capsys.readouterr().out == with_none


def test_a_bucketed_entity_from_the_epoch_says_what_to_change(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["query", "--pk", "Org#{org}#{bucket}", "--sk", "Post#{id}", "--bucket", "hour"]
    one_line(
        capsys,
        [*argv, "--field", "org=a", "--explain"],
        "it starts at the epoch (no since given)",
        "a later since",
    )


def test_every_option_has_help_text() -> None:
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices  # type: ignore[union-attr]
    missing = [
        f"{name} {'/'.join(action.option_strings) or action.dest}"
        for name, sub in commands.items()
        for action in sub._actions
        if not action.help and action.dest != "help"
    ]
    assert not missing


def test_query_latest_and_index(
    aws_credentials: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    entity = Entity(
        pk="Org#{org}",
        sk="Post#{id}",
        gsi={"ByAuthor": Index(pk="Author#{author}", sk="Post#{id}")},
    )
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ulidkeys.toml").write_text(
        '[entities.posts]\ntable = "app"\npk = "Org#{org}"\nsk = "Post#{id}"\n'
        '[entities.posts.gsi.ByAuthor]\npk = "Author#{author}"\nsk = "Post#{id}"\n'
    )
    with mock_aws():
        table = Table(
            boto3.resource("dynamodb").create_table(**entity.table_definition("app")), entity
        )
        ids = [ULID.new(at=START + i * 60_000) for i in range(10)]
        for i, u in enumerate(ids):
            table.put_new(entity.keys(org="acme", author=f"a{i % 2}", id=u))
        common = ["--since", "2024-05-17T08:00:00Z", "--until", "2024-05-17T10:00:00Z"]
        assert main(["query", "posts", "--field", "org=acme", "--latest", "3", *common]) == 0
        newest = [json.loads(line)["SK"] for line in capsys.readouterr().out.splitlines()]
        assert newest == [f"Post#{u}" for u in ids[:-4:-1]]
        argv = ["query", "posts", "--index", "ByAuthor", "--field", "author=a1", *common]
        assert main(argv) == 0
        by_author = [json.loads(line)["SK"] for line in capsys.readouterr().out.splitlines()]
        assert by_author == [f"Post#{u}" for u in ids[1::2]]
        one_line(capsys, [*argv, "--latest", "2", "--limit", "1"], "--limit does not go with")
        one_line(capsys, [*argv, "--latest", "2", "--explain"], "--latest has no fixed plan")
