"""What a bucket's prefix or a table's partition holds, read in a bounded number of calls: the
shape of its keys, the layout (entity) that fits them, their oldest and newest times, how many
there are and when, and what a window would cost with that layout next to a full listing.

Every figure is exact, a range that holds the truth at its stated confidence, or unknown (see
:class:`~ulidkeys.planning.shapes.Count`). The programs read from the first key on, page after
page, so a prefix that ends within the budget is read whole in exactly its pages' calls; a
larger one is counted from the shards read whole (an id's shard comes from its random bits),
else its count is unknown with the keys read as a sure lower bound. I/O-free: the programs are
run by ``ulidkeys.engine.execution.outcome``.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol, TypeVar

from ulidkeys.engine.chains import Page, Stats
from ulidkeys.engine.programs import Fetch, Operation
from ulidkeys.errors import UlidkeysError, require_count
from ulidkeys.ids.registry import scheme_named
from ulidkeys.planning.entity import Entity
from ulidkeys.planning.layout import KeyLayout
from ulidkeys.planning.listings import ListCall
from ulidkeys.planning.partitions import DAY_MS
from ulidkeys.planning.queries import QueryCall
from ulidkeys.planning.shapes import (
    WINDOWS,
    Count,
    Shape,
    SortKeyShape,
    WindowCost,
    bin_starts,
    binned,
    entity_toml_of,
    exact_histogram,
    key_time,
    layout_name,
    pk_template,
    python_of,
    read_shape,
    scaled_count,
    sort_key_kinds,
    sort_key_shape,
    toml_of,
    window_cost,
)
from ulidkeys.survey import hints
from ulidkeys.timeinput import format_ms, ms_to_datetime

#: The calls a survey makes at most unless told otherwise.
DEFAULT_MAX_CALLS = 50
#: Fewest calls a survey can be given: one page.
MIN_CALLS = 1
#: Bins of the histogram.
BINS = 20
#: Share of the keys read that must fit the layout before its shards are taken to count the
#: prefix (keys of another writer in the same folders need not spread by the layout's rule).
MIN_FITTING_SHARE = 0.9


@dataclass(frozen=True)
class Survey:
    """What :func:`survey_program` found under ``location`` in ``calls`` calls.

    ``shape`` is None when nothing is stored there; ``layout`` None when no key holds an id of a
    known scheme at a place a layout puts it. ``keys`` counts the keys that fit the layout:
    exact when the prefix was read whole (then :attr:`exact`), a range at its stated confidence
    when whole shards were read, else unknown above the keys read. ``oldest_ms``/``newest_ms``
    are the id times of the oldest and newest keys when ``oldest_exact``/``newest_exact``, else
    the oldest (newest) read: the truth is that or earlier (later). ``per_day``, the histogram
    ``(bin start ms, keys)`` and ``costs`` (a 1-hour and a 1-day window with the layout and by a
    full listing, counted on the keys) are given when the keys bound them; ``notes`` say how.
    """

    location: str
    calls: int
    max_calls: int
    shape: Shape | None = None
    layout: KeyLayout | None = None
    keys: Count = field(default_factory=Count.unknown)
    oldest_ms: int | None = None
    newest_ms: int | None = None
    oldest_exact: bool = False
    newest_exact: bool = False
    per_day: Count | None = None
    histogram: tuple[tuple[int, Count], ...] = ()
    costs: tuple[tuple[str, WindowCost], ...] = ()
    python: str | None = None
    config: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def exact(self) -> bool:
        """True when every key was read, so every count is exact (``keys.exact``)."""
        return self.keys.exact

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
                "other_period_folders": shape.other_period,
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
                    "calls": round(cost.calls, 2),
                    "keys_read": round(cost.keys, 2),
                    "full_listing_calls": round(cost.full_calls),
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
    """The survey of ``s3://bucket/prefix`` in at most ``max_calls`` ListObjectsV2 calls, and
    never more than reading the prefix whole takes: pages from the first key on (every call
    but one), then - for a prefix not read whole - the folders under it (one call)."""
    require_count(max_calls, "max_calls", MIN_CALLS)
    location = f"s3://{bucket}/{prefix}"
    keys: list[str] = []
    token = None
    for _ in range(max(1, max_calls - 1)):
        page: Page = yield Fetch(ListCall(prefix, ordered=False), token)
        keys += _keys(page)
        token = page.token
        if token is None:
            break
    whole = token is None
    found = Survey(location, stats.calls, max_calls, keys=_none_fit(whole))
    if not keys:
        note = "nothing is stored under this prefix" if whole else _read(stats, whole, 0, "keys")
        return _updated(found, stats, notes=(note,))
    folders: list[str] | None = []
    if not whole and stats.calls < max_calls:
        if _first_folder(prefix, keys[0]) != _first_folder(prefix, keys[-1]):
            # a first folder was read whole: how many folders there are may count the keys
            listed: Page = yield Fetch(ListCall(prefix, delimiter="/", ordered=False))
            folders = [key[len(prefix) :] for key, obj in listed.entries if "Prefix" in obj]
            if listed.token is not None:
                folders = None  # more folders than one page names: their count is not known
        else:  # the last call reads on: a prefix one page longer is then read whole
            page = yield Fetch(ListCall(prefix, ordered=False), token)
            keys += _keys(page)
            whole = page.token is None
            found = replace(found, keys=_none_fit(whole))
    shape = read_shape(prefix, keys, folders or ())
    layout = shape.layout()
    found = replace(found, shape=shape, layout=layout)
    notes = [_read(stats, whole, len(keys), "keys")]
    if layout is None:
        if shape.other_period is not None:
            notes.append(
                f"the keys sit in period folders such as {shape.other_period!r}, a spelling no "
                "layout writes (layouts write dt=YYYY-MM-DD/ and hr=HH/): survey or list one "
                "such folder as its own prefix"
            )
        else:
            notes.append(
                hints.deeper_note(location, prefix, keys)
                or "no key holds an id of a scheme ulidkeys knows at the place a layout puts it"
            )
        return _updated(found, stats, notes=tuple(notes))
    times = [ms for key in keys if (ms := key_time(layout, key)) is not None]
    if shape.unfit_ids:
        notes.append(
            f"{shape.unfit_ids:,} keys hold {layout.scheme.name} ids but do not fit this layout "
            "(another shard count or period folder): no layout is suggested, as it would miss "
            "them"
        )
    if whole:
        return _exact(found, bucket, layout, keys, times, stats, notes)
    return _partly(found, layout, keys, times, folders is not None, stats, notes)


def _first_folder(prefix: str, key: str) -> str | None:
    """The folder right under ``prefix`` that ``key`` is in (None: none)."""
    folder, slash, _ = key[len(prefix) :].partition("/")
    return folder if slash else None


def _none_fit(whole: bool) -> Count:
    """No key fits (yet): zero for sure when everything was read."""
    return Count.exactly(0) if whole else Count.unknown()


def _read(stats: Stats, whole: bool, count: int, unit: str) -> str:
    if whole:
        return f"read whole: {count:,} {unit} in {stats.calls} calls, every count is exact"
    return f"read the first {count:,} {unit} in key order ({stats.calls} calls), not all"


def _exact(
    found: Survey,
    bucket: str,
    layout: KeyLayout,
    keys: list[str],
    times: list[int],
    stats: Stats,
    notes: list[str],
) -> Survey:
    """A prefix read whole: every count is a count, every cost counted on the keys."""
    counted = _exact_counts(times)
    if not times:
        return _updated(found, stats, notes=tuple(notes), **counted)
    costs = tuple(
        (name, cost)
        for name, width in WINDOWS.items()
        if (cost := window_cost(layout, keys, width)) is not None
    )
    suggest = not (found.shape and found.shape.unfit_ids)
    return _updated(
        found,
        stats,
        **counted,
        costs=costs,
        python=python_of(layout) if suggest else None,
        config=toml_of(layout_name(layout.prefix), bucket, layout) if suggest else None,
        notes=tuple(notes),
    )


def _partly(
    found: Survey,
    layout: KeyLayout,
    keys: list[str],
    times: list[int],
    shards_known: bool,
    stats: Stats,
    notes: list[str],
) -> Survey:
    """A prefix read from its first key, not to its last: what the keys read bound."""
    if not times:
        notes.append("no key read fits the layout yet: how many do is unknown")
        return _updated(found, stats, notes=tuple(notes))
    sorted_by_time = not layout.shards  # one shard: key order is time order (or its reverse)
    first = times[0]
    oldest, newest = min(times), max(times)
    changes: dict[str, Any] = {
        "oldest_ms": oldest,
        "newest_ms": newest,
        # the first key of a flat layout is the oldest (newest-first: the newest) of all
        "oldest_exact": sorted_by_time and not layout.newest_first and first == oldest,
        "newest_exact": sorted_by_time and layout.newest_first and first == newest,
        "keys": Count.unknown(len(times)),
        "python": python_of(layout),
        "config": None,
    }
    done = _shards_read_whole(layout, keys)
    fitting_share = len(times) / len(keys)
    if not (shards_known and done and layout.shards and fitting_share >= MIN_FITTING_SHARE):
        why = (
            "no shard was read whole"
            if layout.shards
            else "a layout without shards cannot be counted from part of it"
        )
        notes.append(f"how many keys: unknown ({why}); at least the {len(times):,} read")
        return _updated(found, stats, notes=tuple(notes), **changes)
    # whole shards: each key is in them with probability done/shards, whatever its time
    fraction = len(done) / layout.shards
    at = len(layout.prefix)
    in_done = [ms for key, ms in _fitting(layout, keys) if _shard_number(key, at) in done]
    changes["keys"] = scaled_count(len(in_done), fraction, len(times))
    starts = bin_starts(oldest, newest + 1, BINS)
    everything = binned(times, oldest, newest + 1, BINS)
    sampled = binned(in_done, oldest, newest + 1, BINS)
    changes["histogram"] = tuple(
        (start, scaled_count(count, fraction, seen))
        for start, count, seen in zip(starts, sampled, everything, strict=True)
    )
    notes.append(
        f"how many keys: counted in {len(done)} of {layout.shards} shards read whole (an id's "
        "shard comes from its random bits, so they hold a random share of the keys); the "
        f"range holds the truth with probability {changes['keys'].confidence:.3%}"
    )
    return _updated(found, stats, notes=tuple(notes), **changes)


def _fitting(layout: KeyLayout, keys: Sequence[str]) -> list[tuple[str, int]]:
    return [(key, ms) for key in keys if (ms := key_time(layout, key)) is not None]


def _shard_number(key: str, at: int) -> int:
    """The shard of a key that fits a sharded layout (its folder at ``at``)."""
    return int(key[at:].partition("/")[0])


def _shards_read_whole(layout: KeyLayout, keys: Sequence[str]) -> set[int]:
    """The shards whose every key was read: the ones before the shard of the last key read
    (keys come in order, shard folders sort by number)."""
    last = keys[-1]
    return {
        shard
        for shard in range(layout.shards or 0)
        if (folder := layout.prefix + layout.shard_folder(shard)) < last
        and not last.startswith(folder)
    }


# --- a DynamoDB partition ------------------------------------------------------------------------

#: Items read at the newest end of the main kind's range (children and other kinds sort among
#: them).
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
    ``[entities.NAME]`` table - given only when that entity queries this very partition.
    """

    location: str
    calls: int
    max_calls: int
    kinds: tuple[SortKeyShape, ...] = ()
    main: SortKeyShape | None = None
    keys: Count = field(default_factory=Count.unknown)
    oldest_ms: int | None = None
    newest_ms: int | None = None
    oldest_exact: bool = False
    newest_exact: bool = False
    per_day: Count | None = None
    histogram: tuple[tuple[int, Count], ...] = ()
    entity: str | None = None
    config: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def exact(self) -> bool:
        """True when every item was read, so every count is exact (``keys.exact``)."""
        return self.keys.exact

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
    def keys(self) -> Count: ...
    @property
    def oldest_ms(self) -> int | None: ...
    @property
    def newest_ms(self) -> int | None: ...
    @property
    def oldest_exact(self) -> bool: ...
    @property
    def newest_exact(self) -> bool: ...
    @property
    def per_day(self) -> Count | None: ...
    @property
    def histogram(self) -> tuple[tuple[int, Count], ...]: ...


