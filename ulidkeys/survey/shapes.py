"""What the keys read under a prefix say about it: their shape (shard and period folders, the
id's scheme and direction, suffixes, keys that fit no shape) and the layout that shape implies.

Pure: the survey's program (:mod:`ulidkeys.survey.s3`) chooses what to read and hands the keys
here; counts are :mod:`ulidkeys.survey.counts`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ulidkeys.errors import UlidkeysError
from ulidkeys.ids.inspection import inspect
from ulidkeys.ids.protocol import IdScheme, inverted_time
from ulidkeys.ids.registry import REGISTRATIONS, scheme_named
from ulidkeys.planning.layout import KeyLayout
from ulidkeys.planning.periods import DAY_MS, LAYOUT_PERIODS, folder_at_start
from ulidkeys.timeinput import now_ms

_SHARD = re.compile(r"(\d{2,})/")
#: The level keys of the period folders layouts write: ``dt``, ``wk`` at the top, ``hr`` below.
_TOP_KEYS = "|".join(sorted({re.escape(p.top.key) for p in LAYOUT_PERIODS}))
_NESTED_KEYS = "|".join(sorted({re.escape(q.key) for p in LAYOUT_PERIODS for q in p.chain[1:]}))
#: Period folders in other spellings (``2023/05/``, ``year=2023/month=05/``, ``2023-05-17/``,
#: ``dt=20230517/``, ``dt=2023/``): recognised as periods, but no layout writes them.
_OTHER_PERIOD = re.compile(
    r"(?:(?:year=)?(?:19[7-9]\d|2\d{3})/(?:(?:month=)?\d{2}/)?(?:(?:day=)?\d{2}/)?"
    r"(?:(?:hour=)?\d{2}/)?|\d{4}-\d{2}(?:-\d{2})?/"
    rf"|(?:{_TOP_KEYS})=[^/]+/(?:(?:{_NESTED_KEYS})=[^/]+/)*)"
)
#: An id's time past this is read as a newest-first key (its time inverted): no real key is
#: stamped a century ahead.
_FUTURE_MS = 100 * 365 * DAY_MS
#: Keys that fit no shape shown as examples, at most.
MAX_EXAMPLES = 5
#: Time-sortable schemes ``inspect`` never guesses (it reads them only when named).
_NAMED_ONLY = tuple(
    r.scheme
    for r in REGISTRATIONS
    if not r.readings and r.scheme is not None and r.scheme.sorts_by_time
)


@dataclass(frozen=True)
class Shape:
    """The shape of a prefix's sampled keys.

    ``shards`` counts the shard folders (None: none; when not ``shards_known``, the fewest
    there are), ``period`` the Hive-style period folders (a period layouts write, such as
    ``"day"`` or ``"week"``; None),
    ``scheme`` the id scheme's registry name (None: no id of a known scheme), ``newest_first``
    whether the ids hold inverted times. ``suffixes`` counts the text after the id among the
    keys that fit; ``junk`` the keys that fit no shape, with a few ``examples``.

    A shape with ``placed`` False has ids at no place a layout puts them (period folders of
    another spelling, folders further down, shard folders not all seen, a scheme whose text
    does not sort): it has no layout, ``fitting`` counts the keys that end in an id of any
    scheme (:func:`id_at_end`), ``scheme`` names the most frequent, ``suffixes`` are theirs and
    ``junk`` the keys that hold no id.
    """

    prefix: str
    shards: int | None
    period: str | None
    scheme: str | None
    newest_first: bool
    suffixes: dict[str, int]
    fitting: int
    junk: int
    examples: tuple[str, ...]
    #: Other schemes the same keys fit as well (a 19-digit number is a Twitter, Discord or
    #: Instagram id alike; period folders tell them apart, a flat layout cannot).
    alternatives: tuple[str, ...] = ()
    #: Period folders of a spelling no layout writes (an example, ``'2023/05/'``); the keys
    #: then have no layout.
    other_period: str | None = None
    #: Keys that hold an id of the scheme but do not fit the layout (another shard count, a
    #: period folder that is not the id's): a layout that misses them is not suggested.
    unfit_ids: int = 0
    #: False when the shard folders were not all seen (a prefix read in part, its folders not
    #: listed): ``shards`` is then only the fewest there are, and no layout is given.
    shards_known: bool = True
    #: False when no layout puts the ids where they are (see above).
    placed: bool = True

    @property
    def suffix(self) -> str:
        """The layout's suffix: the one suffix every fitting key has, else none."""
        return next(iter(self.suffixes)) if len(self.suffixes) == 1 else ""

    def layout(self) -> KeyLayout | None:
        """The layout of this shape (None without a scheme, in period folders no layout writes,
        with a shard count not known, with ids no layout places, or when no key fits it)."""
        if self.scheme is None or self.other_period is not None:
            return None
        if not (self.shards_known and self.placed and self.fitting):
            return None
        return KeyLayout(
            self.prefix,
            shards=self.shards,
            period=self.period,
            suffix=self.suffix,
            scheme=scheme_named(self.scheme),
            newest_first=self.newest_first,
        )


