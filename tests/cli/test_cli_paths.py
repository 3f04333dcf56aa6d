"""The files and objects the command line writes, and the numbers it takes, on moto (issue 31):
a ``--plot``, ``--manifest`` or ``--checkpoint`` that cannot be written fails before the first
request (zero requests, counted with a botocore event handler on every client the command
makes), as one line and exit 2; the files are written atomically (nothing left behind when
the command fails); a missing checkpoint or manifest bucket is named as theirs; durations
past what a millisecond count holds are refused with the range; a stdout that cannot be
written is exit 1 with one line.
"""

from __future__ import annotations

import errno
import io
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import botocore.exceptions
import pytest
from moto import mock_aws

from ulidkeys import ULID
from ulidkeys.cli import main
from ulidkeys.dynamodb import Entity
from ulidkeys.emit.manifests import parse_manifest
from ulidkeys.s3 import KeyLayout

START = 1_715_936_400_000  # 2024-05-17T09:00:00Z
WINDOW = ["--since", "2024-05-17T09:00:00Z", "--until", "2024-05-17T10:00:00Z"]
LAYOUT = KeyLayout("up/")
KEYS = [LAYOUT.key_for(ULID.new(at=START + i * 60_000)) for i in range(12)]
POST = Entity(pk="Org#{org}", sk="Post#{id}")
QUERY = ["query", "--pk", "Org#{org}", "--sk", "Post#{id}", "--field", "org=acme"]


@pytest.fixture
def requests(aws_credentials: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """A bucket ``photos`` with :data:`KEYS` and a table ``app`` on moto; the list of every
    request the command's clients make (``before-parameter-build``, emitted to every
    handler once per API call, whatever answers it)."""
    made: list[str] = []
    original = boto3.session.Session.client

    def count(event_name: str, **_: Any) -> None:
        made.append(event_name.rsplit(".", 1)[-1])

    def client(self: Any, *args: Any, **kwargs: Any) -> Any:
        created = original(self, *args, **kwargs)
        created.meta.events.register("before-parameter-build", count)
        return created

    with mock_aws():
        s3 = boto3.client("s3")
        s3.create_bucket(Bucket="photos")
        for key in KEYS:
            s3.put_object(Bucket="photos", Key=key, Body=b"x")
        boto3.client("dynamodb").create_table(**POST.table_definition("app"))  # type: ignore[arg-type]
        monkeypatch.setattr(boto3.session.Session, "client", client)
        yield made


def refused(capsys: pytest.CaptureFixture[str], argv: list[str], status: int, *words: str) -> str:
    """``argv`` exits ``status`` with one line holding ``words`` and nothing on stdout."""
    try:
        code = main(argv)
    except SystemExit as exited:  # argparse's own refusal
        code = int(str(exited.code))
    out, err = capsys.readouterr()
    assert code == status, err
    assert out == "" and err.count("\n") == 1, err
    assert "Traceback" not in err and "please report" not in err, err
    assert all(word in err for word in words), err
    return err


def test_the_counter_counts(requests: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """The zero below means no request: a run that reaches AWS is counted."""
    assert main(["ls", "s3://photos/up/", *WINDOW]) == 0
    assert "ListObjectsV2" in requests
    requests.clear()
    assert main(["survey", "s3://photos/up/"]) == 0
    assert requests and set(requests) == {"ListObjectsV2"}


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["survey", "s3://photos/up/", "--plot", "{tmp}/missing/x.png"], "does not exist"),
        (["survey", "s3://photos/up/", "--plot", "{tmp}/folder"], "is a folder"),
        (
            ["survey", "s3://photos/up/", "--plot", "{tmp}/x.txt"],
            "end it in one of .",
        ),  # matplotlib's formats
        (["survey", "s3://photos/up/", "--plot", "{tmp}/x"], "the file's extension picks"),
        (["survey", "s3://photos/up/", "--plot", "{tmp}/file/x.png"], "is not a folder"),
        (["survey", "s3://photos/up/", "--plot", "/dev/null"], "not a regular file"),
        (
            ["survey", "dynamodb://app", "--pk", "Org#acme", "--plot", "{tmp}/missing/x.png"],
            "--plot",
        ),
        (["ls", "s3://photos/up/", *WINDOW, "--manifest", "{tmp}/missing/m.csv"], "does not exist"),
        (["ls", "s3://photos/up/", *WINDOW, "--manifest", "{tmp}/folder"], "is a folder"),
        (["ls", "s3://photos/up/", *WINDOW, "--manifest", "/dev/null"], "not a regular file"),
        (["ls", "s3://photos/up/", *WINDOW, "--manifest", ""], "names no file"),
        (
            ["ls", "s3://photos/up/", "--since", "2h", "--checkpoint", "{tmp}/missing/c"],
            "not exist",
        ),
        (["ls", "s3://photos/up/", "--since", "2h", "--checkpoint", "{tmp}/folder"], "is a folder"),
        ([*QUERY, "--table", "app", "--checkpoint", "{tmp}/missing/c.json"], "does not exist"),
        ([*QUERY, "--table", "app", "--checkpoint", "{tmp}/folder"], "is a folder"),
        (
            ["ls", "s3://photos/up/", "--checkpoint", "{tmp}/c.json", "--manifest", "{tmp}/c.json"],
            "name the same file",
        ),
        (
            ["ls", "s3://photos/up/", "--checkpoint", "{tmp}/c", "--manifest", "{tmp}/c.lock"],
            "would overwrite the checkpoint",
        ),
        (
            ["ls", "s3://photos/up/", "--checkpoint", "s3://bkt/k", "--manifest", "s3://bkt/k"],
            "name the same file",
        ),
    ],
)
def test_a_path_that_cannot_be_written_fails_before_the_first_request(
    requests: list[str],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    argv: list[str],
    words: str,
) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("a file, not a folder")
    before = sorted(p.name for p in tmp_path.iterdir())
    argv = [arg.replace("{tmp}", str(tmp_path)) for arg in argv]
    err = refused(capsys, argv, 2, words)
    assert requests == []  # nothing was called: the mistake costs no request
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # and leaves nothing behind
    flag = next(arg for arg in argv if arg in ("--plot", "--manifest", "--checkpoint"))
    assert flag in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write in any folder")
