"""What a bucket's prefix holds, read in a bounded number of calls: the shape of its keys, the
layout that fits them, their oldest and newest times, an estimate of how many there are and
when, and what a window would cost with that layout next to a full listing.

One I/O-free program (:func:`survey_program`, run by ``ulidkeys.execution.outcome``): it reads a
first page (a small prefix is read whole, and then every count is exact), the folders under the
prefix, the first keys of a few shards, the newest keys by bisecting time in one shard, and then
samples pages spread over the keys' time span, the way the time-split listing starts.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol, TypeVar

from ulidkeys.errors import require_count
from ulidkeys.ids.registry import scheme_named
from ulidkeys.machines import Fetch, Operation, Page, Stats
from ulidkeys.planning.entity import Entity
from ulidkeys.planning.layout import KeyLayout
from ulidkeys.planning.listings import ListCall
from ulidkeys.planning.partitions import DAY_MS
from ulidkeys.planning.queries import QueryCall
from ulidkeys.planning.shapes import (
    WINDOWS,
    Estimate,
    Sample,
    Shape,
    SortKeyShape,
    WindowCost,
    entity_toml_of,
    exact_histogram,
    first_key_at,
    histogram,
    key_time,
    keys_between,
    layout_name,
    pk_template,
    python_of,
    read_shape,
    sort_key_shapes,
    toml_of,
    window_cost,
)
from ulidkeys.timeinput import format_ms, ms_to_datetime, now_ms

#: The calls a survey makes at most unless told otherwise.
DEFAULT_MAX_CALLS = 50
#: Fewest calls a survey can be given: a first page, the folders, a shard's first key, a sample.
MIN_CALLS = 4
#: Pages read from the start before sampling: a prefix that ends within them is read whole.
EXACT_PAGES = 3
#: Shards whose first keys are read for the oldest time (ids spread evenly over the shards).
OLDEST_SHARDS = 4
#: Most calls the bisection for the newest key takes.
NEWEST_CALLS = 14
#: Most sampled pages.
MAX_SAMPLES = 16
#: Calls the bisection for the last key leaves for the sampled pages, at least.
MIN_SAMPLES = 4
#: Bins of the histogram.
BINS = 20


@dataclass(frozen=True)
class Survey:
    """What :func:`survey_program` found under ``location`` in ``calls`` calls.

    ``shape`` is None when nothing is stored there; ``layout`` None when no key holds an id of a
    known scheme. ``keys`` counts the keys that fit the layout (``exact`` when the prefix was
    read whole, else an estimate with its range), ``per_day`` their mean rate, ``histogram``
    ``(bin start ms, keys)`` over ``[oldest, newest]``, ``costs`` what a 1-hour and a 1-day
    window ending at the newest key cost with the layout and by a full listing. ``notes`` say
    what was sampled and what the estimates assume.
    """

    location: str
    calls: int
    max_calls: int
    shape: Shape | None = None
    layout: KeyLayout | None = None
    exact: bool = False
    keys: Estimate = field(default_factory=lambda: Estimate(0, 0, 0, exact=True))
    oldest_ms: int | None = None
    newest_ms: int | None = None
    per_day: Estimate | None = None
    histogram: tuple[tuple[int, Estimate], ...] = ()
    costs: tuple[tuple[str, WindowCost], ...] = ()
    python: str | None = None
    config: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def oldest(self) -> datetime | None:
        return None if self.oldest_ms is None else ms_to_datetime(self.oldest_ms)

    @property
    def newest(self) -> datetime | None:
        return None if self.newest_ms is None else ms_to_datetime(self.newest_ms)

    def as_dict(self) -> dict[str, Any]:
        """The survey as JSON-safe data (what ``ulidkeys survey -o json`` prints)."""
        shape = self.shape
        return {
            "location": self.location,
            "calls": self.calls,
            "max_calls": self.max_calls,
            "exact": self.exact,
            "layout": None
            if shape is None
            else {
                "shards": shape.shards,
                "period": shape.period,
                "scheme": shape.scheme,
                "newest_first": shape.newest_first,
                "also_fits": list(shape.alternatives),
                "suffixes": shape.suffixes,
                "fitting": shape.fitting,
                "not_fitting": shape.junk,
                "not_fitting_examples": list(shape.examples),
            },
            **_times_dict(self, "keys"),
            "costs": [
                {
                    "window": name,
                    "calls": math.ceil(cost.calls),
                    "keys_read_at_most": round(cost.keys),
                    "full_listing_calls": math.ceil(cost.full_calls),
                    "full_listing_keys": round(cost.full_keys),
                }
                for name, cost in self.costs
            ],
            "python": self.python,
            "config": self.config,
            "notes": list(self.notes),
        }


def _keys(page: Page) -> list[str]:
    return [key for key, obj in page.entries if "Key" in obj]


def survey_program(
    bucket: str, prefix: str, stats: Stats, *, max_calls: int = DEFAULT_MAX_CALLS
) -> Generator[Operation, Any, Survey]:
    """The survey of ``s3://bucket/prefix`` in at most ``max_calls`` ListObjectsV2 calls."""
    require_count(max_calls, "max_calls", MIN_CALLS)
    location = f"s3://{bucket}/{prefix}"
    keys: list[str] = []
    token = None
    for _ in range(min(EXACT_PAGES, max_calls - 2)):
        page: Page = yield Fetch(ListCall(prefix, ordered=False), token)
        keys += _keys(page)
        token = page.token
        if token is None:
            break
    if not keys:
        note = "nothing is stored under this prefix"
        return Survey(location, stats.calls, max_calls, exact=token is None, notes=(note,))
    folders: list[str] = []
    if any("/" in key[len(prefix) :] for key in keys):
        listed: Page = yield Fetch(ListCall(prefix, delimiter="/", ordered=False))
        folders = [key[len(prefix) :] for key, obj in listed.entries if "Prefix" in obj]
    shape = read_shape(prefix, keys, folders)
    layout = shape.layout()
    found = Survey(location, stats.calls, max_calls, shape, layout)
    if layout is None:
        note = "no key holds an id of a scheme ulidkeys knows at the place a layout puts it"
        return _updated(found, stats, exact=token is None, notes=(note,))
    if token is None:
        return _exact(found, bucket, layout, keys, stats)
    notes = [f"sampled: the first {len(keys):,} keys, then pages spread over their time span"]
    first = yield from _first(layout, stats, max_calls, notes)
    if first is None:
        return _updated(found, stats, notes=(*notes, "no key of the layout found in its shards"))
    samples = _opening(layout, keys)  # the first pages are a sample too
    last = yield from _last(layout, first, stats, max_calls, notes, samples)
    oldest, newest = min(first, last), max(first, last)
    samples += yield from _samples(layout, oldest, newest, stats, max_calls)
    span = max(1, newest - oldest + 1)
    total = keys_between(samples, oldest, newest + 1)
    rate = total.value / span
    costs = tuple(
        (name, window_cost(layout, rate, total.value, width, oldest, newest + 1))
        for name, width in WINDOWS.items()
    )
    notes.append(
        f"{len(samples)} sampled pages; the range is two Poisson deviations of each sample "
        "and assumes no burst hides between samples"
    )
    return Survey(
        location,
        stats.calls,
        max_calls,
        shape,
        layout,
        False,
        total,
        oldest,
        newest,
        Estimate(
            total.value * DAY_MS / span, total.low * DAY_MS / span, total.high * DAY_MS / span
        ),
        tuple(histogram(samples, oldest, newest + 1, BINS)),
        costs,
        python_of(layout),
        toml_of(layout_name(prefix), bucket, layout),
        tuple(notes),
    )


