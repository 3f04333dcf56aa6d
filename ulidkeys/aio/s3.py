"""The asyncio twin of :class:`~ulidkeys.s3.Bucket`: window listings, the newest objects and
``put_new`` on an aiobotocore S3 client, planned and mapped by the sync adapter's own code."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, cast

from ulidkeys.aio.consuming import AsyncConsumable
from ulidkeys.aio.execution import AsyncResults, run, run_program
from ulidkeys.errors import require_str
from ulidkeys.machines import Page, check_workers
from ulidkeys.newest import latest
from ulidkeys.planning.layout import KeyLayout
from ulidkeys.planning.listings import MAX_KEYS, ListCall
from ulidkeys.planning.plans import Plan, Slice
from ulidkeys.s3.bucket import Bucket, ListingSource, Obj
from ulidkeys.s3.signing import credentials_of, signer_for, signing_setup
from ulidkeys.s3.writing import (
    DEFAULT_POST_MAX_BYTES,
    PresignedUpload,
    presigned_post_steps,
    presigned_put_steps,
    put_new_steps,
)
from ulidkeys.steps import perform, perform_async
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


class AsyncBucket(AsyncConsumable):
    """A bucket bound to an aiobotocore client and a :class:`KeyLayout`, for asyncio code.

    ``AsyncBucket(client, "photos", KeyLayout("uploads/", period="day"))`` with ``client``
    from ``aiobotocore.session.get_session().create_client("s3")``; the methods mirror
    :class:`~ulidkeys.s3.Bucket`'s and return :class:`AsyncResults` for ``async for``;
    ``fast_pages`` as on the Bucket.
    """

    def __init__(
        self,
        client: S3Client,
        name: str,
        layout: KeyLayout | None = None,
        *,
        directory: bool | None = None,
        fast_pages: bool = True,
    ) -> None:
        # The sync Bucket plans and maps (and installs the fast page reader on the client's
        # events, which aiobotocore emits as botocore does); its client is only awaited here.
        self.bucket = Bucket(
            cast(Any, client), name, layout, directory=directory, fast_pages=fast_pages
        )
        self.client, self.name = client, name
        self.layout, self.directory = self.bucket.layout, self.bucket.directory
        self.source = AsyncListingSource(self.bucket.source)

    def __repr__(self) -> str:
        return f"AsyncBucket({self.name!r}, {self.layout})"

    @property
    def consumer(self) -> Bucket:
        return self.bucket

    def async_source(self, source: ListingSource) -> AsyncListingSource:
        return AsyncListingSource(source)

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
        split: bool = True,
    ) -> AsyncResults[Obj]:
        """The objects whose id time is in ``[since, until)``, oldest first (``async for``);
        ``split`` as in :meth:`Bucket.list_window <ulidkeys.s3.Bucket.list_window>`."""
        plan = self.plan_window(since, until, after=after, cursor=cursor)
        return self.run(plan, max_workers=max_workers, split=split)

    def list_slice(
        self, piece: Slice, *, cursor: str | None = None, max_workers: int = 8
    ) -> AsyncResults[Obj]:
        """The objects of one slice of a window (as :meth:`Bucket.list_slice
        <ulidkeys.s3.Bucket.list_slice>`)."""
        return self.run(self.bucket.slice_plan(piece, cursor=cursor), max_workers=max_workers)

    def run(
        self, plan: Plan[ListCall], *, max_workers: int = 8, split: bool = True
    ) -> AsyncResults[Obj]:
        """Run a plan made by :meth:`plan_window` (or by hand) against this bucket."""
        return run(plan, self.source, max_workers=max_workers, split=split)

    def latest(
        self,
        n: int,
        *,
        since: TimeInput | None = None,
        until: TimeInput | None = None,
        cursor: str | None = None,
        max_workers: int = 8,
        suffix: str | None = None,
    ) -> AsyncResults[Obj]:
        """The ``n`` newest objects with id time in ``[since, until)``, newest first (as
        :meth:`Bucket.latest <ulidkeys.s3.Bucket.latest>`, ``suffix`` too)."""
        check_workers(max_workers)
        if suffix is not None:
            require_str(suffix, "suffix")
        newest, program = latest(self.layout, self.directory, n, since, until, cursor, suffix)
        return AsyncResults(
            lambda stats: run_program(program(stats), self.source, stats, max_workers=max_workers),
            newest.cursor_of,
        )

    async def put_new(
        self, body: Any, *, ext: str | None = None, attempts: int = 5, **put_kwargs: Any
    ) -> str:
        """Upload under a fresh key that is never an existing object's; returns the key."""
        layout = self.layout
        with put_new_steps(
            layout, self.name, body, ext=ext, attempts=attempts, **put_kwargs
        ) as steps:
            return await perform_async(steps, self.client)

    async def presigned_put(
        self, *, expires: int = 3600, content_type: str | None = None, ext: str | None = None
    ) -> PresignedUpload:
        """A fresh key and a presigned PUT URL (as :meth:`Bucket.presigned_put
        <ulidkeys.s3.Bucket.presigned_put>`; signed locally, no request is sent)."""
        steps = presigned_put_steps(self.layout, self.name, expires, content_type, ext)
        return perform(steps, await self._signer())

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
        return perform(steps, await self._signer())

    async def _signer(self) -> Any:
        """The SigV4 signing client: aiobotocore's credentials are read with an await (a
        refresh may need one); the signing itself is local, no request is sent."""
        frozen = credentials_of(self.client).get_frozen_credentials()
        if inspect.isawaitable(frozen):
            frozen = await frozen
        return signer_for(signing_setup(self.client, frozen))
