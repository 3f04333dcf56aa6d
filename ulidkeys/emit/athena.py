"""What Athena reads: SQL text its readers cannot misread, and the partition projection of a
layout with the ``WHERE`` clause that prunes a window to the folders that can hold it.

Names are checked and backticked, string literals written in the dialect of the statement they
go in (Hive for DDL, Trino for queries): the two disagree on quotes - Hive reads ``\\'`` inside a
literal and concatenates adjacent literals (so ``'a''b'`` is ``ab``), Trino doubles the quote
(``'a''b'`` is ``a'b``). A layout's shard and ``dt=``/``hr=`` folders become projected partition
columns (``shard``, ``dt``, ``hr``), so Athena computes partition locations instead of asking
the Glue catalog.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ulidkeys.errors import InvalidLayout, InvalidTime, InvalidValue, describe, require_str
from ulidkeys.planning.layout import KeyLayout
from ulidkeys.planning.partitions import DAY_MS, HOUR_MS, Period
from ulidkeys.timeinput import TimeInput, now_ms, to_ms

#: Athena's (Glue's) longest table, database or column name.
MAX_NAME = 255
_NAME = re.compile(r"[a-z0-9_]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

#: Hive's primitive column types (``decimal``, ``varchar`` and ``char`` may take a size).
PRIMITIVE_TYPES = frozenset(
    {
        "boolean",
        "tinyint",
        "smallint",
        "int",
        "integer",
        "bigint",
        "float",
        "double",
        "decimal",
        "string",
        "varchar",
        "char",
        "binary",
        "date",
        "timestamp",
    }
)
_SIZED = {"decimal": (1, 2), "varchar": (1, 1), "char": (1, 1)}
_TYPE_TOKEN = re.compile(r"\s*([a-z_][a-z0-9_]*|\d+|[<>(),:])")


def athena_name(name: object, what: str = "name") -> str:
    """``name`` backticked if it is a valid Athena name (lowercase letters, digits,
    underscores; at most 255 characters), else InvalidValue saying why."""
    text = require_str(name, what)
    if not _NAME.fullmatch(text) or len(text) > MAX_NAME:
        hint = f"; Athena names are lowercase: {text.lower()!r}" if text.lower() != text else ""
        raise InvalidValue(
            f"{what} {describe(text)} is not an Athena name: use 1 to {MAX_NAME} lowercase "
            f"letters, digits and underscores{hint}"
        )
    return f"`{text}`"


def table_name(name: object) -> str:
    """A table name, optionally database-qualified (``logs.uploads``), checked and
    backticked part by part: ```logs`.`uploads```."""
    text = require_str(name, "table")
    parts = text.split(".")
    if len(parts) > 2:
        raise InvalidValue(f"table {describe(text)} has more than one '.': write DATABASE.TABLE")
    return ".".join(
        athena_name(part, "table" if len(parts) == 1 else "table part") for part in parts
    )


def hive_literal(text: object, what: str = "text") -> str:
    """A Hive string literal (Athena DDL): quote and backslash escaped with a backslash.
    Control characters are refused: Hive's unescaping would turn their spelling into others."""
    value = require_str(text, what)
    if _CONTROL.search(value):
        raise InvalidValue(
            f"{what} {describe(value)} holds a control character, which Athena DDL cannot "
            "carry through a string literal unchanged"
        )
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def trino_literal(text: object, what: str = "text") -> str:
    """A Trino string literal (Athena queries): quotes doubled."""
    return "'" + require_str(text, what).replace("'", "''") + "'"


def column_type(kind: object, column: str = "column") -> str:
    """``kind`` if it is a Hive column type (``string``, ``decimal(38,9)``,
    ``array<struct<id:string,n:int>>``, ...), else InvalidValue naming the column."""
    text = require_str(kind, f"type of {column}").lower()
    tokens: list[str] = []
    position = 0
    while position < len(text.rstrip()):
        match = _TYPE_TOKEN.match(text, position)
        if match is None:
            raise InvalidValue(f"type {describe(text)} of {column} is not a Hive column type")
        tokens.append(match.group(1))
        position = match.end()
    rest = _parse_type(tokens, 0, text, column)
    if rest != len(tokens):
        raise InvalidValue(f"type {describe(text)} of {column} is not a Hive column type")
    return " ".join(text.split())


