"""The asyncio twin of incremental consumers: ``async for`` over what is new since the stored
checkpoint, with the same run set-up, delivery rule and checkpoint as
:mod:`ulidkeys.consuming`. Checkpoint stores stay the blocking ones: their load and save run in
a worker thread, so the event loop never waits on them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from ulidkeys.aio.execution import AsyncPageSource, stream
from ulidkeys.consuming import (
    OVERLAP_MS,
    SETTLE_MS,
    CheckpointStore,
    Consumable,
    Delivery,
    LateArrival,
    Run,
)
from ulidkeys.planning.checkpoints import Checkpoint
from ulidkeys.timeinput import TimeInput

Item = TypeVar("Item")
_Self = TypeVar("_Self", bound="AsyncConsumption[Any]")


class AsyncConsumption(Delivery, Generic[Item]):
    """One consumer run for ``async for``; then ``await commit()``. As
    :class:`~ulidkeys.consuming.Consumption`: ``.checkpoint``, ``.window``, ``.stats``,
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


class AsyncConsumable:
    """What ``AsyncBucket`` and ``AsyncTable`` add for incremental consumers: :meth:`consume`,
    planned by their sync twin (:attr:`consumer`) and listed through :meth:`async_source`."""

    @property
    def consumer(self) -> Consumable:
        """The sync twin that plans the run (``Bucket`` or ``Table``)."""
        raise NotImplementedError

    def async_source(self, source: Any) -> AsyncPageSource[Any]:
        """The awaited twin of the sync twin's page source for a run."""
        raise NotImplementedError

    async def consume(
        self,
        store: CheckpointStore,
        *,
        since: TimeInput | None = None,
        settle: object = SETTLE_MS,
        overlap: object = OVERLAP_MS,
        now: Callable[[], TimeInput] | None = None,
        on_late: Callable[[LateArrival], object] | None = None,
        max_workers: int = 8,
        **listing: object,
    ) -> AsyncConsumption[dict[str, Any]]:
        """What is new since the checkpoint in ``store`` (see
        :meth:`Consumable.consume <ulidkeys.consuming.Consumable.consume>`): ``await`` it for a
        run, then ``async for`` the items and ``await run.commit()``."""
        run = await asyncio.to_thread(
            self.consumer.open_run,
            store,
            since=since,
            settle=settle,
            overlap=overlap,
            now=now,
            on_late=on_late,
            max_workers=max_workers,
            listing=listing,
        )
        return AsyncConsumption(run, self.async_source(run.source))
