"""A plan being listed, as one state machine with no I/O (:class:`Schedule`): which page requests
to send now, what each answer gives, and the entries ready for the caller in result order - the
groups started in order, their chains or time slices, the one merge of a group's chains
(:class:`RunMerge`) and the limit. The shells (:mod:`ulidkeys.engine.threads`,
:mod:`ulidkeys.engine.tasks`) only send what it asks and hand back what it gives; the stats and
cursor of the items handed out are :class:`Yielded`'s.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from ulidkeys.engine.chains import _POSITION, CallT, ChainState, Ordered, Page, Stats
from ulidkeys.engine.operations import Request
from ulidkeys.engine.slicing import Slicing
from ulidkeys.errors import InvalidType, InvalidValue, describe, require_count
from ulidkeys.planning.plans import Plan, Position

StreamT = TypeVar("StreamT")  # the pages of Yielded: an iterator, or an async iterator
#: A page of columns: one list per column asked for, by name, a value per row.
Columns = dict[str, list[Any]]
#: The page of columns of a list of ``(position, row)`` entries (rows as a source in columns
#: mode gives them).
Shape = Callable[[list[Ordered]], Columns]
#: What a listing becomes when asked for columns: the column names -> its stream of pages (of
#: rows instead of items) and the shape of each; the adapter checks the names.
Columnar = Callable[[tuple[str, ...]], tuple[Callable[[Stats], StreamT], Shape]]


class Yielded(Generic[StreamT]):
    """``.stats``, ``.cursor`` and ``.position`` of a stream of results: the one bookkeeping of
    ``Results`` and its asyncio twin ``AsyncResults``.

    ``source`` makes the stream of pages (lists of ``(position, item)`` entries, in result
    order; an iterator or an async one) given the stats it counts into; ``cursor_of`` is the
    cursor just past a position; ``columns``, when the listing can give columns, makes the
    stream of the same entries with rows for items (:meth:`_as_columns`).
    """

    def __init__(
        self,
        source: Callable[[Stats], StreamT],
        cursor_of: Callable[[Position], str],
        stats: Stats | None = None,
        columns: Columnar[StreamT] | None = None,
    ) -> None:
        self.stats = stats if stats is not None else Stats()
        self._cursor_of = cursor_of
        self._last: Position | None = None
        self._pages = source(self.stats)
        self._entries: Any = iter(())  # the entries of the page being handed out
        self._columns = columns
        self._begun = False  # a page was asked for: items or columns, not both

    def _took(self, entry: Ordered) -> Any:
        """The item of an entry handed to the caller (counted; the cursor moves past it)."""
        self._last = entry[0]
        self.stats.returned += 1
        return entry[1]

    def _took_all(self, entries: list[Ordered]) -> None:
        """A page of entries handed to the caller at once (counted; the cursor moves past its
        last one)."""
        self._last = entries[-1][0]
        self.stats.returned += len(entries)

    def _as_columns(self, columns: object) -> Shape:
        """Switch the listing, not begun yet, to pages of the ``columns`` named (a sequence of
        names): its stream now gives rows, and the returned shape makes each page's columns."""
        if self._begun:
            raise InvalidValue(
                "pages(columns=...) must come before the first item is taken: a listing hands "
                "out items or pages of columns, not both (start a new listing, or resume one "
                "from its .cursor)"
            )
        if self._columns is None:
            raise InvalidValue(
                "this listing gives items only: pages(columns=...) is for window and slice "
                "listings of an S3 bucket (list_window, list_slice, run; not latest()) and "
                "for the queries of a DynamoDB Table"
            )
        if isinstance(columns, str) or not isinstance(columns, Sequence):
            raise InvalidType(
                f"columns={describe(columns)} must be a sequence of column names, "
                "e.g. ('key', 'size')"
            )
        source, shape = self._columns(tuple(columns))
        self._pages = source(self.stats)
        self._begun = True
        return shape

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


