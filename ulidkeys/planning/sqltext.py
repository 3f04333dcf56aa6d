"""SQL text for Athena that its readers cannot misread: names checked and backticked, string
literals in the dialect of the statement they go in (Hive for DDL, Trino for queries).

The two dialects disagree on quotes: Hive reads ``\\'`` inside a literal and concatenates
adjacent literals (so ``'a''b'`` is ``ab``), Trino doubles the quote (``'a''b'`` is ``a'b``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ulidkeys.errors import InvalidValue, describe, require_str

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