def _times_dict(found: _Times, unit: str) -> dict[str, Any]:
    """The count, oldest, newest, rate and histogram as JSON-safe data; ``unit`` names what
    was counted (``keys``, ``items``)."""
    return {
        unit: found.keys.as_dict(),
        "oldest": None if found.oldest_ms is None else format_ms(found.oldest_ms),
        "oldest_exact": found.oldest_exact,
        "newest": None if found.newest_ms is None else format_ms(found.newest_ms),
        "newest_exact": found.newest_exact,
        "per_day": None if found.per_day is None else found.per_day.as_dict(),
        "histogram": [
            {"start": format_ms(start), unit: keys.as_dict()} for start, keys in found.histogram
        ],
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
    ``max_calls`` Query calls: pages from its lowest sort key on (every call but one; a
    partition that ends within them is read whole and every count is exact), its sort key
    templates and their shares, and for the most frequent one with an id its oldest item (the
    first read) and newest item (one call from the top of its range). ``page_items`` limits
    the pages (None: DynamoDB's 1 MB pages)."""
    require_count(max_calls, "max_calls", MIN_CALLS)
    require_count(page_items, "page_items", 1, optional=True)
    location = f"dynamodb://{table} {pk_attr}={partition!r}"
    whole_range = QueryCall(partition, _LOWEST, _ABOVE_ALL, pk_attr, sk_attr)
    sort_keys: list[str] = []
    token = None
    for _ in range(max(1, max_calls - 1)):
        page: Page = yield Fetch(whole_range, token, page_items)
        sort_keys += [key for key, _item in page.entries if isinstance(key, str)]
        token = page.token
        if token is None:
            break
    whole = token is None
    found = PartitionSurvey(location, stats.calls, max_calls, keys=_none_fit(whole))
    if not sort_keys:
        note = "no item with a string sort key in this partition" + ("" if whole else " read")
        return _updated(found, stats, notes=(note,))
    shapes = [sort_key_shape(key, separator) for key in sort_keys]
    kinds = tuple(sort_key_kinds(shapes))
    main = next((kind for kind in kinds if kind.scheme is not None), None)
    found = replace(found, kinds=kinds, main=main)
    notes = [_read(stats, whole, len(sort_keys), "items")]
    if main is None or main.scheme is None:
        notes.append("no sort key read holds an id of a known scheme")
        return _updated(found, stats, notes=tuple(notes))
    scheme = scheme_named(main.scheme)
    declared, why_not = _declaration(
        partition, main, scheme.name, separator, table, pk_attr, sk_attr
    )
    if why_not:
        notes.append(f"no entity suggested: {why_not}")
    id_at = main.template.split(separator).index("{id}")

    def kind_time(key: str, template: str) -> int | None:
        """The id time of a sort key of the main kind (None: another kind)."""
        return (
            scheme.timestamp_ms(key.split(separator)[id_at]) if template == main.template else None
        )

    times = [
        ms
        for key, (template, _) in zip(sort_keys, shapes, strict=True)
        if (ms := kind_time(key, template)) is not None
    ]
    if whole:
        return _updated(found, stats, **_exact_counts(times), notes=tuple(notes), **declared)
    changes: dict[str, Any] = {"keys": Count.unknown(len(times))}
    if times:  # read from the lowest sort key on: the first item of the kind is its oldest
        changes.update(oldest_ms=times[0], oldest_exact=True, newest_ms=max(times))
    top = main.prefix + _ABOVE_ALL
    if sort_keys[-1] >= top:  # read past the kind's range: its last item read is its newest
        changes["newest_exact"] = bool(times)
    elif stats.calls < max_calls:
        span_call = QueryCall(partition, main.prefix, top, pk_attr, sk_attr, newest_first=True)
        last_page: Page = yield Fetch(span_call, None, END_ITEMS)
        newest = next(
            (
                ms
                for key, _ in last_page.entries
                if isinstance(key, str)
                and (ms := kind_time(key, sort_key_shape(key, separator)[0])) is not None
            ),
            None,
        )
        if newest is not None:
            changes.update(newest_ms=newest, newest_exact=True)
    notes.append(
        f"how many items: unknown (a partition can only be counted by reading it); at least "
        f"the {len(times):,} read"
    )
    return _updated(found, stats, notes=tuple(notes), **changes, **declared)


def _exact_counts(times: list[int]) -> dict[str, Any]:
    count = Count.exactly(len(times))
    if not times:
        return {"keys": count}
    oldest, newest = min(times), max(times)
    span = max(1, newest - oldest + 1)
    return {
        "keys": count,
        "oldest_ms": oldest,
        "newest_ms": newest,
        "oldest_exact": True,
        "newest_exact": True,
        "per_day": Count.exactly(len(times) * DAY_MS / span),
        "histogram": tuple(exact_histogram(times, oldest, newest + 1, BINS)),
    }


def _declaration(
    partition: str,
    main: SortKeyShape,
    scheme: str,
    separator: str,
    table: str,
    pk_attr: str,
    sk_attr: str,
) -> tuple[dict[str, Any], str | None]:
    """The entity to declare (Python and config) when it queries ``partition`` - its partition
    key template renders it back and its sort key template is the main kind's - else why not."""
    pk, fields = pk_template(partition, separator)
    try:
        entity = Entity(
            pk,
            main.template,
            scheme=scheme_named(scheme),
            pk_attr=pk_attr,
            sk_attr=sk_attr,
            separator=separator,
        )
        rendered = entity.schema().pk.render(fields)
    except UlidkeysError as error:
        return {}, f"the keys cannot be spelled as key templates ({error})"
    if rendered != partition:
        return {}, f"the partition key template {pk!r} does not give back {partition!r}"
    args = [repr(pk), repr(main.template)]
    if scheme != "ulid":
        args.append(f"scheme=scheme_named({scheme!r})")
    if pk_attr != "PK":
        args.append(f"pk_attr={pk_attr!r}")
    if sk_attr != "SK":
        args.append(f"sk_attr={sk_attr!r}")
    name = layout_name(main.prefix.lower()) if main.prefix.strip(separator) else "items"
    query = ", ".join(f"{k}={v!r}" for k, v in fields.items())
    return {
        "entity": f"Entity({', '.join(args)})" + (f"  # query with {query}" if query else ""),
        "config": entity_toml_of(name, table, pk, main.template, scheme, pk_attr, sk_attr),
    }, None


def _updated(found: _Found, stats: Stats, **changes: Any) -> _Found:
    """A survey with ``changes`` and the calls made so far."""
    return replace(found, calls=stats.calls, **changes)
