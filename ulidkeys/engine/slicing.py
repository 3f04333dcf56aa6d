"""Time slices: one ordered chain listed as concurrent slices of its time span, merged back
in order, with the memory ahead of the caller bounded (:class:`Slicing`). No I/O: a shell sends
what :meth:`Slicing.requests` asks and feeds the answers to :meth:`Slicing.receive`.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from itertools import pairwise
from typing import Any, Generic

from ulidkeys.engine.chains import CallT, ChainState, Ordered, Page, Stats
from ulidkeys.planning.plans import Plan

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
