"""The newest objects of a layout whose service lists only forwards (S3): what ``latest``
lists, worked out before any request, and the one program
(:data:`~ulidkeys.engine.operations.Program`) that finds them, which the thread and asyncio
shells both run.

The top-level period folders that hold data first (when the layout has them), then a search back
from the top of the window raced with a forward listing, or for directory buckets the folders
newest first;
with a ``suffix``, older ones are listed from the cursor until enough of them are found.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import Any

from ulidkeys.engine.chains import Ordered, Stats
from ulidkeys.engine.folders import data_spans
from ulidkeys.engine.operations import Collect, Give, Operation, Program
from ulidkeys.engine.search import Search, forward_tail, race, search_back
from ulidkeys.errors import require_count
from ulidkeys.planning.layout import KeyLayout
from ulidkeys.planning.listings import (
    ListCall,
    layout_scope,
    plan_listing,
    resume_position,
)
from ulidkeys.planning.plans import Cursor, Plan, Position, resolve_window
from ulidkeys.timeinput import TimeInput


@dataclass(frozen=True)
class Newest:
    """What ``latest`` lists: a plan when the layout lists newest first, else the window
    ``[start, top)`` to search back through (``top`` is below the cursor's position)."""

    layout: KeyLayout
    directory: bool
    n: int
    start: int
    end: int
    top: int
    before: Position | None
    plan: Plan[ListCall] | None

    @classmethod
    def of(
        cls,
        layout: KeyLayout,
        directory: bool,
        n: int,
        since: TimeInput | None,
        until: TimeInput | None,
        cursor: str | None,
    ) -> Newest:
        """The ``n`` newest of ``[since, until)`` (default: all time before now), past
        ``cursor`` (a cursor :meth:`cursor_of` gave) if given."""
        require_count(n, "n")
        if n == 0:
            return cls(layout, directory, 0, 0, 0, 0, None, None)
        start, end = resolve_window(since, until, cursor)
        if layout.newest_first and not directory:
            # The keys list newest first already: the n newest are the window's first n.
            plan = plan_listing(layout, start, end, cursor=cursor, limit=n)
            return cls(layout, directory, n, start, end, end, None, plan)
        before = resume_position(layout, start, end, True, None, cursor)
        top = end
        if before is not None:
            top = min(end, layout.scheme.timestamp_ms(before[0]) + 1)
        return cls(layout, directory, n, start, end, top, before, None)

    def cursor_of(self, position: Position) -> str:
        """The cursor that resumes just past ``position``, with the next older objects."""
        if self.plan is not None:
            return self.plan.cursor(position)
        return Cursor(layout_scope(self.layout), True, self.start, self.end, position).encode()

    def plan_slice(self, low: int, high: int) -> Plan[ListCall]:
        return plan_listing(self.layout, low, high, before=self.before)

    def search(self, spans: list[tuple[int, int]] | None, stats: Stats) -> Search | None:
        """The page steps that find the ``n`` newest keys of a general-purpose bucket (None
        when no period folder holds data; ``spans`` are those that do, None without period
        folders): a search back from ``top``, raced with a forward listing of the whole window -
        one page that is not truncated holds all of it, and a small prefix is cheaper to read
        than to search, so latest never costs more than about twice a full listing."""
        if spans is not None and not spans:
            return None
        back = search_back(self.plan_slice, stats, self.n, self.start, self.top, occupied=spans)
        forward = forward_tail(self.plan_slice(self.start, self.top), self.n, stats)
        return race(forward, back, stats)

    def directory_spans(self, spans: list[tuple[int, int]] | None) -> Iterator[tuple[int, int]]:
        """Directory buckets list whole folders anyway: the spans of the top-level folders that
        hold data (all of ``[start, top)`` without period folders), newest first."""
        for low, high in [(self.start, self.top)] if spans is None else spans:
            low, high = max(low, self.start), min(high, self.top)
            if low < high:
                yield low, high

    def directory_plan(self, low: int, high: int, remaining: int) -> Plan[ListCall]:
        """One span of a directory bucket, newest first, limited to what is still wanted."""
        return plan_listing(
            self.layout,
            low,
            high,
            directory_bucket=True,
            newest_first=True,
            limit=remaining,
            before=self.before,
        )

    def program(self, stats: Stats) -> Generator[Operation, Any, list[Ordered]]:
        """The ``n`` newest entries, newest first (what it gives it also returns)."""
        if self.n == 0:  # like a DynamoDB limit of 0: no call at all
            return []
        if self.plan is not None:
            found: list[Ordered] = yield Collect(self.plan)
            yield Give(found)
            return found
        spans = None
        if self.layout.partition is not None:
            spans = yield from data_spans(self.layout, self.directory, self.start, self.top)
        if self.directory:
            found = []
            for low, high in self.directory_spans(spans):
                part: list[Ordered] = yield Collect(
                    self.directory_plan(low, high, self.n - len(found))
                )
                yield Give(part)
                found += part
                if len(found) >= self.n:
                    break
            return found
        steps = self.search(spans, stats)
        if steps is None:
            return []
        found = yield from steps
        yield Give(found)
        return found


def latest(first: Newest, suffix: str | None) -> Callable[[Stats], Program[Any]]:
    """The program giving the objects ``first`` lists (``Bucket.latest``'s).

    With ``suffix``, only keys ending in exactly that text after the id are given: while keys
    with another suffix stood among the newest, older ones are listed from the cursor of the
    last one listed, so ``first.n`` come back whenever that many such objects exist; the
    others are counted in ``stats.filtered``.
    """
    if suffix is None:
        return first.program
    layout, directory = first.layout, first.directory
    suffix = layout.suffix_filter(suffix)

    def program(stats: Stats) -> Program[Any]:
        newest, wanted = first, first.n
        while True:
            listed, kept = yield from _filtered(newest.program(stats), layout, suffix, stats)
            wanted -= kept
            if wanted <= 0 or len(listed) < newest.n:
                return None  # enough, or nothing older
            resume = newest.cursor_of(listed[-1][0])
            newest = Newest.of(layout, directory, wanted, None, None, resume)

    return program


def _filtered(
    program: Generator[Operation, Any, list[Ordered]], layout: KeyLayout, suffix: str, stats: Stats
) -> Generator[Operation, Any, tuple[list[Ordered], int]]:
    """``program`` giving only the entries of keys ending in exactly ``suffix`` (the others
    counted as filtered); returns everything it listed, and how many of those it gave."""
    answer: Any = None
    given = 0
    while True:
        try:
            operation = program.send(answer)
        except StopIteration as done:
            return done.value, given
        if isinstance(operation, Give):
            kept = [e for e in operation.entries if layout.split(e[1]["Key"])[1] == suffix]
            stats.filtered += len(operation.entries) - len(kept)
            given += len(kept)
            operation = Give(kept)
        answer = yield operation
