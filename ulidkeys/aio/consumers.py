"""How the asyncio twins open a consumer run (``await bucket.consume(store)``): the sync
twin's checks, plan and checkpoint load in a worker thread (``store.load()`` may block), then
the run's pages awaited through the twin's own page source."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ulidkeys.engine.chains import AsyncPageSource
from ulidkeys.engine.consuming import Listing, RunOptions, open_run
from ulidkeys.engine.tasks import AsyncConsumption


async def open_consumption(
    listing: Listing, options: RunOptions, awaited: Callable[[Any], AsyncPageSource[Any]]
) -> AsyncConsumption[Any]:
    """The run of ``listing`` (made by the sync twin) with ``options``, its pages read through
    ``awaited(run.source)``: the sync run's page source, awaited."""
    run = await asyncio.to_thread(open_run, listing, options)
    return AsyncConsumption(run, awaited(run.source))