def read_shape(prefix: str, keys: Sequence[str], shard_folders: Sequence[str] = ()) -> Shape:
    """The shape of ``keys`` (all under ``prefix``); ``shard_folders`` are the folder names a
    ``Delimiter='/'`` listing found right under the prefix (how many shards there are; without
    them, the shard folders among the keys)."""
    shard_width: Counter[int] = Counter()
    periods: Counter[str | None] = Counter()
    readings: Counter[str] = Counter()
    inverted: Counter[str] = Counter()  # per scheme: its keys whose time reads far ahead
    other: Counter[str] = Counter()  # period folders no layout writes
    step = max(1, len(keys) // MAX_READ)  # reading ids is slow: a spread of the keys tells
    for index, key in enumerate(keys):
        rest = key[len(prefix) :]
        found = _SHARD.match(rest)
        if found is not None:
            shard_width[len(found[1])] += 1
        after_other = _other_period(rest, other)
        if found is not None:
            after_other = after_other or _other_period(rest[found.end() :], other)
            rest = rest[found.end() :]
        size, rest = _period_of(rest)
        periods[size] += 1
        if index % step:
            continue
        for name, backwards in id_readings(rest) or id_readings(after_other or ""):
            readings[name] += 1
            inverted[name] += backwards
    numbered = sorted({*shard_folders, *_shard_folders(prefix, keys)})
    numbered = [name for name in numbered if _SHARD.fullmatch(name)]
    shards = None
    if shard_width and shard_width.most_common(1)[0][1] * 2 > len(keys) and numbered:
        shards = max(len(numbered), max(int(n[:-1]) for n in numbered) + 1)
    period = periods.most_common(1)[0][0] if periods else None
    if shards is not None and readings:
        shards = _shard_count(prefix, keys, shards, period, readings.most_common(1)[0][0])
    if not readings:
        return _fitted(prefix, keys, shards, period, None, False)
    if sum(other.values()) * 2 > len(keys):  # years or months as folders: not shards
        shards = None
    # every scheme the ids read as, most readings first (then inspect's order); each scheme's
    # direction from its own readings (junk that reads as another scheme does not vote); the
    # one most keys fit with the folders found wins; the ones that fit as many are alternatives
    shapes = [
        _fitted(prefix, keys, shards, period, name, inverted[name] * 2 > count and period is None)
        for name, count in readings.most_common()
    ]
    best = max(shapes, key=lambda shape: shape.fitting)  # the first of the best (stable)
    # most keys sit in period folders of a spelling no layout writes (``2023/05/``)
    if best.fitting * 2 <= len(keys) and sum(other.values()) * 2 > len(keys):
        example = other.most_common(1)[0][0]
        scheme = readings.most_common(1)[0][0]
        return replace(best, shards=None, period=None, scheme=scheme, other_period=example)
    alternatives = tuple(
        shape.scheme
        for shape in shapes
        if shape is not best and shape.scheme and shape.fitting == best.fitting
    )
    return replace(best, alternatives=alternatives) if best.fitting else shapes[0]


#: Keys whose ids are read to find the schemes, at most (spread over the keys read).
MAX_READ = 2_000


#: Shard counts tried past the highest shard folder seen (a shard may hold no key yet).
MAX_SHARD_TRIES = 128
#: Keys the shard counts are tried on.
SHARD_PROBE_KEYS = 400


def _shard_count(
    prefix: str, keys: Sequence[str], least: int, period: str | None, scheme: str
) -> int:
    """The fewest shards, from ``least`` on, that every probed key's folder fits (an id's shard
    is its random bits modulo the count: a shard with no key yet leaves the count open)."""
    step = max(1, len(keys) // SHARD_PROBE_KEYS)
    probe = keys[::step]
    width = max(2, len(str(least - 1)))  # the folders' width (KeyLayout writes 2 at least)
    for count in range(least, min(10**width, least + MAX_SHARD_TRIES)):
        try:
            layout = KeyLayout(prefix, shards=count, period=period, scheme=scheme_named(scheme))
        except UlidkeysError:
            return least
        if all(layout.split(key)[3] is None or not _holds_id(layout.scheme, key) for key in probe):
            return count
    return least


def _period_of(rest: str) -> tuple[str | None, str]:
    """The period folder a layout writes at the start of ``rest`` (its period's name) and the
    text after it."""
    found = folder_at_start(rest)
    return (None, rest) if found is None else (found[0].size, rest[found[1] :])


def _other_period(rest: str, seen: Counter[str]) -> str | None:
    """The text after period folders of another spelling at the start of ``rest`` (counted in
    ``seen``), None when there are none."""
    if _period_of(rest)[0] is not None:
        return None
    folders = _OTHER_PERIOD.match(rest)
    if folders is None:
        return None
    seen[folders[0]] += 1
    return rest[folders.end() :]


def _shard_folders(prefix: str, keys: Sequence[str]) -> set[str]:
    """The first folder of each key under ``prefix``."""
    found = set()
    for key in keys:
        folder, slash, _ = key[len(prefix) :].partition("/")
        if slash:
            found.add(folder + "/")
    return found


def id_readings(rest: str) -> list[tuple[str, bool]]:
    """``(scheme name, inverted)`` of every reading of the id at the start of ``rest`` (the
    text before any dot), in ``inspect``'s order."""
    stem = rest.partition(".")[0]
    if not stem or "/" in stem:
        return []
    late = now_ms() + _FUTURE_MS
    try:
        readings = [
            (reading.scheme, reading.timestamp_ms is not None and reading.timestamp_ms > late)
            for reading in inspect(stem).candidates
        ]
    except UlidkeysError:
        readings = []
    # schemes inspect reads only when told (Sonyflake: any number would be one), last
    for scheme in _NAMED_ONLY:
        try:
            if scheme.parse(stem) == stem:
                readings.append((scheme.name, scheme.timestamp_ms(stem) > late))
        except UlidkeysError:
            continue
    return readings


def _fitted(
    prefix: str,
    keys: Sequence[str],
    shards: int | None,
    period: str | None,
    scheme: str | None,
    newest_first: bool,
) -> Shape:
    """The shape, with the keys that fit counted by the layout's own test (``split``)."""
    suffixes: Counter[str] = Counter()
    junk: list[str] = []
    layout = None
    if scheme is not None:
        try:
            layout = KeyLayout(
                prefix,
                shards=shards,
                period=period,
                scheme=scheme_named(scheme),
                newest_first=newest_first,
            )
        except UlidkeysError:  # e.g. a scheme whose text does not sort: no layout
            layout = None
    unfit_ids = 0
    for key in keys:
        found = layout.split(key) if layout is not None else None
        if found is None or found[3] is not None:
            junk.append(key)
            unfit_ids += layout is not None and _holds_id(layout.scheme, key)
        else:
            suffixes[found[1]] += 1
    fitting = sum(suffixes.values())
    return Shape(
        prefix,
        shards,
        period,
        scheme if layout is not None else None,
        newest_first,
        dict(suffixes.most_common()),
        fitting,
        len(junk),
        tuple(junk[:MAX_EXAMPLES]),
        unfit_ids=unfit_ids,
    )


def _holds_id(scheme: IdScheme, key: str) -> bool:
    """Whether the last part of ``key`` (before any dot) is the canonical text of an id."""
    stem = key.rpartition("/")[2].partition(".")[0]
    try:
        return len(stem) == scheme.length and scheme.parse(stem) == stem
    except UlidkeysError:
        return False


def fitting_keys(layout: KeyLayout, keys: Iterable[str]) -> list[tuple[str, int]]:
    """``(key, real time)`` of each of ``keys`` that fits the layout, in their order (the
    engine's test of a listed key, :meth:`KeyLayout.locator`: a folder's text computed once,
    not once a key)."""
    locate = layout.locator()
    return [(key, found[1]) for key in keys if (found := locate(key)) is not None]


def canonical_scheme(text: str) -> str | None:
    """The scheme whose canonical text ``text`` is (its first reading), else None: a number
    such as ``2024`` is not a 19-digit Snowflake's text, nor lower-case text a ULID's."""
    if len(text) < 10:
        return None
    for name, _backwards in id_readings(text):
        if _is_text_of(name, text):
            return name
    return None


def _is_text_of(name: str, text: str) -> bool:
    try:
        return scheme_named(name, text).parse(text) == text
    except UlidkeysError:
        return False


def id_at_end(key: str, prefer: str | None = None) -> tuple[str, int | None] | None:
    """``(scheme, time)`` of the id ``key`` ends in - the canonical text of an id of any
    scheme as the last part of its name (after any ``/``, before any dot), ``prefer``'s
    reading first - else None. The time is the id's as written (None for an id without one):
    :func:`ids_at_end` turns those of newest-first keys back."""
    stem = key.rpartition("/")[2].partition(".")[0]
    name = prefer if prefer is not None and _is_text_of(prefer, stem) else canonical_scheme(stem)
    if name is None:
        return None
    try:
        return name, scheme_named(name, stem).timestamp_ms(stem)
    except UlidkeysError:  # UUIDv4, tickets: an id without a time
        return name, None


def ids_at_end(
    keys: Sequence[str], prefer: str | None = None, inverted: str | None = None
) -> list[tuple[str, int | None] | None]:
    """:func:`id_at_end` of each of ``keys`` (the scheme last found tried first), the times of
    the ids of scheme ``inverted`` (newest-first keys) turned back."""
    found: list[tuple[str, int | None] | None] = []
    turned = None if inverted is None else scheme_named(inverted)
    for key in keys:
        at_end = id_at_end(key, prefer)
        if at_end is not None:
            prefer = at_end[0]  # keys of one prefix mostly hold ids of one scheme
            if turned is not None and at_end[0] == inverted and at_end[1] is not None:
                at_end = (at_end[0], inverted_time(turned, at_end[1]))
        found.append(at_end)
    return found


def unplaced(shape: Shape, keys: Sequence[str]) -> tuple[Shape, list[int | None]]:
    """``shape`` (which has no layout) counted by the ids its keys end in (see
    :class:`Shape`), and the time of each key that ends in one (None: an id without a time)."""
    suffixes: Counter[str] = Counter()
    schemes: Counter[str] = Counter()
    junk: list[str] = []
    times: list[int | None] = []
    inverted = shape.scheme if shape.newest_first else None  # as the shape's ids were read
    for key, at_end in zip(keys, ids_at_end(keys, shape.scheme, inverted), strict=True):
        if at_end is None:
            junk.append(key)
            continue
        schemes[at_end[0]] += 1
        times.append(at_end[1])
        last = key.rpartition("/")[2]
        suffixes[last[last.find(".") :] if "." in last else ""] += 1
    return replace(
        shape,
        scheme=shape.scheme or (schemes.most_common(1)[0][0] if schemes else None),
        suffixes=dict(suffixes.most_common()),
        fitting=len(times),
        junk=len(junk),
        examples=tuple(junk[:MAX_EXAMPLES]),
        alternatives=(),
        unfit_ids=0,
        placed=False,
    ), times
