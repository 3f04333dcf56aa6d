"""The one executor: runs any plan against any service adapter and yields the exact answer.

The page-chain logic (order checks, stop bounds, the per-key verdict, stats) lives in
:class:`ChainState`, which does no I/O; :func:`run` is a thread-pool shell around it that
fans chains out, merges shards in order, and hands back :class:`Results` with ``.stats`` and
``.cursor``. Adapters only turn a call + token into a :class:`Page`.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from ulidkeys.errors import UnorderedListing, require_count
from ulidkeys.planning.plans import SKIP, Call, Plan, Position

Item = TypeVar("Item")
CallT = TypeVar("CallT", bound=Call)
CallC = TypeVar("CallC", bound=Call, contravariant=True)
Ordered = tuple[Position, Any]
_Self = TypeVar("_Self", bound="Closing")
S = TypeVar("S")


@dataclass
class Stats:
    """What a listing or query cost and gave.

    ``calls`` requests sent; ``read`` keys or items the service read for them (S3: keys and
    common prefixes transferred; DynamoDB: ``ScannedCount``); ``returned`` items handed to the
    caller; ``skipped`` read ones that do not fit the layout or template. The rest
    (:attr:`outside`) fitted but lay outside the window or past a stop bound.
    """

    calls: int = 0
    read: int = 0
    returned: int = 0
    skipped: int = 0

    @property
    def outside(self) -> int:
        return self.read - self.returned - self.skipped

    @property
    def read_per_item(self) -> float:
        """Read per item returned: 1.0 means nothing was read and thrown away."""
        if self.returned:
            return self.read / self.returned
        return math.inf if self.read else 0.0


@dataclass(frozen=True)
class Page:
    """One answer, as the executor needs it: ``(key, item)`` pairs in the service's order,
    the continuation token (None on the last page) and how much the service read."""

    entries: Sequence[tuple[Any, Any]]
    token: Any
    read: int


class PageSource(Protocol[CallC]):
    """What an adapter provides: one request for one page of one call chain."""

    def fetch(self, call: CallC, token: Any, limit: int | None) -> Page:
        """Send the call (continuing at ``token``, at most ``limit`` items if given)."""
        ...


class Crowded(Exception):
    """A chain needed more pages than the budget it was given (``latest`` narrows its slice)."""


class ChainState(Generic[CallT]):
    """One call chain of a plan, as a state machine with no I/O.

    :meth:`next_request` says what to send (or None when the chain is done); :meth:`receive`
    takes the answer and returns the positioned items of the answer it holds. Ordered chains
    give them as they come; unordered ones (directory buckets) hold everything until the last
    page, then give it sorted.
    """

    def __init__(
        self, plan: Plan[CallT], call: CallT, stats: Stats, page_budget: int | None = None
    ) -> None:
        self.plan, self.call, self.stats = plan, call, stats
        self._token: Any = None
        self._started = False
        self.done = False
        self._previous: Any = None
        self._held: list[Ordered] = []
        self._budget = page_budget
        self._read = self._kept = 0

    def next_request(self, remaining: int | None = None) -> tuple[Any, int | None] | None:
        """``(token, limit)`` of the next page to send, None when the chain is done.

        ``remaining`` (items the caller still wants) sets a page limit, scaled up by the share
        of skipped keys seen so far so that children do not cost a call each.
        """
        if self.done:
            return None
        if self._started and self._token is None:
            return None
        if self._budget is not None:
            if self._budget == 0:
                raise Crowded
            self._budget -= 1
        self._started = True
        self.stats.calls += 1  # counted when sent: calls made, not calls used
        limit = None
        if remaining is not None:
            limit = max(1, math.ceil(max(remaining, 1) * (self._read + 1) / (self._kept + 1)))
        return self._token, limit

    def receive(self, page: Page) -> list[Ordered]:
        """The items of one answer that belong to the plan's result, with their positions."""
        stats, plan, call = self.stats, self.plan, self.call
        stats.read += page.read
        stop = call.stop_at if call.ordered and not plan.newest_first else None
        descending = plan.newest_first
        previous = self._previous
        judge = plan.judge
        out: list[Ordered] = []
        ended = False
        for key, item in page.entries:
            if call.ordered:
                if previous is not None and (key >= previous if descending else key <= previous):
                    raise UnorderedListing(
                        f"the service returned {key!r} after {previous!r} in one "
                        f"{'descending' if descending else 'ascending'} chain; an exact window "
                        "needs ordered answers (S3 directory buckets, named '...--x-s3', do not "
                        "list in order; a DynamoDB Query always should)"
                    )
                previous = key
                if stop is not None and key >= stop:
                    ended = True  # ordered: nothing after this can be in the window
                    break
            verdict = judge(key)
            if verdict.__class__ is tuple:
                out.append((verdict, item))
            elif verdict == SKIP:
                stats.skipped += 1
        self._previous = previous
        self._read += len(page.entries)
        self._kept += len(out)
        self._token = None if ended else page.token
        if self._token is None:
            self.done = True
        if call.ordered:
            return out
        self._held += out
        limit = plan.limit
        if limit is not None and len(self._held) > 2 * limit + MAX_HELD_SLACK:
            # only the first ``limit`` in result order can be returned: memory stays O(limit)
            # instead of O(folder) (``latest(20)`` of a directory bucket without period folders)
            self._held.sort(key=_position, reverse=descending)
            del self._held[limit:]
        if not self.done:
            return []
        held, self._held = self._held, []
        held.sort(key=_position, reverse=descending)
        return held


