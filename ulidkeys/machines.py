"""The executor's I/O-free machines: a page chain's state (order checks, stop bounds, the
per-key verdict, stats), time slices of long chains, the schedule and ordered merge of a running
plan, results' stats and cursor, and the newest-first search as step generators.

No threads and no awaiting: the thread shell (:mod:`ulidkeys.execution`) and the asyncio shell
(:mod:`ulidkeys.aio.execution`) each drive these same objects; adapters only turn a call and a
token into a :class:`Page`.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from operator import itemgetter
from typing import Any, Generic, Protocol, TypeVar

from ulidkeys.errors import UnorderedListing, require_count
from ulidkeys.planning.plans import SKIP, Call, Plan, Position

Item = TypeVar("Item")
CallT = TypeVar("CallT", bound=Call)
CallC = TypeVar("CallC", bound=Call, contravariant=True)
Ordered = tuple[Position, Any]
S = TypeVar("S")
SourceT = TypeVar("SourceT")  # a shell's page source: PageSource, or the asyncio one
EntriesT = TypeVar("EntriesT")  # a shell's stream of entries: an iterator, or an async one
StreamT = TypeVar("StreamT")  # the entries of Yielded: an iterator or an async iterator


@dataclass
class Stats:
    """What a listing or query cost and gave.

    ``calls`` requests sent; ``read`` keys or items the service read for them (S3: keys and
    common prefixes transferred; DynamoDB: ``ScannedCount``); ``returned`` items handed to the
    caller; ``skipped`` read ones that do not fit the layout or template; ``filtered`` read
    ones that fit but that a filter the caller asked for left out (another suffix than
    ``latest(suffix=...)``'s). The rest (:attr:`outside`) fitted but lay outside the window or
    past a stop bound.
    """

    calls: int = 0
    read: int = 0
    returned: int = 0
    skipped: int = 0
    filtered: int = 0

    @property
    def outside(self) -> int:
        return self.read - self.returned - self.skipped - self.filtered

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


#: Keys at the end of a page looked at for the chain's time (keys that fit the plan carry one).
_TIME_PROBE = 8


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
        # what the chain has read, and the time of its last key that fits the plan (the
        # density that time slices and the newest-first search steer by)
        self.read = 0
        self.last_ms: int | None = None
        # the ids this chain answers for: a time slice's own, narrowed when its tail is cut off
        self.owns: tuple[str, str] | None = call.owns

    @property
    def waiting(self) -> bool:
        """The chain has a page to ask for (it is neither done nor waiting for an answer)."""
        return not self.done and (not self._started or self._token is not None)

    def narrow(self, below: str) -> None:
        """Answer only for ids below ``below`` (another slice lists the rest); the chain
        ends at the first key whose id is at or past it."""
        low = "" if self.owns is None else self.owns[0]
        self.owns = (low, below)

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
        owns = self.owns
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
                if owns is not None:
                    if verdict[0] >= owns[1] and call.ordered and not descending:
                        ended = True  # the next slice's first id: ids only grow from here
                        break
                    if not owns[0] <= verdict[0] < owns[1]:
                        continue  # another slice's key (a neighbour of the edge)
                out.append((verdict, item))
            elif verdict == SKIP:
                stats.skipped += 1
        self._previous = previous
        self.read += page.read
        locate = plan.strategy.locate
        for key, _item in page.entries[: -_TIME_PROBE - 1 : -1]:
            found = locate(key)
            if found is not None:
                self.last_ms = found[1]
                break
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


_POSITION = itemgetter(0)  # _position in C: the merge of shards calls it for every item


# --- time slices: one ordered chain listed as concurrent slices, merged back in order --------

#: A slice is cut only where every piece keeps about this many pages: each slice ends with a
#: partial page (one more call), so thinner pieces would buy little time for their calls.
MIN_SLICE_PAGES = 2
#: Items listed ahead of the caller are bounded to about this many pages per worker: past it,
#: only a chain's front (see Slicing._allowed) asks. Later slices hold what they read until
#: the caller reaches them, so without a bound memory would grow with the window (about
#: 450 bytes an S3 object: 32 pages of 1,000 keys are ~14 MB a worker). Measured on 1,000,000
#: keys with 16 workers (benchmarks/s3_scale.py stand-in, 30 ms, one run each, before the
#: NEAR_PAGES rule): 8 pages 32.0 s, 32 pages 15.6 s, 64 pages 13.9 s, unbounded 12.7 s; with
#: the rule, 32 pages 11.9-12.5 s (client-CPU bound: ~11 s of CPU).
MAX_AHEAD_PAGES = 32
#: Of those, the last this many pages per worker are kept for the slices the caller reaches
#: next (see Slicing._allowed).
NEAR_PAGES = 2


class TimeSlice(Generic[CallT]):
    """One time slice ``[lo_ms, hi_ms)`` of a chain: its page chain and what it has read."""

    def __init__(
        self, state: ChainState[CallT], lo_ms: int, hi_ms: int, density: float | None = None
    ) -> None:
        self.state, self.lo_ms, self.hi_ms = state, lo_ms, hi_ms
        self.density = density  # keys per ms of the slice it was cut from, till it reads its own
        self.items: list[Ordered] = []
        self.sent = False  # a request is in flight
        self.page_keys = 0  # the most keys a page of it held that was not its last

    @property
    def last_ms(self) -> int | None:
        return self.state.last_ms

    @property
    def read(self) -> int:
        return self.state.read

    def pages_left(self, page_size: int) -> float:
        """Pages still to read, from the density of what was read (before its first page: of
        the slice it was cut from; 0 for a chain's first slice)."""
        if self.state.done:
            return 0.0
        if self.last_ms is None:
            if self.density is None:
                return 0.0
            pages = (self.hi_ms - self.lo_ms) * self.density / page_size
            return max(0.0, pages - 1) if self.sent else pages
        density = self.read / max(1, self.last_ms - self.lo_ms + 1)  # keys per ms
        base = self.last_ms + 1
        if self.sent:  # the page in flight covers about one page more
            base += math.ceil(page_size / max(density, 1e-9))
        return max(0, self.hi_ms - base) * density / page_size


class Slicing(Generic[CallT]):
    """Ordered chains listed as time slices, with no I/O (the thread shell and an async one
    only send what :meth:`requests` asks and feed answers to :meth:`receive`).

    Each chain starts as one slice. Its first page tells the key density; while requests in
    flight are fewer than ``max_workers``, the slice with the most pages left has its tail cut
    into new slices (``plan.strategy.slice_call``: StartAfter just below the first key of the cut's
    millisecond), which list concurrently. Every slice answers for its own ids only, so keys
    next to an edge are given once; :meth:`take` hands a chain's items back in order.
    """

    def __init__(
        self, plan: Plan[CallT], calls: Sequence[CallT], stats: Stats, max_workers: int
    ) -> None:
        self.plan, self.stats, self.max_workers = plan, stats, max_workers
        self.chains: list[deque[TimeSlice[CallT]]] = []
        for call in calls:
            lo, hi = call.span or (0, 0)
            self.chains.append(deque([TimeSlice(ChainState(plan, call, stats), lo, hi)]))
        self.in_flight = 0
        self.buffered = 0  # items received and not yet taken
        size = max((self._page_size(chain[0]) for chain in self.chains), default=1000)
        self.max_buffered = MAX_AHEAD_PAGES * max_workers * size
        # where the slices far ahead stop and those the caller reaches next go on (_allowed)
        self.near_bound = self.max_buffered - NEAR_PAGES * max_workers * size

    def requests(self) -> list[tuple[TimeSlice[CallT], Any, int | None]]:
        """The pages to send now (each marked in flight): slices that wait for their next
        page, oldest first, then new slices cut from the densest tail while workers are idle.
        With :attr:`max_buffered` items waiting for the caller, only a chain's *front* may ask
        or be cut: while its first slice holds nothing, that slice and the empty ones after it
        (the caller needs them before anything held further on)."""
        out: list[tuple[TimeSlice[CallT], Any, int | None]] = []
        while True:
            allowed = self._allowed()
            waiting = [
                piece
                for chain in self.chains
                for piece in chain
                if piece.state.waiting
                and not piece.sent
                and (allowed is None or id(piece) in allowed)
            ]
            waiting.sort(key=lambda piece: piece.lo_ms)
            for piece in waiting:
                if self.in_flight >= self.max_workers:
                    return out
                out.append(self._send(piece))
            if self.in_flight >= self.max_workers or not self._cut(allowed):
                return out

    def _allowed(self) -> set[int] | None:
        """Ids of the slices that may ask or be cut (None: all, well below the bound).

        At the bound only a chain's *front* may ask: while its first slice holds nothing, that
        slice and the empty ones after it (the caller needs them before anything held further
        on). Just below it - the last :data:`NEAR_PAGES` pages a worker of the bound - a chain
        whose caller waits (its first slice holds nothing) lets only the slices the caller
        reaches next ask, held items or not, while the pages left to those before them are
        fewer than that: slices far ahead stop first, and the workers stay on what the caller
        needs next instead of waiting for the front alone."""
        if self.buffered < self.near_bound:
            return None
        at_bound = self.buffered >= self.max_buffered
        near_pages = NEAR_PAGES * self.max_workers
        allowed: set[int] = set()
        for chain in self.chains:
            if not chain:
                continue
            if chain[0].items:  # the caller has this chain's items to take: not waiting here
                if not at_bound:
                    allowed.update(id(piece) for piece in chain)
                continue
            ahead = 0.0  # pages left to the slices allowed so far: what the caller needs next
            for piece in chain:
                if piece.items and (at_bound or ahead >= near_pages):
                    break
                allowed.add(id(piece))
                ahead += piece.pages_left(self._page_size(piece))
        return allowed

    def _send(self, piece: TimeSlice[CallT]) -> tuple[TimeSlice[CallT], Any, int | None]:
        request = piece.state.next_request()
        assert request is not None  # only waiting slices are sent
        piece.sent = True
        self.in_flight += 1
        return piece, request[0], request[1]

    def _cut(self, allowed: set[int] | None = None) -> bool:
        """Cut the tail of the slice with the most pages left (of the ``allowed`` ones) into
        its fair share of the workers - its part of all the pages left to the allowed slices,
        chains whose first page has not come back counted as the mean of the others - at most
        as many as are idle and each of at least MIN_SLICE_PAGES pages; False if none is worth
        it.

        A fair share, not every idle worker: each slice costs a partial page more, and the
        first chain to answer would otherwise take all the workers (4 shards: 12 slices in one
        shard, the others cut later) for no shorter wall time."""
        strategy = self.plan.strategy
        if not strategy.splittable:
            return False
        best: tuple[float, int, TimeSlice[CallT]] | None = None
        measured: list[float] = []  # pages left per chain whose density is known
        unmeasured = 0
        for index, chain in enumerate(self.chains):
            chain_left = 0.0
            known = considered = False
            for piece in chain:
                if allowed is not None and id(piece) not in allowed:
                    continue  # waits for the caller: the workers share out the others' pages
                considered = True
                left = piece.pages_left(self._page_size(piece))
                chain_left += left
                known = known or piece.last_ms is not None or piece.state.done
                if piece.last_ms is None:
                    continue  # a slice is cut from where its own pages reached
                if best is None or left > best[0]:
                    best = (left, index, piece)
            if known:
                measured.append(chain_left)
            elif considered:
                unmeasured += 1
        if best is None or not measured:
            return False
        left, index, piece = best
        total = sum(measured) + unmeasured * sum(measured) / len(measured)
        share = round(self.max_workers * left / max(total, 1e-9))
        idle = self.max_workers - self.in_flight
        parts = min(idle + 1, int(left // MIN_SLICE_PAGES), share)
        if parts < 2 or piece.last_ms is None:
            return False
        density = piece.read / max(1, piece.last_ms - piece.lo_ms + 1)
        size = self._page_size(piece)
        base = piece.last_ms + 1
        if piece.sent:
            base += math.ceil(size * (piece.last_ms - piece.lo_ms + 1) / max(1, piece.read))
        cuts = sorted({base + (piece.hi_ms - base) * j // parts for j in range(1, parts)})
        edges = [*cuts, piece.hi_ms]
        new: list[TimeSlice[CallT]] = []
        for lo, hi in pairwise(edges):
            if lo <= piece.last_ms or lo >= hi:
                continue
            call = strategy.slice_call(piece.state.call, lo, hi)
            if call is not None:
                new.append(TimeSlice(ChainState(self.plan, call, self.stats), lo, hi, density))
        if not new:
            return False
        # the kept slice ends where the first new one starts; later ones end at the next
        first_id = new[0].state.owns[0] if new[0].state.owns else None
        if first_id is None:
            return False
        piece.state.narrow(first_id)
        # its next pages end at the cut where the service can narrow a chain (a page in flight
        # may not end there; S3's chains are ended by the executor at the first id past it)
        piece.state.call = strategy.trim_call(piece.state.call, first_id)
        piece.hi_ms = new[0].lo_ms
        for before, after in pairwise(new):
            before.hi_ms = after.lo_ms
        chain = self.chains[index]
        at = chain.index(piece) + 1
        for offset, part in enumerate(new):
            chain.insert(at + offset, part)
        return True

    @staticmethod
    def _page_size(piece: TimeSlice[CallT]) -> int:
        """Keys a page of the slice holds: the most a page that was not the last held (a
        DynamoDB page is 1 MB, however many items that is), else the call's ``max_keys``."""
        return piece.page_keys or int(getattr(piece.state.call, "max_keys", 1000))

    def receive(self, piece: TimeSlice[CallT], page: Page) -> None:
        """An answer to a request :meth:`requests` gave."""
        piece.sent = False
        self.in_flight -= 1
        if page.token is not None:
            piece.page_keys = max(piece.page_keys, len(page.entries))
        items = piece.state.receive(page)
        self.buffered += len(items)
        piece.items += items

    def take(self, index: int) -> list[Ordered]:
        """Chain ``index``'s items that are ready, in order (its earlier slices are done)."""
        chain = self.chains[index]
        out: list[Ordered] = []
        while chain:
            head = chain[0]
            out += head.items
            head.items = []
            if head.sent or not head.state.done:
                break
            chain.popleft()
        self.buffered -= len(out)
        return out

    def finished(self, index: int) -> bool:
        return not self.chains[index]


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
        building block of ``run``): ``ulidkeys.execution.stream`` and its asyncio twin."""
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


Request = tuple[Any, Any, int | None]  # (call, token, limit) for PageSource.fetch
Steps = Generator[list[Request], list[Page], list[Ordered]]

#: ``search_back`` starts with a slice this wide and grows it while slices come back empty.
FIRST_SLICE_MS = 60_000
#: How much wider each empty slice of the search is than the one before.
GROWTH = 8


def _chains(states: list[ChainState[Any]]) -> Generator[list[Request], list[Page], list[Ordered]]:
    """Run chains side by side, one page each per step; their items, unsorted."""
    items: list[Ordered] = []
    while True:
        batch = []
        for state in states:
            if state.waiting:
                request = state.next_request()
                if request is not None:
                    batch.append((state, request))
        if not batch:
            return items
        pages = yield [(state.call, token, limit) for state, (token, limit) in batch]
        for (state, _request), page in zip(batch, pages, strict=True):
            items += state.receive(page)


def forward_tail(plan: Plan[CallT], n: int, stats: Stats) -> Steps:
    """The ``n`` last items of an ascending plan, newest first: list it all, keep the tail."""
    tails: list[deque[Ordered]] = []
    states = [ChainState(plan, call, stats) for call in plan.calls]
    while True:
        batch = [(s, s.next_request()) for s in states if s.waiting]
        if not batch:
            break
        pages = yield [(s.call, r[0], r[1]) for s, r in batch if r is not None]
        for (state, _request), page in zip(batch, pages, strict=True):
            tail: deque[Ordered] = deque(state.receive(page), maxlen=n)
            tails.append(tail)
            if len(tails) > 2 * len(states):  # keep memory at n items per chain
                merged = sorted((e for t in tails for e in t), key=_position)[-n:]
                tails = [deque(merged, maxlen=n)]
    merged = sorted((e for t in tails for e in t), key=_position)[-n:]
    merged.reverse()
    return merged


def search_back(
    plan_slice: Callable[[int, int], Plan[CallT]],
    stats: Stats,
    n: int,
    start: int,
    end: int,
    *,
    page_size: int = 1000,
    occupied: Iterable[tuple[int, int]] | None = None,
) -> Steps:
    """The ``n`` newest items of ``[start, end)``, newest first, for a service that lists only
    forwards: probe slices ``[low, end)`` back from ``end``.

    Until a key is seen, each empty slice is followed by one ``GROWTH`` times wider (finding
    data of age A costs log(A) calls). A slice is crowded when a chain needs more pages than
    ``n`` can justify (one full page for ``n`` below half a page); it is abandoned, but its
    pages show a key at some time ``known`` and the key density, so the newest key lies in
    ``[known, end)``: the search halves that bracket until it holds about one page at that
    density, then reads it. So calls grow with the log of the age and of the data between the
    newest key and the first key seen, and memory with ``n``, never with the data.
    ``occupied`` (spans known to hold data, newest first, e.g. S3 day folders) lets the walk
    jump over empty time and end after the oldest span.
    """
    found: list[Ordered] = []
    remaining, width = n, FIRST_SLICE_MS
    known: int | None = None  # a time below ``end`` that holds keys
    density = 0.0  # keys per ms around ``known``
    spans = None if occupied is None else deque(occupied)
    while remaining > 0 and end > start:
        if spans is not None:
            while spans and spans[0][0] >= end:
                spans.popleft()
            if not spans:
                break
            end = min(end, spans[0][1])
        if known is not None and known >= end:
            known = None
        budget = 1 + 2 * remaining // page_size
        if known is None:
            low = max(start, end - width)
        elif (end - known) * density <= budget * page_size / 2:
            low = known  # the whole bracket fits in the budget at the density seen
        else:
            low = end - (end - known) // 2
        plan = plan_slice(low, end)
        states = [
            ChainState(plan, call, stats, None if end - low == 1 else budget) for call in plan.calls
        ]
        try:
            items = yield from _chains(states)
        except Crowded:
            seen = [state.last_ms for state in states if state.last_ms is not None]
            if not seen:  # pages of keys that do not fit: no time to steer by
                width = max(1, (end - low) // 4)
                known = None
                continue
            known = max(low, max(seen))
            read = sum(state.read for state in states)
            density = read / max(1, known - low + 1)
            continue
        items.sort(key=_position)
        tail = items[-remaining:] if remaining < len(items) else items
        tail.reverse()
        found += tail
        remaining -= len(tail)
        if known is None or low <= known:
            # nothing known below: gallop on, from a width that holds about what is still
            # wanted at the density of this slice if it had data
            known = None
            width = (end - low) * GROWTH
            if items:
                width = min(width, max(end - low, 2 * remaining * (end - low) // len(items)))
        end = low
    return found


def race(first: Steps, second: Steps, stats: Stats | None = None) -> Steps:
    """Two searches for the same answer, a step of each in turn; the first to finish wins
    (the other is closed). So the race costs at most twice the cheaper one, plus a step.
    ``stats`` counts the keys of the loser's last pages, which it never reads."""
    runners = [first, second]
    replies: list[list[Page] | None] = [None, None]
    turn = 0
    try:
        while True:
            runner = runners[turn]
            try:
                batch = runner.send(replies[turn])  # type: ignore[arg-type]
            except StopIteration as stop:
                # The loser's last pages were transferred too, though it never reads them.
                if stats is not None:
                    stats.read += sum(page.read for page in replies[turn ^ 1] or ())
                return stop.value  # type: ignore[no-any-return]
            replies[turn] = yield batch
            turn ^= 1
    finally:
        first.close()
        second.close()


# --- programs: work of several listings, one generator for both shells ----------------------
#
# A program yields operations and is sent their answers: list a plan to its end (Collect),
# drive a page-step search (Drive), fetch one raw page (Fetch), hand entries to the caller
# (Give); what it returns is the run's result. The thread shell
# (``ulidkeys.execution.run_program``) and the asyncio shell
# (``ulidkeys.aio.execution.run_program``)
# carry them out, so what ``latest`` does (folders, searches, re-listings) is written once.


@dataclass(frozen=True)
class Collect:
    """List ``plan`` to its end; the answer is its entries, in result order."""

    plan: Plan[Any]


@dataclass(frozen=True)
class Drive:
    """Run a page-step coroutine (:func:`search_back`, :func:`race`); the answer is its
    result."""

    steps: Steps


@dataclass(frozen=True)
class Fetch:
    """Send one request of a call chain, continuing at ``token`` (None: its first), for at most
    ``limit`` items if given; the answer is the :class:`Page` (counted in the run's stats as a
    call and what it read)."""

    call: Any
    token: Any = None
    limit: int | None = None


@dataclass(frozen=True)
class Give:
    """Hand these entries to the caller, in this order (no answer)."""

    entries: list[Ordered]


Operation = Collect | Drive | Fetch | Give
#: A program gets the answer to each operation it yields; it returns when it is done.
Program = Generator[Operation, Any, object]
