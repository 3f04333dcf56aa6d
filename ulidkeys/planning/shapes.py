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
from itertools import pairwise

from ulidkeys.errors import UlidkeysError
from ulidkeys.ids.inspection import inspect
from ulidkeys.ids.protocol import IdScheme, invert_id
from ulidkeys.ids.registry import REGISTRATIONS, scheme_named
from ulidkeys.planning.layout import KeyLayout
from ulidkeys.planning.listings import MAX_KEYS, plan_window
from ulidkeys.planning.partitions import DAY_MS, HOUR_MS
from ulidkeys.timeinput import now_ms

_SHARD = re.compile(r"(\d{2,})/")
_PERIOD = re.compile(r"dt=\d{4}-\d{2}-\d{2}/(hr=\d{2}/)?")
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

    @property
    def suffix(self) -> str:
        """The layout's suffix: the one suffix every fitting key has, else none."""
        return next(iter(self.suffixes)) if len(self.suffixes) == 1 else ""

    def layout(self) -> KeyLayout | None:
        """The layout of this shape (None without a scheme)."""
        if self.scheme is None:
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
    ``Delimiter='/'`` listing found right under the prefix (how many shards there are)."""
    shard_width: Counter[int] = Counter()
    periods: Counter[str | None] = Counter()
    schemes: Counter[str] = Counter()
    inverted = 0
    for key in keys:
        rest = key[len(prefix) :]
        found = _SHARD.match(rest)
        if found is not None:
            shard_width[len(found[1])] += 1
            rest = rest[found.end() :]
        folder = _PERIOD.match(rest)
        periods["hour" if folder and folder[1] else "day" if folder else None] += 1
        rest = rest[folder.end() :] if folder else rest
        for name, backwards in _id_readings(rest):
            schemes[name] += 1
            inverted += backwards
    numbered = [name for name in shard_folders if _SHARD.fullmatch(name)]
    shards = None
    if shard_width and shard_width.most_common(1)[0][1] * 2 > len(keys):
        shards = max(len(numbered), max(int(n[:-1]) for n in numbered) + 1) if numbered else None
    period = periods.most_common(1)[0][0] if periods else None
    if not schemes:
        return _fitted(prefix, keys, shards, period, None, False)
    # every scheme the ids read as, most readings first (then inspect's order): the one most
    # keys fit with the folders found wins; the ones that fit as many are alternatives
    newest_first = inverted * 2 > max(schemes.values()) and period is None
    shapes = [
        _fitted(prefix, keys, shards, period, name, newest_first)
        for name, _count in schemes.most_common()
    ]
    best = max(shapes, key=lambda shape: shape.fitting)  # the first of the best (stable)
    alternatives = tuple(
        shape.scheme
        for shape in shapes
        if shape is not best and shape.scheme and shape.fitting == best.fitting
    )
    return replace(best, alternatives=alternatives) if best.fitting else shapes[0]


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
    for key in keys:
        found = layout.split(key) if layout is not None else None
        if found is None or found[3] is not None:
            junk.append(key)
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
    )


def key_time(layout: KeyLayout, key: str) -> int | None:
    """The real time of a key of the layout (None when it does not fit)."""
    _id, _suffix, ms, reason = layout.split(key)
    return None if reason is not None else ms


def first_key_at(layout: KeyLayout, shard: int | None, ms: int) -> str:
    """The smallest key of ``shard`` whose id has time ``ms`` (what a page sample starts at)."""
    scheme: IdScheme = layout.scheme
    id_text = scheme.min_for(ms - ms % scheme.resolution_ms)
    if layout.newest_first:
        id_text = invert_id(scheme, scheme.max_for(ms - ms % scheme.resolution_ms))
    return layout.path(shard, ms) + id_text


# --- estimates from sampled pages ------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    """One sampled page of one shard: ``keys`` keys of the layout with times in
    ``[start_ms, end_ms]``; ``shards`` is how many shards the layout spreads keys over."""

    start_ms: int
    end_ms: int
    keys: int
    shards: int

    def rate(self, sigmas: float = 0.0) -> float:
        """Keys per millisecond of the whole prefix, ``sigmas`` Poisson deviations off."""
        count = max(0.0, self.keys + sigmas * math.sqrt(max(self.keys, 1)))
        return count * self.shards / max(1, self.end_ms - self.start_ms + 1)


@dataclass(frozen=True)
class Estimate:
    """A count with its range: ``low <= value <= high`` (equal when ``exact``)."""

    value: float
    low: float
    high: float
    exact: bool = False

    def __str__(self) -> str:
        if self.exact:
            return f"{self.value:,.0f} (exact)"
        return f"~{self.value:,.0f} ({self.low:,.0f} .. {self.high:,.0f})"


def keys_between(samples: Sequence[Sample], start_ms: int, end_ms: int) -> Estimate:
    """The keys with times in ``[start_ms, end_ms)``, from the samples: each sample's rate
    holds from midway to the sample before it to midway to the one after; the range is two
    Poisson deviations of each sample's count (it assumes no burst hides between samples)."""
    if not samples or end_ms <= start_ms:
        return Estimate(0.0, 0.0, 0.0)
    ordered = sorted(samples, key=lambda s: s.start_ms)
    middles = [(s.start_ms + s.end_ms) / 2 for s in ordered]
    edges = [-math.inf] + [(a + b) / 2 for a, b in pairwise(middles)]
    edges.append(math.inf)
    totals = [0.0, 0.0, 0.0]
    for sample, (lo, hi) in zip(ordered, pairwise(edges), strict=True):
        span = max(0.0, min(hi, end_ms) - max(lo, start_ms))
        for index, sigmas in enumerate((0.0, -2.0, 2.0)):
            totals[index] += sample.rate(sigmas) * span
    return Estimate(totals[0], totals[1], totals[2])


