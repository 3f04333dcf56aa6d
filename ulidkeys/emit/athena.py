"""What Athena reads: SQL text its readers cannot misread, and the partition projection of a
layout with the ``WHERE`` clause that prunes a window to the folders that can hold it.

Names are checked and backticked, string literals written in the dialect of the statement they
go in (Hive for DDL, Trino for queries): the two disagree on quotes - Hive reads ``\\'`` inside a
literal and concatenates adjacent literals (so ``'a''b'`` is ``ab``), Trino doubles the quote
(``'a''b'`` is ``a'b``). A layout's shard folders and each level of its period folders become
projected partition columns (``shard``, then ``dt`` and ``hr``, or ``wk``: the keys the period
registry gives its levels, projected as it says), so Athena computes partition locations
instead of asking the Glue catalog.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ulidkeys.errors import InvalidLayout, InvalidTime, InvalidValue, describe, require_str
from ulidkeys.planning.layout import KeyLayout
from ulidkeys.planning.periods import (
    LAYOUT_PERIOD_NAMES,
    PARTITION_LIMIT_MS,
    DateProjection,
    EnumProjection,
    IntegerProjection,
    Period,
)
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

#: The most characters Glue keeps in one table property (``ParametersMapValue``): the longest
#: list of values an ``enum`` projection can hold.
MAX_PROPERTY_CHARS = 512_000
#: ``first_day`` and ``last_day`` may be plain days (a day needs no offset).
_DAY = Period("day")


@dataclass(frozen=True)
class Projection:
    """The partition columns and table properties of one layout's Athena table.

    ``columns`` are ``(name, type)`` for ``PARTITIONED BY``: ``shard int`` (with shards), then
    one column a level of the period folders, named by the level's key (``dt string`` and
    ``hr int`` for hour layouts, ``wk string`` for weeks); ``properties`` the
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
        offered = ", ".join(map(repr, LAYOUT_PERIOD_NAMES))
        raise InvalidLayout(
            f"{layout} has no period folders; partition projection needs a period ({offered})"
        )
    return layout.partition


def _first_of(top: Period, value: TimeInput, name: str) -> int:
    """The start of the ``top`` period holding a time, a plain ``YYYY-MM-DD`` (a day needs no
    offset) or a label of ``top`` (``2024-W20``)."""
    if isinstance(value, str):
        text = value.strip()
        for named in (_DAY, top):
            ms = named.parse_label(text)
            if ms is not None:
                return top.floor(ms)
        if re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text):
            # a day, but none a folder names: said as such, not "a day, not a time" (to_ms's)
            raise InvalidTime(
                f"{name}={value!r} is no day a period folder can name: a calendar day from "
                "1970-01-01 to 9999-12-31"
            )
    return top.floor(to_ms(value, name))