def _exact(found: Survey, bucket: str, layout: KeyLayout, keys: list[str], stats: Stats) -> Survey:
    """A prefix read whole: every count is a count."""
    times = [ms for key in keys if (ms := key_time(layout, key)) is not None]
    counted = _exact_counts(times)
    if not times:
        return _updated(found, stats, exact=True, **counted)
    oldest, newest = counted["oldest_ms"], counted["newest_ms"]
    rate = len(times) / max(1, newest - oldest + 1)
    return _updated(
        found,
        stats,
        exact=True,
        **counted,
        costs=tuple(
            (name, window_cost(layout, rate, len(times), width, oldest, newest + 1))
            for name, width in WINDOWS.items()
        ),
        python=python_of(layout),
        config=toml_of(layout_name(layout.prefix), bucket, layout),
        notes=(f"read whole: {len(keys):,} keys in {stats.calls} calls, every count is exact",),
    )


def _left(stats: Stats, max_calls: int) -> int:
    return max_calls - stats.calls


def _fitting_times(layout: KeyLayout, page: Page) -> list[int]:
    return [ms for key in _keys(page) if (ms := key_time(layout, key)) is not None]


def _shard_prefix(layout: KeyLayout, shard: int | None) -> str:
    """A shard's own prefix: the layout's prefix and the shard folder."""
    return layout.prefix + layout.shard_folder(shard)


