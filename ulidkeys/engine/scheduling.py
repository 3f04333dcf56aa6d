"""What a running plan does next, with no I/O: the order groups start in and the limit
(:class:`Schedule`), the k-way merge of a group's chains (:class:`Merge`, :func:`merge_runs`)
and the stats and cursor of the results handed out (:class:`Yielded`).
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from ulidkeys.engine.chains import _POSITION, CallT, ChainState, Ordered, Stats
from ulidkeys.engine.slicing import Slicing
from ulidkeys.errors import require_count
from ulidkeys.planning.plans import Plan, Position

S = TypeVar("S")
SourceT = TypeVar("SourceT")  # a shell's page source: PageSource, or the asyncio one
EntriesT = TypeVar("EntriesT")  # a shell's stream of entries: an iterator, or an async one
StreamT = TypeVar("StreamT")  # the entries of Yielded: an iterator or an async iterator


class Yielded(Generic[StreamT]):
    """``.stats``, ``.cursor`` and ``.position`` of a stream of results: the one bookkeeping of
    :class:`Results` and its asyncio twin (``ulidkeys.aio.execution.AsyncResults``).

    ``source`` makes the stream of ``(position, item)`` entries (an iterator, or an async one)
    given the stats it counts into; ``cursor_of`` is the cursor just past a position.
    """

    def __init__(
        self,
        source: Callable[[Stats], StreamT],
        cursor_of: Callable[[Position], str],
        stats: Stats | None = None,
    ) -> None:
        self.stats = stats if stats is not None else Stats()
        self._cursor_of = cursor_of
        self._last: Position | None = None
        self._items = source(self.stats)

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

    def cursor_at(self, position: Position) -> str:
        """The cursor that resumes this listing just past ``position`` (one of its items)."""
        return self._cursor_of(position)

    @property
    def position(self) -> Position | None:
        """``(id, key)`` of the last item yielded."""
        return self._last


class Merge:
    """The k-way merge of a group's chains as an I/O-free object, for shells whose chains are
    not iterators (the asyncio shell awaits them). Entries come out in result order: by
    position, descending for newest-first plans, ties in chain order - the order of
    ``heapq.merge(*chains, key=_POSITION, reverse=descending)``, which the thread shell uses
    for speed (a test checks the two agree). The shell pushes each chain's first entry, then
    after each :meth:`pop` the next entry of the chain that gave it."""

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


def merge_runs(sources: list[Iterator[list[Ordered]]]) -> Iterator[Ordered]:
    """The k-way merge of chains that each give their entries in ascending order a list at a
    time: the order of ``heapq.merge(*chains, key=_POSITION)`` (ties in chain order), a batch
    at a time instead of a heap step per entry.

    Each batch is every entry below the smallest last position of the lists at hand (all
    that can come before that position has arrived), sorted in C: a stable sort of runs
    concatenated in chain order keeps ties in chain order. When none is below it, the first
    chain whose next entry is at it gives its entries at it, as the heap merge would. A
    chain's next list is asked for only once its entries are all given, as the heap merge
    would; the lists given are never changed."""
    buffers: list[list[Ordered]] = [[] for _ in sources]
    live = list(range(len(sources)))
    while True:
        for index in list(live):
            while not buffers[index]:  # a chain whose entries were all given: its next list
                page = next(sources[index], None)
                if page is None:
                    live.remove(index)
                    break
                buffers[index] = page
        if not live:
            return
        bound = min(buffers[index][-1][0] for index in live)
        batch: list[Ordered] = []
        for index in live:
            buffer = buffers[index]
            cut = bisect_left(buffer, bound, key=_POSITION)
            if cut:
                batch += buffer[:cut]
                buffers[index] = buffer[cut:]
        if not batch:  # every head is at the bound: the first chain holding it gives its own
            first = next(index for index in live if buffers[index][0][0] == bound)
            buffer = buffers[first]
            cut = bisect_right(buffer, bound, key=_POSITION)
            batch, buffers[first] = buffer[:cut], buffer[cut:]  # the chain's list left whole
        batch.sort(key=_POSITION)
        yield from batch


def _same(position: Position) -> Position:
    return position


class _Descending:
    """A position that sorts the other way round (heapq only pops the smallest)."""

    __slots__ = ("position",)

    def __init__(self, position: Position) -> None:
        self.position = position

    def __lt__(self, other: _Descending) -> bool:
        return bool(other.position < self.position)

    def __eq__(self, other: object) -> bool:
        # tuples compare element by element with ==: without it, equal positions would
        # not fall through to the chain number and ties would lose chain order
        return isinstance(other, _Descending) and self.position == other.position

    __hash__ = None  # type: ignore[assignment]


class Schedule(Generic[CallT, SourceT, EntriesT]):
    """What a running plan does next, without I/O; the thread shell (:class:`_Runner`) and the
    asyncio shell (``ulidkeys.aio.execution``) drive it.

    It gives each chain's next page limit (from the items still wanted), says which groups
    are listed as time slices, starts the groups in result order (without a limit later ones
    start early, up to ``max_workers`` calls in flight; with one a group starts only when the
    ones before it fall short) and counts the items yielded against the limit. Read-ahead (the
    next page requested while this one is consumed) is on unless a limit or page budget could
    make a request sent early a waste.
    """

    def __init__(
        self,
        plan: Plan[CallT],
        source: SourceT,
        stats: Stats,
        max_workers: int,
        page_budget: int | None,
        split: bool = False,
    ) -> None:
        self.source = source  # the shell's page source, sync or awaited; only the shell calls it
        self.plan, self.stats, self.page_budget = plan, stats, page_budget
        self.max_workers = max_workers
        self.read_ahead = plan.limit is None and page_budget is None
        # time slices need nothing the caller could stop early for (a limit, a page budget)
        self.split = split and self.read_ahead and max_workers > 1 and plan.strategy.splittable
        self.yielded = 0
        self._ahead = 0 if plan.limit is not None else max_workers
        self._started: deque[tuple[int, Any]] = deque()
        self._pending = deque(() if plan.is_empty else plan.groups)
        self.start()

    @classmethod
    def stream(
        cls,
        plan: Plan[CallT],
        source: SourceT,
        stats: Stats,
        *,
        max_workers: int = 8,
        page_budget: int | None = None,
        split: bool = False,
    ) -> EntriesT:
        """The plan's ``(position, item)`` pairs in result order, run by this shell (the
        building block of ``run``): ``ulidkeys.engine.execution.stream`` and its asyncio twin."""
        return cls(plan, source, stats, max_workers, page_budget, split).items()

    def start(self) -> None:
        """The shell's own set-up once the schedule is made (its thread pool, its semaphore)."""

    def items(self) -> EntriesT:
        """The plan's entries in result order (an iterator, or an async one)."""
        raise NotImplementedError

    def remaining(self) -> int | None:
        limit = self.plan.limit
        return None if limit is None else limit - self.yielded

    def chain_state(self, call: CallT) -> ChainState[CallT]:
        return ChainState(self.plan, call, self.stats, self.page_budget)

    def request(self, state: ChainState[CallT]) -> tuple[Any, int | None] | None:
        """``(token, limit)`` of the chain's next request, None when it is done."""
        return state.next_request(self.remaining())

    def sliced(self, calls: tuple[CallT, ...]) -> Slicing[CallT] | None:
        """The group's :class:`Slicing` when it is listed as time slices, else None."""
        if self.split and all(call.ordered and call.span is not None for call in calls):
            return Slicing(self.plan, calls, self.stats, self.max_workers)
        return None

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


def check_workers(max_workers: int) -> int:
    """``max_workers`` if it is an int >= 1 (the concurrency bound every executor takes)."""
    return require_count(max_workers, "max_workers", 1)  # type: ignore[return-value]
