"""Named key layouts and entities in a config file, so a layout is declared once, not on every
command: ``ulidkeys ls photos --since 2h`` and ``ulidkeys.config.load().bucket("photos", s3)``.

Found like other tools find theirs: ``--config FILE``; else ``ulidkeys.toml`` or a
``pyproject.toml`` with ``[tool.ulidkeys]`` in the working directory or the nearest parent; else
the user's ``$XDG_CONFIG_HOME/ulidkeys/config.toml`` (``~/.config/...``). The file found is the
file used: one that cannot be read is reported, never skipped for a farther one (a broken
``pyproject.toml`` is skipped only when its text cannot declare ``[tool.ulidkeys]``). Only a
regular file of at most 1 MiB is read, so ``--config /dev/zero`` or a FIFO is
refused, not read until memory runs out or waited on. Every mistake (unknown key, wrong type, a
name no command could use, a layout that contradicts itself) is an
:class:`~ulidkeys.errors.InvalidConfig` of one line naming the file and the dotted path of the
table or key as the file spells it (``[tool.ulidkeys.layouts.p]`` in a pyproject), with the fix.

The file is found and read by :mod:`ulidkeys.config.files` and its declarations are checked by
:mod:`ulidkeys.config.declarations`; this module is where users import all of it from:

- :func:`load` (the file found, or the one named) and :func:`parse` (a config's text): a
  :class:`Config`, whose ``layout(name)`` and ``entity(name)`` are a :class:`NamedLayout` (its
  bucket and ``KeyLayout``, ``.bucket(client)``) and a :class:`NamedEntity` (its table and
  ``Entity``, ``.table(client)``); ``collection(name)`` a :class:`NamedCollection` (entities
  of one partition read together: its table and ``Collection``, ``.table(client)``).
"""

from __future__ import annotations

import os
from pathlib import Path

from ulidkeys.config.declarations import (
    Config,
    NamedCollection,
    NamedEntity,
    NamedLayout,
    parse,
)
from ulidkeys.config.files import find, read_text
from ulidkeys.errors import InvalidConfig, InvalidType, describe

__all__ = ["Config", "NamedCollection", "NamedEntity", "NamedLayout", "load", "parse"]


def load(path: str | os.PathLike[str] | None = None) -> Config:
    """The config at ``path``, or the one found as the CLI finds it (``ulidkeys.toml`` or a
    ``pyproject.toml`` here or above, then the user's): an empty Config if there is none."""
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise InvalidType(
            f"path={describe(path)} must be a str or a path, not {type(path).__name__}"
        )
    if path is not None and not os.fspath(path):  # Path("") would be ".", "is a directory"
        raise InvalidConfig(
            "the config path is empty: name a config file (e.g. ulidkeys.toml), or give none "
            "to use the one found here or above"
        )
    chosen = Path(path) if path is not None else find()
    if chosen is None:
        return Config()
    return parse(read_text(chosen), chosen)
