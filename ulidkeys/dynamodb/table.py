"""A table bound to an entity and a client: exact window queries, newest first, safe writes.

Only request/response mapping lives here: :class:`QuerySource` turns a planned ``Query`` into
a request for whichever client form it was given and the answer into a page of plain items;
planning and the page-chain logic are shared with S3.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from copy import copy
from typing import Any, Generic, TypeVar

from ulidkeys.dynamodb.clients import TableOrClient, Target
from ulidkeys.dynamodb.columns import column_shape, column_spec
from ulidkeys.dynamodb.pages import PlainItems, install_fast_pages, plain_items
from ulidkeys.dynamodb.write import BatchWriter, put_new
from ulidkeys.engine.chains import Page
from ulidkeys.engine.columns import ColumnSpec
from ulidkeys.engine.consuming import Consumes, Listing, RunOptions, open_run
from ulidkeys.engine.scheduling import Shape
from ulidkeys.engine.threads import Consumption, Results, run
from ulidkeys.errors import (
    InvalidQuery,
    InvalidType,
    InvalidValue,
    UnexpectedResponse,
    describe,
    require_bool,
    require_count,
)
from ulidkeys.planning.collection import Collection, KindCall
from ulidkeys.planning.entity import Entity
from ulidkeys.planning.plans import Plan, Slice, require_slice, resolve_window
from ulidkeys.planning.queries import (
    QueryCall,
    QueryWindow,
    WindowPlanner,
    plan_query,
    single_call,
)
from ulidkeys.timeinput import TimeInput

Item = dict[str, Any]
ResultsT = TypeVar("ResultsT")


class QuerySource:
    """``query`` for the executor: one planned call + ``ExclusiveStartKey`` -> one page.

    A page's items are plain items; a copy made by :meth:`columns` gives rows of the columns
    asked for instead (``Results.pages``); ``entity`` reads the id time of a key (``id_ms``)."""

    def __init__(
        self,
        target: Target,
        page_size: int | None = None,
        *,
        fast_pages: bool = False,
        entity: Entity | None = None,
    ) -> None:
        self.target = target
        self.page_size = require_count(page_size, "page_size", 1, optional=True)
        # whether ulidkeys.dynamodb.pages is installed on the client: then each answer's items
        # are read once, straight to plain values, and neither boto3 nor to_plain converts them
        self.fast_pages = fast_pages
        self.entity = entity
        self.spec: ColumnSpec | None = None  # the columns of rows, None: the items

    def columns(self, names: tuple[str, ...]) -> tuple[QuerySource, Shape]:
        """This source giving rows of the columns ``names`` instead of items, and the shape
        that makes a page of columns of them (InvalidValue for a bad column name)."""
        if self.entity is None:
            raise InvalidValue(
                "pages(columns=...) is for the queries of a Table bound to an Entity; a "
                "collection's pages hold items of several kinds: iterate its items"
            )
        spec = column_spec(names)
        shape = column_shape(spec, self.entity)
        rows = copy(self)
        rows.spec = spec
        return rows, shape

    @property
    def client(self) -> Any:
        """The client the queries go to (the executor checks its connection pool)."""
        return self.target.client

    def fetch(self, call: QueryCall, token: Any, limit: int | None) -> Page:
        with self.reading() as read:
            response = self.target.client.query(**self.request(call, token, limit))
        return self.page(call, response, read.of(response))

    def reading(self) -> AbstractContextManager[PlainItems]:
        """Around a ``query`` call (the sync and async shells'): where the fast reader leaves
        the page's plain items (``.items`` stays None when botocore read the page)."""
        if not self.fast_pages:
            return nullcontext(PlainItems("Query"))
        # the reader reads plain only while this deserializer (a plain client's) is boto3's
        return plain_items("Query", self.target.deserializer)

    def request(self, call: QueryCall, token: Any, limit: int | None) -> dict[str, Any]:
        """The ``query`` arguments of a call's page (the sync and async shells')."""
        target = self.target
        args = call.request(target.table_name, typed=not target.plain)
        if token is not None:
            args["ExclusiveStartKey"] = token
        if self.page_size is not None:
            limit = self.page_size if limit is None else min(limit, self.page_size)
        if limit is not None:
            args["Limit"] = limit
        return args

    def page(
        self, call: QueryCall, response: Mapping[str, Any], plain: list[Item] | None = None
    ) -> Page:
        """The page of a ``query`` answer: plain items keyed by their sort key (``plain``: the
        items the fast reader read, already plain; else the response's are converted)."""
        target = self.target
        items = response.get("Items") if plain is None else plain
        if not isinstance(items, list):
            raise UnexpectedResponse(
                f"Query on {target.table_name!r} answered without Items (keys: "
                f"{sorted(response)}); resume from the query's .cursor"
            )
        sk_attr = call.sk_attr
        if plain is None:
            plain = [target.to_plain(raw) for raw in items]
        if self.spec is None:
            entries = [(item.get(sk_attr), item) for item in plain]
        else:
            rows = self.spec.rows_of(plain)
            entries = [(item.get(sk_attr), row) for item, row in zip(plain, rows, strict=True)]
        read = response.get("ScannedCount", len(items))
        # An empty page may still carry a LastEvaluatedKey (AWS ends at Limit that way): follow it.
        return Page(entries, response.get("LastEvaluatedKey"), read)


class CollectionSource(QuerySource):
    """The pages of a collection's queries: each key read once for its kind, id and time
    (:meth:`~ulidkeys.planning.collection.Collection.read_entries`), each item of a declared
    kind handed out as a ``CollectionItem``."""

    def __init__(
        self,
        target: Target,
        collection: Collection,
        page_size: int | None = None,
        fast_pages: bool = False,
    ) -> None:
        super().__init__(target, page_size, fast_pages=fast_pages)
        self.collection = collection

    def page(
        self, call: QueryCall, response: Mapping[str, Any], plain: list[Item] | None = None
    ) -> Page:
        page = super().page(call, response, plain)
        assert isinstance(call, KindCall)  # a collection plans only these
        return Page(self.collection.read_entries(call, page.entries), page.token, page.read)


class TableReads(WindowPlanner, Generic[ResultsT]):
    """The reads of :class:`Table` and of its asyncio twin (``ulidkeys.aio.AsyncTable``),
    written once: both plan and map pages with the same code and differ only in how a plan
    is run (``_run``: threads, or awaited tasks), so a query behaves the same in either shell.
    ``ResultsT`` is ``Results`` or ``AsyncResults``."""

    entity: Entity | Collection
    target: Target
    fast_pages: bool

    # --- queries --------------------------------------------------------------------------
    def _plan(self, query: QueryWindow) -> Plan[QueryCall]:
        return self.entity._plan(query)

    def query_window(
        self,
        since: TimeInput | None = None,
        until: TimeInput | None = None,
        *,
        newest_first: bool = False,
        limit: int | None = None,
        index: str | None = None,
        after: object = None,
        cursor: str | None = None,
        page_size: int | None = None,
        max_workers: int = 8,
        split: bool = False,
        **fields: object,
    ) -> ResultsT:
        """The entity's items whose id time is in ``[since, until)``, as plain Python values.

        ``since`` defaults to the epoch, ``until`` to now; with ``cursor=`` and neither, the
        cursor's window is resumed just past its last item. ``after=`` (an item, key or id
        seen last) resumes just past it. Items in the range whose sort key does not fit the
        template (children such as ``Post#<id>#Comment#...``) are read but skipped.

        ``split=True`` lists a window of many pages on one partition as concurrent time
        slices (``BETWEEN`` sub-ranges cut while workers are idle, merged back in order; not
        newest first, not with a ``limit``): for big windows of one hot partition, where one
        chain of pages would wait on each ``LastEvaluatedKey``. See docs/dynamodb.md.
        """
        query_plan = self.plan_window(
            since,
            until,
            newest_first=newest_first,
            limit=limit,
            index=index,
            after=after,
            cursor=cursor,
            **fields,
        )
        return self.run(query_plan, page_size=page_size, max_workers=max_workers, split=split)

    def query_slice(
        self,
        piece: Slice,
        *,
        newest_first: bool = False,
        index: str | None = None,
        cursor: str | None = None,
        page_size: int | None = None,
        max_workers: int = 8,
        **fields: object,
    ) -> ResultsT:
        """The items of one slice of a window (``plan.slices(n)[i]`` or ``Slice.from_json``):
        what one of many workers queries; ``cursor=`` resumes the slice's own query."""
        plan = self.slice_plan(
            piece, newest_first=newest_first, index=index, cursor=cursor, **fields
        )
        return self.run(plan, page_size=page_size, max_workers=max_workers)

    def slice_plan(
        self,
        piece: Slice,
        *,
        newest_first: bool = False,
        index: str | None = None,
        cursor: str | None = None,
        **fields: object,
    ) -> Plan[QueryCall]:
        """The plan of :meth:`query_slice` (and of its asyncio twin)."""
        require_slice(piece)  # its window is read before the plan checks it
        whole = self._plan(
            QueryWindow(
                piece.window_start_ms,
                piece.window_end_ms,
                newest_first,
                index=index,
                fields=fields,
            )
        )
        return whole.slice_plan(piece, cursor)

    def latest(
        self,
        n: int,
        *,
        since: TimeInput | None = None,
        until: TimeInput | None = None,
        cursor: str | None = None,
        index: str | None = None,
        max_workers: int = 8,
        **fields: object,
    ) -> ResultsT:
        """The ``n`` newest items with id time in ``[since, until)``, newest first.

        A bucketed entity needs ``since=`` to bound how many buckets are visited.
        """
        require_count(n, "n")
        if self.entity.period is not None and since is None and cursor is None:
            raise InvalidQuery(
                f"{self.entity.name} is bucketed by {self.entity.period}: give since= so the "
                "query knows which buckets to visit"
            )
        start, end = resolve_window(since, until, cursor)
        query = QueryWindow(
            start,
            end,
            newest_first=True,
            limit=n,
            index=index,
            cursor=cursor,
            fields=fields,
        )
        return self.run(self._plan(query), max_workers=max_workers)

    def run(
        self,
        plan: Plan[QueryCall],
        *,
        page_size: int | None = None,
        max_workers: int = 8,
        split: bool = False,
    ) -> ResultsT:
        """Run a plan made by :meth:`plan_window` (or by hand) against this table; ``split`` as in
        :meth:`query_window`."""
        return self._run(plan, self.source(page_size), max_workers, split)

    def source(self, page_size: int | None = None) -> QuerySource:
        """The page source of this table's queries (a collection's reads each key's kind)."""
        if isinstance(self.entity, Collection):
            return CollectionSource(self.target, self.entity, page_size, self.fast_pages)
        return QuerySource(self.target, page_size, fast_pages=self.fast_pages, entity=self.entity)

    def _run(
        self, plan: Plan[QueryCall], source: QuerySource, workers: int, split: bool
    ) -> ResultsT:
        """The shell's run of ``plan`` with the pages of ``source`` (threads, or awaited)."""
        raise NotImplementedError


class Table(TableReads[Results[Item]], Consumes[Consumption[Item]]):
    """A DynamoDB table bound to a client and an :class:`~ulidkeys.planning.entity.Entity` (or
    a :class:`~ulidkeys.planning.collection.Collection`: its reads give every kind's items,
    each a ``CollectionItem``; its writes check each item against its kind).

    Takes a ``Table`` resource, the resource's client (``table.meta.client``) or a plain
    client (then ``table_name=`` too); every form returns the same plain items
    (numbers as ``Decimal``). ``fast_pages`` reads the client's pages with
    :mod:`ulidkeys.dynamodb.pages` (the same values as botocore and boto3, ~6x less CPU per
    page; a handler on this client's events only); ``fast_pages=False`` leaves parsing to
    botocore.
    """

    def __init__(
        self,
        table_or_client: TableOrClient | Target,
        entity: Entity | Collection,
        *,
        table_name: str | None = None,
        fast_pages: bool = True,
    ) -> None:
        if not isinstance(entity, (Entity, Collection)):
            raise InvalidType(f"entity={describe(entity)} must be an Entity or a Collection")
        self.entity = entity
        if isinstance(table_or_client, Target):  # already resolved (the asyncio twin's)
            self.target = table_or_client
        else:
            self.target = Target.resolve(table_or_client, table_name)
        self.name = self.target.table_name
        fast = require_bool(fast_pages, "fast_pages")
        self.fast_pages = install_fast_pages(self.target.client) if fast else False

    def __repr__(self) -> str:
        return f"Table({self.name!r}, {self.entity!r})"

    def _run(
        self, plan: Plan[QueryCall], source: QuerySource, workers: int, split: bool
    ) -> Results[Item]:
        return run(plan, source, max_workers=workers, split=split)

    def _listing(self, listing: dict[str, object]) -> Listing:
        """How a consumer run lists a window: ``listing`` holds the key fields, ``index`` and
        ``page_size`` given to :meth:`consume`."""
        index = listing.pop("index", None)
        if index is not None and not isinstance(index, str):
            raise InvalidQuery(f"index={describe(index)} must be an index name")
        page_size = require_count(listing.pop("page_size", None), "page_size", 1, optional=True)

        def plan_for(start: int, end: int, _expected: tuple[int, float] | None) -> Plan[QueryCall]:
            # Query ends at its BETWEEN bound: no page size is needed to keep later items out.
            return self._plan(QueryWindow(start, end, index=index, fields=listing))

        return Listing(plan_for, self.source(page_size), self.entity.scheme, repr(self))

    def _consumption(self, options: RunOptions) -> Consumption[Item]:
        run = open_run(self._listing(dict(options.listing)), options)
        return Consumption(run, run.source)

    def query_args(
        self,
        since: TimeInput | None = None,
        until: TimeInput | None = None,
        *,
        index: str | None = None,
        newest_first: bool = False,
        **fields: object,
    ) -> dict[str, Any]:
        """``client.query`` arguments (for this client form) for exactly the window's keys."""
        entity = self.entity
        if isinstance(entity, Collection):
            raise InvalidQuery(
                f"collection {entity.name} is read with one Query per sort key prefix (and per "
                "bucket and shard), merged: run it with query_window(), or ask its entities"
            )
        start, end = resolve_window(since, until)
        query = QueryWindow(start, end, newest_first, index=index, fields=fields)
        query_plan = plan_query(entity, query)
        call = single_call(query_plan, entity)
        return call.request(self.name, typed=not self.target.plain)

    # --- writes ---------------------------------------------------------------------------
    def put_new(self, item: Mapping[str, Any]) -> Item:
        """Write ``item`` only if no item has its key (raises ItemAlreadyExists, keeps the old)."""
        self.entity.check_item(item)  # its keys must fit the templates: no hand-built keys
        return put_new(self.target, item, key_attrs=self.entity.key_attrs())

    def batch_writer(self, **options: Any) -> BatchWriter:
        """A :class:`BatchWriter` that checks every item against the entity's templates."""
        return BatchWriter(
            self.target,
            key_attrs=self.entity.key_attrs(),
            check=self.entity.parse,
            check_put=self.entity.check_item,
            **options,
        )


def key_condition(
    entity: Entity,
    since: TimeInput | None = None,
    until: TimeInput | None = None,
    *,
    index: str | None = None,
    **fields: object,
) -> Any:
    """A ``boto3.dynamodb.conditions`` condition selecting exactly the window's keys."""
    from boto3.dynamodb.conditions import Key  # boto3 is this adapter's optional dependency

    start, end = resolve_window(since, until)
    query = QueryWindow(start, end, index=index, fields=fields)
    call = single_call(plan_query(entity, query), entity)
    return Key(call.pk_attr).eq(call.partition) & Key(call.sk_attr).between(
        call.lo, call.hi_inclusive
    )
