"""``ulidkeys.dynamodb`` for Spark: an entity's window as rows, one partition per time slice
queried by an executor, the schema given or inferred from a sample."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    InputPartition,
)
from pyspark.sql.types import (
    BinaryType,
    BooleanType,
    DataType,
    DoubleType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from ulidkeys.clients import ClientSettings
from ulidkeys.dynamodb import Entity, Table
from ulidkeys.planning.plans import MAX_SLICES, Slice
from ulidkeys.planning.queries import plan_window as query_plan
from ulidkeys.spark.options import (
    DEFAULT_PARTITIONS,
    ENTITY_OPTIONS,
    ID_TIME,
    SAMPLE_ITEMS,
    Piece,
    SourceOptions,
    entity_of,
    fields_of,
    pieces,
)
from ulidkeys.timeinput import ms_to_datetime

DYNAMODB_FORMAT = "ulidkeys.dynamodb"


@dataclass(frozen=True)
class _Query:
    """What an executor needs to query slices of one entity: plain, picklable data."""

    settings: ClientSettings
    table: str
    entity: Entity
    fields: dict[str, Any]
    newest_first: bool
    index: str | None

    def open(self) -> Table:
        return Table(self.settings.dynamodb(), self.entity, table_name=self.table)

    def items(self, piece: Slice, limit: int | None = None) -> Iterator[dict[str, Any]]:
        table = self.open()
        found = table.query_slice(
            piece, newest_first=self.newest_first, index=self.index, **self.fields
        )
        for count, item in enumerate(found, 1):
            yield item
            if limit is not None and count >= limit:
                return

    def id_time(self, item: Mapping[str, Any]) -> datetime:
        id_text = self.entity.parse(item)[self.entity.id_field]
        return ms_to_datetime(self.entity.scheme.timestamp_ms(id_text))


def _type_of(value: object) -> DataType:
    if isinstance(value, bool):
        return BooleanType()
    if isinstance(value, Decimal):
        return LongType() if value == value.to_integral_value() else DoubleType()
    if isinstance(value, (bytes, bytearray)):
        return BinaryType()
    return StringType()  # strings, and lists, maps and sets as JSON text


def infer_schema(items: Sequence[Mapping[str, Any]], key_attrs: Sequence[str]) -> StructType:
    """A schema for ``items``: every attribute seen (numbers: long, or double when any has a
    fraction; a type conflict: string), the key attributes first, then ``id_time``."""
    found: dict[str, DataType] = {name: StringType() for name in key_attrs}
    for item in items:
        for name, value in item.items():
            kind, seen = _type_of(value), found.get(name)
            if seen is None or seen == kind:
                found[name] = kind
            elif {type(seen), type(kind)} == {LongType, DoubleType}:
                found[name] = DoubleType()
            else:
                found[name] = StringType()
    fields = [StructField(name, kind, True) for name, kind in found.items() if name != ID_TIME]
    return StructType([*fields, StructField(ID_TIME, TimestampType(), False)])


def _cell(value: object, kind: DataType) -> object:
    if value is None:
        return None
    if isinstance(kind, LongType):
        return int(value)  # type: ignore[call-overload]
    if isinstance(kind, DoubleType):
        return float(value)  # type: ignore[arg-type]
    if isinstance(kind, StringType) and not isinstance(value, str):
        return json.dumps(value, default=_plain, sort_keys=True)
    return value


def _plain(value: object) -> object:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    raise TypeError(f"{type(value).__name__} is not JSON")


_DYNAMODB_OPTIONS = (
    "entity", "config", "table", "pk", "sk", "shards", "scheme", "newest_first_keys",
    *ENTITY_OPTIONS, "fields", "since", "until", "partitions", "newest_first", "index",
    "sample", "region", "endpoint_url",
)  # fmt: skip


class DynamoDBSource(DataSource):
    """``ulidkeys.dynamodb``: the items of an entity's window (batch)."""

    def __init__(self, options: MutableMapping[str, str]) -> None:
        super().__init__(options)
        given = SourceOptions(options)
        given.check_known(_DYNAMODB_OPTIONS)
        table, entity = entity_of(given)
        fields = fields_of(given)
        self.query = _Query(
            given.settings(),
            table,
            entity,
            fields,
            given.flag("newest_first"),
            given.text("index"),
        )
        self.start_ms, self.end_ms = given.window("spark.read.format('ulidkeys.dynamodb')")
        self.partitions = given.count("partitions", DEFAULT_PARTITIONS, 1, MAX_SLICES)
        self.sample = given.count("sample", SAMPLE_ITEMS, 1)
        plan = query_plan(
            entity,
            self.start_ms,
            self.end_ms,
            newest_first=self.query.newest_first,
            index=self.query.index,
            fields=fields,
        )
        self.slices = plan.slices(self.partitions) if self.end_ms > self.start_ms else []

    @classmethod
    def name(cls) -> str:
        return DYNAMODB_FORMAT

    def schema(self) -> StructType:
        sample: list[dict[str, Any]] = []
        for piece in self.slices:
            sample.extend(self.query.items(piece, self.sample - len(sample)))
            if len(sample) >= self.sample:
                break
        return infer_schema(sample, self.query.entity.key_attrs())

    def reader(self, schema: StructType) -> DynamoDBReader:
        return DynamoDBReader(self.query, self.slices, schema)


class DynamoDBReader(DataSourceReader):
    """The batch reader: a partition per slice, rows in the schema's column order."""

    def __init__(self, query: _Query, slices: list[Slice], schema: StructType) -> None:
        self.query, self.slices = query, slices
        self.columns = [(field.name, field.dataType) for field in schema.fields]

    def partitions(self) -> list[Piece]:
        return pieces(self.slices) or [Piece("")]

    def read(self, partition: InputPartition) -> Iterator[tuple[Any, ...]]:
        assert isinstance(partition, Piece)  # what partitions() made
        if not partition.piece:
            return
        for item in self.query.items(Slice.from_json(partition.piece)):
            yield tuple(
                self.query.id_time(item) if name == ID_TIME else _cell(item.get(name), kind)
                for name, kind in self.columns
            )
