"""Which config file applies, and reading it safely: the search from the working directory up
to the user's config, only a regular file of at most :data:`MAX_CONFIG_BYTES` read, UTF-8 text
and TOML (a byte order mark skipped). What the file declares is checked by
:mod:`ulidkeys.config.declarations`; users import all of it from :mod:`ulidkeys.config`.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any

from ulidkeys.errors import InvalidConfig

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 reads TOML with the backport
    import tomli as tomllib

#: The file names looked for in the working directory and its parents: a config of its own,
CONFIG_FILE = "ulidkeys.toml"
#: and a ``pyproject.toml`` that declares ``[tool.ulidkeys]``.
PYPROJECT = "pyproject.toml"
#: The largest config file read, in bytes (1 MiB): a config is a few KiB, and a bound keeps a
#: wrong ``--config`` (a log, a disk image) from being read into memory whole.
MAX_CONFIG_BYTES = 1024 * 1024


def user_config_path() -> Path:
    """``$XDG_CONFIG_HOME/ulidkeys/config.toml``, or ``~/.config/ulidkeys/config.toml``."""
    home = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(home) / "ulidkeys" / "config.toml"


def find(start: Path | None = None) -> Path | None:
    """The config file that applies in ``start`` (default: the working directory).

    The nearest ``ulidkeys.toml`` (whatever state it is in: :func:`load` reports what is wrong
    with it), or the nearest ``pyproject.toml`` that declares ``[tool.ulidkeys]`` or may (one
    that cannot be read, or is not valid TOML and mentions ``ulidkeys``, is an InvalidConfig
    naming it); else the user's config file; None if there is none.
    """
    try:
        folder = (start or Path.cwd()).resolve()
    except OSError as error:
        raise InvalidConfig(
            f"the working directory cannot be read ({error.strerror or error}); pass --config FILE"
        ) from None
    for directory in (folder, *folder.parents):
        own = directory / CONFIG_FILE
        if os.path.lexists(own):
            return own
        pyproject = directory / PYPROJECT
        if os.path.lexists(pyproject) and _declares_ours(pyproject):
            return pyproject
    user = user_config_path()
    return user if os.path.lexists(user) else None


def _declares_ours(path: Path) -> bool:
    """Whether a ``pyproject.toml`` declares ``[tool.ulidkeys]``; InvalidConfig naming it when
    it may and cannot be read or parsed (skipping it would use a farther config in silence)."""
    shown = shown_path(path)
    unsure = "; it may declare [tool.ulidkeys], so it is not skipped: fix it, or pass --config"
    try:
        raw = _read_bytes(path)
    except InvalidConfig as error:
        raise InvalidConfig(f"{error}{unsure}") from None
    if b"ulidkeys" not in raw and b"\\u" not in raw and b"\\U" not in raw:
        return False  # no TOML spelling of the key (bare, quoted or escaped): not ours
    try:
        data = toml_tables(shown, _decode(shown, raw))
    except InvalidConfig as error:
        raise InvalidConfig(f"{error}{unsure}") from None
    tool = data.get("tool")
    return isinstance(tool, dict) and "ulidkeys" in tool


def shown_path(path: Path) -> str:
    """A path as messages name it: as given, or quoted when it holds a line break or the like
    (an error is one line)."""
    text = str(path)
    return text if text.isprintable() else repr(text)


def _kind(mode: int) -> str:
    kinds = {
        stat.S_ISDIR: "a directory",
        stat.S_ISFIFO: "a FIFO (named pipe)",
        stat.S_ISCHR: "a character device",
        stat.S_ISBLK: "a block device",
        stat.S_ISSOCK: "a socket",
    }
    return next((name for test, name in kinds.items() if test(mode)), "not a regular file")


def _check_file(shown: str, status: os.stat_result) -> None:
    """A regular file of at most MAX_CONFIG_BYTES, or InvalidConfig saying what it is."""
    if not stat.S_ISREG(status.st_mode):
        raise InvalidConfig(
            f"{shown}: is {_kind(status.st_mode)}, not a config file (a regular TOML file)"
        )
    if status.st_size > MAX_CONFIG_BYTES:
        raise InvalidConfig(
            f"{shown}: is {status.st_size:,} bytes; a config file is at most "
            f"{MAX_CONFIG_BYTES:,} bytes (1 MiB)"
        )


def _read_bytes(path: Path) -> bytes:
    """The bytes of a config file: only a regular file is opened (a FIFO would block, a device
    never end), and at most MAX_CONFIG_BYTES are read."""
    shown = shown_path(path)
    try:
        _check_file(shown, os.stat(path))
        # O_NONBLOCK: a FIFO put in its place after the check opens without waiting for a
        # writer, and is then refused by the same check on the open file.
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
        descriptor = os.open(path, flags)
        with os.fdopen(descriptor, "rb") as file:
            _check_file(shown, os.fstat(file.fileno()))
            raw = file.read(MAX_CONFIG_BYTES + 1)
    except OSError as error:
        raise InvalidConfig(f"{shown}: cannot be read ({error.strerror or error})") from None
    if len(raw) > MAX_CONFIG_BYTES:  # it grew after the check
        raise InvalidConfig(f"{shown}: is more than {MAX_CONFIG_BYTES:,} bytes (1 MiB)")
    return raw


def _decode(shown: str, raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise InvalidConfig(
            f"{shown}: is not UTF-8 text (byte {raw[error.start]:#04x} on line {line}); a "
            "config file is TOML, which is UTF-8"
        ) from None


def read_text(path: Path) -> str:
    """The text of the config file at ``path``: a regular file of at most MAX_CONFIG_BYTES, in
    UTF-8; InvalidConfig naming the file otherwise."""
    shown = shown_path(path)
    return _decode(shown, _read_bytes(path))


def toml_tables(shown: str, text: str) -> dict[str, Any]:
    """TOML text as tables; a UTF-8 byte order mark (which Windows editors write) is skipped."""
    try:
        return tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as error:
        raise InvalidConfig(f"{shown}: not valid TOML: {error}") from None
    except RecursionError:  # tomllib parses nested arrays and inline tables recursively
        raise InvalidConfig(
            f"{shown}: arrays or inline tables are nested too deeply to read; a config file "
            "holds tables of plain values"
        ) from None
