"""What the keys under a prefix look like, when a listing found nothing or skipped keys as not
fitting the layout: a few bounded ``ListObjectsV2`` calls (folders with ``Delimiter='/'``, then a
handful of keys) read the shard and period folders, the id's scheme and the suffix, and say which
flags would fit. The full version of this look is the survey (issue 19).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ulidkeys.errors import UlidkeysError
from ulidkeys.ids.inspection import inspect
from ulidkeys.planning.layout import KeyLayout

#: At most this many calls for one hint.
MAX_CALLS = 4
_SHARD = re.compile(r"\d{2,}/")
_DAY = re.compile(r"dt=\d{4}-\d{2}-\d{2}/")
_HOUR = re.compile(r"hr=\d{2}/")

#: ``(prefix, delimiter, max_keys)`` -> ``(folders, keys)``: one ListObjectsV2 call.
Lister = Callable[[str, str | None, int], tuple[list[str], list[str]]]


@dataclass(frozen=True)
class Look:
    """What the keys under a prefix look like."""

    example: str  # one key, its id replaced by <SCHEME>
    shards: int | None
    period: str | None
    scheme: str | None
    suffix: str
    calls: int

    def flags(self, layout: KeyLayout) -> list[str]:
        """The ``ls`` flags that would make ``layout`` fit these keys (none: it fits)."""
        wanted: list[str] = []
        if (self.shards or 0) != (layout.shards or 0):
            wanted += ["--shards", str(self.shards or 0)]
        if self.period != (layout.partition.size if layout.partition else None):
            wanted += ["--period", self.period] if self.period else ["without --period"]
        if self.scheme is not None and self.scheme != layout.scheme.name:
            wanted += ["--scheme", self.scheme]
        if self.suffix != layout.suffix and layout.suffix:
            wanted += ["--suffix", self.suffix] if self.suffix else ["without --suffix"]
        return wanted


def look(prefix: str, lister: Lister) -> Look | None:
    """Read the shape of the keys under ``prefix`` in at most :data:`MAX_CALLS` calls; None when
    nothing is there."""
    calls = 0

    def folders_of(path: str) -> tuple[list[str], list[str]]:
        nonlocal calls
        calls += 1
        return lister(path, "/", 100)

    path, shards, period = prefix, None, None
    folders, keys = folders_of(path)
    names = [folder[len(path) :] for folder in folders]
    if names and all(_SHARD.fullmatch(name) for name in names):
        shards = len(names)
        path = folders[0]
        folders, keys = folders_of(path)
        names = [folder[len(path) :] for folder in folders]
    if names and all(_DAY.fullmatch(name) for name in names):
        period, path = "day", folders[-1]
        folders, keys = folders_of(path)
        names = [folder[len(path) :] for folder in folders]
        if names and all(_HOUR.fullmatch(name) for name in names):
            period, path = "hour", folders[-1]
            folders, keys = folders_of(path)
    if not keys:
        if calls >= MAX_CALLS:
            return None
        calls += 1
        _, keys = lister(path, None, 5)
        if not keys:
            return None
    return _shape(keys[0][len(path) :], path, shards, period, calls)


def _shape(rest: str, path: str, shards: int | None, period: str | None, calls: int) -> Look:
    """The id and suffix of the part of a key after its folders."""
    stem, dot, extension = rest.partition(".")
    if "/" in rest:  # more folders below: the id is not directly here
        return Look(path + rest, shards, period, None, "", calls)
    try:
        scheme = inspect(stem).scheme
    except UlidkeysError:
        return Look(path + rest, shards, period, None, "", calls)
    suffix = dot + extension
    return Look(f"{path}<{scheme}>{suffix}", shards, period, scheme, suffix, calls)


def hint(location: str, found: Look | None, layout: KeyLayout) -> str | None:
    """One line for stderr: what the keys look like and which flags would fit them."""
    if found is None:
        return f"nothing is stored under {location}: is the prefix right?"
    flags = found.flags(layout)
    if found.scheme is None:
        return f"keys under {location} look like {found.example}: no id of a known scheme there"
    if not flags:
        return None
    return f"keys under {location} look like {found.example}: try {' '.join(flags)}"
