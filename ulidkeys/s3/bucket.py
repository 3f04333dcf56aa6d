"""A bucket bound to a key layout and a client: exact window listings, newest first, uploads.

Only request/response mapping lives here: :class:`ListingSource` turns a planned call into a
``list_objects_v2`` request and its answer into a page; planning and the page-chain logic
are shared with DynamoDB (``ulidkeys.planning``, ``ulidkeys.engine``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from copy import copy
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast
from urllib.parse import unquote_plus

from ulidkeys.engine.chains import Page, Stats
from ulidkeys.engine.columns import ColumnSpec
from ulidkeys.engine.consuming import Consumes, Listing, RunOptions, open_run
from ulidkeys.engine.folders import periods_program
from ulidkeys.engine.newest import Newest, latest
from ulidkeys.engine.operations import Program
from ulidkeys.engine.scheduling import Shape, check_workers
from ulidkeys.engine.threads import Consumption, Results, outcome, run, run_program
from ulidkeys.errors import (
    InvalidValue,
    UnexpectedResponse,
    describe,
    require_bool,
    require_str,
)
from ulidkeys.planning.layout import KeyLayout
from ulidkeys.planning.listings import MAX_KEYS, ListCall, chain_keys, plan_listing
from ulidkeys.planning.periods import PeriodFolder
from ulidkeys.planning.plans import Plan, Position, Slice, require_slice, resolve_window
from ulidkeys.s3.columns import column_shape, column_spec
from ulidkeys.s3.pages import COLUMNS, WANTED, install_fast_pages
from ulidkeys.s3.writing import (
    DEFAULT_POST_MAX_BYTES,
    PresignedUpload,
    presigned_post,
    presigned_put,
    put_new,
)
from ulidkeys.timeinput import TimeInput

if TYPE_CHECKING:
    from types_boto3_s3 import S3Client

Obj = dict[str, Any]
#: The names botocore sends (its own rule): a bucket name, or an ARN (an access point's).
_BUCKET_NAME = re.compile(r"[a-zA-Z0-9.\-_]{1,255}")
_ARN = re.compile(r"arn:[!-~]+")
ResultsT = TypeVar("ResultsT")
#: The client a bucket is bound to: boto3's, or aiobotocore's for the asyncio twin.
ClientT = TypeVar("ClientT")
#: A program given the run's stats, and the cursor of a position: what a shell needs to run one
ProgramOf = Callable[[Stats], Program[Any]]
CursorOf = Callable[[Position], str]


def require_bucket_name(value: object, name: str) -> str:
    """``value`` if botocore would send it as a bucket name, else InvalidValue naming it:
    botocore refuses other names only at the first request, deep in its parameter checks."""
    if not isinstance(value, str) or not (_BUCKET_NAME.fullmatch(value) or _ARN.fullmatch(value)):
        raise InvalidValue(
            f"{name}={describe(value)} must be a bucket name (letters, digits, '.', '_', '-') "
            "or an access point ARN"
        )
    return value


def is_directory_bucket(bucket: str) -> bool:
    """S3 Express directory buckets are named ``name--zone-id--x-s3``."""
    return bucket.endswith("--x-s3")


class ListingSource:
    """``list_objects_v2`` for the executor: one planned call + token -> one page.

    A page's items are the objects' dicts; a copy made by :meth:`columns` gives rows of the
    columns asked for instead (``Results.pages``). ``layout`` reads the id time of a key
    (the ``id_ms`` column)."""

    def __init__(
        self,
        client: S3Client,
        bucket: str,
        *,
        fast_pages: bool = True,
        layout: KeyLayout | None = None,
    ) -> None:
        if not callable(getattr(client, "list_objects_v2", None)):
            raise InvalidValue(
                f"client={describe(client)} has no list_objects_v2: pass boto3.client('s3')"
            )
        self.client, self.bucket, self.layout = client, bucket, layout
        # whether the client's pages are read by ulidkeys.s3.pages instead of botocore's parser
        self.fast_pages = install_fast_pages(client) if fast_pages else False
        self.spec: ColumnSpec | None = None  # the columns of rows, None: the objects' dicts

    def fetch(self, call: ListCall, token: Any, limit: int | None) -> Page:
        if self.spec is None:
            return self.page(self.client.list_objects_v2(**self.request(call, token)), token)
        with self.reading():
            response = self.client.list_objects_v2(**self.request(call, token))
        return self.page(response, token)

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Around a call (in its thread, or its asyncio task): the page reader reads the
        members of this source's rows as columns."""
        if self.spec is None:
            yield
            return
        wanted = WANTED.set(self.spec.members)
        try:
            yield
        finally:
            WANTED.reset(wanted)

    def columns(self, names: tuple[str, ...]) -> tuple[ListingSource, Shape]:
        """This source giving rows of the columns ``names`` instead of dicts, and the shape
        that makes a page of columns of them (InvalidValue for a column not offered)."""
        spec = column_spec(names)
        shape = column_shape(spec, self.layout)
        rows = copy(self)
        rows.spec = spec
        return rows, shape

    def request(self, call: ListCall, token: Any) -> dict[str, Any]:
        """The ``list_objects_v2`` arguments of a call's page (the sync and async shells')."""
        # The chain's token is S3's token and the keys read so far (which size the next page).
        s3_token, done = (None, 0) if token is None else token
        return call.request(self.bucket, s3_token, done)

    def page(self, response: Mapping[str, Any], token: Any) -> Page:
        """The page of a ``list_objects_v2`` answer to the request made for ``token``."""
        done = 0 if token is None else token[1]
        truncated = response.get("IsTruncated")
        if not isinstance(truncated, bool):
            # A 200 with an empty or foreign body: ending here would silently drop the rest.
            raise UnexpectedResponse(
                f"ListObjectsV2 on {self.bucket!r} answered without IsTruncated "
                f"(keys: {sorted(response)}); the listing stops rather than end early - resume "
                "from its .cursor"
            )
        next_token = response.get("NextContinuationToken") if truncated else None
        if truncated and not next_token:
            raise UnexpectedResponse(
                f"ListObjectsV2 on {self.bucket!r} said IsTruncated without a "
                "NextContinuationToken; resume from the listing's .cursor"
            )
        spec = self.spec
        entries: list[tuple[str, Any]]
        columns = response.get(COLUMNS) if spec is not None else None
        if spec is not None and columns is not None:  # the page reader read the rows
            keys = columns["Key"]
            if response.get("EncodingType") == "url":  # as botocore decodes the dicts' keys
                keys = list(map(unquote_plus, keys))
            entries = list(zip(keys, spec.rows(columns), strict=False))  # rows may repeat None
            read = len(keys)
        else:
            contents = response.get("Contents") or []
            if spec is None:
                entries = [(obj["Key"], obj) for obj in contents]
            else:
                row_of = spec.row_of()
                entries = [(obj["Key"], row_of(obj)) for obj in contents]
            read = len(contents)
        folders = response.get("CommonPrefixes") or []
        if folders:
            row_of = _same if spec is None else spec.row_of()
            entries += [(entry["Prefix"], row_of(entry)) for entry in folders]
            entries.sort(key=_first)  # S3 interleaves the two lists in key order
        read += len(folders)
        return Page(entries, None if next_token is None else (next_token, done + read), read)


