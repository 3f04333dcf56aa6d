"""The asyncio twin of :class:`~ulidkeys.dynamodb.Table`: window queries, the newest items,
``put_new`` and batch writes on an aiobotocore DynamoDB client, with the sync adapter's plans,
request builders, item mapping and write steps."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, ClassVar, cast

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

from ulidkeys.aio.consumers import open_consumption
from ulidkeys.dynamodb.clients import Target
from ulidkeys.dynamodb.table import Item, QuerySource, Table, TableReads
from ulidkeys.dynamodb.write import BatchQueue, put_new_steps
from ulidkeys.engine.chains import Page
from ulidkeys.engine.consuming import Consumes, RunOptions
from ulidkeys.engine.scheduling import Shape
from ulidkeys.engine.tasks import AsyncConsumption, AsyncResults, outcome, run
from ulidkeys.errors import InvalidQuery, describe
from ulidkeys.planning.collection import Collection
from ulidkeys.planning.entity import Entity
from ulidkeys.planning.plans import Plan
from ulidkeys.planning.queries import QueryCall

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient


def async_target(client: DynamoDBClient, table_name: str) -> Target:
    """The target of an aiobotocore client: it has no resource form, so it always speaks
    typed values (``{"S": ...}``), converted with boto3's (de)serializer."""
    if not isinstance(table_name, str) or not table_name:
        raise InvalidQuery(f"table_name={describe(table_name)} must be the table's name")
    return Target(cast(Any, client), table_name, False, TypeSerializer(), TypeDeserializer())


class AsyncQuerySource:
    """``query`` awaited: the request and the page are the sync source's."""

    def __init__(self, mapper: QuerySource) -> None:
        self.mapper = mapper

    async def fetch(self, call: QueryCall, token: Any, limit: int | None) -> Page:
        mapper = self.mapper
        client: Any = mapper.target.client
        with mapper.reading() as read:  # a context variable: this task's call only
            response = await client.query(**mapper.request(call, token, limit))
        return mapper.page(call, response, read.of(response))

    def columns(self, names: tuple[str, ...]) -> tuple[AsyncQuerySource, Shape]:
        """This source giving rows of the columns ``names`` (the sync source's
        :meth:`~ulidkeys.dynamodb.table.QuerySource.columns`)."""
        rows, shape = self.mapper.columns(names)
        return AsyncQuerySource(rows), shape


class AsyncBatchWriter(BatchQueue):
    """:class:`~ulidkeys.dynamodb.BatchWriter` for asyncio: ``await put(...)``,
    ``await flush()``, ``async with`` (flushes on exit); the same queue, retries and raises."""

    #: A backoff awaits ``asyncio.sleep`` unless ``sleep=`` gives another awaitable sleep.
    _default_sleep: ClassVar[Callable[[float], Awaitable[object]]] = asyncio.sleep

    async def put(self, item: Mapping[str, Any]) -> None:
        """Queue a put of ``item`` (plain Python values); may flush a full batch."""
        await outcome(self._put_steps(item), client=self.target.client, sleep=self._sleep)

    async def delete(self, key: Mapping[str, Any]) -> None:
        """Queue a delete of the item with primary key ``key`` (plain values)."""
        await outcome(self._delete_steps(key), client=self.target.client, sleep=self._sleep)

    async def flush(self) -> None:
        """Write everything queued; returns when DynamoDB has processed every request."""
        await outcome(self._flush_steps(), client=self.target.client, sleep=self._sleep)

    async def __aenter__(self) -> AsyncBatchWriter:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self.flush()


class AsyncTable(
    TableReads[AsyncResults[Item]], Consumes[Coroutine[Any, Any, AsyncConsumption[Item]]]
):
    """A DynamoDB table bound to an aiobotocore client and an
    :class:`~ulidkeys.planning.entity.Entity` (or a
    :class:`~ulidkeys.planning.collection.Collection`), for asyncio code.

    ``AsyncTable(client, entity, table_name="app")`` with ``client`` from
    ``aiobotocore.session.get_session().create_client("dynamodb")``; the methods mirror
    :class:`~ulidkeys.dynamodb.Table`'s (the reads are the same code, :class:`TableReads`) and
    return :class:`AsyncResults` for ``async for``; ``fast_pages`` as on the Table.
    """

    def __init__(
        self,
        client: DynamoDBClient,
        entity: Entity | Collection,
        *,
        table_name: str,
        fast_pages: bool = True,
    ) -> None:
        self.target = async_target(client, table_name)
        # plans and maps, never sends a request; installs the fast page reader on the client's
        # events, which aiobotocore emits as botocore does
        self.table = Table(self.target, entity, fast_pages=fast_pages)
        self.fast_pages = self.table.fast_pages
        self.entity, self.name, self.client = entity, table_name, client

    def __repr__(self) -> str:
        return f"AsyncTable({self.name!r}, {self.entity!r})"

    async def _consumption(self, options: RunOptions) -> AsyncConsumption[Item]:
        listing = self.table._listing(dict(options.listing))
        return await open_consumption(listing, options, AsyncQuerySource)

    def _run(
        self, plan: Plan[QueryCall], source: QuerySource, workers: int, split: bool
    ) -> AsyncResults[Item]:
        return run(plan, AsyncQuerySource(source), max_workers=workers, split=split)

    async def put_new(self, item: Mapping[str, Any]) -> Item:
        """Write ``item`` only if no item has its key (raises ItemAlreadyExists, keeps the old)."""
        self.entity.check_item(item)  # its keys must fit the templates: no hand-built keys
        steps = put_new_steps(self.target, item, key_attrs=self.entity.key_attrs())
        return await outcome(steps, client=self.client)

    def batch_writer(self, **options: Any) -> AsyncBatchWriter:
        """An :class:`AsyncBatchWriter` that checks every item against the entity's templates."""
        return AsyncBatchWriter(
            self.target,
            key_attrs=self.entity.key_attrs(),
            check=self.entity.parse,
            check_put=self.entity.check_item,
            **options,
        )
