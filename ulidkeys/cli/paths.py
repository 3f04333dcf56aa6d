"""The local files a command writes (``--manifest``, ``--plot``, ``--checkpoint``): checked
before the first request, so a path that cannot be written fails at once as one line (exit 2)
instead of after the calls are spent, and written atomically (a temporary file in the same
folder, renamed over the target when complete), so a failure leaves neither a half-written
file that looks whole nor a temporary one behind.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from ulidkeys.errors import InvalidValue, folder_problem


class WriteFailed(Exception):
    """A checked file could not be written after all (a full disk, the folder removed
    meanwhile): exit 1 with this one line, and the target is as it was."""


def _check(path: str, flag: str, what: str) -> Path:
    """``path`` resolved through symlinks (what is written is the file it names), or
    InvalidValue naming the flag, the path and the problem."""
    if not path:
        raise InvalidValue(f"{flag} '' names no file: give a path, e.g. {flag} {what}")
    if "\0" in path:  # no file name holds one (os.path raises a bare ValueError)
        raise InvalidValue(f"{flag} {path!r} holds a NUL character, which no file name can")
    control = next((char for char in path if unicodedata.category(char) == "Cc"), None)
    if control is not None:  # a line break pasted with the path, most likely: a name holding
        # one is legal, but every report naming the file would break into lines (or, for an
        # escape, drive the terminal), so it is refused as a mistake, like the NUL
        raise InvalidValue(
            f"{flag} {path!r} holds the control character {control!r}, most likely pasted "
            "with it: retype the path"
        )
    target = Path(os.path.realpath(path))
    if target.is_dir():
        raise InvalidValue(f"{flag} {path!r} is a folder: name a file, e.g. {path}/{what}")
    if target.exists() and not target.is_file():
        raise InvalidValue(
            f"{flag} {path!r} is not a regular file (a device, a pipe or a socket): "
            "name a file to write"
        )
    problem = folder_problem(target.parent)
    if problem is not None:
        raise InvalidValue(f"{flag} {path!r}: {problem}")
    return target


def output_file(path: str, flag: str, example: str) -> Path:
    """The file ``flag`` writes (replaced when it exists): refused now if it could not be
    made, with ``example`` (a file name) in the message's suggestion."""
    return _check(path, flag, example)


def checkpoint_file(path: str, flag: str = "--checkpoint") -> Path:
    """A local checkpoint file: it and its ``.lock`` are made in its folder, and an existing
    one is read first, so the folder must take new files and the file must be readable."""
    target = _check(path, flag, "checkpoint.json")
    if target.exists() and not os.access(target, os.R_OK):
        raise InvalidValue(f"{flag} {path!r}: no permission to read it")
    return target


def _mode_for(target: Path) -> int:
    """The permission bits of the file written: the replaced file's, else what ``open``
    would give a new file (0o666 less the umask) - not ``mkstemp``'s private 0o600."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


class _File:
    """The temporary file as the block sees it: its own write errors (a full disk) become
    :class:`WriteFailed`; errors of whatever feeds it (the listing) pass as they are."""

    def __init__(self, out: IO[Any], failed: Any) -> None:
        self._out, self._failed = out, failed

    def write(self, data: Any) -> int:
        try:
            return int(self._out.write(data))
        except OSError as error:
            raise self._failed(error) from error

    def __getattr__(self, name: str) -> Any:  # tell, seek, flush...: the file's
        return getattr(self._out, name)


@contextlib.contextmanager
def atomic_file(target: Path, flag: str, *, binary: bool = False) -> Iterator[IO[Any]]:
    """An open temporary file next to ``target`` (text UTF-8, or ``binary``), renamed over
    ``target`` when the block ends well; removed, and ``target`` untouched, when it does not.
    An ``OSError`` of the file itself becomes :class:`WriteFailed` naming ``flag``."""

    def failed(error: OSError) -> WriteFailed:
        reason = error.strerror or str(error)
        return WriteFailed(f"{flag} {str(target)!r}: cannot write it: {reason}")

    try:
        handle, temp = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=".part", dir=target.parent
        )
    except OSError as error:
        raise failed(error) from error
    out: IO[Any] = (
        os.fdopen(handle, "wb") if binary else os.fdopen(handle, "w", encoding="utf-8", newline="")
    )
    try:
        yield _File(out, failed)  # type: ignore[misc]
        try:  # what stays buffered is written here and at close: its errors are the file's
            out.flush()
            os.fsync(out.fileno())
            out.close()
            os.chmod(temp, _mode_for(target))
            os.replace(temp, target)  # readers see the old file or the whole new one
        except OSError as error:
            raise failed(error) from error
    except BaseException:
        with contextlib.suppress(OSError):
            out.close()  # closes the descriptor even when the last flush fails
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
