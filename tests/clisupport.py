"""Shared helpers for the command-line tests (tests/ is on sys.path through its conftest): the
CLI run in-process with argparse's own exits as statuses, and the check of a refusal."""

from __future__ import annotations

import pytest

from ulidkeys.cli import main


def run(argv: list[str]) -> int:
    """``ulidkeys ARGV``'s exit status, in this process (argparse's refusals included)."""
    try:
        return main(argv)
    except SystemExit as exited:  # argparse's own refusal
        return int(str(exited.code))


def refused(capsys: pytest.CaptureFixture[str], argv: list[str], *words: str) -> str:
    """``argv`` exits 2 with one line on stderr holding ``words``, and prints nothing."""
    status = run(argv)
    out, err = capsys.readouterr()
    assert status == 2, err
    assert out == "" and err.count("\n") == 1, err
    assert "Traceback" not in err and "please report" not in err, err
    assert all(word in err for word in words), err
    return err