#: Unordered chains with a limit trim what they hold once it exceeds twice the limit plus this
#: (a page's worth), so the sort runs about once a page, not once per key.
MAX_HELD_SLACK = 1000


def _position(entry: Ordered) -> Position:
    return entry[0]


class Closing:
    """Early stop for a stream of results: ``close()`` or leaving a ``with`` block closes the
    generator behind it, so no further page is requested and requests in flight are cancelled."""

    _items: Iterator[Any]

    def close(self) -> None:
        close = getattr(self._items, "close", None)
        if close is not None:
            close()

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class Yielded:
    """``.stats``, ``.cursor`` and ``.position`` of a stream of results: the one bookkeeping of
    :class:`Results` and its asyncio twin (``ulidkeys.aio.execution.AsyncResults``)."""

    def __init__(self, cursor_of: Callable[[Position], str], stats: Stats | None = None) -> None:
        self.stats = stats if stats is not None else Stats()
        self._cursor_of = cursor_of
        self._last: Position | None = None

    def _took(self, entry: Ordered) -> Any:
        """The item of an entry handed to the caller (counted; the cursor moves past it)."""
        position, item = entry
        self._last = position
        self.stats.returned += 1
        return item

    @property
    def cursor(self) -> str | None:
        """Where to resume: just past the last item yielded (None before the first)."""
        return None if self._last is None else self._cursor_of(self._last)

    @property
    def position(self) -> Position | None:
        """``(id, key)`` of the last item yielded."""
        return self._last


class Results(Yielded, Closing, Iterator[Item]):
    """The items of a listing or query, in order, with ``.stats`` and ``.cursor``.

    ``cursor`` is an opaque, JSON-safe string that resumes just past the last item yielded
    (None before the first); pass it back as ``cursor=``. ``close()`` (or leaving a ``with``
    block) stops early: no further requests are sent.
    """

    def __init__(
        self,
        source: Callable[[Stats], Iterator[Ordered]],
        cursor_of: Callable[[Position], str],
        stats: Stats | None = None,
    ) -> None:
        super().__init__(cursor_of, stats)
        self._items = source(self.stats)

    def __next__(self) -> Item:
        return self._took(next(self._items))  # type: ignore[no-any-return]


class _Inline:
    """An executor that runs a task at once: a single chain needs no thread."""

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args))
        except BaseException as error:  # delivered by .result(), like a thread pool would
            future.set_exception(error)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        return None


class Merge:
    """The one k-way merge of a group's chains, without I/O: entries come out in result order
    (by position, descending for newest-first plans; ties in chain order). The shell
    pushes each chain's first entry, then after each :meth:`pop` the next entry of the
    chain that gave it, so a chain is read only as far as the caller reads."""

    def __init__(self, descending: bool) -> None:
        self._heap: list[tuple[Any, int, Ordered]] = []
        self._key: Callable[[Position], Any] = _Descending if descending else _same

    def push(self, chain: int, entry: Ordered | None) -> None:
        """The next entry of chain number ``chain`` (None: that chain has ended)."""
        if entry is not None:
            heapq.heappush(self._heap, (self._key(entry[0]), chain, entry))

    def pop(self) -> tuple[int, Ordered]:
        """``(chain, entry)``: the next entry in result order and the chain it came from."""
        _, chain, entry = heapq.heappop(self._heap)
        return chain, entry

    def __bool__(self) -> bool:
        return bool(self._heap)


def _same(position: Position) -> Position:
    return position


