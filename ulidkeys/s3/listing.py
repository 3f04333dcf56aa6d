"""Running listing plans with boto3: concurrent call chains merged into one time-ordered stream.

Also ``latest`` (newest first, walking backwards in time slices) and ``periods`` (which period
folders hold data, from ``CommonPrefixes``). Only this module and writing.py talk to S3.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ulidkeys.errors import InvalidValue, UnorderedListing, require_int
from ulidkeys.s3.layout import (
    DAY_MS,
    PERIOD_LIMIT_MS,
    PERIOD_MS,
    KeyLayout,
    PeriodName,
    format_folder,
    parse_folder,
)
from ulidkeys.s3.plan import MAX_KEYS, SKIP, ListCall, WindowPlan, common_prefix, plan_window
from ulidkeys.timeinput import TimeInput, ms_to_datetime, now_ms, to_ms
from ulidkeys.timewindow import TimeWindow

Obj = dict[str, Any]
_Order = tuple[str, str]

#: ``latest`` starts with a slice this wide and grows it 4x while slices come back short.
FIRST_SLICE_MS = 60_000


def is_directory_bucket(bucket: str) -> bool:
    """S3 Express directory buckets are named ``name--zone-id--x-s3``."""
    return bucket.endswith("--x-s3")


@dataclass
class ListingStats:
    """What a listing cost: ``calls`` made, keys ``transferred`` by S3, keys ``returned``.

    ``skipped`` counts listed keys that do not fit the layout (never returned, never fatal);
    ``transferred - returned - skipped`` keys fitted but were outside the window.
    """

    calls: int = 0
    transferred: int = 0
    returned: int = 0
    skipped: int = 0

    @property
    def outside(self) -> int:
        return self.transferred - self.returned - self.skipped


class Listing(Iterator[Obj]):
    """An iterator of boto3 object summaries with a live :class:`ListingStats` in ``.stats``."""

    def __init__(self, source: Callable[[ListingStats], Iterator[Obj]]) -> None:
        self.stats = ListingStats()
        self._items = source(self.stats)

    def __next__(self) -> Obj:
        obj = next(self._items)
        self.stats.returned += 1
        return obj

    def close(self) -> None:
        """Stop early: no further pages are requested."""
        close = getattr(self._items, "close", None)
        if close is not None:
            close()


class _Crowded(Exception):
    """A chain needed more pages than its budget (``latest`` then narrows the slice)."""


class _Chain:
    """Reads one ListCall's pages; with ``read_ahead`` the next page is requested while the
    current one is used (faster long listings, but one wasted call if the reader stops early).
    """

    def __init__(
        self,
        pool: ThreadPoolExecutor,
        client: Any,
        bucket: str,
        call: ListCall,
        stats: ListingStats,
        read_ahead: bool = True,
        max_pages: int | None = None,
    ) -> None:
        self._pool, self._client, self._bucket, self.call = pool, client, bucket, call
        self._stats, self._read_ahead, self._pages_left = stats, read_ahead, max_pages
        self._next: Future[Obj] | None = self._fetch(None)  # start at once: chains overlap

    def _fetch(self, token: str | None) -> Future[Obj]:
        if self._pages_left is not None:
            if self._pages_left == 0:
                raise _Crowded
            self._pages_left -= 1
        self._stats.calls += 1  # counted when sent: calls made, not calls used
        return self._pool.submit(
            self._client.list_objects_v2, **self.call.request(self._bucket, token)
        )

    def pages(self) -> Iterator[Obj]:
        """Each page once; the chain ends at the last page or past ``stop_at``."""
        stop = self.call.stop_at if self.call.ordered else None
        while self._next is not None:
            page = self._next.result()
            contents = page.get("Contents") or []
            folders = page.get("CommonPrefixes") or []
            self._stats.transferred += len(contents) + len(folders)
            token = page.get("NextContinuationToken") if page.get("IsTruncated") else None
            last = max(
                contents[-1]["Key"] if contents else "", folders[-1]["Prefix"] if folders else ""
            )
            if stop is not None and last >= stop:
                token = None
            self._next = self._fetch(token) if token and self._read_ahead else None
            yield page
            if token and not self._read_ahead:
                self._next = self._fetch(token)

    def items(self, plan: WindowPlan, stats: ListingStats) -> Iterator[tuple[_Order, Obj]]:
        """``(order, object)`` for the keys of the window, ascending."""
        stop = self.call.stop_at if self.call.ordered else None
        found: list[tuple[_Order, Obj]] = []
        previous = ""
        for page in self.pages():
            for obj in page.get("Contents") or []:
                key = obj["Key"]
                if self.call.ordered:
                    if key <= previous:
                        # StartAfter and the stop bound would silently drop keys: refuse
                        raise UnorderedListing(
                            f"ListObjectsV2 returned {key!r} after {previous!r}; only S3 "
                            "directory buckets list out of order, and their names end in "
                            "'--x-s3'"
                        )
                    previous = key
                if stop is not None and key >= stop:
                    return  # ordered listing: nothing after this can be in the window
                verdict = plan.judge(key)
                if isinstance(verdict, tuple):
                    if self.call.ordered:
                        yield verdict, obj
                    else:
                        found.append((verdict, obj))
                elif verdict == SKIP:
                    stats.skipped += 1
        found.sort(key=lambda item: item[0])
        yield from found


def _merged(
    plan: WindowPlan,
    client: Any,
    bucket: str,
    max_workers: int,
    stats: ListingStats,
    read_ahead: bool = True,
    max_pages: int | None = None,
) -> Generator[Obj, None, None]:
    if not plan.calls:
        return
    pool = ThreadPoolExecutor(
        max_workers=max(1, min(max_workers, len(plan.calls))), thread_name_prefix="ulidkeys-s3"
    )
    try:
        chains = [
            _Chain(pool, client, bucket, call, stats, read_ahead, max_pages) for call in plan.calls
        ]
        streams = [chain.items(plan, stats) for chain in chains]
        # Every chain is ascending in (ULID, key); a k-way merge keeps that order overall.
        for _order, obj in heapq.merge(*streams, key=lambda item: item[0]):
            yield obj
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def execute(plan: WindowPlan, client: Any, bucket: str, *, max_workers: int = 8) -> Listing:
    """Run a plan: its chains concurrently (at most ``max_workers`` calls in flight)."""
    _check_workers(max_workers)
    return Listing(lambda stats: _merged(plan, client, bucket, max_workers, stats))


def _check_workers(max_workers: int) -> None:
    require_int(max_workers, "max_workers")
    if max_workers < 1:
        raise InvalidValue(f"max_workers={max_workers} must be at least 1")


# --- the newest objects ---------------------------------------------------------------------


def _slice_tail(
    plan: WindowPlan,
    client: Any,
    bucket: str,
    max_workers: int,
    stats: ListingStats,
    keep: int,
    max_pages: int | None,
) -> deque[Obj] | None:
    """The last ``keep`` objects of a plan, or None if a chain needs more than ``max_pages``."""
    tail: deque[Obj] = deque(maxlen=keep)
    # no read-ahead: a crowded slice must not leave a wasted call per chain behind
    stream = _merged(plan, client, bucket, max_workers, stats, False, max_pages)
    try:
        tail.extend(stream)
    except _Crowded:
        return None
    finally:
        stream.close()
    return tail


def _general_latest(
    layout: KeyLayout,
    client: Any,
    bucket: str,
    n: int,
    end: int,
    max_workers: int,
    stats: ListingStats,
) -> Iterator[Obj]:
    """Walk back from ``end`` in slices: grow 4x after a short slice, quarter a crowded one.

    A slice is crowded when a chain needs more pages than ``n`` can justify (one full page
    for n < 500); it is abandoned and retried at a quarter of its width, and
    slices stay narrower than the last crowded one until one returns data. So calls and
    memory grow with ``n`` and the log of the distance searched, never with the bucket.
    """
    remaining, width, crowded = n, FIRST_SLICE_MS, 0
    # With period folders, one Delimiter listing per shard names the days that hold data, so
    # empty stretches are jumped over and the walk ends after the oldest day.
    days = None
    if layout.period is not None:
        window = TimeWindow.from_ms(0, end)
        days = sorted(_folders(layout, client, bucket, window, "day", stats))
    while remaining > 0 and end > 0:
        if days is not None:
            while days and days[-1] >= end:
                days.pop()
            if not days:
                return
            end = min(end, days[-1] + DAY_MS)
        start = max(0, end - width)
        plan = plan_window(layout, TimeWindow.from_ms(start, end))
        budget = None if end - start == 1 else 1 + 2 * remaining // MAX_KEYS
        tail = _slice_tail(plan, client, bucket, max_workers, stats, remaining, budget)
        if tail is None:
            crowded = end - start
            width = max(1, crowded // 4)
            continue
        remaining -= len(tail)
        yield from reversed(tail)
        if tail:
            crowded = 0
        end, width = start, width * 4 if not crowded else min(width * 4, max(1, crowded // 2))


def _directory_latest(
    layout: KeyLayout,
    client: Any,
    bucket: str,
    n: int,
    end: int,
    max_workers: int,
    stats: ListingStats,
) -> Iterator[Obj]:
    """Directory buckets list whole folders anyway: walk the days that hold data, newest first."""
    if layout.period is None:
        spans = [(0, end)]
    else:
        days = _folders(layout, client, bucket, TimeWindow.from_ms(0, end), "day", stats)
        spans = [(day, min(day + DAY_MS, end)) for day in sorted(days, reverse=True)]
    remaining = n
    for start, stop in spans:
        if remaining <= 0:
            return
        plan = plan_window(layout, TimeWindow.from_ms(start, stop), directory_bucket=True)
        tail = _slice_tail(plan, client, bucket, max_workers, stats, remaining, None)
        assert tail is not None  # no cap, so never abandoned
        remaining -= len(tail)
        yield from reversed(tail)


def latest(
    layout: KeyLayout,
    client: Any,
    bucket: str,
    n: int,
    before: TimeInput | None = None,
    *,
    max_workers: int = 8,
) -> Listing:
    """The ``n`` newest objects with ULID time before ``before`` (default now), newest first."""
    require_int(n, "n")
    if n < 0:
        raise InvalidValue(f"n={n} must not be negative")
    _check_workers(max_workers)
    end = now_ms() if before is None else to_ms(before, "before")
    walk = _directory_latest if is_directory_bucket(bucket) else _general_latest
    return Listing(lambda stats: walk(layout, client, bucket, n, end, max_workers, stats))


# --- period folders -------------------------------------------------------------------------


@dataclass(frozen=True)
class Period:
    """A period folder that holds data: its name (``dt=2024-05-17/hr=09/``) and time span."""

    folder: str
    start_ms: int
    end_ms: int

    @property
    def start(self) -> datetime:
        return ms_to_datetime(self.start_ms)


def _folders(
    layout: KeyLayout,
    client: Any,
    bucket: str,
    window: TimeWindow,
    level: PeriodName,
    stats: ListingStats,
    within: Iterable[int] = (),
) -> set[int]:
    """Start ms of the ``level`` folders overlapping ``window`` that hold keys.

    Day folders come from ``Delimiter='/'`` under each shard folder; hour folders from the same
    under each day in ``within``. General buckets start just before the first day folder and
    stop after the last; directory buckets cannot, so they read the whole level and filter.
    """
    end = min(window.end_ms, PERIOD_LIMIT_MS)
    if window.start_ms >= end:
        return set()
    calls: list[tuple[str, ListCall]] = []
    for shard in range(layout.shards) if layout.shards else [None]:
        base = layout.prefix + layout.shard_folder(shard)
        if level == "hour":
            calls += [
                (base, ListCall(base + format_folder("day", day), delimiter="/", ordered=False))
                for day in within
            ]
        elif is_directory_bucket(bucket):
            calls.append(
                (base, ListCall(base[: base.rfind("/") + 1], delimiter="/", ordered=False))
            )
        else:
            first = base + format_folder("day", window.start_ms)
            last = base + format_folder("day", end - 1)
            prefix = common_prefix(first[:-1], last[:-1])  # never the whole folder
            # "dt=2024-05-17" sorts just before "dt=2024-05-17/"; "0" is the character after "/".
            calls.append((base, ListCall(prefix, first[:-1], last[:-1] + "0", delimiter="/")))
    found: set[int] = set()
    if not calls:
        return found
    step = PERIOD_MS[level]
    with ThreadPoolExecutor(max_workers=min(8, len(calls))) as pool:
        chains = [(base, _Chain(pool, client, bucket, call, stats)) for base, call in calls]
        for base, chain in chains:
            for page in chain.pages():
                for entry in page.get("CommonPrefixes") or []:
                    ms = parse_folder(level, entry["Prefix"].removeprefix(base))
                    if ms is None or not entry["Prefix"].startswith(base):
                        stats.skipped += 1
                    elif ms + step > window.start_ms and ms < end:
                        found.add(ms)
    return found


def periods(layout: KeyLayout, client: Any, bucket: str, window: TimeWindow) -> list[Period]:
    """The layout's period folders that overlap ``window`` and hold at least one key."""
    if layout.period is None:
        raise InvalidValue(f"{layout} has no period folders; periods() needs period='day'/'hour'")
    stats = ListingStats()
    days = _folders(layout, client, bucket, window, "day", stats)
    starts = days
    if layout.period == "hour":
        starts = _folders(layout, client, bucket, window, "hour", stats, sorted(days))
    step = PERIOD_MS[layout.period]
    return [
        Period(folder=format_folder(layout.period, ms), start_ms=ms, end_ms=ms + step)
        for ms in sorted(starts)
    ]
