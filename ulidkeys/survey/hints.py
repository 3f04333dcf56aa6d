"""What the keys under a prefix look like, when a listing found nothing or skipped keys as not
fitting the layout: a few bounded ``ListObjectsV2`` calls (folders with ``Delimiter='/'``, then a
handful of keys) read the shard and period folders, the id's scheme and the suffix, and say which
flags would fit. The full version of this look is the survey (issue 19).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ulidkeys.errors import UlidkeysError
from ulidkeys.ids.inspection import inspect
from ulidkeys.planning.layout import KeyLayout
from ulidkeys.planning.periods import LAYOUT_PERIODS, Period, level_periods
from ulidkeys.survey.sortkeyshapes import sort_key_shapes

#: Keys whose ids are read to find the folders that hold ids, at most.
MAX_READ = 500
#: At most this many calls for one hint.
MAX_CALLS = 4
_SHARD = re.compile(r"\d{2,}/")

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
    #: The folder under the prefix that holds the ids, when they sit further down
    #: (``uploads/`` for a look at a bucket's root).
    deeper: str | None = None

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

    path, shards = prefix, None
    folders, keys = folders_of(path)
    names = [folder[len(path) :] for folder in folders]
    if names and all(_SHARD.fullmatch(name) for name in names):
        shards = len(names)
        path = folders[0]
        folders, keys = folders_of(path)
        names = [folder[len(path) :] for folder in folders]
    # down the period folder levels, from the top: the newest folder of each level
    level: Period | None = None
    while names and calls < MAX_CALLS:
        depth = 0 if level is None else len(level.chain)
        levels = level_periods(depth, level)
        deeper = next((p for p in levels if all(map(p.level_pattern.fullmatch, names))), None)
        if deeper is None:
            break
        level, path = deeper, folders[-1]
        folders, keys = folders_of(path)
        names = [folder[len(path) :] for folder in folders]
    period = level.size if level is not None and level in LAYOUT_PERIODS else None
    if not keys:
        if calls >= MAX_CALLS:
            return None
        calls += 1
        _, keys = lister(path, None, 5)
        if not keys:
            return None
    found = _shape(keys[0][len(path) :], path, shards, period, calls)
    if found.scheme is None and found.deeper is None and folders and calls < MAX_CALLS:
        # keys here hold no id (a README at a bucket's root): the ids may be in the folders
        _, below = lister(path, None, 20)
        for key in below:
            if _id_folder(path, key) is not None:
                return _shape(key[len(path) :], path, shards, period, calls + 1)
    return found


def _shape(rest: str, path: str, shards: int | None, period: str | None, calls: int) -> Look:
    """The id and suffix of the part of a key after its folders."""
    stem, dot, extension = rest.partition(".")
    if "/" in rest:  # more folders below: the id is not directly here, maybe further down
        deeper = _id_folder(path, path + rest)
        example = path + rest
        if deeper is not None:
            last = rest.rpartition("/")[2]
            stem, dot, extension = last.partition(".")
            example = (
                f"{path + rest[: len(rest) - len(last)]}<{inspect(stem).scheme}>{dot}{extension}"
            )
        return Look(example, shards, period, None, "", calls, deeper)
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
    if found.deeper is not None:
        below = location + found.deeper[len(layout.prefix) :]
        return (
            f"keys under {location} look like {found.example}: the ids sit further down; "
            f"list or survey {below}"
        )
    if found.scheme is None:
        return f"keys under {location} look like {found.example}: no id of a known scheme there"
    if not flags:
        return None
    return f"keys under {location} look like {found.example}: try {' '.join(flags)}"


def _id_folder(prefix: str, key: str) -> str | None:
    """The folder right under ``prefix`` that ``key`` is in, when the last part of ``key``
    (before any dot) is an id: where a look from a bucket's root should point."""
    rest = key[len(prefix) :]
    folder, slash, _ = rest.partition("/")
    stem = rest.rpartition("/")[2].partition(".")[0]
    if not slash or not stem:
        return None
    try:
        inspect(stem)
    except UlidkeysError:
        return None
    return prefix + folder + "/"


def id_folders(prefix: str, keys: Sequence[str], most: int = 3) -> list[str]:
    """The folders right under ``prefix`` whose keys (a spread of at most :data:`MAX_READ` of
    ``keys``) end in an id, most such keys first: where ids sit one or more folders down."""
    step = max(1, len(keys) // MAX_READ)
    found: Counter[str] = Counter()
    for key in keys[::step]:
        folder = _id_folder(prefix, key)
        if folder is not None:
            found[folder] += 1
    return [folder for folder, _ in found.most_common(most)]


def deeper_note(location: str, prefix: str, keys: Sequence[str]) -> str | None:
    """The survey's note when no layout fits at ``location`` but ids sit in folders under it
    (a survey at a bucket's root of keys in ``uploads/``): which to survey instead."""
    folders = id_folders(prefix, keys)
    if not folders:
        return None
    named = ", ".join(location + folder[len(prefix) :] for folder in folders)
    return f"ids sit in folders under this prefix: survey or list {named}"


def sort_key_hint(partition: str, keys: Sequence[str], scheme: str, separator: str = "#") -> str:
    """One line for stderr after a query that found nothing: what the sort keys of its
    partition look like (``keys``, a few read) and the ``--scheme`` that would read them."""
    if not keys:
        return f"partition {partition!r} holds no items: check --pk and --field"
    shapes = sort_key_shapes(keys, separator)
    first = shapes[0]
    example = first.template.replace("{id}", f"<{first.scheme}>") if first.scheme else keys[0]
    said = f"sort keys in partition {partition!r} look like {example}"
    if first.scheme is None:
        return f"{said}: no id of a known scheme there"
    if first.scheme != scheme:
        return f"{said}: try --scheme {first.scheme}"
    return f"{said}: the window holds none of them (check --since and --until)"
