"""The asyncio shell of the one executor: the same plans and the same machines
(:mod:`ulidkeys.engine`: page-chain state, merge, schedule, stats/cursor) as the thread shell
:mod:`ulidkeys.engine.execution`, with tasks in place of threads.

Only the awaiting lives here (standard library only): a chain's pages are tasks bounded by a
semaphore of ``max_workers``, and closing an :class:`AsyncResults` cancels the ones in flight.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import aclosing
from typing import Any, Generic, Protocol, TypeVar

from ulidkeys.engine.chains import ChainState, Ordered, Page, Stats, Steps
from ulidkeys.engine.programs import Collect, Fetch, Give, Program
from ulidkeys.engine.scheduling import Merge, Schedule, Yielded, check_workers
from ulidkeys.engine.slicing import Slicing
from ulidkeys.errors import require_bool
from ulidkeys.planning.plans import Call, Plan

Item = TypeVar("Item")
CallT = TypeVar("CallT", bound=Call)
CallC = TypeVar("CallC", bound=Call, contravariant=True)
_Self = TypeVar("_Self", bound="AsyncResults[Any]")


class AsyncPageSource(Protocol[CallC]):
    """What an async adapter provides: one awaited request for one page of one call chain."""

    async def fetch(self, call: CallC, token: Any, limit: int | None) -> Page:
        """Send the call (continuing at ``token``, at most ``limit`` items if given)."""
        ...


class AsyncResults(Yielded[AsyncIterator[Ordered]], AsyncIterator[Item]):
    """The items of a listing or query, in order, for ``async for``; ``.stats`` and
    ``.cursor`` as on :class:`~ulidkeys.engine.execution.Results`.

    ``await aclose()`` (or leaving an ``async with`` block) stops early: requests in flight
    are cancelled and no further ones are sent. Breaking out of ``async for`` without it
    leaves that to the garbage collector, as with a generator.
    """

    async def __anext__(self) -> Item:
        return self._took(await anext(self._items))  # type: ignore[no-any-return]

    async def aclose(self) -> None:
        """Stop: cancel the requests in flight and send no more."""
        close = getattr(self._items, "aclose", None)
        if close is not None:
            await close()

    async def __aenter__(self: _Self) -> _Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class _Entries(Protocol):
    """A chain's entries under asyncio, one at a time (a plain chain or a sliced one)."""

    async def next(self) -> Ordered | None:
        """The chain's next entry, None after its last."""
        ...


class _Chain(Generic[CallT]):
    """One call chain under asyncio: its pages as tasks, its entries one :meth:`next` at a
    time (the sync shell's generator, as an object so that closing needs no nested aclose)."""

    def __init__(self, runner: _AsyncRunner[CallT], call: CallT) -> None:
        self.runner = runner
        self.state = runner.chain_state(call)
        self.pending = runner.send(self.state)  # at once, so chains overlap
        self.entries: list[Ordered] = []
        self.at = 0

    async def next(self) -> Ordered | None:
        """The chain's next entry, None after its last."""
        runner, state = self.runner, self.state
        while self.at >= len(self.entries):
            pending = self.pending if self.pending is not None else runner.send(state)
            if pending is None:
                return None
            self.entries, self.at = state.receive(await pending), 0
            # Read-ahead as in the thread shell: the next page while this one is consumed.
            self.pending = runner.send(state) if runner.read_ahead else None
        entry = self.entries[self.at]
        self.at += 1
        return entry


