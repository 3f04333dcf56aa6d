"""``ulidkeys.dynamodb`` for Spark: an entity's window as rows, one partition per time slice
queried by an executor, the schema given or inferred from a sample."""

from __future__ import annotations

import json
import re
import struct
import uuid
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Context, Decimal, Inexact, InvalidOperation
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
    ByteType,
    DataType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    ShortType,
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
    CLIENT_OPTIONS,
    DEFAULT_PARTITIONS,
    ENTITY_OPTIONS,
    ID_TIME,
    OTHERS_COLUMN,
    SAMPLE_ITEMS,
    Piece,
    SourceOptions,
    answered,
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


def _is_whole(value: object, bits: int) -> bool:
    """A whole number a signed integer of ``bits`` bits holds."""
    return (
        isinstance(value, Decimal)
        and value.is_finite()
        and value == value.to_integral_value()
        and -(1 << (bits - 1)) <= value < 1 << (bits - 1)
    )


def _is_long(value: object) -> bool:
    """A whole number in the range of Spark's ``bigint`` (outside it: a string of its digits)."""
    return _is_whole(value, 64)


def _is_double(value: object) -> bool:
    """A number a double holds exactly as written (its shortest text reads back the same):
    ``0.1`` is, a fraction of 20 significant digits or a whole number past 2**53 is not."""
    if not isinstance(value, Decimal) or not value.is_finite():
        return False
    try:
        return Decimal(repr(float(value))) == value
    except OverflowError:  # past a double's range (DynamoDB's go to 10**126)
        return False


def _is_float(value: object) -> bool:
    """A number Spark's 4-byte ``float`` holds as written: the float32 nearest to it, in its
    shortest text that reads back to the same float32, is the number."""
    if not _is_double(value):
        return False
    try:
        single = struct.unpack("f", struct.pack("f", float(value)))[0]  # type: ignore[arg-type]
    except OverflowError:  # past a float32's range
        return False
    for digits in range(1, 10):  # 9 significant digits tell every float32 apart
        text = f"{single:.{digits}g}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == single:
            return Decimal(text) == value
    return False  # pragma: no cover - 9 digits always read back


def _decimal_cell(value: object, kind: DecimalType) -> Decimal | None:
    """``value`` as a cell of ``decimal(p, s)`` with no digit lost: None if it has digits past
    the scale (``19.999`` in ``decimal(10,2)``) or more whole digits than ``p - s``."""
    if not isinstance(value, Decimal) or not value.is_finite():
        return None
    exact = Context(prec=200, traps=[Inexact, InvalidOperation])
    try:
        cell = value.quantize(Decimal(1).scaleb(-kind.scale), context=exact)
    except (Inexact, InvalidOperation):
        return None
    if cell != value or len(cell.as_tuple().digits) > kind.precision:
        return None
    return cell


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


def infer_schema(
    items: Sequence[Mapping[str, Any]],
    key_attrs: Sequence[str],
    *,
    id_time: str = ID_TIME,
    others: str | None = None,
) -> StructType:
    """A schema for ``items``: every attribute seen (numbers: long, or double when any has a
    fraction, or string beyond the range of a long; a type conflict: string), the key
    attributes first, then the id time's column ``id_time``, then the column ``others``
    (given: a string column for the attributes outside the schema, ``others=keep``).

    An attribute named as one of those two columns is refused naming it (it would be
    replaced), unless ``others`` is given: then it is not a column of its own but kept there.
    """
    found: dict[str, DataType] = {name: StringType() for name in key_attrs}
    inexact: set[str] = set()  # columns with a whole number a double would round
    reserved = {id_time} if others is None else {id_time, others}
    for item in items:
        for name, value in item.items():
            if name in reserved:
                if others is None:
                    raise _reserved_attribute(name, item, key_attrs, id_time)
                continue
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
    fields = [StructField(name, kind, True) for name, kind in found.items()]
    fields.append(StructField(id_time, TimestampType(), False))
    if others is not None:
        fields.append(StructField(others, StringType(), True))
    return StructType(fields)


def _item_named(item: Mapping[str, Any], key_attrs: Sequence[str]) -> str:
    """``item PK='Org#acme', SK='Post#01HY...'``: how an error points at an item."""
    keys = ", ".join(f"{name}={describe(item.get(name), 60)}" for name in key_attrs)
    return f"item {keys}"


def _reserved_attribute(
    name: str, item: Mapping[str, Any], key_attrs: Sequence[str], id_time: str
) -> InvalidValue:
    option = "id_time_column" if name == id_time else "others_column"
    return InvalidValue(
        f"{_item_named(item, key_attrs)} has an attribute {name!r}, the name of the "
        f"{'id time' if name == id_time else 'others'} column, which would replace it: name "
        f'that column otherwise with option("{option}", ...), or keep the attribute with '
        f'option("others", "keep")'
    )