def _opening(layout: KeyLayout, keys: list[str]) -> list[Sample]:
    """The first pages as a sample: the keys of the first shard they hold, from its first."""
    shard_end = len(_shard_prefix(layout, layout.shard_numbers()[0]))
    first_shard = keys[0][:shard_end]
    times = [
        ms
        for key in keys
        if key.startswith(first_shard) and (ms := key_time(layout, key)) is not None
    ]
    if len(times) < 2:
        return []
    return [Sample(min(times), max(times), len(times), len(layout.shard_numbers()))]


def _first(
    layout: KeyLayout, stats: Stats, max_calls: int, notes: list[str]
) -> Generator[Operation, Any, int | None]:
    """The time of the first key in key order - the oldest, or in a newest-first layout the
    newest - from the first keys of a few shards (keys sort by time within a shard)."""
    shards = layout.shard_numbers()[:OLDEST_SHARDS]
    times: list[int] = []
    for shard in shards:
        if _left(stats, max_calls) <= 2:
            break
        page: Page = yield Fetch(ListCall(_shard_prefix(layout, shard), ordered=False, max_keys=50))
        times += _fitting_times(layout, page)
    if len(layout.shard_numbers()) > len(shards):
        notes.append(
            f"first keys read in {len(shards)} of {len(layout.shard_numbers())} shards (ids "
            "spread evenly over the shards, so the others' are within moments of these)"
        )
    if not times:
        return None
    return max(times) if layout.newest_first else min(times)


def _last(
    layout: KeyLayout,
    first: int,
    stats: Stats,
    max_calls: int,
    notes: list[str],
    samples: list[Sample],
) -> Generator[Operation, Any, int]:
    """The time of the last key in key order of one shard - the newest, or in a newest-first
    layout the oldest - by bisecting time: a page from the first key at ``mid`` that is not
    truncated holds the shard's last key; a truncated one moves the bracket past its keys (and
    is kept as a sample), an empty one moves it back to ``mid``. Calls for a few samples are
    left over."""
    shard = layout.shard_numbers()[0]
    backwards = layout.newest_first  # key order runs back in time
    # the last key read so far (the first pages' keys run on from ``first``)
    seen = [ms for sample in samples for ms in (sample.start_ms, sample.end_ms)]
    best = min(seen, default=first) if backwards else max(seen, default=first)
    near, far = best, (max(layout.scheme.min_ms, 0) - 1 if backwards else now_ms() + 1)
    shards = len(layout.shard_numbers())
    for _ in range(max(0, min(NEWEST_CALLS, _left(stats, max_calls) - MIN_SAMPLES))):
        if abs(far - near) <= 1:
            break
        mid = (near + far) // 2
        start = first_key_at(layout, shard, mid)[:-1]
        call = ListCall(_shard_prefix(layout, shard), start_after=start, ordered=False)
        page: Page = yield Fetch(call)
        times = [
            ms for ms in _fitting_times(layout, page) if (ms <= mid if backwards else ms >= mid)
        ]
        if not times:
            far = mid
            continue
        best = min(best, *times) if backwards else max(best, *times)
        if page.token is None:
            return best
        samples.append(Sample(min(times), max(times), len(times), shards))
        near = best
    what = "oldest" if backwards else "newest"
    notes.append(
        f"{what}: {format_ms(best)} or {'before' if backwards else 'after'} (the "
        "bisection ran out of calls)"
    )
    return best


