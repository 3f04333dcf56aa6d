"""The asyncio shell of the engine: plans, programs and consumer runs carried out with asyncio
tasks, at most ``max_workers`` requests in flight.

Everything it decides is the I/O-free machines' (:class:`~ulidkeys.engine.scheduling.Schedule`
says what to send and what is ready, a :data:`~ulidkeys.engine.operations.Program` what to do
next, :class:`~ulidkeys.engine.consuming.Delivery` what is new); this shell only sends and
awaits. It is the one source of both shells: :mod:`ulidkeys.engine.threads`, the thread shell,
is generated from it (``make twins``), so the two cannot drift apart.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, Generic, TypeVar

from ulidkeys.engine.chains import AsyncPageSource, CallT, Ordered, Stats
from ulidkeys.engine.consuming import Delivery, Run
from ulidkeys.engine.operations import Collect, Fetch, Give, Operation, Pause, Program, Send
from ulidkeys.engine.pools import TaskPool
from ulidkeys.engine.scheduling import Columns, Schedule, Shape, Yielded, check_workers
from ulidkeys.errors import require_bool
from ulidkeys.planning.checkpoints import Checkpoint
from ulidkeys.planning.plans import Plan

Item = TypeVar("Item")
T = TypeVar("T")
_Self = TypeVar("_Self", bound="AsyncResults[Any]")
_SelfConsumption = TypeVar("_SelfConsumption", bound="AsyncConsumption[Any]")


async def pages(
    plan: Plan[CallT],
    source: AsyncPageSource[CallT],
    stats: Stats,
    *,
    max_workers: int = 8,
    split: bool = False,
) -> AsyncIterator[list[Ordered]]:
    """The plan's ``(position, item)`` entries in result order, a list at a time: the requests
    its :class:`~ulidkeys.engine.scheduling.Schedule` asks for are sent to ``source``, at most
    ``max_workers`` at once. Closing it cancels the requests in flight."""
    schedule = Schedule(plan, stats, max_workers=max_workers, split=split)
    pool = TaskPool(schedule.threads, getattr(source, "client", None))
    pending: dict[Any, Any] = {}
    try:
        while True:
            entries = schedule.take()
            for ticket, (call, token, limit) in schedule.requests():
                pending[pool.submit(source.fetch, call, token, limit)] = ticket
            pool.crowded(len(pending))
            if entries is None:
                return
            if entries:
                yield entries  # resumed once the caller wants more
                continue
            if not pending:  # a schedule that can neither send nor wait would spin forever
                raise RuntimeError("the listing stalled: no request to send or to wait for")
            for handle in await pool.first_done(pending):
                schedule.receive(pending.pop(handle), await pool.result(handle))
    finally:
        await pool.close()


class AsyncResults(Yielded[AsyncIterator[list[Ordered]]], AsyncIterator[Item]):
    """The items of a listing or query, in order, with ``.stats`` and ``.cursor``.

    ``cursor`` is an opaque, JSON-safe string that resumes just past the last item yielded
    (None before the first); pass it back as ``cursor=``. ``aclose()`` (or leaving its
    ``async with`` block) stops early: requests in flight are cancelled and no further ones
    are sent.
    """

    async def __anext__(self) -> Item:
        entry = next(self._entries, None)
        while entry is None:
            self._begun = True
            self._entries = iter(await anext(self._pages))
            entry = next(self._entries, None)
        return self._took(entry)  # type: ignore[no-any-return]

    def pages(self, columns: Sequence[str] = ("key",)) -> AsyncIterator[Columns]:
        """The listing as pages of columns instead of items: per page, in result order, a dict
        of one list per column named in ``columns`` (what the bucket offers: ``key``,
        ``size``, ...), built from the page read without an object per item where the
        columns allow it.

        The rows, their order, ``.stats`` and ``.cursor`` are the items' (the cursor moves
        past a page's last row as the page is handed out). Call it instead of iterating, before
        the first item; stop early with ``aclose()`` as for the items.
        """
        return self._column_pages(self._as_columns(columns))

    async def _column_pages(self, shape: Shape) -> AsyncIterator[Columns]:
        try:
            async for entries in self._pages:
                self._took_all(entries)
                yield shape(entries)
        finally:  # the caller stopped early (or the listing ended): nothing stays in flight
            await self.aclose()

    async def aclose(self) -> None:
        """Stop: cancel the requests in flight and send no more."""
        await self._pages.aclose()  # type: ignore[attr-defined]

    async def __aenter__(self: _Self) -> _Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def run(
    plan: Plan[CallT],
    source: AsyncPageSource[CallT],
    *,
    max_workers: int = 8,
    split: bool = True,
) -> AsyncResults[Any]:
    """Run a plan: its chains concurrently (at most ``max_workers`` requests in flight).

    ``split`` lists each ordered chain of a plan whose strategy is ``splittable`` as concurrent
    time slices once its first page shows more than a few pages to go (not with a ``limit``).
    """
    check_workers(max_workers)
    require_bool(split, "split")

    def listing(on: AsyncPageSource[CallT]) -> Callable[[Stats], AsyncIterator[list[Ordered]]]:
        return lambda stats: pages(plan, on, stats, max_workers=max_workers, split=split)

    columnar: Callable[[tuple[str, ...]], tuple[Any, Shape]] | None
    columnar = getattr(source, "columns", None)  # a source that can give rows instead of items

    def columns(names: tuple[str, ...]) -> tuple[Any, Shape]:
        assert columnar is not None
        rows, shape = columnar(names)
        return listing(rows), shape

    return AsyncResults(listing(source), plan.cursor, columns=None if columnar is None else columns)


class _Driver:
    """Carries out a program's operations (see :mod:`ulidkeys.engine.operations`): pages from
    ``source``, client calls on ``client``, pauses with ``sleep``."""

    def __init__(
        self,
        source: AsyncPageSource[Any] | None,
        stats: Stats,
        client: Any,
        max_workers: int,
        sleep: Callable[[float], Any],
    ) -> None:
        self.source, self.stats, self.client = source, stats, client
        self.max_workers, self.sleep = max_workers, sleep
        self.result: Any = None
        self._pool: TaskPool | None = None  # for the program's pages, made at its first Fetch

    async def run(self, program: Program[Any]) -> AsyncIterator[list[Ordered]]:
        """What the program gives, as it gives it; what it returns goes to :attr:`result`.
        An operation's exception is thrown into the program, which may handle it."""
        answer: Any = None
        failure: BaseException | None = None
        try:
            while True:
                try:
                    operation = program.send(answer) if failure is None else program.throw(failure)
                except StopIteration as done:
                    self.result = done.value
                    return
                answer, failure = None, None
                if isinstance(operation, Give):
                    if operation.entries:
                        yield operation.entries
                    continue
                try:
                    answer = await self.carry_out(operation)
                except BaseException as error:  # cancellation too: a write puts its batch back
                    failure = error
        finally:
            program.close()
            if self._pool is not None:
                await self._pool.close()

    async def carry_out(self, operation: Operation) -> Any:
        """The answer to one operation (other than :class:`Give`)."""
        if isinstance(operation, Send):
            return await getattr(self.client, operation.operation)(**operation.params)
        if isinstance(operation, Pause):
            return await self.sleep(operation.seconds)
        source = self.source
        if source is None:
            raise TypeError(f"{operation!r} needs a page source; this program was given none")
        if isinstance(operation, Collect):
            listed = pages(operation.plan, source, self.stats, max_workers=self.max_workers)
            return [entry async for page in listed for entry in page]
        if isinstance(operation, Fetch):
            if self._pool is None:
                self._pool = TaskPool(self.max_workers, getattr(source, "client", None))
            pool = self._pool
            return await pool.gather([pool.submit(source.fetch, *r) for r in operation.requests])
        raise TypeError(f"{operation!r} is not an operation of ulidkeys.engine.operations")