#: What a number, boolean or binary column holds (strings hold anything: JSON text).
_FITS: dict[type[DataType], Callable[[object], bool]] = {
    LongType: _is_long,
    IntegerType: lambda value: _is_whole(value, 32),
    ShortType: lambda value: _is_whole(value, 16),
    ByteType: lambda value: _is_whole(value, 8),
    DoubleType: _is_double,
    FloatType: _is_float,
    BooleanType: lambda value: isinstance(value, bool),
    BinaryType: lambda value: isinstance(value, (bytes, bytearray, Binary)),
}
#: The types a column of ``ulidkeys.dynamodb`` can have (the id time's column: a timestamp).
FILLED_TYPES = (StringType, DecimalType, *_FITS)


def _plain_cell(value: object, kind: DataType) -> object:
    """A value that fits ``kind`` as the Python value Spark's column takes."""
    if isinstance(kind, (LongType, IntegerType, ShortType, ByteType)):
        return int(value)  # type: ignore[call-overload]
    if isinstance(kind, (DoubleType, FloatType)):
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


OTHERS_MODES = ("fail", "drop", "keep")


@dataclass(frozen=True)
class _Rows:
    """How an executor turns items into rows of the schema: plain, picklable data."""

    columns: tuple[tuple[str, DataType], ...]
    key_attrs: tuple[str, ...]
    id_time: str  # the id time's column
    others: str  # fail, drop or keep: the attributes outside the schema
    others_column: str
    sample: int | None  # the sample that decided the schema; None: given with .schema(...)
    names: frozenset[str] = field(init=False)
    attributes: frozenset[str] = field(init=False)

    def _origin(self) -> str:
        if self.sample is None:
            return "given with .schema(...)"
        return f'inferred from the first {self.sample} items of the window: option("sample")'

    def __post_init__(self) -> None:
        names = frozenset(name for name, _kind in self.columns)
        filled = {self.id_time, self.others_column} if self.others == "keep" else {self.id_time}
        object.__setattr__(self, "names", names)
        # the columns an item's attributes fill (not the id time's, nor the others')
        object.__setattr__(self, "attributes", names - filled)

    def row(self, item: Mapping[str, Any], id_time: datetime) -> tuple[Any, ...]:
        keep = self.others == "keep"
        outside = [name for name in item if name not in self.attributes]
        if self.id_time in item and self.id_time in self.names and not keep:
            raise _reserved_attribute(self.id_time, item, self.key_attrs, self.id_time)
        if outside and self.others == "fail":
            shown = ", ".join(repr(name) for name in sorted(outside)[:5])
            more = f" and {len(outside) - 5} more" if len(outside) > 5 else ""
            raise InvalidValue(
                f"{_item_named(item, self.key_attrs)} has attribute(s) {shown}{more} outside "
                f"the schema ({self._origin()}): keep them in a JSON column with "
                'option("others", "keep"), leave them out with option("others", "drop"), or '
                + ("raise the sample" if self.sample is not None else "add them to .schema()")
            )
        cells: list[Any] = []
        for name, kind in self.columns:
            if name == self.id_time:
                cells.append(id_time)
            elif keep and name == self.others_column:
                cells.append(_json_text({n: item[n] for n in outside}) if outside else None)
            else:
                cells.append(self._cell(item, name, kind))
        return tuple(cells)

    def _cell(self, item: Mapping[str, Any], name: str, kind: DataType) -> object:
        """An attribute's value as a cell of its column; InvalidValue for one the column
        cannot hold as it is (a fraction or an overflow in a whole-number column, a string in
        a number column, a number a double or a decimal(p,s) would round), which Spark would
        fail on naming no attribute, or a conversion would change."""
        value = item.get(name)
        if value is None:
            return None
        if isinstance(kind, DecimalType):
            cell = _decimal_cell(value, kind)
            if cell is not None:
                return cell
        else:
            fits = _FITS.get(type(kind))
            if fits is None or fits(value):
                return _plain_cell(value, kind)
        fix = (
            'raise option("sample"), or give the column\'s type with .schema(...)'
            if self.sample is not None
            else "give it a type that holds the value (a decimal(p,s) of more digits, double, "
            "or string, which holds every number with all its digits)"
        )
        raise InvalidValue(
            f"attribute {name}={describe(value)} of {_item_named(item, self.key_attrs)} does "
            f"not fit its column's type {kind.simpleString()} ({self._origin()}) without "
            f"rounding or overflow: {fix}"
        )


_DYNAMODB_OPTIONS = (
    "entity", "config", "table", "pk", "sk", "shards", "scheme", "newest_first_keys",
    *ENTITY_OPTIONS, "fields", "since", "until", "partitions", "newest_first", "index",
    "sample", "others", "others_column", "id_time_column", *CLIENT_OPTIONS,
)  # fmt: skip


