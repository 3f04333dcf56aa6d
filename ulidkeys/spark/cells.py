"""DynamoDB values as cells of Spark columns: the type that holds a value exactly (a number
neither rounded nor overflowed), the schema a sample of items infers, and JSON text that keeps
every digit of the numbers inside lists, maps and sets."""

from __future__ import annotations

import json
import re
import struct
import uuid
from collections.abc import Callable, Mapping, Sequence
from decimal import Context, Decimal, Inexact, InvalidOperation
from typing import Any

from boto3.dynamodb.types import Binary
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

from ulidkeys.errors import InvalidValue, describe
from ulidkeys.spark.options import ID_TIME


def is_whole(value: object, bits: int) -> bool:
    """A whole number a signed integer of ``bits`` bits holds."""
    return (
        isinstance(value, Decimal)
        and value.is_finite()
        and value == value.to_integral_value()
        and -(1 << (bits - 1)) <= value < 1 << (bits - 1)
    )


def is_long(value: object) -> bool:
    """A whole number in the range of Spark's ``bigint`` (outside it: a string of its digits)."""
    return is_whole(value, 64)


def is_double(value: object) -> bool:
    """A number a double holds exactly as written (its shortest text reads back the same):
    ``0.1`` is, a fraction of 20 significant digits or a whole number past 2**53 is not."""
    if not isinstance(value, Decimal) or not value.is_finite():
        return False
    try:
        return Decimal(repr(float(value))) == value
    except OverflowError:  # past a double's range (DynamoDB's go to 10**126)
        return False


def is_float(value: object) -> bool:
    """A number Spark's 4-byte ``float`` holds as written: the float32 nearest to it, in its
    shortest text that reads back to the same float32, is the number."""
    if not is_double(value):
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


def decimal_cell(value: object, kind: DecimalType) -> Decimal | None:
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


def type_of(value: object) -> DataType:
    if isinstance(value, bool):
        return BooleanType()
    if isinstance(value, Decimal):
        if is_long(value):
            return LongType()
        # DynamoDB numbers have up to 38 digits: one a double would round keeps them as text
        return DoubleType() if is_double(value) else StringType()
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
                    raise reserved_attribute(name, item, key_attrs, id_time)
                continue
            kind, seen = type_of(value), found.get(name)
            if isinstance(kind, LongType) and not is_double(value):
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


def item_named(item: Mapping[str, Any], key_attrs: Sequence[str]) -> str:
    """``item PK='Org#acme', SK='Post#01HY...'``: how an error points at an item."""
    keys = ", ".join(f"{name}={describe(item.get(name), 60)}" for name in key_attrs)
    return f"item {keys}"


def reserved_attribute(
    name: str, item: Mapping[str, Any], key_attrs: Sequence[str], id_time: str
) -> InvalidValue:
    option = "id_time_column" if name == id_time else "others_column"
    return InvalidValue(
        f"{item_named(item, key_attrs)} has an attribute {name!r}, the name of the "
        f"{'id time' if name == id_time else 'others'} column, which would replace it: name "
        f'that column otherwise with option("{option}", ...), or keep the attribute with '
        f'option("others", "keep")'
    )


#: What a number, boolean or binary column holds (strings hold anything: JSON text).
FITS: dict[type[DataType], Callable[[object], bool]] = {
    LongType: is_long,
    IntegerType: lambda value: is_whole(value, 32),
    ShortType: lambda value: is_whole(value, 16),
    ByteType: lambda value: is_whole(value, 8),
    DoubleType: is_double,
    FloatType: is_float,
    BooleanType: lambda value: isinstance(value, bool),
    BinaryType: lambda value: isinstance(value, (bytes, bytearray, Binary)),
}
#: The types a column of ``ulidkeys.dynamodb`` can have (the id time's column: a timestamp).
FILLED_TYPES = (StringType, DecimalType, *FITS)


def plain_cell(value: object, kind: DataType) -> object:
    """A value that fits ``kind`` as the Python value Spark's column takes."""
    if isinstance(kind, (LongType, IntegerType, ShortType, ByteType)):
        return int(value)  # type: ignore[call-overload]
    if isinstance(kind, (DoubleType, FloatType)):
        return float(value)  # type: ignore[arg-type]
    if isinstance(value, Binary):
        value = value.value  # type: ignore[attr-defined]  # boto3 stubs omit it
    if isinstance(kind, StringType) and not isinstance(value, str):
        return json_text(value)
    return value


#: Marks the digits of a number a double would round while its JSON text is written: they go
#: in as they are (random, so no attribute's text can hold it).
_EXACT = f"ulidkeys-exact-{uuid.uuid4().hex}:"


def json_text(value: object) -> str:
    """JSON text of a list, map, set or number, every number with all its digits."""
    text = json.dumps(value, default=_plain, sort_keys=True)
    if _EXACT in text:
        text = re.sub(f'"{_EXACT}([^"]*)"', r"\1", text)
    return text


def _plain(value: object) -> object:
    if isinstance(value, Decimal):
        if value == value.to_integral_value():
            return int(value)
        return float(value) if is_double(value) else f"{_EXACT}{value}"
    if isinstance(value, (set, frozenset)):
        return sorted((item if isinstance(item, str) else _plain(item) for item in value), key=str)
    if isinstance(value, Binary):
        value = value.value  # type: ignore[attr-defined]  # boto3 stubs omit it
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    raise TypeError(f"{type(value).__name__} is not JSON")
