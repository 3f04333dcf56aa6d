"""The asyncio twin of :class:`~ulidkeys.s3.Bucket`: window listings, the newest objects and
``put_new`` on an aiobotocore S3 client, planned and mapped by the sync adapter's own code."""

from __future__ import annotations

import inspect
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from ulidkeys.aio.consumers import open_consumption
from ulidkeys.engine import tasks, threads
from ulidkeys.engine.chains import Page
from ulidkeys.engine.consuming import Consumes, RunOptions
from ulidkeys.engine.scheduling import Shape
from ulidkeys.engine.tasks import AsyncConsumption, AsyncResults, run, run_program
from ulidkeys.planning.listings import ListCall
from ulidkeys.planning.plans import Plan
from ulidkeys.s3.bucket import BucketReads, CursorOf, ListingSource, Obj, ProgramOf
from ulidkeys.s3.signing import credentials_of, signer_for, signing_setup
from ulidkeys.s3.writing import (
    DEFAULT_POST_MAX_BYTES,
    PresignedUpload,
    presigned_post_steps,
    presigned_put_steps,
    put_new_steps,
)

if TYPE_CHECKING:
    from types_aiobotocore_s3 import S3Client  # noqa: F401 (the client type of the bases)


class AsyncListingSource:
    """``list_objects_v2`` awaited: the request and the page are the sync source's (which
    gives dicts, or rows of columns: :meth:`columns`)."""

    def __init__(self, mapper: ListingSource) -> None:
        self.mapper = mapper

    async def fetch(self, call: ListCall, token: Any, limit: int | None) -> Page:
        mapper = self.mapper
        with mapper.reading():  # in this task's own context
            response = await mapper.client.list_objects_v2(**mapper.request(call, token))  # type: ignore[misc]
        return mapper.page(response, token)

    def columns(self, names: tuple[str, ...]) -> tuple[AsyncListingSource, Shape]:
        """This source giving rows of the columns ``names`` (the sync source's
        :meth:`~ulidkeys.s3.bucket.ListingSource.columns`)."""
        rows, shape = self.mapper.columns(names)
        return AsyncListingSource(rows), shape


class AsyncBucket(
    BucketReads[AsyncResults[Obj], "S3Client"], Consumes[Coroutine[Any, Any, AsyncConsumption[Obj]]]
):
    """A bucket bound to an aiobotocore client and a :class:`KeyLayout`, for asyncio code.

    ``AsyncBucket(client, "photos", KeyLayout("uploads/", period="day"))`` with ``client``
    from ``aiobotocore.session.get_session().create_client("s3")``; the methods mirror
    :class:`~ulidkeys.s3.Bucket`'s (the reads are the same code, :class:`BucketReads`) and
    return :class:`AsyncResults` for ``async for``; ``fast_pages`` as on the Bucket.
    """

    def __repr__(self) -> str:
        return f"AsyncBucket({self.name!r}, {self.layout})"

    async def _consumption(self, options: RunOptions) -> AsyncConsumption[Obj]:
        listing = self._listing(dict(options.listing))
        return await open_consumption(listing, options, AsyncListingSource)

    def _run(self, plan: Plan[ListCall], workers: int, split: bool) -> AsyncResults[Obj]:
        return run(plan, AsyncListingSource(self.source), max_workers=workers, split=split)

    def _run_program(
        self, program: ProgramOf, cursor_of: CursorOf, workers: int
    ) -> AsyncResults[Obj]:
        return AsyncResults(
            lambda stats: run_program(
                program(stats), AsyncListingSource(self.source), stats, max_workers=workers
            ),
            cursor_of,
        )

    async def put_new(
        self, body: Any, *, ext: str | None = None, attempts: int = 5, **put_kwargs: Any
    ) -> str:
        """Upload under a fresh key that is never an existing object's; returns the key."""
        layout = self.layout
        with put_new_steps(
            layout, self.name, body, ext=ext, attempts=attempts, **put_kwargs
        ) as steps:
            return await tasks.outcome(steps, client=self.client)

    async def presigned_put(
        self, *, expires: int = 3600, content_type: str | None = None, ext: str | None = None
    ) -> PresignedUpload:
        """A fresh key and a presigned PUT URL (as :meth:`Bucket.presigned_put
        <ulidkeys.s3.Bucket.presigned_put>`; signed locally, no request is sent)."""
        steps = presigned_put_steps(self.layout, self.name, expires, content_type, ext)
        return threads.outcome(steps, client=await self._signer())

    async def presigned_post(
        self,
        *,
        expires: int = 3600,
        content_type: str | None = None,
        max_bytes: int | None = DEFAULT_POST_MAX_BYTES,
        ext: str | None = None,
    ) -> PresignedUpload:
        """A fresh key and the URL + form fields of a browser POST upload (as
        :meth:`Bucket.presigned_post <ulidkeys.s3.Bucket.presigned_post>`)."""
        steps = presigned_post_steps(self.layout, self.name, expires, content_type, max_bytes, ext)
        return threads.outcome(steps, client=await self._signer())

    async def _signer(self) -> Any:
        """The SigV4 signing client: aiobotocore's credentials are read with an await (a
        refresh may need one); the signing itself is local, no request is sent."""
        frozen = credentials_of(self.client).get_frozen_credentials()
        if inspect.isawaitable(frozen):
            frozen = await frozen
        return signer_for(signing_setup(self.client, frozen))