class DynamoDBSource(DataSource):
    """``ulidkeys.dynamodb``: the items of an entity's window (batch).

    Checked when it is defined (``load()``), on the driver: every option, the window, and,
    with the query of the sample (the first ``sample`` items of the window, in the read's
    order), that the table is there and reachable. The sample decides the inferred schema;
    an attribute seen only past it fails the read naming it (``others=fail``, the default
    then), is kept as JSON text in the column ``_others`` (``others=keep``), or is left out
    (``others=drop``, the default for a schema given with ``.schema(...)``).
    """

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
        self.others = given.text("others")
        if self.others is not None:
            given.choice("others", OTHERS_MODES, "fail")
        self.others_column = given.text("others_column", OTHERS_COLUMN) or OTHERS_COLUMN
        self.id_time = given.text("id_time_column", ID_TIME) or ID_TIME
        if self.others_column == self.id_time:
            raise InvalidValue(
                f'option("others_column") and option("id_time_column") both name the column '
                f"{self.id_time!r}: give them two names"
            )
        with given.naming("fields", *[name for name in ("index",) if name in given.given]):
            plan = query_plan(
                entity,
                self.start_ms,
                self.end_ms,
                newest_first=self.query.newest_first,
                index=self.query.index,
                fields=fields,
            )
        self.slices = plan.slices(self.partitions) if self.end_ms > self.start_ms else []
        self.sampled: list[dict[str, Any]] | None = None
        self.inferred = False  # set by schema(): Spark asks for it only when none is given
        if given.flag("verify", True):
            self.sampled = self._sample(given)
        self.given = given

    def _sample(self, given: SourceOptions) -> list[dict[str, Any]]:
        """The first ``sample`` items of the window in the read's order: the one query the
        driver makes (it also shows that the table is there and reachable)."""

        def first() -> list[dict[str, Any]]:
            sample: list[dict[str, Any]] = []
            for piece in self.slices:
                sample.extend(self.query.items(piece, self.sample - len(sample)))
                if len(sample) >= self.sample:
                    break
            return sample

        return answered(first, f'option("table")={self.query.table!r}', given)

    @classmethod
    def name(cls) -> str:
        return DYNAMODB_FORMAT

    def schema(self) -> StructType:
        sample = self.sampled if self.sampled is not None else self._sample(self.given)
        self.sampled, self.inferred = None, True  # the items need not travel with the plan
        keep = self.others == "keep"
        return infer_schema(
            sample,
            self.query.entity.key_attrs(),
            id_time=self.id_time,
            others=self.others_column if keep else None,
        )

    def reader(self, schema: StructType) -> DynamoDBReader:
        others = self.others or ("fail" if self.inferred else "drop")
        rows = _Rows(
            tuple((field.name, field.dataType) for field in schema.fields),
            tuple(self.query.entity.key_attrs()),
            self.id_time,
            others,
            self.others_column,
            self.sample if self.inferred else None,
        )
        if not self.inferred:
            _check_given(rows)
        return DynamoDBReader(self.query, self.slices, rows)


def _check_given(rows: _Rows) -> None:
    """A schema given with ``.schema(...)`` holds only columns the source can fill (checked
    when the read is planned, its first action, before any task: Spark hands a source the
    schema given only then)."""
    kinds = dict(rows.columns)
    for name, kind in rows.columns:
        if name == rows.id_time:
            if not isinstance(kind, TimestampType):
                raise InvalidValue(
                    f"column {name!r} of .schema(...) is {kind.simpleString()}: the id time's "
                    'column is a timestamp; name it otherwise with option("id_time_column", '
                    "...) to free the name"
                )
        elif not isinstance(kind, FILLED_TYPES):
            raise InvalidValue(
                f"column {name!r} of .schema(...) is {kind.simpleString()}, which "
                "ulidkeys.dynamodb does not fill: give it as string (lists, maps and sets as "
                "JSON text), a number type, boolean or binary"
            )
    if rows.others == "keep" and not isinstance(kinds.get(rows.others_column), StringType):
        raise InvalidValue(
            f'option("others")="keep" keeps the attributes outside the schema in the column '
            f"{rows.others_column!r}: add it to .schema(...) as {rows.others_column} string "
            '(or name another with option("others_column"))'
        )


class DynamoDBReader(DataSourceReader):
    """The batch reader: a partition per slice, rows in the schema's column order."""

    def __init__(self, query: _Query, slices: list[Slice], rows: _Rows) -> None:
        self.query, self.slices, self.rows = query, slices, rows

    def partitions(self) -> list[Piece]:
        return pieces(self.slices) or [Piece("")]

    def read(self, partition: InputPartition) -> Iterator[tuple[Any, ...]]:
        assert isinstance(partition, Piece)  # what partitions() made
        if not partition.piece:
            return
        for item in self.query.items(Slice.from_json(partition.piece)):
            yield self.rows.row(item, self.query.id_time(item))
