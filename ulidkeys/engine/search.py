"""The newest-first search for services that list only forwards, as programs
(:data:`~ulidkeys.engine.operations.Program`) that yield only :class:`Fetch` operations: the
tail of an ascending listing (:func:`forward_tail`), the galloping and halving search back from
the window's end (:func:`search_back`), and two searches raced for one answer (:func:`race`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator, Iterable
from typing import Any

from ulidkeys.engine.chains import CallT, ChainState, Crowded, Ordered, Page, Stats, _position
from ulidkeys.engine.operations import Fetch, Request
from ulidkeys.planning.plans import Plan

#: A search: yields page requests, a batch at a time, and returns the items it found.
Search = Generator[Fetch, list[Page], list[Ordered]]

#: ``search_back`` starts with a slice this wide and grows it while slices come back empty.
FIRST_SLICE_MS = 60_000
#: How much wider each empty slice of the search is than the one before.
GROWTH = 8


def _chains(states: list[ChainState[Any]]) -> Search:
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
        pages = yield Fetch([(state.call, token, limit) for state, (token, limit) in batch])
        for (state, _request), page in zip(batch, pages, strict=True):
            items += state.receive(page)


def forward_tail(plan: Plan[CallT], n: int, stats: Stats) -> Search:
    """The ``n`` last items of an ascending plan, newest first: list it all, keep the tail."""
    tails: list[deque[Ordered]] = []
    states = [ChainState(plan, call, stats) for call in plan.calls]
    while True:
        batch = [(s, s.next_request()) for s in states if s.waiting]
        if not batch:
            break
        requests: list[Request] = [(s.call, r[0], r[1]) for s, r in batch if r is not None]
        pages = yield Fetch(requests)
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
) -> Search:
    """The ``n`` newest items of ``[start, end)``, newest first, for a service that lists only
    forwards: probe slices ``[low, end)`` back from ``end``.

    Until a key is seen, each empty slice is followed by one ``GROWTH`` times wider (finding
    data of age A costs log(A) calls). A slice is crowded when a chain needs more pages than
    ``n`` can justify (one full page for ``n`` below half a page); it is abandoned, but its
    pages show a key at some time ``known`` and the key density, so the newest key lies in
    ``[known, end)``: the search halves that bracket until it holds about one page at that
    density, then reads it. So calls grow with the log of the age and of the data between the
    newest key and the first key seen, and memory with ``n``, never with the data. Each slice
    lowers ``end`` or raises ``known`` (a bracket of one millisecond is read whole), so the
    search ends however many keys share a millisecond and however full the pages are.
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
        else:  # halve the bracket; one of a millisecond is read whole (below: no budget)
            low = end - max(1, (end - known) // 2)
        plan = plan_slice(low, end)
        states = [
            ChainState(plan, call, stats, None if end - low == 1 else budget) for call in plan.calls
        ]
        try:
            items = yield from _chains(states)
        except Crowded:
            # the times of the last keys read below ``end`` (a chain that ended on this slice
            # may have read its page on past ``end``: no time in the bracket)
            seen = [ms for state in states if (ms := state.last_ms) is not None and ms < end]
            if not seen:  # pages of keys that do not fit: no time to steer by
                width = max(1, (end - low) // 4)
                known = None
                continue
            known = max(low, max(seen))
            if known == low:
                # the pages showed no time past the slice's first millisecond: the bracket
                # [known, end) is this slice, which would crowd again however the density
                # reads (pages may hold fewer keys than page_size); halve it instead
                density = float("inf")
            else:
                read = sum(state.read for state in states)
                density = read / (known - low + 1)
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


def race(first: Search, second: Search, stats: Stats | None = None) -> Search:
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
                fetch = runner.send(replies[turn])  # type: ignore[arg-type]
            except StopIteration as stop:
                # The loser's last pages were transferred too, though it never reads them.
                if stats is not None:
                    stats.read += sum(page.read for page in replies[turn ^ 1] or ())
                return stop.value  # type: ignore[no-any-return]
            replies[turn] = yield fetch
            turn ^= 1
    finally:
        first.close()
        second.close()