def partition_projection(
    layout: KeyLayout, bucket: str, first_day: TimeInput, last_day: TimeInput | None = None
) -> Projection:
    """The projection of ``layout``'s folders in ``bucket``, for the top-level periods from the
    one holding ``first_day`` to the one holding ``last_day`` (``YYYY-MM-DD``, a label of the
    period such as ``2024-W20``, or any time input; default ``NOW``, so new periods need no
    table change).

    Each folder level is projected as the period registry says: days, months and years as
    Athena ``date`` columns, hours as an ``integer`` under their day; ISO weeks as an ``enum``
    of every week in the range, which Athena's ``date`` type cannot write - so a week layout
    needs ``last_day`` (an enum has no ``NOW``) and a wider range as new weeks come.

    Keep ``first_day`` at the first period that holds data: a query without a condition on the
    top column visits every projected folder (times shards, times 24 for hours).
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
    top = partition.top
    first = _first_of(top, first_day, "first_day")
    last = None if last_day is None else _first_of(top, last_day, "last_day")
    if last is None and isinstance(top.athena, EnumProjection):
        raise InvalidValue(
            f"Athena cannot project {top.size} folders as dates ({top.athena.reason}): the "
            f"table lists every {top.size} (an enum projection), which cannot end at NOW; give "
            f"last_day (--last-day) and widen the range as new {top.size}s come"
        )
    newest = top.floor(now_ms()) if last is None else last
    if first > newest:  # the range's ends are the starts of top-level periods
        reason = (
            "today (the range ends at NOW)" if last is None else f"last_day {_value(top, last)}"
        )
        raise InvalidValue(
            f"first_day {_value(top, first)} is after {reason}: the projected range is empty"
        )
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
    for level in partition.chain:
        column, spec = level.key, level.athena
        own = f"projection.{column}."
        if isinstance(spec, DateProjection):
            columns.append((column, "string"))
            end = "NOW" if last is None else _value(top, last)
            properties.update(
                {
                    own + "type": "date",
                    own + "format": spec.format,
                    own + "range": f"{_value(top, first)},{end}",
                    own + "interval": "1",
                    own + "interval.unit": spec.unit,
                }
            )
        elif isinstance(spec, IntegerProjection):
            columns.append((column, "int"))
            properties.update(
                {
                    own + "type": "integer",
                    own + "range": f"{spec.low},{spec.high}",
                    own + "digits": str(spec.digits),
                }
            )
        else:
            assert last is not None  # refused above
            columns.append((column, "string"))
            properties.update({own + "type": "enum", own + "values": _values(top, first, last)})
        template += f"{column}=${{{column}}}/"
    properties["storage.location.template"] = template
    return Projection(tuple(columns), properties, location)


def _value(level: Period, ms: int) -> str:
    return level.level_value(ms)


def _values(top: Period, first: int, last: int) -> str:
    """The labels of the ``top`` periods from ``first`` to ``last``, as an enum's values."""
    spans = itertools.takewhile(lambda span: span[0] <= last, top.spans(first, last + 1))
    values, length = [], -1
    for start, _ in spans:
        values.append(_value(top, start))
        length += len(values[-1]) + 1
        if length > MAX_PROPERTY_CHARS:
            raise InvalidValue(
                f"the {top.size}s from {values[0]} to {_value(top, last)} take more than "
                f"{MAX_PROPERTY_CHARS:,} characters as an enum projection's values, the most "
                f"Glue keeps in a table property: project fewer {top.size}s"
            )
    return ",".join(values)


def window_predicate(layout: KeyLayout, start_ms: int, end_ms: int) -> str:
    """A SQL condition on the period columns (``dt``, ``dt`` and ``hr``, ``wk``) true for
    exactly the folders that ``[start_ms, end_ms)`` touches, so Athena reads only those.

    Folders are whole periods: objects in the first and last folder may lie outside the
    window, so filter rows by their own time (or id) too when the edges matter.
    """
    partition = _partitioned(layout)
    start, end = max(start_ms, 0), min(end_ms, PARTITION_LIMIT_MS)
    if start >= end:
        return "FALSE"
    return _folders_between(partition.chain, partition.floor(start), partition.floor(end - 1))


def _literal(level: Period, ms: int) -> str:
    value = _value(level, ms)
    return str(int(value)) if isinstance(level.athena, IntegerProjection) else trino_literal(value)


def _folders_between(chain: tuple[Period, ...], first: int, last: int) -> str:
    """The condition true for exactly the folders of ``chain[-1]`` (its levels ``chain``, top
    first) from the one starting at ``first`` to the one starting at ``last``: a range of the
    top column, or, a level down, the parent's folders whole and the parts of the first and
    last parent bounded by the level's own column."""
    level, column = chain[-1], chain[-1].key
    if len(chain) == 1:
        if first == last:
            return f"{column} = {_literal(level, first)}"
        return f"{column} BETWEEN {_literal(level, first)} AND {_literal(level, last)}"
    parent, above = chain[-2], chain[:-1]
    parent_first, parent_last = parent.floor(first), parent.floor(last)
    whole_first = first == parent_first
    whole_last = level.next(last) == parent.next(parent_last)
    if parent_first == parent_last:
        if whole_first and whole_last:
            return _folders_between(above, parent_first, parent_first)
        within = _folders_between(above, parent_first, parent_first)
        low, high = _literal(level, first), _literal(level, last)
        return f"({within} AND {column} BETWEEN {low} AND {high})"
    parts = []
    whole_from, whole_to = parent_first, parent_last
    if not whole_first:  # the first parent is only partly in the window
        within = _folders_between(above, parent_first, parent_first)
        parts.append(f"({within} AND {column} >= {_literal(level, first)})")
        whole_from = parent.next(parent_first)
    if not whole_last:
        whole_to = parent.floor(parent_last - 1)
    if whole_from <= whole_to:
        parts.append(_folders_between(above, whole_from, whole_to))
    if not whole_last:
        within = _folders_between(above, parent_last, parent_last)
        parts.append(f"({within} AND {column} <= {_literal(level, last)})")
    return "(" + " OR ".join(parts) + ")" if len(parts) > 1 else parts[0]
