"""The asyncio twin of :class:`~ulidkeys.s3.Bucket`: window listings, the newest objects and
``put_new`` on an aiobotocore S3 client, planned and mapped by the sync adapter's own code."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, cast

from ulidkeys.aio.execution import AsyncResults, run, stream, walk_back
from ulidkeys.execution import Ordered, Page, Stats
from ulidkeys.planning.layout import KeyLayout
from ulidkeys.planning.listings import MAX_KEYS, ListCall
from ulidkeys.planning.plans import Plan
from ulidkeys.s3.bucket import Bucket, ListingSource, Obj, days_found
from ulidkeys.s3.writing import put_new_steps
from ulidkeys.steps import drive_async
from ulidkeys.timeinput import TimeInput

if TYPE_CHECKING:
    from types_aiobotocore_s3 import S3Client


class AsyncListingSource:
    """``list_objects_v2`` awaited: the request and the page are the sync source's."""

    def __init__(self, mapper: ListingSource) -> None:
        self.mapper = mapper

    async def fetch(self, call: ListCall, token: Any, limit: int | None) -> Page:
        mapper = self.mapper
        response = await mapper.client.list_objects_v2(**mapper.request(call, token))  # type: ignore[misc]
        return mapper.page(response, token)


class AsyncBucket:
    """A bucket bound to an aiobotocore client and a :class:`KeyLayout`, for asyncio code.

    ``AsyncBucket(client, "photos", KeyLayout("uploads/", period="day"))`` with ``client``
    from ``aiobotocore.session.get_session().create_client("s3")``; the methods mirror
    :class:`~ulidkeys.s3.Bucket`'s and return :class:`AsyncResults` for ``async for``.
    """

    def __init__(
        self,
        client: S3Client,
        name: str,
        layout: KeyLayout | None = None,
        *,
        directory: bool | None = None,
    ) -> None:
        # The sync Bucket plans and maps; its client is only ever awaited here.
        self.bucket = Bucket(cast(Any, client), name, layout, directory=directory)
        self.client, self.name = client, name
        self.layout, self.directory = self.bucket.layout, self.bucket.directory
        self.source = AsyncListingSource(self.bucket.source)

    def __repr__(self) -> str:
        return f"AsyncBucket({self.name!r}, {self.layout})"

    def plan_window(
        self,
        since: TimeInput | None = None,
        until: TimeInput | None = None,
        *,
        after: str | None = None,
        cursor: str | None = None,
        max_keys: int = MAX_KEYS,
    ) -> Plan[ListCall]:
        """The ListObjectsV2 calls that list exactly the window (as ``Bucket.plan_window``)."""
        return self.bucket.plan_window(since, until, after=after, cursor=cursor, max_keys=max_keys)

    def list_window(
        self,
        since: TimeInput | None = None,
        until: TimeInput | None = None,
        *,
        after: str | None = None,
        cursor: str | None = None,
        max_workers: int = 8,
    ) -> AsyncResults[Obj]:
        """The objects whose id time is in ``[since, until)``, oldest first (``async for``)."""
        plan = self.plan_window(since, until, after=after, cursor=cursor)
        return self.run(plan, max_workers=max_workers)

    def run(self, plan: Plan[ListCall], *, max_workers: int = 8) -> AsyncResults[Obj]:
        """Run a plan made by :meth:`plan_window` (or by hand) against this bucket."""
        return run(plan, self.source, max_workers=max_workers)

    def latest(
        self,
        n: int,
        *,
        since: TimeInput | None = None,
        until: TimeInput | None = None,
        cursor: str | None = None,
        max_workers: int = 8,
    ) -> AsyncResults[Obj]:
        """The ``n`` newest objects with id time in ``[since, until)``, newest first."""
        newest = self.bucket.newest(n, since, until, cursor, max_workers)
        if newest.plan is not None:
            return self.run(newest.plan, max_workers=max_workers)

        async def items(stats: Stats) -> AsyncIterator[Ordered]:
            if newest.n == 0:
                return
            days = await self._data_days(newest.start, newest.top, stats)
            if self.directory:
                for plan in newest.directory_plans(days):
                    async with aclosing(
                        stream(plan, self.source, stats, max_workers=max_workers)
                    ) as entries:
                        async for entry in entries:
                            newest.remaining -= 1
                            yield entry
                return
            walk = walk_back(
                newest.plan_slice,
                self.source,
                stats,
                n,
                newest.start,
                newest.top,
                max_workers=max_workers,
                occupied=newest.occupied(days),
            )
            async with aclosing(walk) as entries:
                async for entry in entries:
                    yield entry

        return AsyncResults(items, newest.cursor_of)

    async def _data_days(self, start: int, end: int, stats: Stats) -> list[int] | None:
        plan = self.bucket.folder_plan(start, end)
        if plan is None:
            return None
        async with aclosing(stream(plan, self.source, stats)) as entries:
            return days_found([position async for position, _ in entries])

    async def put_new(
        self, body: Any, *, ext: str | None = None, attempts: int = 5, **put_kwargs: Any
    ) -> str:
        """Upload under a fresh key that is never an existing object's; returns the key."""
        layout = self.layout
        with put_new_steps(
            layout, self.name, body, ext=ext, attempts=attempts, **put_kwargs
        ) as steps:
            return await drive_async(steps, self.client)
