"""The asyncio twin of incremental consumers: ``async for`` over what is new since the stored
checkpoint, with the same run set-up, delivery rule and checkpoint as
:mod:`ulidkeys.engine.consuming`. Checkpoint stores stay the blocking ones: their load and save run
in a worker thread, so the event loop never waits on them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, Generic, TypeVar

from ulidkeys.aio.execution import AsyncPageSource, stream
from ulidkeys.engine.consuming import Consumable, Consumes, Delivery, Run, RunOptions
from ulidkeys.planning.checkpoints import Checkpoint

Item = TypeVar("Item")
_Self = TypeVar("_Self", bound="AsyncConsumption[Any]")


class AsyncConsumption(Delivery, Generic[Item]):
    """One consumer run for ``async for``; then ``await commit()``. As
    :class:`~ulidkeys.engine.consuming.Consumption`: ``.checkpoint``, ``.window``, ``.stats``,
    ``.finished``; ``await aclose()`` (or leaving ``async with``) stops early."""

    def __init__(self, run: Run, source: AsyncPageSource[Any]) -> None:
        super().__init__(run)
        self._items = stream(run.plan, source, self.stats, max_workers=run.max_workers)

    def __aiter__(self: _Self) -> _Self:
        return self

    async def __anext__(self) -> Item:
        async for position, item in self._items:
            if self.deliver(position):
                return item  # type: ignore[no-any-return]
        self.exhausted()
        raise StopAsyncIteration

    async def commit(self) -> Checkpoint:  # type: ignore[override]
        """Store :attr:`checkpoint` (in a worker thread); see ``Consumption.commit``."""
        return await asyncio.to_thread(Delivery.commit, self)

    async def aclose(self) -> None:
        """Stop: cancel the requests in flight and send no more."""
        await self._items.aclose()

    async def __aenter__(self: _Self) -> _Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class AsyncConsumable(Consumes[Coroutine[Any, Any, AsyncConsumption[dict[str, Any]]]]):
    """What ``AsyncBucket`` and ``AsyncTable`` add for incremental consumers: :meth:`consume`
    (``await`` it for a run), planned by their sync twin (:attr:`consumer`) and listed through
    :meth:`async_source`."""

    @property
    def consumer(self) -> Consumable:
        """The sync twin that plans the run (``Bucket`` or ``Table``)."""
        raise NotImplementedError

    def async_source(self, source: Any) -> AsyncPageSource[Any]:
        """The awaited twin of the sync twin's page source for a run."""
        raise NotImplementedError

    async def _consumption(self, options: RunOptions) -> AsyncConsumption[dict[str, Any]]:
        # the checks and the checkpoint load are the sync twin's, in a worker thread
        run = await asyncio.to_thread(self.consumer.start_run, options)
        return AsyncConsumption(run, self.async_source(run.source))