def _parse_type(tokens: list[str], at: int, text: str, column: str) -> int:
    """The index after the type that starts at ``tokens[at]``."""

    def expect(index: int, token: str) -> int:
        if index >= len(tokens) or tokens[index] != token:
            raise InvalidValue(f"type {describe(text)} of {column} is not a Hive column type")
        return index + 1

    def number(index: int) -> int:
        if index >= len(tokens) or not tokens[index].isdigit():
            raise InvalidValue(f"type {describe(text)} of {column} is not a Hive column type")
        return index + 1

    head = tokens[at] if at < len(tokens) else ""
    if head in PRIMITIVE_TYPES:
        at += 1
        if head in _SIZED and at < len(tokens) and tokens[at] == "(":
            low, high = _SIZED[head]
            at = number(at + 1)
            count = 1
            while tokens[at : at + 1] == [","] and count < high:
                at, count = number(at + 1), count + 1
            if count < low:
                raise InvalidValue(f"type {describe(text)} of {column} is not a Hive column type")
            at = expect(at, ")")
        return at
    if head == "array":
        return expect(_parse_type(tokens, expect(at + 1, "<"), text, column), ">")
    if head == "map":
        at = _parse_type(tokens, expect(at + 1, "<"), text, column)
        return expect(_parse_type(tokens, expect(at, ","), text, column), ">")
    if head == "struct":
        at = expect(at + 1, "<")
        while True:
            if at >= len(tokens) or not _NAME.fullmatch(tokens[at]):
                raise InvalidValue(f"type {describe(text)} of {column} is not a Hive column type")
            at = _parse_type(tokens, expect(at + 1, ":"), text, column)
            if tokens[at : at + 1] != [","]:
                return expect(at, ">")
            at += 1
    raise InvalidValue(f"type {describe(text)} of {column} is not a Hive column type")


def column_list(columns: Sequence[tuple[str, str]], what: str = "columns") -> str:
    """``(name, type)`` pairs as a DDL column list: ```line` string, `n` int``."""
    if isinstance(columns, str) or not isinstance(columns, Sequence) or not columns:
        raise InvalidValue(
            f"{what}={describe(columns)} must be a non-empty sequence of (name, type) pairs, "
            "e.g. [('line', 'string')]"
        )
    rendered = []
    for pair in columns:
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise InvalidValue(f"{what}: {describe(pair)} is not a (name, type) pair")
        name, kind = pair
        rendered.append(f"{athena_name(name, 'column')} {column_type(kind, f'column {name!r}')}")
    return ", ".join(rendered)


# --- partition projection ------------------------------------------------------------------------

_DAY = Period("day")


@dataclass(frozen=True)
class Projection:
    """The partition columns and table properties of one layout's Athena table.

    ``columns`` are ``(name, type)`` for ``PARTITIONED BY``: ``shard int`` (with shards),
    ``dt string`` (``yyyy-MM-dd``), ``hr int`` (hour layouts); ``properties`` the
    ``TBLPROPERTIES`` (``projection.*`` and ``storage.location.template``); ``location`` the
    table's ``LOCATION``.
    """

    columns: tuple[tuple[str, str], ...]
    properties: dict[str, str]
    location: str

    def ddl(
        self,
        table: str = "objects",
        data_columns: Sequence[tuple[str, str]] = (("line", "string"),),
    ) -> str:
        """A ``CREATE EXTERNAL TABLE`` statement with these partitions: one statement, however
        hostile the names and prefix (``table`` may be ``DATABASE.TABLE``; names are checked
        and backticked, literals escaped as Hive reads them).

        ``data_columns``: ``(name, Hive type)`` pairs of the files' own data; add a
        ``ROW FORMAT``/``STORED AS`` for them.
        """
        partitions = ", ".join(f"`{name}` {kind}" for name, kind in self.columns)
        lines = [
            f"CREATE EXTERNAL TABLE {table_name(table)} ({column_list(data_columns)})",
            f"PARTITIONED BY ({partitions})",
            f"LOCATION {hive_literal(self.location, 'location')}",
            "TBLPROPERTIES (",
            ",\n".join(
                f"  {hive_literal(name)} = {hive_literal(value, name)}"
                for name, value in self.properties.items()
            ),
            ")",
        ]
        return "\n".join(lines)


def _partitioned(layout: KeyLayout) -> Period:
    if not isinstance(layout, KeyLayout):
        raise InvalidValue(f"layout={describe(layout)} must be a KeyLayout")
    if layout.partition is None:
        raise InvalidLayout(
            f"{layout} has no period folders; partition projection needs period='day' or 'hour'"
        )
    return layout.partition


def _day(value: TimeInput, name: str) -> str:
    """The UTC day label of a time, or of a plain ``YYYY-MM-DD`` (a day needs no offset)."""
    if isinstance(value, str) and _DAY.parse_label(value.strip()) is not None:
        return value.strip()
    if isinstance(value, str) and re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value.strip()):
        # a day, but none a folder names: said as such, not "a day, not a time" (to_ms's)
        raise InvalidTime(
            f"{name}={value!r} is no day a period folder can name: a calendar day from "
            "1970-01-01 to 9999-12-31"
        )
    return _DAY.label(to_ms(value, name))