def test_a_folder_without_write_permission_is_refused_first(
    requests: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    argv = ["ls", "s3://photos/up/", *WINDOW, "--manifest", str(locked / "m.csv")]
    refused(capsys, argv, 2, "no permission to make files in")
    assert requests == []


def test_a_manifest_is_written_whole_or_not_at_all(
    requests: list[str],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    target = tmp_path / "m.csv"
    argv = ["ls", "s3://photos/up/", *WINDOW, "--manifest", str(target)]
    assert main(argv) == 0
    assert [key for _, key in parse_manifest(target.read_text().splitlines())] == KEYS
    assert [p.name for p in tmp_path.iterdir()] == ["m.csv"]  # no temporary file left
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask  # as `open` makes files
    target.chmod(0o640)
    assert main(argv) == 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # a replaced file keeps its mode
    capsys.readouterr()

    # The listing fails after the temporary file is made: the old manifest stays as it was.
    target.write_text("the previous manifest\n")
    original = boto3.session.Session.client

    def unreachable(**_: Any) -> None:
        raise botocore.exceptions.EndpointConnectionError(endpoint_url="http://s3")

    def client(self: Any, *args: Any, **kwargs: Any) -> Any:
        created = original(self, *args, **kwargs)
        created.meta.events.register("before-call.s3.ListObjectsV2", unreachable)
        return created

    monkeypatch.setattr(boto3.session.Session, "client", client)
    refused(capsys, argv, 1, "could not reach")
    assert target.read_text() == "the previous manifest\n"
    assert [p.name for p in tmp_path.iterdir()] == ["m.csv"]
    # the same with a manifest that did not exist: none afterwards, and no `.part`
    fresh = tmp_path / "fresh.csv"
    refused(capsys, [*argv[:-1], str(fresh)], 1, "could not reach")
    assert [p.name for p in tmp_path.iterdir()] == ["m.csv"]


def test_a_manifest_through_a_symlink_replaces_the_file_it_names(
    requests: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "m.csv"
    real.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    assert main(["ls", "s3://photos/up/", *WINDOW, "--manifest", str(link)]) == 0
    assert link.is_symlink() and len(real.read_text().splitlines()) == len(KEYS)


def test_a_plot_is_written_whole_beside_nothing_else(
    requests: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pytest.importorskip("matplotlib")
    for name, magic in (("keys.png", b"\x89PNG"), ("keys.SVG", b"<?xml"), ("keys.pdf", b"%PDF")):
        assert main(["survey", "s3://photos/up/", "--plot", str(tmp_path / name)]) == 0
        assert (tmp_path / name).read_bytes().startswith(magic)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keys.SVG", "keys.pdf", "keys.png"]


def test_a_missing_checkpoint_or_manifest_bucket_is_named_as_theirs(
    requests: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["ls", "s3://photos/up/", "--since", "2h", "--checkpoint", "s3://nosuchbkt/cp.json"]
    err = refused(capsys, argv, 1, "--checkpoint s3://nosuchbkt/cp.json", "'nosuchbkt'")
    assert "photos" not in err
    assert requests == ["GetObject"]  # the checkpoint is read first: nothing was listed
    requests.clear()
    argv = ["ls", "s3://photos/up/", *WINDOW, "--manifest", "s3://nosuchbkt/m.csv"]
    err = refused(capsys, argv, 1, "--manifest s3://nosuchbkt/m.csv", "'nosuchbkt'")
    assert "photos" not in err
    # the listed bucket missing is still the listed bucket, also beside a checkpoint object
    argv = ["ls", "s3://nosuch/up/", "--since", "2h", "--checkpoint", "s3://photos/cp.json"]
    err = refused(capsys, argv, 1, "s3://nosuch/up/: no such bucket")
    assert "--checkpoint" not in err


@pytest.mark.parametrize("value", ["1e308", "inf", "-inf", "nan", "-1", "281474976711", "x"])
@pytest.mark.parametrize("flag", ["--settle", "--overlap"])
def test_durations_out_of_range_are_refused_with_the_range(
    requests: list[str],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    flag: str,
    value: str,
) -> None:
    checkpoint = str(tmp_path / "cp.json")
    argv = ["ls", "s3://photos/up/", "--since", "2h", "--checkpoint", checkpoint]
    refused(capsys, [*argv, f"{flag}={value}"], 2, flag, ">= 0 and <= 281474976710")
    assert requests == [] and list(tmp_path.iterdir()) == []


def test_the_longest_duration_is_taken(
    requests: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    checkpoint = str(tmp_path / "cp.json")
    argv = ["ls", "s3://photos/up/", "--since", "2h", "--checkpoint", checkpoint]
    assert main([*argv, "--settle", "281474976710", "--overlap", "281474976710"]) == 0


def test_more_shards_than_a_query_may_call_is_refused_at_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An entity's shards are listed one Query each: 10**12 of them is refused before the
    list of them is made (it was built first, and the command never returned)."""
    argv = ["query", "--pk", "Org#{org}#{shard}", "--sk", "Post#{id}", "--field", "org=a"]
    refused(capsys, [*argv, "--since", "2h", "--shards", str(10**12), "--explain"], 2, "shards=")
    assert main([*argv, "--field", "shard=3", "--since", "2h", "--shards", str(10**12)]) == 2


class FullStdout(io.StringIO):
    """stdout on a full disk (``> /dev/full``)."""

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize(
    "argv",
    [
        ["new", "-n", "3"],
        ["range", "--since", "2h", "-o", "json"],
        ["ls", "s3://photos/up/", *WINDOW],
        ["survey", "s3://photos/up/"],
        ["schemes"],
    ],
)
def test_a_stdout_that_cannot_be_written_is_exit_1_with_one_line(
    requests: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
) -> None:
    monkeypatch.setattr("sys.stdout", FullStdout())
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err == f"ulidkeys {argv[0]}: cannot write the output: No space left on device\n"
    monkeypatch.setattr("sys.stdout", None)  # `>&-`: Python starts without a stdout
    assert main(argv) == 1
    assert (
        capsys.readouterr().err
        == f"ulidkeys {argv[0]}: cannot write the output: stdout is closed\n"
    )


def test_a_checkpoint_run_that_cannot_print_does_not_commit(
    requests: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """What was not printed is listed again next time: the checkpoint stays where it was."""
    checkpoint = tmp_path / "cp.json"
    argv = ["ls", "s3://photos/up/", "--since", "2024-05-17T08:00:00Z", "--checkpoint"]
    with monkeypatch.context() as patch:
        patch.setattr("sys.stdout", FullStdout())
        assert main([*argv, str(checkpoint), "--settle", "0"]) == 1
    assert not checkpoint.exists()
    capsys.readouterr()
    assert main([*argv, str(checkpoint), "--settle", "0"]) == 0
    assert capsys.readouterr().out.count("\n") == len(KEYS)


@pytest.mark.parametrize(
    ("stdin", "words"),
    [
        (None, "stdin, which is closed"),  # `<&-`: Python starts without a stdin
        (io.StringIO("x" * 5000), "stdin line 1 is longer than 4096 characters"),  # /dev/zero
        (io.TextIOWrapper(io.BytesIO(b"\xff\n"), encoding="utf-8"), "stdin is not UTF-8 text"),
    ],
)
def test_inspect_refuses_a_stdin_that_holds_no_ids(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, stdin: Any, words: str
) -> None:
    monkeypatch.setattr("sys.stdin", stdin)
    refused(capsys, ["inspect"], 2, words)


def test_inspect_reads_ids_up_to_the_longest_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ulid = str(ULID.new())
    padded = " " * (4096 - len(ulid)) + ulid  # the longest line read: an id after spaces
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{ulid}\n\n{padded}\r\n"))
    assert main(["inspect", "-o", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row["id"] for row in rows] == [ulid, ulid]