def _first(entry: tuple[str, Any]) -> str:
    return entry[0]


def _same(obj: Mapping[str, Any]) -> Any:
    return obj


class BucketReads(Generic[ResultsT, ClientT]):
    """The reads of :class:`Bucket` and of its asyncio twin (``ulidkeys.aio.AsyncBucket``),
    written once: both plan with the same code and differ only in how a plan or a program is
    run (``_run`` and ``_run_program``: threads, or awaited tasks), so a reading method
    behaves the same in either shell. ``ResultsT`` is ``Results`` or ``AsyncResults``."""

    def __init__(
        self,
        client: ClientT,
        name: str,
        layout: KeyLayout | None = None,
        *,
        directory: bool | None = None,
        fast_pages: bool = True,
    ) -> None:
        """The checks and the page source (the fast reader installed on the client's events,
        which aiobotocore emits as botocore does) of both shells."""
        require_bucket_name(name, "name")
        self.layout = KeyLayout() if layout is None else layout
        if not isinstance(self.layout, KeyLayout):
            raise InvalidValue(f"layout={describe(layout)} must be a KeyLayout")
        self.client, self.name = client, name
        if directory is None:
            self.directory = is_directory_bucket(name)
        else:  # a flag given as text ("false") would be read by its truth
            self.directory = require_bool(directory, "directory")
        self.source = ListingSource(
            cast(Any, client),
            name,
            fast_pages=require_bool(fast_pages, "fast_pages"),
            layout=self.layout,
        )

    # --- what is new since the last run (Consumes.consume) ---------------------------------
    def _listing(self, listing: dict[str, object]) -> Listing:
        """How a consumer run lists a window of this bucket."""
        if listing:
            raise InvalidValue(
                f"Bucket.consume() takes no {', '.join(sorted(listing))}=; the layout names "
                "what is listed"
            )

        def plan_for(start: int, end: int, expected: tuple[int, float] | None) -> Plan[ListCall]:
            return plan_listing(
                self.layout,
                start,
                end,
                directory_bucket=self.directory,
                expected_keys=chain_keys(expected, len(self.layout.shard_numbers())),
            )

        return Listing(plan_for, self.source, self.layout.scheme, repr(self))

    # --- windows --------------------------------------------------------------------------
    def plan_window(
        self,
        since: TimeInput | None = None,
        until: TimeInput | None = None,
        *,
        after: str | None = None,
        cursor: str | None = None,
        max_keys: int = MAX_KEYS,
    ) -> Plan[ListCall]:
        """The ListObjectsV2 calls that list exactly the window (plain data, printable): the
        layout's :meth:`~ulidkeys.planning.layout.KeyLayout.plan_window` for this bucket's kind
        (general-purpose or directory)."""
        return self.layout.plan_window(
            since,
            until,
            after=after,
            cursor=cursor,
            max_keys=max_keys,
            directory_bucket=self.directory,
        )

    def list_window(
        self,
        since: TimeInput | None = None,
        until: TimeInput | None = None,
        *,
        after: str | None = None,
        cursor: str | None = None,
        max_workers: int = 8,
        split: bool = True,
    ) -> ResultsT:
        """The objects whose id time is in ``[since, until)``, oldest first.

        ``since`` defaults to the beginning of time, ``until`` to now; with ``cursor=`` and
        neither, the cursor's window is resumed just past its last object. ``split`` lists a
        window of more than a few pages as concurrent time slices (up to ``max_workers``
        requests in flight), merged back in order.
        """
        plan = self.plan_window(since, until, after=after, cursor=cursor)
        return self.run(plan, max_workers=max_workers, split=split)

    def list_slice(
        self, piece: Slice, *, cursor: str | None = None, max_workers: int = 8
    ) -> ResultsT:
        """The objects of one slice of a window (``plan.slices(n)[i]`` or ``Slice.from_json``):
        what one of many workers lists; ``cursor=`` resumes the slice's own listing."""
        return self.run(self.slice_plan(piece, cursor=cursor), max_workers=max_workers)

    def slice_plan(self, piece: Slice, *, cursor: str | None = None) -> Plan[ListCall]:
        """The plan of :meth:`list_slice` (and of its asyncio twin; ``Table.slice_plan``'s
        twin)."""
        require_slice(piece)  # its window is read before the plan checks it
        plan = self.plan_window(piece.window_start_ms, piece.window_end_ms)
        return plan.slice_plan(piece, cursor)

    def run(self, plan: Plan[ListCall], *, max_workers: int = 8, split: bool = True) -> ResultsT:
        """Run a plan made by :meth:`plan_window` (or by hand) against this bucket."""
        return self._run(plan, max_workers, split)

    def _run(self, plan: Plan[ListCall], workers: int, split: bool) -> ResultsT:
        """The shell's run of ``plan`` with this bucket's pages (threads, or awaited)."""
        raise NotImplementedError

    def _run_program(self, program: ProgramOf, cursor_of: CursorOf, workers: int) -> ResultsT:
        """The results of a program (given the run's stats) run against this bucket, resumed
        by ``cursor_of``: what :meth:`latest` hands back."""
        raise NotImplementedError

    # --- the newest objects ---------------------------------------------------------------
    def latest(
        self,
        n: int,
        *,
        since: TimeInput | None = None,
        until: TimeInput | None = None,
        cursor: str | None = None,
        max_workers: int = 8,
        suffix: str | None = None,
    ) -> ResultsT:
        """The ``n`` newest objects with id time in ``[since, until)`` (default: all time
        before now), newest first. ``cursor=`` continues with the next older ones.

        ``suffix``: the ``n`` newest whose key ends in exactly this text after the id (``.jpg``:
        not ``.png``, not ``.tar.jpg``); while objects with another suffix stood among the
        newest, older ones are listed from the cursor, so ``n`` come back whenever ``n`` such
        objects exist. The others are counted in ``stats.filtered``.
        """
        check_workers(max_workers)
        if suffix is not None:
            require_str(suffix, "suffix")
        newest = Newest.of(self.layout, self.directory, n, since, until, cursor)
        return self._run_program(latest(newest, suffix), newest.cursor_of, max_workers)