def partition_projection(
    layout: KeyLayout, bucket: str, first_day: TimeInput, last_day: TimeInput | None = None
) -> Projection:
    """The projection of ``layout``'s folders in ``bucket``, for the days from ``first_day``
    to ``last_day`` (``YYYY-MM-DD`` or any time input; default ``NOW``, so new days need no
    table change).

    Keep ``first_day`` at the first day that holds data: a query without a ``dt`` condition
    visits every projected day (times shards, times 24 for hours).
    """
    partition = _partitioned(layout)
    if not isinstance(bucket, str) or not bucket or "/" in bucket:
        raise InvalidValue(f"bucket={describe(bucket)} must be a bucket name")
    if "${" in layout.prefix:
        raise InvalidLayout(
            f"prefix={describe(layout.prefix)} holds '${{', which a storage.location.template "
            "would read as a column"
        )
    if layout.prefix and not layout.prefix.endswith("/"):
        raise InvalidLayout(
            f"prefix={describe(layout.prefix)} does not end in '/': an Athena table's LOCATION "
            f"is a folder; lay the keys out under {layout.prefix + '/'!r}"
        )
    first = _day(first_day, "first_day")
    last = "NOW" if last_day is None else _day(last_day, "last_day")
    newest = _DAY.label(now_ms()) if last == "NOW" else last
    if first > newest:  # ISO days compare as text
        reason = "today (the range ends at NOW)" if last == "NOW" else f"last_day {last}"
        raise InvalidValue(f"first_day {first} is after {reason}: the projected range is empty")
    location = f"s3://{bucket}/{layout.prefix}"
    hive_literal(location, "location")  # a control character in the prefix: refused here
    columns: list[tuple[str, str]] = []
    properties = {"projection.enabled": "true"}
    template = location
    if layout.shards:
        columns.append(("shard", "int"))
        properties.update(
            {
                "projection.shard.type": "integer",
                "projection.shard.range": f"0,{layout.shards - 1}",
                "projection.shard.digits": str(len(layout.shard_folder(0)) - 1),
            }
        )
        template += "${shard}/"
    columns.append(("dt", "string"))
    properties.update(
        {
            "projection.dt.type": "date",
            "projection.dt.format": "yyyy-MM-dd",
            "projection.dt.range": f"{first},{last}",
            "projection.dt.interval": "1",
            "projection.dt.interval.unit": "DAYS",
        }
    )
    template += "dt=${dt}/"
    if partition.size == "hour":
        columns.append(("hr", "int"))
        properties.update(
            {
                "projection.hr.type": "integer",
                "projection.hr.range": "0,23",
                "projection.hr.digits": "2",
            }
        )
        template += "hr=${hr}/"
    properties["storage.location.template"] = template
    return Projection(tuple(columns), properties, location)


def window_predicate(layout: KeyLayout, start_ms: int, end_ms: int) -> str:
    """A SQL condition on ``dt`` (and ``hr``) true for exactly the folders that ``[start_ms,
    end_ms)`` touches, so Athena reads only those.

    Folders are whole days or hours: objects in the first and last folder may lie outside the
    window, so filter rows by their own time (or id) too when the edges matter.
    """
    partition = _partitioned(layout)
    spans = list(partition.spans(start_ms, end_ms))
    if not spans:
        return "FALSE"
    first, last = spans[0][0], spans[-1][0]
    if partition.size == "day":
        return _day_range(first, last)
    first_hour, last_hour = first % DAY_MS // HOUR_MS, last % DAY_MS // HOUR_MS
    first_day, last_day = first - first % DAY_MS, last - last % DAY_MS
    if first_day == last_day:
        if first_hour == 0 and last_hour == 23:
            return _day_range(first_day, first_day)
        day = trino_literal(_DAY.label(first_day))
        return f"(dt = {day} AND hr BETWEEN {first_hour} AND {last_hour})"
    parts = []
    whole_from, whole_to = first_day, last_day
    if first_hour > 0:  # the first day is only partly in the window
        parts.append(f"(dt = {trino_literal(_DAY.label(first_day))} AND hr >= {first_hour})")
        whole_from += DAY_MS
    if last_hour < 23:
        whole_to -= DAY_MS
    if whole_from <= whole_to:
        parts.append(_day_range(whole_from, whole_to))
    if last_hour < 23:
        parts.append(f"(dt = {trino_literal(_DAY.label(last_day))} AND hr <= {last_hour})")
    return "(" + " OR ".join(parts) + ")" if len(parts) > 1 else parts[0]


def _day_range(first: int, last: int) -> str:
    low, high = trino_literal(_DAY.label(first)), trino_literal(_DAY.label(last))
    return f"dt = {low}" if first == last else f"dt BETWEEN {low} AND {high}"
