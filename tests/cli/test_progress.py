"""Progress on stderr: drawn only on a terminal and only for long work, rich or plain."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

import boto3
import pytest
from moto import mock_aws

from ulidkeys import ULID
from ulidkeys.cli import main
from ulidkeys.cli.progress import Progress, track
from ulidkeys.s3 import KeyLayout


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def ticking(step: float) -> Iterator[float]:
    now = 0.0
    while True:
        yield now
        now += step


@pytest.mark.parametrize("plain", [True, False])
def test_progress_is_drawn_on_a_terminal_and_cleared(plain: bool) -> None:
    stream, clock = Terminal(), ticking(0.2)
    items = list(range(20))
    seen = track(items, "objects", lambda: (7, 3), stream=stream, plain=plain, clock=clock.__next__)
    assert list(seen) == items  # every item passes through unchanged
    drawn = stream.getvalue()
    assert "7 objects, 3 calls" in drawn and "objects/s" in drawn
    if plain:
        assert drawn.endswith("\r") and "s\r" in drawn  # elapsed seconds, then cleared


def test_no_progress_off_a_terminal_or_for_short_work() -> None:
    piped = io.StringIO()
    assert list(track(range(50), "items", lambda: (1, 1), stream=piped)) == list(range(50))
    assert piped.getvalue() == ""
    quick, clock = Terminal(), ticking(0.001)  # all done within SHOW_AFTER_S
    list(track(range(50), "items", lambda: (1, 1), stream=quick, clock=clock.__next__))
    assert quick.getvalue() == ""


def test_ls_progress_goes_to_stderr_only(
    aws_credentials: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("ulidkeys.cli.progress.SHOW_AFTER_S", 0.0)
    monkeypatch.setattr("ulidkeys.cli.progress.EVERY_S", 0.0)
    layout = KeyLayout("uploads/")
    with mock_aws():
        s3 = boto3.client("s3")
        s3.create_bucket(Bucket="photos")
        keys = [layout.key_for(ULID.new(at=1_715_936_400_000 + i)) for i in range(5)]
        for key in keys:
            s3.put_object(Bucket="photos", Key=key, Body=b"")
        for plain in (True, False):
            monkeypatch.setattr("ulidkeys.cli.progress.Progress", None if plain else Progress)
            terminal = Terminal()
            monkeypatch.setattr("sys.stderr", terminal)  # stderr a terminal, stdout a pipe
            assert main(["ls", "s3://photos/uploads/", "--since", "0", "-o", "jsonl"]) == 0
            out = capsys.readouterr().out
            assert [json.loads(line)["Key"] for line in out.splitlines()] == sorted(keys)
            assert "objects/s" in terminal.getvalue() and "5 objects" in terminal.getvalue()