class _Descending:
    """A position that sorts the other way round (heapq only pops the smallest)."""

    __slots__ = ("position",)

    def __init__(self, position: Position) -> None:
        self.position = position

    def __lt__(self, other: _Descending) -> bool:
        return bool(other.position < self.position)


class Schedule(Generic[CallT]):
    """What a running plan does next, without I/O; the thread shell (:class:`_Runner`) and the
    asyncio shell (``ulidkeys.aio.execution``) drive it.

    It gives each chain's next page limit (from the items still wanted), starts the groups in
    result order (without a limit later ones start early, up to ``max_workers`` calls in
    flight; with one a group starts only when the ones before it fall short) and counts the
    items yielded against the limit. Read-ahead (the next page requested while this one is
    consumed) is on unless a limit or page budget could make a request sent early a waste.
    """

    def __init__(
        self, plan: Plan[CallT], stats: Stats, max_workers: int, page_budget: int | None
    ) -> None:
        self.plan, self.stats, self.page_budget = plan, stats, page_budget
        self.max_workers = max_workers
        self.read_ahead = plan.limit is None and page_budget is None
        self.yielded = 0
        self._ahead = 0 if plan.limit is not None else max_workers
        self._started: deque[tuple[int, Any]] = deque()
        self._pending = deque(() if plan.is_empty else plan.groups)

    def remaining(self) -> int | None:
        limit = self.plan.limit
        return None if limit is None else limit - self.yielded

    def chain_state(self, call: CallT) -> ChainState[CallT]:
        return ChainState(self.plan, call, self.stats, self.page_budget)

    def request(self, state: ChainState[CallT]) -> tuple[Any, int | None] | None:
        """``(token, limit)`` of the chain's next request, None when it is done."""
        return state.next_request(self.remaining())

    def next_group(self, start: Callable[[tuple[CallT, ...]], S]) -> S | None:
        """The next group in result order (None after the last), as ``start`` made it; starts
        the groups that may run ahead of it."""
        started, pending = self._started, self._pending
        if not started and not pending:
            return None
        in_flight = sum(size for size, _ in started)
        while pending and (not started or in_flight + len(pending[0]) <= self._ahead):
            group = pending.popleft()
            in_flight += len(group)
            started.append((len(group), start(group)))
        return started.popleft()[1]  # type: ignore[no-any-return]

    def took(self) -> bool:
        """Count one item yielded; True once the plan's limit is reached."""
        self.yielded += 1
        limit = self.plan.limit
        return limit is not None and self.yielded >= limit


class _Runner(Schedule[CallT]):
    """The thread-pool shell: a running plan's requests go to a pool of ``max_workers``."""

    def __init__(
        self,
        plan: Plan[CallT],
        source: PageSource[CallT],
        stats: Stats,
        max_workers: int,
        page_budget: int | None,
    ) -> None:
        super().__init__(plan, stats, max_workers, page_budget)
        self.source = source
        calls = len(plan.calls)
        self.pool: Any = (
            _Inline()
            if calls <= 1 or max_workers == 1
            else ThreadPoolExecutor(min(max_workers, calls), thread_name_prefix="ulidkeys")
        )

    def _send(self, state: ChainState[CallT]) -> Future[Page] | None:
        request = self.request(state)
        if request is None:
            return None
        token, limit = request
        return self.pool.submit(self.source.fetch, state.call, token, limit)  # type: ignore[no-any-return]

    def chain(self, call: CallT) -> Iterator[Ordered]:
        """The chain's positioned items; its first request is sent at once, so chains overlap."""
        state = self.chain_state(call)
        pending = self._send(state)
        return self._pages(state, pending)

    def _pages(self, state: ChainState[CallT], pending: Future[Page] | None) -> Iterator[Ordered]:
        while pending is not None:
            items = state.receive(pending.result())
            pending = self._send(state) if self.read_ahead else None
            yield from items
            if not self.read_ahead:
                pending = self._send(state)

    def group(self, calls: tuple[CallT, ...]) -> Iterator[Ordered]:
        streams = [self.chain(call) for call in calls]
        if len(streams) == 1:
            return streams[0]
        return self._merged(streams)

    def _merged(self, streams: list[Iterator[Ordered]]) -> Iterator[Ordered]:
        merge = Merge(self.plan.newest_first)
        for number, chain in enumerate(streams):
            merge.push(number, next(chain, None))
        while merge:
            number, entry = merge.pop()
            yield entry
            merge.push(number, next(streams[number], None))

    def items(self) -> Iterator[Ordered]:
        """The plan's entries in result order; the pool is shut down when they end or stop."""
        try:
            while (group := self.next_group(self.group)) is not None:
                for entry in group:
                    yield entry
                    if self.took():
                        return
        finally:
            self.pool.shutdown(wait=False, cancel_futures=True)


