"""The thread shell of the one executor: runs any plan against any service adapter and yields
the exact answer.

:func:`run` fans a plan's chains out over a thread pool, merges shards in order and hands back
:class:`Results` with ``.stats`` and ``.cursor``; :func:`drive` runs the newest-first search's
steps. What they drive (chain state, time slices, schedule, merge) is :mod:`ulidkeys.engine`,
shared with the asyncio shell.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, TypeVar

from ulidkeys.engine.chains import (
    _POSITION,
    CallT,
    ChainState,
    Item,
    Ordered,
    Page,
    PageSource,
    Stats,
    Steps,
)
from ulidkeys.engine.pools import pool_size, warn_crowded
from ulidkeys.engine.programs import Collect, Fetch, Give, Program
from ulidkeys.engine.scheduling import Schedule, Yielded, check_workers, merge_runs
from ulidkeys.engine.slicing import Slicing, TimeSlice
from ulidkeys.errors import require_bool
from ulidkeys.planning.plans import Plan

_Self = TypeVar("_Self", bound="Closing")


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


class Results(Yielded[Iterator[Ordered]], Closing, Iterator[Item]):
    """The items of a listing or query, in order, with ``.stats`` and ``.cursor``.

    ``Results(source, cursor_of, stats=None)``: ``source`` makes the ``(position, item)``
    iterator given the stats it counts into (see :class:`~ulidkeys.engine.scheduling.Yielded`).
    ``cursor`` is an opaque, JSON-safe string that resumes just past the last item yielded
    (None before the first); pass it back as ``cursor=``. ``close()`` (or leaving a ``with``
    block) stops early: no further requests are sent.
    """

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


class _Runner(Schedule[CallT, PageSource[CallT], Iterator[Ordered]]):
    """The thread-pool shell: a running plan's requests go to a pool of ``max_workers``."""

    def start(self) -> None:
        max_workers = self.max_workers
        threads = max_workers if self.split else min(max_workers, len(self.plan.calls))
        self.client = getattr(self.source, "client", None)
        self.connections = pool_size(self.client)
        self.pool: Any = (
            _Inline()
            if threads <= 1
            else ThreadPoolExecutor(threads, thread_name_prefix="ulidkeys")
        )

    def _send(self, state: ChainState[CallT]) -> Future[Page] | None:
        request = self.request(state)
        if request is None:
            return None
        token, limit = request
        return self.pool.submit(self.source.fetch, state.call, token, limit)  # type: ignore[no-any-return]

    def chain(self, call: CallT) -> Iterator[list[Ordered]]:
        """The chain's positioned items, a page's list at a time; its first request is sent at
        once, so chains overlap."""
        state = self.chain_state(call)
        pending = self._send(state)
        return self._pages(state, pending)

    def _pages(
        self, state: ChainState[CallT], pending: Future[Page] | None
    ) -> Iterator[list[Ordered]]:
        while pending is not None:
            items = state.receive(pending.result())
            # Read-ahead: ask for the next page while this one is consumed (not with a limit
            # or a page budget, where a request sent early may be a request wasted).
            pending = self._send(state) if self.read_ahead else None
            yield items  # resumed once the caller has taken them all
            if not self.read_ahead:
                pending = self._send(state)

    def slices(self, slicing: Slicing[CallT]) -> list[Iterator[list[Ordered]]]:
        """Each chain's items, a list at a time, its time slices sent as :class:`Slicing`
        asks."""
        futures: dict[Future[Page], TimeSlice[CallT]] = {}

        def pump() -> None:
            for piece, token, limit in slicing.requests():
                future = self.pool.submit(self.source.fetch, piece.state.call, token, limit)
                futures[future] = piece
            self._crowded(len(futures))
            if not futures:  # a chain that can neither send nor wait would spin forever
                raise RuntimeError("time slices stalled: no request to send or to wait for")
            done, _ = wait(futures, return_when=FIRST_COMPLETED)
            for future in done:
                slicing.receive(futures.pop(future), future.result())

        def chain(index: int) -> Iterator[list[Ordered]]:
            while True:
                items = slicing.take(index)
                if items:
                    yield items  # resumed once the caller has taken them all
                elif not slicing.finished(index):
                    pump()  # nothing ready: wait for a page
                if slicing.finished(index):
                    return

        return [chain(index) for index in range(len(slicing.chains))]

    def _crowded(self, in_flight: int) -> None:
        """Warn when more requests are in flight than the client keeps connections for."""
        if self.connections is not None and in_flight > self.connections:
            warn_crowded(self.client, self.connections, in_flight)

    def group(self, calls: tuple[CallT, ...]) -> Iterator[Ordered]:
        slicing = self.sliced(calls)
        if slicing is not None:
            streams = self.slices(slicing)
        else:
            streams = [self.chain(call) for call in calls]  # each sends its first request
            self._crowded(min(len(calls), self.max_workers))
        if len(streams) == 1:
            return itertools.chain.from_iterable(streams[0])  # no Python step per item
        if not self.plan.newest_first and all(call.ordered for call in calls):
            return merge_runs(streams)  # a page at a time
        # unordered chains give a folder at once, sorted: merged an item at a time (the
        # order of Merge), so no more than a folder per chain is held
        items = [itertools.chain.from_iterable(stream) for stream in streams]
        return heapq.merge(*items, key=_POSITION, reverse=self.plan.newest_first)

    def items(self) -> Iterator[Ordered]:
        """The plan's entries in result order; the pool is shut down when they end or stop."""
        try:
            while (group := self.next_group(self.group)) is not None:
                if self.plan.limit is None:
                    yield from group  # nothing to count: no Python step per item
                    continue
                for entry in group:
                    yield entry
                    if self.took():
                        return
        finally:
            self.pool.shutdown(wait=False, cancel_futures=True)