def _samples(
    layout: KeyLayout, oldest: int, newest: int, stats: Stats, max_calls: int
) -> Generator[Operation, Any, list[Sample]]:
    """Pages spread evenly over ``[oldest, newest]``, one shard each in turn."""
    count = min(MAX_SAMPLES, _left(stats, max_calls))
    shards = layout.shard_numbers()
    samples: list[Sample] = []
    span = newest - oldest + 1
    for index in range(max(0, count)):
        at = oldest + span * index // max(1, count)
        shard = shards[index % len(shards)]
        start = first_key_at(layout, shard, at)[:-1]
        call = ListCall(_shard_prefix(layout, shard), start_after=start, ordered=False)
        page: Page = yield Fetch(call)
        times = sorted(ms for ms in _fitting_times(layout, page) if ms >= at)
        end = newest if page.token is None or not times else times[-1]
        if layout.newest_first:  # pages run back in time from ``at``
            times = sorted(ms for ms in _fitting_times(layout, page) if ms <= at)
            first = oldest if page.token is None or not times else times[0]
            samples.append(Sample(first, at, len(times), len(shards)))
            continue
        samples.append(Sample(at, max(at, end), len(times), len(shards)))
    return samples


# --- a DynamoDB partition ------------------------------------------------------------------------

#: Items a sampled Query page asks for.
SAMPLE_ITEMS = 200
#: Items read at each end of the main kind's range (children and other kinds sort among them).
END_ITEMS = 25
#: The widest sort key range: every string sort key lies in it.
_LOWEST, _ABOVE_ALL = "\x00", "\U0010ffff"


@dataclass(frozen=True)
class PartitionSurvey:
    """What :func:`partition_survey_program` found in one partition of a table.

    ``kinds`` are the sort key templates read (``Post#{id}``, children such as
    ``Post#{id}#Comment#{id2}``, keys without ids) with their counts among the items read;
    ``main`` the most frequent one with an id, whose items the counts, times and histogram are
    about. ``entity`` is the ``Entity(...)`` to declare (Python) and ``config`` its
    ``[entities.NAME]`` table.
    """

    location: str
    calls: int
    max_calls: int
    exact: bool = False
    kinds: tuple[SortKeyShape, ...] = ()
    main: SortKeyShape | None = None
    keys: Estimate = field(default_factory=lambda: Estimate(0, 0, 0, exact=True))
    oldest_ms: int | None = None
    newest_ms: int | None = None
    per_day: Estimate | None = None
    histogram: tuple[tuple[int, Estimate], ...] = ()
    entity: str | None = None
    config: str | None = None
    notes: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """The survey as JSON-safe data."""
        return {
            "location": self.location,
            "calls": self.calls,
            "max_calls": self.max_calls,
            "exact": self.exact,
            "sort_keys": [
                {"template": kind.template, "scheme": kind.scheme, "items": kind.count}
                for kind in self.kinds
            ],
            "main": None if self.main is None else self.main.template,
            **_times_dict(self, "items"),
            "entity": self.entity,
            "config": self.config,
            "notes": list(self.notes),
        }


