"""``ulidkeys.dynamodb`` for Spark: an entity's window as rows (or a collection's: every kind,
each row's kind in a column of its own), one partition per time slice queried by an executor,
the schema given or inferred from a sample."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    InputPartition,
)
from pyspark.sql.types import (
    DataType,
    DecimalType,
    StringType,
    StructType,
    TimestampType,
)

from ulidkeys.clients import ClientSettings
from ulidkeys.dynamodb import Collection, Entity, Table
from ulidkeys.errors import InvalidValue, describe
from ulidkeys.planning.collection import CollectionItem
from ulidkeys.planning.plans import MAX_SLICES, Slice
from ulidkeys.planning.queries import QueryWindow
from ulidkeys.spark.cells import (
    FILLED_TYPES,
    FITS,
    decimal_cell,
    infer_schema,
    item_named,
    json_text,
    plain_cell,
    reserved_attribute,
)
from ulidkeys.spark.options import (
    CLIENT_OPTIONS,
    DEFAULT_PARTITIONS,
    ENTITY_OPTIONS,
    ID_TIME,
    KIND_COLUMN,
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
    entity: Entity | Collection
    fields: dict[str, Any]
    newest_first: bool
    index: str | None
    kind_column: str = KIND_COLUMN  # a collection's rows: each item's kind

    def open(self) -> Table:
        return Table(self.settings.dynamodb(), self.entity, table_name=self.table)

    def items(self, piece: Slice, limit: int | None = None) -> Iterator[dict[str, Any]]:
        table = self.open()
        found = table.query_slice(
            piece, newest_first=self.newest_first, index=self.index, **self.fields
        )
        for count, item in enumerate(found, 1):
            yield self._row_item(item) if isinstance(item, CollectionItem) else item
            if limit is not None and count >= limit:
                return

    def _row_item(self, got: CollectionItem) -> dict[str, Any]:
        """A collection's item with its kind as the kind column's attribute."""
        if self.kind_column in got.item:
            raise InvalidValue(
                f"{item_named(got.item, self.entity.key_attrs())} has an attribute "
                f"{self.kind_column!r}, the name of the kind column, which would replace it: "
                'name that column otherwise with option("kind_column", ...)'
            )
        return {self.kind_column: got.kind, **got.item}

    def id_time(self, item: Mapping[str, Any]) -> datetime:
        entity = self.entity
        if isinstance(entity, Collection):
            entity = entity.entity_of(item)
        id_text = entity.parse(item)[entity.id_field]
        return ms_to_datetime(entity.scheme.timestamp_ms(id_text))


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
            raise reserved_attribute(self.id_time, item, self.key_attrs, self.id_time)
        if outside and self.others == "fail":
            shown = ", ".join(repr(name) for name in sorted(outside)[:5])
            more = f" and {len(outside) - 5} more" if len(outside) > 5 else ""
            raise InvalidValue(
                f"{item_named(item, self.key_attrs)} has attribute(s) {shown}{more} outside "
                f"the schema ({self._origin()}): keep them in a JSON column with "
                'option("others", "keep"), leave them out with option("others", "drop"), or '
                + ("raise the sample" if self.sample is not None else "add them to .schema()")
            )
        cells: list[Any] = []
        for name, kind in self.columns:
            if name == self.id_time:
                cells.append(id_time)
            elif keep and name == self.others_column:
                cells.append(json_text({n: item[n] for n in outside}) if outside else None)
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
            cell = decimal_cell(value, kind)
            if cell is not None:
                return cell
        else:
            fits = FITS.get(type(kind))
            if fits is None or fits(value):
                return plain_cell(value, kind)
        fix = (
            'raise option("sample"), or give the column\'s type with .schema(...)'
            if self.sample is not None
            else "give it a type that holds the value (a decimal(p,s) of more digits, double, "
            "or string, which holds every number with all its digits)"
        )
        raise InvalidValue(
            f"attribute {name}={describe(value)} of {item_named(item, self.key_attrs)} does "
            f"not fit its column's type {kind.simpleString()} ({self._origin()}) without "
            f"rounding or overflow: {fix}"
        )


_DYNAMODB_OPTIONS = (
    "entity", "config", "table", "pk", "sk", "shards", "scheme", "newest_first_keys",
    *ENTITY_OPTIONS, "fields", "since", "until", "partitions", "newest_first", "index",
    "sample", "others", "others_column", "id_time_column", "kind_column", *CLIENT_OPTIONS,
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
            given.text("kind_column", KIND_COLUMN) or KIND_COLUMN,
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
            window = QueryWindow(
                self.start_ms,
                self.end_ms,
                self.query.newest_first,
                index=self.query.index,
                fields=fields,
            )
            plan = entity._plan(window)
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