class _AsyncRunner(Schedule[CallT, AsyncPageSource[CallT], AsyncGenerator[Ordered, None]]):
    """The asyncio shell: a running plan's requests are tasks, at most ``max_workers`` at once."""

    def start(self) -> None:
        self._slots = asyncio.Semaphore(self.max_workers)
        self._tasks: set[asyncio.Task[Page]] = set()

    def send(self, state: ChainState[CallT]) -> asyncio.Task[Page] | None:
        request = self.request(state)
        if request is None:
            return None
        token, limit = request
        return self.fetch(state.call, token, limit)

    def fetch(self, call: CallT, token: Any, limit: int | None) -> asyncio.Task[Page]:
        """One page request as a task (cancelled when the run ends or stops)."""
        task = asyncio.ensure_future(self._fetch(call, token, limit))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _fetch(self, call: CallT, token: Any, limit: int | None) -> Page:
        async with self._slots:
            return await self.source.fetch(call, token, limit)

    def group(self, calls: tuple[CallT, ...]) -> Sequence[_Entries]:
        slicing = self.sliced(calls)
        if slicing is not None:
            pump = _Pump(self, slicing)
            return [_SlicedChain(pump, index) for index in range(len(calls))]
        return [_Chain(self, call) for call in calls]

    async def items(self) -> AsyncGenerator[Ordered, None]:
        """The plan's entries in result order; outstanding requests are cancelled when they
        end or stop."""
        try:
            while (chains := self.next_group(self.group)) is not None:
                merge = Merge(self.plan.newest_first)
                for number, chain in enumerate(chains):
                    merge.push(number, await chain.next())
                while merge:
                    number, entry = merge.pop()
                    yield entry
                    if self.took():
                        return
                    merge.push(number, await chains[number].next())
        finally:
            await self.cancel()

    async def cancel(self) -> None:
        """Cancel every request in flight or waiting for a slot, and wait until they are gone."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)


class _Pump(Generic[CallT]):
    """A group listed as time slices under asyncio: sends what :class:`Slicing` asks as tasks
    and feeds each answer back as it arrives."""

    def __init__(self, runner: _AsyncRunner[CallT], slicing: Slicing[CallT]) -> None:
        self.runner, self.slicing = runner, slicing
        self.tasks: dict[asyncio.Task[Page], Any] = {}

    async def step(self) -> None:
        """Send the requests the slices want now, then wait for at least one answer."""
        for piece, token, limit in self.slicing.requests():
            self.tasks[self.runner.fetch(piece.state.call, token, limit)] = piece
        if not self.tasks:  # a chain that can neither send nor wait would spin forever
            raise RuntimeError("time slices stalled: no request to send or to wait for")
        done, _ = await asyncio.wait(self.tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            self.slicing.receive(self.tasks.pop(task), task.result())


class _SlicedChain(Generic[CallT]):
    """One chain of a sliced group: its entries in order, one :meth:`next` at a time."""

    def __init__(self, pump: _Pump[CallT], index: int) -> None:
        self.pump, self.index = pump, index
        self.entries: list[Ordered] = []
        self.at = 0

    async def next(self) -> Ordered | None:
        """The chain's next entry, None after its last."""
        slicing = self.pump.slicing
        while self.at >= len(self.entries):
            self.entries, self.at = slicing.take(self.index), 0
            if self.entries:
                break
            if slicing.finished(self.index):
                return None
            await self.pump.step()
        entry = self.entries[self.at]
        self.at += 1
        return entry


#: The plan's ``(position, item)`` pairs in result order (the building block of :func:`run`).
stream = _AsyncRunner.stream


def run(
    plan: Plan[CallT],
    source: AsyncPageSource[CallT],
    *,
    max_workers: int = 8,
    split: bool = True,
) -> AsyncResults[Any]:
    """Run a plan: its chains as concurrent tasks (at most ``max_workers`` requests in flight);
    ``split`` as in :func:`ulidkeys.engine.execution.run` (time slices of long ordered chains)."""
    check_workers(max_workers)
    require_bool(split, "split")
    return AsyncResults(
        lambda stats: stream(plan, source, stats, max_workers=max_workers, split=split),
        plan.cursor,
    )


async def drive(
    steps: Steps, source: AsyncPageSource[Any], *, max_workers: int = 8
) -> list[Ordered]:
    """:func:`ulidkeys.engine.execution.drive` under asyncio: each batch of page requests of a step
    coroutine (``search_back``, ``forward_tail``, ``race``) as concurrent tasks, at most
    ``max_workers`` at once; closing the coroutine (or cancelling) cancels the ones in flight."""
    slots = asyncio.Semaphore(max_workers)

    async def fetch(call: Any, token: Any, limit: int | None) -> Page:
        async with slots:
            return await source.fetch(call, token, limit)

    try:
        batch = next(steps)
        while True:
            tasks = [asyncio.ensure_future(fetch(*request)) for request in batch]
            try:
                pages = await asyncio.gather(*tasks)
            except BaseException:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                raise
            batch = steps.send(list(pages))
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]
    finally:
        steps.close()


async def run_program(
    program: Program, source: AsyncPageSource[Any], stats: Stats, *, max_workers: int = 8
) -> AsyncGenerator[Ordered, None]:
    """:func:`ulidkeys.engine.execution.run_program` under asyncio: the same program, its plans run
    with :func:`stream` and its searches with :func:`drive`."""
    answer: Any = None
    try:
        while True:
            try:
                operation = program.send(answer)
            except StopIteration:
                return
            answer = None
            if isinstance(operation, Give):
                for entry in operation.entries:
                    yield entry
            elif isinstance(operation, Collect):
                entries = stream(operation.plan, source, stats, max_workers=max_workers)
                async with aclosing(entries):
                    answer = [entry async for entry in entries]
            elif isinstance(operation, Fetch):
                stats.calls += 1
                answer = await source.fetch(operation.call, operation.token, operation.limit)
                stats.read += answer.read
            else:
                answer = await drive(operation.steps, source, max_workers=max_workers)
    finally:
        program.close()