_Found = TypeVar("_Found", Survey, PartitionSurvey)


class _Times(Protocol):
    """What both surveys say about the times of the keys (items) they counted."""

    @property
    def keys(self) -> Estimate: ...
    @property
    def oldest_ms(self) -> int | None: ...
    @property
    def newest_ms(self) -> int | None: ...
    @property
    def per_day(self) -> Estimate | None: ...
    @property
    def histogram(self) -> tuple[tuple[int, Estimate], ...]: ...


def _times_dict(found: _Times, unit: str) -> dict[str, Any]:
    """The count, oldest, newest, rate and histogram as JSON-safe data; ``unit`` names what
    was counted (``keys``, ``items``)."""
    return {
        unit: _estimate_dict(found.keys),
        "oldest": None if found.oldest_ms is None else format_ms(found.oldest_ms),
        "newest": None if found.newest_ms is None else format_ms(found.newest_ms),
        "per_day": None if found.per_day is None else _estimate_dict(found.per_day),
        "histogram": [
            {"start": format_ms(start), unit: _estimate_dict(keys)}
            for start, keys in found.histogram
        ],
    }


def _estimate_dict(value: Estimate) -> dict[str, Any]:
    return {
        "value": round(value.value),
        "low": round(value.low),
        "high": round(value.high),
        "exact": value.exact,
    }


def partition_survey_program(
    table: str,
    partition: str,
    stats: Stats,
    *,
    pk_attr: str = "PK",
    sk_attr: str = "SK",
    separator: str = "#",
    max_calls: int = DEFAULT_MAX_CALLS,
    page_items: int | None = None,
) -> Generator[Operation, Any, PartitionSurvey]:
    """The survey of the items of one partition (``pk_attr = partition``) in at most
    ``max_calls`` Query calls: its sort key templates and their shares, then for the most
    frequent one with an id its oldest and newest items (one item each way) and pages sampled
    over that span. ``page_items`` limits the first pages (None: DynamoDB's 1 MB pages); a
    partition that ends within :data:`EXACT_PAGES` of them is read whole."""
    require_count(max_calls, "max_calls", MIN_CALLS)
    require_count(page_items, "page_items", 1, optional=True)
    location = f"dynamodb://{table} {pk_attr}={partition!r}"
    whole = QueryCall(partition, _LOWEST, _ABOVE_ALL, pk_attr, sk_attr)
    sort_keys: list[str] = []
    token = None
    for _ in range(min(EXACT_PAGES, max_calls - 3)):
        page: Page = yield Fetch(whole, token, page_items)
        sort_keys += [key for key, _item in page.entries if isinstance(key, str)]
        token = page.token
        if token is None:
            break
    exact = token is None
    if not sort_keys:
        note = "no item with a string sort key in this partition"
        return PartitionSurvey(location, stats.calls, max_calls, exact, notes=(note,))
    kinds = tuple(sort_key_shapes(sort_keys, separator))
    main = next((kind for kind in kinds if kind.scheme is not None), None)
    found = PartitionSurvey(location, stats.calls, max_calls, exact, kinds, main)
    if main is None or main.scheme is None:
        return _updated(found, stats, notes=("no sort key holds an id of a known scheme",))
    scheme = scheme_named(main.scheme)
    pk, fields = pk_template(partition, separator)
    entity = Entity(
        pk, main.template, scheme=scheme, pk_attr=pk_attr, sk_attr=sk_attr, separator=separator
    )
    declared = _declaration(entity, pk, fields, main, table, pk_attr, sk_attr)
    if exact:
        times = [ms for key in sort_keys if (ms := _item_time(entity, key)) is not None]
        read_whole = ("read whole: every count is exact",)
        return _updated(found, stats, **_exact_counts(times), notes=read_whole, **declared)
    notes = [f"sampled: the first {len(sort_keys):,} items, then pages spread over their time span"]
    span_call = QueryCall(partition, main.prefix, main.prefix + _ABOVE_ALL, pk_attr, sk_attr)
    first_page: Page = yield Fetch(span_call, None, END_ITEMS)
    last_page: Page = yield Fetch(replace(span_call, newest_first=True), None, END_ITEMS)
    ends = [_item_time(entity, key) for page in (first_page, last_page) for key, _ in page.entries]
    known = [ms for ms in ends if ms is not None]
    if len(known) < 2:
        return _updated(
            found, stats, notes=(*notes, "its oldest or newest item could not be read"), **declared
        )
    oldest, newest = min(known), max(known)
    samples = []
    count = min(MAX_SAMPLES, _left(stats, max_calls))
    span = newest - oldest + 1
    for index in range(max(0, count)):
        at = oldest + span * index // max(1, count)
        call = replace(span_call, lo=main.prefix + scheme.min_for(at - at % scheme.resolution_ms))
        page = yield Fetch(call, None, SAMPLE_ITEMS)
        times = sorted(
            ms
            for key, _ in page.entries
            if (ms := _item_time(entity, key)) is not None and ms >= at
        )
        end = newest if page.token is None or not times else times[-1]
        samples.append(Sample(at, max(at, end), len(times), 1))
    total = keys_between(samples, oldest, newest + 1)
    notes.append(
        f"{len(samples)} sampled pages of {SAMPLE_ITEMS} items; the range is two Poisson "
        "deviations of each sample and assumes no burst hides between samples"
    )
    return _updated(
        found,
        stats,
        keys=total,
        oldest_ms=oldest,
        newest_ms=newest,
        per_day=Estimate(
            total.value * DAY_MS / span, total.low * DAY_MS / span, total.high * DAY_MS / span
        ),
        histogram=tuple(histogram(samples, oldest, newest + 1, BINS)),
        notes=tuple(notes),
        **declared,
    )