class RunMerge:
    """The one k-way merge of ordered chains, with no I/O: each chain hands it its entries a
    list at a time (each list in result order, a chain's lists one after another); it gives
    them back merged, a batch at a time.

    Result order is by position, descending for newest-first plans, ties in chain order - the
    order of ``heapq.merge(*chains, key=position, reverse=descending)``. Each batch is every
    entry beyond the nearest last position of the lists at hand (all that can come before it
    has arrived), sorted in C: a stable sort of runs concatenated in chain order keeps ties in
    chain order. When none is beyond it, the first chain whose next entry is at it gives its
    entries at it, as the heap merge would. A chain is asked for its next list
    (:meth:`wanted`) only once its entries were all given; the lists handed in are never
    changed.
    """

    def __init__(self, chains: int, descending: bool) -> None:
        self._buffers: list[list[Ordered]] = [[] for _ in range(chains)]
        self._live = list(range(chains))
        self._descending = descending

    def wanted(self) -> list[int]:
        """The chains whose next list is needed before anything more can be given."""
        buffers = self._buffers
        return [index for index in self._live if not buffers[index]]

    def put(self, chain: int, entries: list[Ordered]) -> None:
        """The next entries of chain number ``chain`` (one of :meth:`wanted`)."""
        self._buffers[chain] = entries

    def end(self, chain: int) -> None:
        """Chain number ``chain`` has no more entries."""
        self._live.remove(chain)

    def batch(self) -> list[Ordered] | None:
        """The next entries in result order ([] until :meth:`wanted` is empty; None once every
        chain has ended)."""
        live, buffers = self._live, self._buffers
        if not live:
            return None
        if any(not buffers[index] for index in live):
            return []
        if len(live) == 1:
            batch, buffers[live[0]] = buffers[live[0]], []
            return batch
        descending = self._descending
        lasts = [buffers[index][-1][0] for index in live]
        bound = min(lasts) if not descending else max(lasts)
        batch = []
        for index in live:
            buffer = buffers[index]
            cut = _beyond(buffer, bound, descending, inclusive=False)
            if cut:
                batch += buffer[:cut]
                buffers[index] = buffer[cut:]
        if not batch:  # every head is at the bound: the first chain holding it gives its own
            first = next(index for index in live if buffers[index][0][0] == bound)
            buffer = buffers[first]
            cut = _beyond(buffer, bound, descending, inclusive=True)
            batch, buffers[first] = buffer[:cut], buffer[cut:]
        batch.sort(key=_POSITION, reverse=descending)
        return batch


def _beyond(entries: list[Ordered], bound: Position, descending: bool, inclusive: bool) -> int:
    """How many of ``entries`` (in result order) come before ``bound`` in that order (and at
    it, if ``inclusive``)."""
    if not descending:
        find = bisect_right if inclusive else bisect_left
        return find(entries, bound, key=_POSITION)
    low, high = 0, len(entries)  # bisect of a descending list, by hand
    while low < high:
        middle = (low + high) // 2
        position = entries[middle][0]
        if position > bound or (inclusive and position == bound):
            low = middle + 1
        else:
            high = middle
    return low


class _Chain(Generic[CallT]):
    """One chain of a group that is not listed as time slices: its state, whether a request of
    it is in flight, and the lists it received that the merge has not taken yet."""

    __slots__ = ("lists", "sent", "state", "wanted")

    def __init__(self, state: ChainState[CallT]) -> None:
        self.state = state
        self.sent = False
        self.wanted = False  # the merge waits for it (without read-ahead: its next page)
        self.lists: list[list[Ordered]] = []

    @property
    def finished(self) -> bool:
        return self.state.done and not self.sent and not self.lists


class _Group(Generic[CallT]):
    """A group of the plan once started: its chains (or their time slices) and their merge."""

    def __init__(self, schedule: Schedule[CallT], calls: tuple[CallT, ...]) -> None:
        self.schedule = schedule
        plan, stats = schedule.plan, schedule.stats
        self.slicing = schedule.sliced(calls)
        self.chains = (
            [] if self.slicing else [_Chain(ChainState(plan, call, stats)) for call in calls]
        )
        self.merge = RunMerge(len(calls), plan.newest_first)
        self.size = len(calls)

    def requests(self, current: bool, out: list[tuple[Any, Request]]) -> None:
        """Add the group's requests to send now: every chain's first page when it starts; later
        pages only for the group the caller is in (with read-ahead, one page ahead of the
        caller; without, when the merge waits for it)."""
        schedule = self.schedule
        if self.slicing is not None:
            for piece, token, limit in self.slicing.requests():
                out.append((piece, (piece.state.call, token, limit)))
            return
        for chain in self.chains:
            state = chain.state
            if chain.sent or not state.waiting:
                continue
            if state.started:
                if not current:
                    continue
                if schedule.read_ahead:
                    if chain.lists:
                        continue  # one page ahead of what the merge took is enough
                elif not chain.wanted:
                    continue
            request = state.next_request(schedule.remaining())
            if request is None:
                continue
            chain.sent = True
            out.append((chain, (state.call, *request)))

    def receive(self, ticket: Any, page: Page) -> None:
        if self.slicing is not None:
            self.slicing.receive(ticket, page)
            return
        chain: _Chain[CallT] = ticket
        chain.sent = chain.wanted = False
        items = chain.state.receive(page)
        if items:
            chain.lists.append(items)

    def take(self) -> list[Ordered] | None:
        """The group's next entries in result order ([] while a page must come first; None
        once every chain is done)."""
        merge, slicing = self.merge, self.slicing
        for index in merge.wanted():
            if slicing is not None:
                items = slicing.take(index)
                if items:
                    merge.put(index, items)
                elif slicing.finished(index):
                    merge.end(index)
                continue
            chain = self.chains[index]
            if chain.lists:
                lists, chain.lists = chain.lists, []
                merge.put(
                    index, lists[0] if len(lists) == 1 else [e for part in lists for e in part]
                )
            elif chain.finished:
                merge.end(index)
            else:
                chain.wanted = True
        return merge.batch()