def check_workers(max_workers: int) -> int:
    """``max_workers`` if it is an int >= 1 (the concurrency bound every executor takes)."""
    return require_count(max_workers, "max_workers", 1)  # type: ignore[return-value]


def stream(
    plan: Plan[CallT],
    source: PageSource[CallT],
    stats: Stats,
    *,
    max_workers: int = 8,
    page_budget: int | None = None,
) -> Iterator[Ordered]:
    """The plan's ``(position, item)`` pairs in result order (the building block of run)."""
    return _Runner(plan, source, stats, max_workers, page_budget).items()


def run(plan: Plan[CallT], source: PageSource[CallT], *, max_workers: int = 8) -> Results[Any]:
    """Run a plan: its chains concurrently (at most ``max_workers`` requests in flight)."""
    check_workers(max_workers)
    return Results(lambda stats: stream(plan, source, stats, max_workers=max_workers), plan.cursor)


# --- newest first where the service only lists forwards (S3) -------------------------------

#: ``walk_back`` starts with a slice this wide and grows it 4x while slices come back short.
FIRST_SLICE_MS = 60_000


class BackWalk:
    """:func:`walk_back`'s slices, without I/O (its asyncio twin walks the same ones).

    :meth:`next_slice` says which ``[low, high)`` to list next and with what page budget;
    the shell reports :meth:`crowded` or :meth:`took` (how many items the slice gave).
    """

    def __init__(
        self,
        n: int,
        start: int,
        end: int,
        page_size: int = 1000,
        occupied: Iterable[tuple[int, int]] | None = None,
    ) -> None:
        self.remaining, self.start, self.end, self.page_size = n, start, end, page_size
        self._width, self._crowded, self._low = FIRST_SLICE_MS, 0, end
        self._spans = None if occupied is None else deque(occupied)

    def next_slice(self) -> tuple[int, int, int | None] | None:
        """``(low, high, page budget)`` of the next slice, None when the walk is over."""
        if self.remaining <= 0 or self.end <= self.start:
            return None
        spans = self._spans
        if spans is not None:
            while spans and spans[0][0] >= self.end:
                spans.popleft()
            if not spans:
                return None
            self.end = min(self.end, spans[0][1])
        end = self.end
        low = self._low = max(self.start, end - self._width)
        budget = None if end - low == 1 else 1 + 2 * self.remaining // self.page_size
        return low, end, budget

    def crowded(self) -> None:
        """The slice needed more pages than its budget: retry it at a quarter of its width."""
        self._crowded = self.end - self._low
        self._width = max(1, self._crowded // 4)

    def took(self, count: int) -> None:
        """The slice gave ``count`` items (its newest, at most :attr:`remaining`): go on below."""
        self.remaining -= count
        if count:
            self._crowded = 0
        width, crowded = self._width, self._crowded
        self.end = self._low
        self._width = width * 4 if not crowded else min(width * 4, max(1, crowded // 2))


def walk_back(
    plan_slice: Callable[[int, int], Plan[CallT]],
    source: PageSource[CallT],
    stats: Stats,
    n: int,
    start: int,
    end: int,
    *,
    max_workers: int = 8,
    page_size: int = 1000,
    occupied: Iterable[tuple[int, int]] | None = None,
) -> Iterator[Ordered]:
    """The ``n`` newest items of ``[start, end)``, newest first, for a service that lists only
    forwards: walk back from ``end`` in slices, growing 4x after a short slice and quartering a
    crowded one.

    A slice is crowded when a chain needs more pages than ``n`` can justify (one full page for
    ``n`` below half a page); it is abandoned and retried at a quarter of its width, and slices
    stay narrower than the last crowded one until one returns data. So calls and memory grow
    with ``n`` and the log of the distance searched, never with the data. ``occupied`` (spans
    known to hold data, newest first, e.g. S3 day folders) lets the walk jump over empty time
    and end after the oldest span.
    """
    walk = BackWalk(n, start, end, page_size, occupied)
    while (step := walk.next_slice()) is not None:
        low, high, budget = step
        tail: deque[Ordered] = deque(maxlen=walk.remaining)
        items = stream(
            plan_slice(low, high), source, stats, max_workers=max_workers, page_budget=budget
        )
        try:
            tail.extend(items)
        except Crowded:
            walk.crowded()
            continue
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()
        walk.took(len(tail))
        yield from reversed(tail)