#: The plan's ``(position, item)`` pairs in result order (the building block of :func:`run`).
stream = _Runner.stream


def run(
    plan: Plan[CallT], source: PageSource[CallT], *, max_workers: int = 8, split: bool = True
) -> Results[Any]:
    """Run a plan: its chains concurrently (at most ``max_workers`` requests in flight).

    ``split`` lists each ordered chain of a plan whose strategy is ``splittable`` as concurrent time
    slices once its first page shows more than a few pages to go (not with a ``limit``).
    """
    check_workers(max_workers)
    require_bool(split, "split")
    return Results(
        lambda stats: stream(plan, source, stats, max_workers=max_workers, split=split),
        plan.cursor,
    )


# --- newest first where the service only lists forwards (S3) -------------------------------
#
# Written as I/O-free step coroutines: each yields the requests to send now (one batch) and is
# sent their pages back, in order; it returns its answer. The thread shell (:func:`drive`)
# sends a batch concurrently; ``ulidkeys.aio.execution.drive`` awaits the same batches.


def run_program(
    program: Program, source: PageSource[Any], stats: Stats, *, max_workers: int = 8
) -> Generator[Ordered, None, Any]:
    """The thread shell of a program (:data:`~ulidkeys.engine.programs.Program`): its plans run with
    :func:`stream`, its searches with :func:`drive`, its raw pages fetched one by one; yields
    what it gives, as it gives it, and returns what the program returns."""
    answer: Any = None
    try:
        while True:
            try:
                operation = program.send(answer)
            except StopIteration as done:
                return done.value
            answer = None
            if isinstance(operation, Give):
                yield from operation.entries
            elif isinstance(operation, Collect):
                answer = list(stream(operation.plan, source, stats, max_workers=max_workers))
            elif isinstance(operation, Fetch):
                stats.calls += 1
                answer = source.fetch(operation.call, operation.token, operation.limit)
                stats.read += answer.read
            else:
                answer = drive(operation.steps, source, max_workers=max_workers)
    finally:
        program.close()


def outcome(
    program: Program, source: PageSource[Any], stats: Stats, *, max_workers: int = 8
) -> Any:
    """Run a program that gives nothing and return its result (a survey)."""
    runner = run_program(program, source, stats, max_workers=max_workers)
    while True:
        try:
            next(runner)
        except StopIteration as done:
            return done.value


def drive(steps: Steps, source: PageSource[Any], *, max_workers: int = 8) -> list[Ordered]:
    """The thread shell of a step coroutine: each batch of requests concurrently."""
    pool: Any = _Inline() if max_workers == 1 else ThreadPoolExecutor(max_workers)
    try:
        batch = next(steps)
        while True:
            futures = [pool.submit(source.fetch, *request) for request in batch]
            batch = steps.send([future.result() for future in futures])
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]
    finally:
        steps.close()
        pool.shutdown(wait=False, cancel_futures=True)


#: The thread shell's public names (the machines' are imported from their modules).
__all__ = [
    "Closing",
    "Results",
    "drive",
    "run",
    "run_program",
    "stream",
]