def bin_starts(start_ms: int, end_ms: int, bins: int = 20) -> range:
    """The starts of ``bins`` equal bins over ``[start_ms, end_ms)`` (the last may be shorter;
    none when the span is empty); every bin is ``range.step`` wide."""
    width = max(1, math.ceil((end_ms - start_ms) / bins))
    return range(start_ms, max(start_ms, end_ms), width)


def histogram(
    samples: Sequence[Sample], start_ms: int, end_ms: int, bins: int = 20
) -> list[tuple[int, Estimate]]:
    """``(bin start, keys in the bin)`` over ``[start_ms, end_ms)`` in ``bins`` equal bins."""
    starts = bin_starts(start_ms, end_ms, bins)
    return [(lo, keys_between(samples, lo, min(lo + starts.step, end_ms))) for lo in starts]


def exact_histogram(
    times: Iterable[int], start_ms: int, end_ms: int, bins: int = 20
) -> list[tuple[int, Estimate]]:
    """The histogram of known key times (a prefix read whole), in the bins of :func:`histogram`."""
    starts = bin_starts(start_ms, end_ms, bins)
    counts = Counter((t - start_ms) // starts.step for t in times if start_ms <= t < end_ms)
    return [
        (lo, Estimate(counts[i], counts[i], counts[i], exact=True)) for i, lo in enumerate(starts)
    ]


@dataclass(frozen=True)
class WindowCost:
    """What listing a window of ``span_ms`` costs: ``calls`` ListObjectsV2 calls and at most
    ``keys`` keys read with the layout, and ``full_calls``/``full_keys`` by a full listing of
    the prefix. ``keys`` is a bound: it counts each chain's last page as filled up with keys
    past the window, where the chain's prefix usually stops it well before."""

    span_ms: int
    calls: float
    keys: float
    full_calls: float
    full_keys: float


def window_cost(
    layout: KeyLayout,
    rate_per_ms: float,
    total_keys: float,
    span_ms: int,
    first_ms: int,
    last_ms: int,
) -> WindowCost:
    """The mean cost of a ``span_ms`` window at four places between ``first_ms`` and
    ``last_ms`` (``rate_per_ms`` keys a ms): the planner's own chains, each reading its
    shard's share of the window in 1,000-key pages, its last page filled up with the keys past
    the window that still start with the chain's ``Prefix`` (S3 takes no end key; the prefix
    stops it, early or - for a window across a folder boundary - late)."""
    places = [first_ms + span_ms + (last_ms - first_ms - span_ms) * k // 5 for k in range(1, 5)]
    costs = [_cost_at(layout, rate_per_ms, span_ms, end, last_ms) for end in places]
    full_calls = max(1, math.ceil(total_keys / MAX_KEYS))
    calls = sum(cost[0] for cost in costs) / len(costs)
    keys = sum(cost[1] for cost in costs) / len(costs)
    return WindowCost(span_ms, calls, keys, full_calls, total_keys)


def _cost_at(
    layout: KeyLayout, rate_per_ms: float, span_ms: int, end: int, last_ms: int
) -> tuple[int, float]:
    """``(calls, keys read at most)`` of the window ending at ``end``."""
    calls = plan_window(layout, end - span_ms, end).calls
    chains = len(calls) or 1
    per_chain = rate_per_ms * span_ms / chains
    pages = max(1, math.ceil(per_chain / MAX_KEYS))
    past = 0.0
    for call in calls:
        reach = _prefix_reach(layout, call.shard, call.prefix, end, last_ms)
        past += min(pages * MAX_KEYS - per_chain, rate_per_ms / chains * (reach - end))
    return chains * pages, rate_per_ms * span_ms + past


def _prefix_reach(layout: KeyLayout, shard: int | None, prefix: str, end: int, last: int) -> int:
    """The first time past ``end`` (up to ``last``) whose keys no longer start with ``prefix``:
    keys of one shard sort by time, so the ones with a prefix are one span of time."""
    step = layout.scheme.resolution_ms
    if last <= end or not first_key_at(layout, shard, end).startswith(prefix):
        return end
    low, high = end, last  # keys at ``low`` start with the prefix; find where that ends
    while high - low > step:
        middle = (low + high) // 2
        if first_key_at(layout, shard, middle).startswith(prefix):
            low = middle
        else:
            high = middle
    return high


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
    counts: Counter[tuple[str, str | None]] = Counter(sort_key_shape(k, separator) for k in keys)
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