class Schedule(Generic[CallT]):
    """One plan being listed, with no I/O: the shells send what :meth:`requests` asks, feed each
    answer to :meth:`receive` and hand the caller what :meth:`take` gives.

    Groups start in result order (without a limit later ones start early, up to
    ``max_workers`` calls in flight; with one a group starts only when the ones before it fall
    short). Each chain's next page limit comes from the items still wanted. ``split`` lists a
    group whose chains are ordered and have a time span as :class:`Slicing` time slices (not
    with a limit, where the caller could stop early). Read-ahead - a chain's next page asked
    for while the caller takes this one - is on unless a limit could make an early request a
    waste. What is given is counted against the limit (:meth:`take` cuts the last batch).
    """

    def __init__(
        self, plan: Plan[CallT], stats: Stats, *, max_workers: int = 8, split: bool = False
    ) -> None:
        self.plan, self.stats, self.max_workers = plan, stats, max_workers
        self.read_ahead = plan.limit is None
        self.split = split and self.read_ahead and max_workers > 1 and plan.strategy.splittable
        self.given = 0
        self._ahead = 0 if plan.limit is not None else max_workers
        self._pending: deque[tuple[CallT, ...]] = deque(() if plan.is_empty else plan.groups)
        self._started: deque[_Group[CallT]] = deque()
        self._current: _Group[CallT] | None = None
        self._owners: dict[int, _Group[CallT]] = {}  # id(ticket) -> its group
        self._advance()

    @property
    def threads(self) -> int:
        """The most requests this plan has in flight at once."""
        if self.split:
            return self.max_workers
        return max(1, min(self.max_workers, len(self.plan.calls)))

    def remaining(self) -> int | None:
        limit = self.plan.limit
        return None if limit is None else limit - self.given

    def sliced(self, calls: tuple[CallT, ...]) -> Slicing[CallT] | None:
        """The group's :class:`Slicing` when it is listed as time slices, else None."""
        if self.split and all(call.ordered and call.span is not None for call in calls):
            return Slicing(self.plan, calls, self.stats, self.max_workers)
        return None

    def _advance(self) -> None:
        """Move the caller to the next group in result order, starting those that may run
        ahead of it."""
        started, pending = self._started, self._pending
        in_flight = sum(group.size for group in started)
        while pending and (not started or in_flight + len(pending[0]) <= self._ahead):
            calls = pending.popleft()
            in_flight += len(calls)
            started.append(_Group(self, calls))
        self._current = started.popleft() if started else None

    def requests(self) -> list[tuple[Any, Request]]:
        """``(ticket, (call, token, limit))`` of each page to send now; its answer goes to
        :meth:`receive` with the ticket."""
        out: list[tuple[Any, Request]] = []
        if self._current is None or self._done():
            return out
        for group in (self._current, *self._started):
            before = len(out)
            group.requests(group is self._current, out)
            for ticket, _request in out[before:]:
                self._owners[id(ticket)] = group
        return out

    def receive(self, ticket: Any, page: Page) -> None:
        """The answer to the request sent with ``ticket``."""
        self._owners.pop(id(ticket)).receive(ticket, page)

    def take(self) -> list[Ordered] | None:
        """The next entries in result order: [] while an answer must come first, None when the
        plan is done (every chain listed, or the limit reached)."""
        while self._current is not None and not self._done():
            batch = self._current.take()
            if batch is None:
                self._advance()
                continue
            if batch and self.plan.limit is not None:
                batch = batch[: self.plan.limit - self.given]
            self.given += len(batch)
            return batch
        return None

    def _done(self) -> bool:
        limit = self.plan.limit
        return limit is not None and self.given >= limit


def check_workers(max_workers: int) -> int:
    """``max_workers`` if it is an int >= 1 (the concurrency bound every executor takes)."""
    return require_count(max_workers, "max_workers", 1)  # type: ignore[return-value]