def run_program(
    program: Program[Any],
    source: AsyncPageSource[Any],
    stats: Stats,
    *,
    max_workers: int = 8,
) -> AsyncIterator[list[Ordered]]:
    """What ``program`` gives (lists of entries, as it gives them), its plans and pages run on
    ``source`` with at most ``max_workers`` requests in flight."""
    return _Driver(source, stats, None, max_workers, asyncio.sleep).run(program)


async def outcome(
    program: Program[T],
    source: AsyncPageSource[Any] | None = None,
    *,
    stats: Stats | None = None,
    client: Any = None,
    max_workers: int = 8,
    sleep: Callable[[float], Any] = asyncio.sleep,
) -> T:
    """What ``program`` returns, run to its end (a survey, a write): its pages from ``source``,
    its client calls on ``client``, its pauses with ``sleep``; what it gives is dropped."""
    driver = _Driver(source, Stats() if stats is None else stats, client, max_workers, sleep)
    async for _entries in driver.run(program):
        pass
    result: T = driver.result
    return result


class AsyncConsumption(Delivery, Generic[Item]):
    """One consumer run: iterate for the new items (oldest first), then :meth:`commit`.

    ``.checkpoint`` is the checkpoint after the items yielded so far; ``.window`` the listed
    ``[start, end)``; ``.plan`` what the run lists; ``.stats`` what it cost. Not committing is
    safe: the next run from the stored checkpoint yields the same items again. ``aclose()``
    stops early; the checkpoint keeps what was yielded.
    """

    def __init__(self, run: Run, source: AsyncPageSource[Any]) -> None:
        super().__init__(run)
        self._pages = pages(run.plan, source, self.stats, max_workers=run.max_workers)
        self._entries: Any = iter(())

    def __aiter__(self: _SelfConsumption) -> _SelfConsumption:
        return self

    async def __anext__(self) -> Item:
        while True:
            for position, item in self._entries:
                if self.deliver(position):
                    return item  # type: ignore[no-any-return]
            try:
                self._entries = iter(await anext(self._pages))
            except StopAsyncIteration:
                self.exhausted()
                raise

    async def commit(self) -> Checkpoint:
        """Store :attr:`checkpoint` over the version this run loaded (CheckpointConflict if
        another consumer committed since); may be called again later in the same run."""
        return await asyncio.to_thread(self._store)  # unasync: return self._store()

    async def aclose(self) -> None:
        """Stop: cancel the requests in flight and send no more."""
        await self._pages.aclose()  # type: ignore[attr-defined]

    async def __aenter__(self: _SelfConsumption) -> _SelfConsumption:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