class Bucket(BucketReads[Results[Obj], "S3Client"], Consumes[Consumption[Obj]]):
    """A bucket bound to a client and a :class:`~ulidkeys.planning.layout.KeyLayout`.

    ``Bucket(boto3.client("s3"), "photos", KeyLayout("uploads/", period="day"))`` lists
    windows (:meth:`list_window`), the newest objects (:meth:`latest`) and writes under fresh
    keys (:meth:`put_new`, presigned uploads), and consumes what is new since a checkpoint
    (:meth:`consume`). Directory buckets (names ending ``--x-s3``) are detected by name; pass
    ``directory=`` to say so explicitly. ``fast_pages`` reads the client's ListObjectsV2 pages
    with :mod:`ulidkeys.s3.pages` (the same dicts as botocore, ~10x+ less CPU per page; a
    handler on this client's events only); ``fast_pages=False`` leaves parsing to botocore.
    """

    def __repr__(self) -> str:
        return f"Bucket({self.name!r}, {self.layout})"

    def _run(self, plan: Plan[ListCall], workers: int, split: bool) -> Results[Obj]:
        return run(plan, self.source, max_workers=workers, split=split)

    def _run_program(self, program: ProgramOf, cursor_of: CursorOf, workers: int) -> Results[Obj]:
        return Results(
            lambda stats: run_program(program(stats), self.source, stats, max_workers=workers),
            cursor_of,
        )

    def _consumption(self, options: RunOptions) -> Consumption[Obj]:
        run = open_run(self._listing(dict(options.listing)), options)
        return Consumption(run, run.source)

    # --- period folders -------------------------------------------------------------------
    def periods(
        self, since: TimeInput | None = None, until: TimeInput | None = None
    ) -> list[PeriodFolder]:
        """The layout's period folders that overlap the window and hold at least one key."""
        start, end = resolve_window(since, until)
        program = periods_program(self.layout, self.directory, start, end)
        found: list[PeriodFolder] = outcome(program, self.source)
        return found

    # --- writes ---------------------------------------------------------------------------
    def put_new(
        self, body: Any, *, ext: str | None = None, attempts: int = 5, **put_kwargs: Any
    ) -> str:
        """Upload under a fresh key that is never an existing object's; returns the key."""
        return put_new(
            self.layout, self.client, self.name, body, ext=ext, attempts=attempts, **put_kwargs
        )

    def presigned_put(
        self,
        *,
        expires: int = 3600,
        content_type: str | None = None,
        ext: str | None = None,
    ) -> PresignedUpload:
        """A fresh key and a presigned PUT URL (with the headers the uploader must send; see
        :func:`~ulidkeys.s3.writing.presigned_put`: SigV4, ``If-None-Match`` signed in)."""
        return presigned_put(
            self.layout, self.client, self.name, expires=expires, content_type=content_type, ext=ext
        )

    def presigned_post(
        self,
        *,
        expires: int = 3600,
        content_type: str | None = None,
        max_bytes: int | None = DEFAULT_POST_MAX_BYTES,
        ext: str | None = None,
    ) -> PresignedUpload:
        """A fresh key and the URL + form fields of a browser POST upload (see
        :func:`~ulidkeys.s3.writing.presigned_post`: SigV4, the exact key, a size limit)."""
        return presigned_post(
            self.layout,
            self.client,
            self.name,
            expires=expires,
            content_type=content_type,
            max_bytes=max_bytes,
            ext=ext,
        )
