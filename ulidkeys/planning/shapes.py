"""What sampled keys say about a prefix: their shape (shard and period folders, the id's scheme,
suffixes, keys that fit no shape), the layout that shape implies, and the arithmetic of
estimates from sampled pages (key rates with their ranges, a histogram, the cost of windows).

Pure: the survey's program (:mod:`ulidkeys.survey`) chooses what to read and hands the pages
here.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ulidkeys.errors import UlidkeysError
from ulidkeys.ids.inspection import inspect
from ulidkeys.ids.protocol import IdScheme
from ulidkeys.ids.registry import REGISTRATIONS, scheme_named
from ulidkeys.planning.layout import KeyLayout
from ulidkeys.planning.listings import MAX_KEYS, plan_window
from ulidkeys.planning.partitions import DAY_MS, HOUR_MS
from ulidkeys.timeinput import now_ms

_SHARD = re.compile(r"(\d{2,})/")
#: The Hive period folders a layout writes (``Period.folder``), longest first.
_PERIODS = (
    ("hour", re.compile(r"dt=\d{4}-\d{2}-\d{2}/hr=\d{2}/")),
    ("day", re.compile(r"dt=\d{4}-\d{2}-\d{2}/")),
    ("month", re.compile(r"dt=\d{4}-\d{2}/")),
    ("year", re.compile(r"dt=\d{4}/")),
)
#: Period folders in other spellings (``2023/05/``, ``year=2023/month=05/``, ``2023-05-17/``,
#: ``dt=20230517/``): recognised as periods, but no layout writes them.
_OTHER_PERIOD = re.compile(
    r"(?:(?:year=)?(?:19[7-9]\d|2\d{3})/(?:(?:month=)?\d{2}/)?(?:(?:day=)?\d{2}/)?"
    r"(?:(?:hour=)?\d{2}/)?|\d{4}-\d{2}(?:-\d{2})?/|dt=[^/]+/(?:hr=[^/]+/)?)"
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

    ``shards`` counts the shard folders (None: none), ``period`` the Hive-style period folders
    (``"day"``, ``"hour"``, None), ``scheme`` the id scheme's registry name (None: no id of a
    known scheme), ``newest_first`` whether the ids hold inverted times. ``suffixes`` counts
    the text after the id among the keys that fit; ``junk`` the keys that fit no shape, with a
    few ``examples``.
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

    @property
    def suffix(self) -> str:
        """The layout's suffix: the one suffix every fitting key has, else none."""
        return next(iter(self.suffixes)) if len(self.suffixes) == 1 else ""

    def layout(self) -> KeyLayout | None:
        """The layout of this shape (None without a scheme, or in period folders no layout
        writes)."""
        if self.scheme is None or self.other_period is not None:
            return None
        return KeyLayout(
            self.prefix,
            shards=self.shards,
            period=self.period,  # type: ignore[arg-type]
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
        for name, backwards in _id_readings(rest) or _id_readings(after_other or ""):
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
            layout = KeyLayout(prefix, shards=count, period=period, scheme=scheme_named(scheme))  # type: ignore[arg-type]
        except UlidkeysError:
            return least
        if all(layout.split(key)[3] is None or not _holds_id(layout.scheme, key) for key in probe):
            return count
    return least


def _period_of(rest: str) -> tuple[str | None, str]:
    """The Hive period folder at the start of ``rest`` (its size) and the text after it."""
    for size, pattern in _PERIODS:
        folder = pattern.match(rest)
        if folder is not None:
            return size, rest[folder.end() :]
    return None, rest


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


def _id_readings(rest: str) -> list[tuple[str, bool]]:
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
                period=period,  # type: ignore[arg-type]
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


def key_time(layout: KeyLayout, key: str) -> int | None:
    """The real time of a key of the layout (None when it does not fit)."""
    _id, _suffix, ms, reason = layout.split(key)
    return None if reason is not None else ms


# --- counts: exact, bounded, or unknown ------------------------------------------------------

#: Standard deviations of a scaled count's range: 4.42 leaves about one chance in 100,000 that
#: the truth lies outside it.
SIGMAS = 4.42
#: The probability that a scaled count's range holds the truth (what :data:`SIGMAS` gives).
CONFIDENCE = 0.99999


@dataclass(frozen=True)
class Count:
    """How many, as honestly as the calls made allow: ``low`` is sure (the truth is never
    below it), ``high`` the top of the range - equal to ``low`` when the count is exact, None
    when nothing the survey read bounds it (unknown). A range that is not certain says so
    with ``confidence`` (the probability that it holds the truth)."""

    low: float
    high: float | None
    confidence: float = 1.0

    @classmethod
    def exactly(cls, count: float) -> Count:
        """A count known exactly."""
        return cls(count, count)

    @classmethod
    def unknown(cls, at_least: float = 0) -> Count:
        """A count the calls made cannot bound above: at least ``at_least``."""
        return cls(at_least, None)

    @property
    def exact(self) -> bool:
        """True when the count is known exactly."""
        return self.high == self.low and self.confidence == 1.0

    @property
    def known(self) -> bool:
        """False when the count is unknown (no upper bound)."""
        return self.high is not None

    @property
    def value(self) -> float | None:
        """The count when exact, the middle of a range, None when unknown."""
        return None if self.high is None else (self.low + self.high) / 2

    @property
    def state(self) -> str:
        """``"exact"``, ``"range"`` or ``"unknown"``."""
        return "exact" if self.exact else "range" if self.known else "unknown"

    def scaled(self, factor: float) -> Count:
        """This count times ``factor`` (a rate from a count, say)."""
        high = None if self.high is None else self.high * factor
        return Count(self.low * factor, high, self.confidence)

    def as_dict(self) -> dict[str, object]:
        """JSON-safe: the state, the value (None unless exact), the sure lower bound, the top
        of the range (None when unknown) and the range's confidence."""
        return {
            "state": self.state,
            "value": round(self.low) if self.exact else None,
            "low": round(self.low),
            "high": None if self.high is None else round(self.high),
            "confidence": self.confidence,
        }

    def __str__(self) -> str:
        if self.exact:
            return f"{self.low:,.0f} (exact)"
        if self.high is None:
            return f"unknown (at least {self.low:,.0f})"
        return f"{self.low:,.0f} .. {self.high:,.0f} ({self.confidence:.3%} range)"


def scaled_count(counted: int, fraction: float, at_least: int = 0) -> Count:
    """The keys of a whole prefix when ``counted`` were found in a ``fraction`` of it chosen by
    the ids' random bits (whole shards: an id's shard comes from its random bits, so each key
    lies in the shards read with probability ``fraction``, whatever the keys' times).

    The count read is binomial, ``Bin(N, fraction)``; the range is the ``N`` whose expected count
    lies within :data:`SIGMAS` deviations of ``counted`` (Wilson's score interval, inverted),
    and never below ``at_least`` (keys seen for sure)."""
    if not 0 < fraction <= 1:
        raise UlidkeysError(f"fraction {fraction} must be in (0, 1]")
    if fraction == 1:
        return Count.exactly(max(counted, at_least))
    spread = SIGMAS * math.sqrt(fraction * (1 - fraction))
    root = math.sqrt(spread * spread + 4 * fraction * counted)
    low = max(0.0, (root - spread) / (2 * fraction)) ** 2
    high = ((root + spread) / (2 * fraction)) ** 2
    return Count(max(at_least, math.floor(low)), max(at_least, math.ceil(high)), CONFIDENCE)


def bin_starts(start_ms: int, end_ms: int, bins: int = 20) -> range:
    """The starts of ``bins`` equal bins over ``[start_ms, end_ms)`` (the last may be shorter;
    none when the span is empty); every bin is ``range.step`` wide."""
    width = max(1, math.ceil((end_ms - start_ms) / bins))
    return range(start_ms, max(start_ms, end_ms), width)


def binned(times: Iterable[int], start_ms: int, end_ms: int, bins: int = 20) -> list[int]:
    """How many of ``times`` fall in each bin of :func:`bin_starts`."""
    starts = bin_starts(start_ms, end_ms, bins)
    counts = Counter((t - start_ms) // starts.step for t in times if start_ms <= t < end_ms)
    return [counts[index] for index in range(len(starts))]


def exact_histogram(
    times: Iterable[int], start_ms: int, end_ms: int, bins: int = 20
) -> list[tuple[int, Count]]:
    """The histogram of known key times (a prefix read whole)."""
    starts = bin_starts(start_ms, end_ms, bins)
    counts = binned(times, start_ms, end_ms, bins)
    return [(lo, Count.exactly(n)) for lo, n in zip(starts, counts, strict=True)]


@dataclass(frozen=True)
class WindowCost:
    """What listing a ``span_ms`` window costs: ``calls`` ListObjectsV2 calls reading ``keys``
    keys with the layout's plan, and ``full_calls``/``full_keys`` by a full listing of the
    prefix - counted on the keys themselves (the mean over a few places in the keys' span)."""

    span_ms: int
    calls: float
    keys: float
    full_calls: float
    full_keys: float


def window_cost(layout: KeyLayout, keys: Sequence[str], span_ms: int) -> WindowCost | None:
    """The cost of a ``span_ms`` window ending at four places in the keys' span, with the
    layout's plan run on ``keys`` (every key of the prefix, in listing order): each chain reads
    its pages from its start until a page holds a key at or past its stop (S3 takes no end
    key), so the last page's keys past the window count too. None without fitting keys."""
    times = [ms for key in keys if (ms := key_time(layout, key)) is not None]
    if not times:
        return None
    first, last = min(times), max(times) + 1
    places = [first + span_ms + (last - first - span_ms) * k // 5 for k in range(1, 5)]
    runs = [_run_plan(layout, keys, end - span_ms, end) for end in places]
    full_calls = max(1, math.ceil(len(keys) / MAX_KEYS))
    return WindowCost(
        span_ms,
        sum(calls for calls, _ in runs) / len(runs),
        sum(read for _, read in runs) / len(runs),
        full_calls,
        len(keys),
    )


def _run_plan(
    layout: KeyLayout, keys: Sequence[str], start_ms: int, end_ms: int
) -> tuple[int, int]:
    """``(calls, keys read)`` of the window's plan on ``keys`` (sorted as S3 lists them)."""
    encoded = [key.encode() for key in keys]  # S3 orders keys by their UTF-8 bytes
    calls = read = 0
    for call in plan_window(layout, max(0, start_ms), max(1, end_ms)).calls:
        prefix = call.prefix.encode()
        after = (call.start_after or "").encode()
        stop = None if call.stop_at is None else call.stop_at.encode()
        chain = [k for k in encoded if k.startswith(prefix) and k > after]
        done = 0
        while True:
            page = chain[done : done + call.page_size(done)]
            calls += 1
            read += len(page)
            done += len(page)
            if done >= len(chain) or (stop is not None and page and page[-1] >= stop):
                break
    return calls, read


WINDOWS = {"1 hour": HOUR_MS, "1 day": DAY_MS}


# --- what the shape means, for people and for the config file --------------------------------


def python_of(layout: KeyLayout) -> str:
    """The layout as Python that makes it."""
    args = [repr(layout.prefix)]
    if layout.shards:
        args.append(f"shards={layout.shards}")
    if layout.partition is not None:
        args.append(f"period={layout.partition.size!r}")
    if layout.suffix:
        args.append(f"suffix={layout.suffix!r}")
    if layout.scheme.name != "ulid":
        args.append(f"scheme=scheme_named({layout.scheme.name!r})")
    if layout.newest_first:
        args.append("newest_first=True")
    return f"KeyLayout({', '.join(args)})"


def toml_of(name: str, bucket: str, layout: KeyLayout) -> str:
    """The ``[layouts.NAME]`` table of a config file (``ulidkeys ls NAME`` then lists it)."""
    lines = [f"[layouts.{name}]", f"location = {_toml_string(f's3://{bucket}/{layout.prefix}')}"]
    if layout.shards:
        lines.append(f"shards = {layout.shards}")
    if layout.partition is not None:
        lines.append(f"period = {_toml_string(layout.partition.size)}")
    if layout.suffix:
        lines.append(f"suffix = {_toml_string(layout.suffix)}")
    lines.append(f"scheme = {_toml_string(layout.scheme.name)}")
    if layout.newest_first:
        lines.append("newest_first = true")
    return "\n".join(lines) + "\n"


def layout_name(prefix: str) -> str:
    """A config name for a prefix: its last folder, in letters, digits and ``_``."""
    last = prefix.rstrip("/").rpartition("/")[2]
    name = re.sub(r"[^A-Za-z0-9_]", "_", last).strip("_")
    return name if name and not name[0].isdigit() else f"keys_{name}" if name else "surveyed"


def _toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    escaped = []
    for char in text:
        if char in '"\\':
            escaped.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            escaped.append(f"\\u{ord(char):04x}")
        else:
            escaped.append(char)
    return '"' + "".join(escaped) + '"'


# --- DynamoDB sort keys ---------------------------------------------------------------------


@dataclass(frozen=True)
class SortKeyShape:
    """The shape of one kind of sort key in a partition: ``template`` with ``{id}`` (and
    ``{id2}``, ... for the ids of children, ``Post#{id}#Comment#{id2}``) where the ids are, the
    ``scheme`` of its first id, and how many of the keys read have it."""

    template: str
    scheme: str | None
    count: int

    @property
    def prefix(self) -> str:
        """The literal text before the first id (what a window's ``BETWEEN`` starts with)."""
        return self.template.partition("{id}")[0] if self.scheme else self.template


def sort_key_shape(key: str, separator: str = "#") -> tuple[str, str | None]:
    """``(template, scheme of its first id)`` of one sort key: each part between separators
    that is the canonical text of an id becomes a placeholder."""
    parts = key.split(separator)
    first_scheme = None
    ids = 0
    for index, part in enumerate(parts):
        reading = _canonical_reading(part)
        if reading is None:
            continue
        ids += 1
        first_scheme = first_scheme or reading
        parts[index] = "{id}" if ids == 1 else f"{{id{ids}}}"
    return separator.join(parts), first_scheme


def _canonical_reading(part: str) -> str | None:
    """The scheme whose canonical text ``part`` is (the first reading), else None: a number
    such as ``2024`` is not a 19-digit Snowflake's text, so it stays a literal."""
    if len(part) < 10:
        return None
    for name, _backwards in _id_readings(part):
        try:
            if scheme_named(name, part).parse(part) == part:
                return name
        except UlidkeysError:
            continue
    return None


def sort_key_shapes(keys: Iterable[str], separator: str = "#") -> list[SortKeyShape]:
    """The kinds of sort keys among ``keys``, most frequent first."""
    return sort_key_kinds(sort_key_shape(key, separator) for key in keys)


def sort_key_kinds(shapes: Iterable[tuple[str, str | None]]) -> list[SortKeyShape]:
    """The kinds among ``(template, scheme)`` of sort keys, most frequent first."""
    counts: Counter[tuple[str, str | None]] = Counter(shapes)
    return [SortKeyShape(template, scheme, n) for (template, scheme), n in counts.most_common()]


def pk_template(partition: str, separator: str = "#") -> tuple[str, dict[str, str]]:
    """A partition key template and its field values for a partition key seen as text:
    ``Org#acme`` -> ``("Org#{org}", {"org": "acme"})`` (each value named after the literal
    before it); a key without that shape stays a literal."""
    parts = partition.split(separator)
    if len(parts) < 2 or len(parts) % 2:
        return partition, {}
    fields: dict[str, str] = {}
    out = []
    for label, value in zip(parts[::2], parts[1::2], strict=True):
        if not value or not label:  # ``Org#`` or ``#x``: nothing to name, a literal
            return partition, {}
        name = re.sub(r"\W", "_", label.lower()).strip("_") or "field"
        if not name.isidentifier() or name in fields or name in ("id", "bucket", "shard"):
            return partition, {}
        fields[name] = value
        out += [label, "{" + name + "}"]
    return separator.join(out), fields


def entity_toml_of(
    name: str, table: str, pk: str, sk: str, scheme: str, pk_attr: str, sk_attr: str
) -> str:
    """The ``[entities.NAME]`` table of a config file (``ulidkeys query NAME`` then runs)."""
    lines = [
        f"[entities.{name}]",
        f"table = {_toml_string(table)}",
        f"pk = {_toml_string(pk)}",
        f"sk = {_toml_string(sk)}",
        f"scheme = {_toml_string(scheme)}",
    ]
    if pk_attr != "PK":
        lines.append(f"pk_attr = {_toml_string(pk_attr)}")
    if sk_attr != "SK":
        lines.append(f"sk_attr = {_toml_string(sk_attr)}")
    return "\n".join(lines) + "\n"