def _item_time(entity: Entity, key: object) -> int | None:
    """The id time of an item's sort key of the entity's template (None: another kind)."""
    if not isinstance(key, str):
        return None
    found = entity.schema().sk.match(key)
    return None if found is None else entity.key_time(found[entity.id_field])


def _exact_counts(times: list[int]) -> dict[str, Any]:
    count = Estimate(len(times), len(times), len(times), exact=True)
    if not times:
        return {"keys": count}
    oldest, newest = min(times), max(times)
    span = max(1, newest - oldest + 1)
    per_day = len(times) * DAY_MS / span
    return {
        "keys": count,
        "oldest_ms": oldest,
        "newest_ms": newest,
        "per_day": Estimate(per_day, per_day, per_day, exact=True),
        "histogram": tuple(exact_histogram(times, oldest, newest + 1, BINS)),
    }


def _declaration(
    entity: Entity,
    pk: str,
    fields: dict[str, str],
    main: SortKeyShape,
    table: str,
    pk_attr: str,
    sk_attr: str,
) -> dict[str, Any]:
    args = [repr(pk), repr(main.template)]
    if entity.scheme.name != "ulid":
        args.append(f"scheme=scheme_named({entity.scheme.name!r})")
    if pk_attr != "PK":
        args.append(f"pk_attr={pk_attr!r}")
    if sk_attr != "SK":
        args.append(f"sk_attr={sk_attr!r}")
    name = layout_name(main.prefix.lower()) if main.prefix.strip("#") else "items"
    query = ", ".join(f"{k}={v!r}" for k, v in fields.items())
    return {
        "entity": f"Entity({', '.join(args)})" + (f"  # query with {query}" if query else ""),
        "config": entity_toml_of(
            name, table, pk, main.template, entity.scheme.name, pk_attr, sk_attr
        ),
    }


def _updated(found: _Found, stats: Stats, **changes: Any) -> _Found:
    """A survey with ``changes`` and the calls made so far."""
    return replace(found, calls=stats.calls, **changes)
