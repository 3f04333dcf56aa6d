"""``ulidkeys.dynamodb`` for Spark: an entity's window as rows, one partition per time slice
queried by an executor, the schema given or inferred from a sample."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import Binary
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
from ulidkeys.errors import InvalidValue, describe
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


#: The range of Spark's ``bigint``: a whole number outside it is a string column (its digits).
_LONG_MIN, _LONG_MAX = -(1 << 63), (1 << 63) - 1


def _is_long(value: object) -> bool:
    return (
        isinstance(value, Decimal)
        and value.is_finite()
        and value == value.to_integral_value()
        and _LONG_MIN <= value <= _LONG_MAX
    )


def _is_double(value: object) -> bool:
    """A number a double holds exactly as written (its shortest text reads back the same):
    ``0.1`` is, a fraction of 20 significant digits or a whole number past 2**53 is not."""
    if not isinstance(value, Decimal) or not value.is_finite():
        return False
    try:
        return Decimal(repr(float(value))) == value
    except OverflowError:  # past a double's range (DynamoDB's go to 10**126)
        return False


def _type_of(value: object) -> DataType:
    if isinstance(value, bool):
        return BooleanType()
    if isinstance(value, Decimal):
        if _is_long(value):
            return LongType()
        # DynamoDB numbers have up to 38 digits: one a double would round keeps them as text
        return DoubleType() if _is_double(value) else StringType()
    if isinstance(value, (bytes, bytearray, Binary)):  # boto3 gives B attributes as Binary
        return BinaryType()
    return StringType()  # strings, and lists, maps and sets as JSON text


def infer_schema(items: Sequence[Mapping[str, Any]], key_attrs: Sequence[str]) -> StructType:
    """A schema for ``items``: every attribute seen (numbers: long, or double when any has a
    fraction, or string beyond the range of a long; a type conflict: string), the key
    attributes first, then ``id_time``."""
    found: dict[str, DataType] = {name: StringType() for name in key_attrs}
    inexact: set[str] = set()  # columns with a whole number a double would round
    for item in items:
        for name, value in item.items():
            kind, seen = _type_of(value), found.get(name)
            if isinstance(kind, LongType) and not _is_double(value):
                inexact.add(name)
            if seen is None or seen == kind:
                found[name] = kind
            elif {type(seen), type(kind)} == {LongType, DoubleType}:
                found[name] = DoubleType()
            else:
                found[name] = StringType()
    for name in inexact:
        if isinstance(found[name], DoubleType):  # fractions and a long past 2**53: text
            found[name] = StringType()
    fields = [StructField(name, kind, True) for name, kind in found.items() if name != ID_TIME]
    return StructType([*fields, StructField(ID_TIME, TimestampType(), False)])


#: What a cell of each inferred type holds (strings hold anything: JSON text).
_FITS: dict[type[DataType], Callable[[object], bool]] = {
    LongType: _is_long,
    DoubleType: _is_double,
    BooleanType: lambda value: isinstance(value, bool),
    BinaryType: lambda value: isinstance(value, (bytes, bytearray, Binary)),
}


def _cell(value: object, kind: DataType, name: str = "") -> object:
    """An attribute's value as a cell of its column; InvalidValue for one the column cannot
    hold as it is (an item past the sample with a fraction in a bigint column, a string in a
    number column, a number a double would round), which Spark would fail on or a conversion
    would change."""
    if value is None:
        return None
    fits = _FITS.get(type(kind))
    if fits is not None and not fits(value):
        raise InvalidValue(
            f"attribute {name}={describe(value)} does not fit its column's type "
            f"{kind.simpleString()} (inferred from a sample of the items): raise "
            "option('sample', ...) or give the column's type with .schema(...)"
        )
    if isinstance(kind, LongType):
        return int(value)  # type: ignore[call-overload]
    if isinstance(kind, DoubleType):
        return float(value)  # type: ignore[arg-type]
    if isinstance(value, Binary):
        value = value.value  # type: ignore[attr-defined]  # boto3 stubs omit it
    if isinstance(kind, StringType) and not isinstance(value, str):
        return _json_text(value)
    return value


#: Marks the digits of a number a double would round while its JSON text is written: they go
#: in as they are (random, so no attribute's text can hold it).
_EXACT = f"ulidkeys-exact-{uuid.uuid4().hex}:"


def _json_text(value: object) -> str:
    """JSON text of a list, map, set or number, every number with all its digits."""
    text = json.dumps(value, default=_plain, sort_keys=True)
    if _EXACT in text:
        text = re.sub(f'"{_EXACT}([^"]*)"', r"\1", text)
    return text


def _plain(value: object) -> object:
    if isinstance(value, Decimal):
        if value == value.to_integral_value():
            return int(value)
        return float(value) if _is_double(value) else f"{_EXACT}{value}"
    if isinstance(value, (set, frozenset)):
        return sorted((item if isinstance(item, str) else _plain(item) for item in value), key=str)
    if isinstance(value, Binary):
        value = value.value  # type: ignore[attr-defined]  # boto3 stubs omit it
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
                self.query.id_time(item) if name == ID_TIME else _cell(item.get(name), kind, name)
                for name, kind in self.columns
            )
