"""The forms a ULID is read from, as its canonical text: 26 characters of Crockford base32, 16
bytes, 32 hex digits, a 128-bit int, a UUID, another library's id object, each checked with an
error naming the rule broken; what ``ULID.parse`` reads as an id and what as a time (python-ulid's
rules), and what a pydantic field accepts. Text and ints only: the ``ULID`` value built from
them is :mod:`ulidkeys.ulid`'s.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any, Final

from ulidkeys import base32
from ulidkeys.errors import InvalidType, InvalidULID, describe, require_int

#: The largest valid ULID (all 128 bits set).
MAX_ULID: Final = "7ZZZZZZZZZZZZZZZZZZZZZZZZZ"
#: The smallest valid ULID.
MIN_ULID: Final = "00000000000000000000000000"

_MAX_VALUE = (1 << 128) - 1
#: Decimal digits of an int that ``parse`` reads as a ULID value (python-ulid's rule: the
#: length of today's ULIDs as ints); any other int is a time in milliseconds.
_INT_DIGITS = 37
_INT_LOW = 10 ** (_INT_DIGITS - 1)
_RANDOM_MASK = (1 << 80) - 1


def canonical(text: object) -> str:
    """Validate ULID text and return its uppercase form; raise InvalidULID naming the rule."""
    if not isinstance(text, str):
        raise InvalidType(
            f"{describe(text)} has type {type(text).__name__}; a ULID is parsed from str "
            "(use ULID.from_bytes / from_int / from_uuid for other forms)"
        )
    if len(text) != 26:
        raise InvalidULID(
            f"{describe(text)} is not a valid ULID: expected 26 characters, got {len(text)}"
        )
    if base32.decode(text) > _MAX_VALUE:
        raise InvalidULID(
            f"{describe(text)} is not a valid ULID: it exceeds the largest ULID {MAX_ULID} "
            "(the first character must be 0-7)"
        )
    return text.upper()


def parse_str(text: str) -> str:
    """Validate ULID text and return its canonical uppercase string."""
    return canonical(text)


def text_of_uuid_string(text: str) -> str:
    """The ULID text of a UUID's 36 characters (the same 128 bits)."""
    try:
        value = uuid.UUID(text)
    except ValueError:
        raise InvalidULID(f"{describe(text)} is not a valid ULID or UUID") from None
    return text_of_uuid(value)


def text_of_uuid(value: uuid.UUID) -> str:
    """The ULID text with the same 128 bits as a ``uuid.UUID``."""
    if not isinstance(value, uuid.UUID):
        raise InvalidType(f"value={describe(value)} must be a uuid.UUID")
    return base32.encode_ulid(value.int)


def text_of_hex(value: str) -> str:
    """The ULID text of 32 hex digits."""
    if not isinstance(value, str):
        raise InvalidType(f"value={describe(value)} must be a str of 32 hex digits")
    try:
        data = bytes.fromhex(value)
    except ValueError:
        raise InvalidULID(
            f"{describe(value)} is not a valid ULID: expected 32 hex digits"
        ) from None
    return text_of_bytes(data)


def text_of_bytes(data: bytes | bytearray | memoryview) -> str:
    """The ULID text of 16 big-endian bytes."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise InvalidType(f"data={describe(data)} must be bytes, not {type(data).__name__}")
    if isinstance(data, memoryview) and data.format not in ("B", "b", "c"):
        # a view of 16-bit or wider items would count items, not bytes, and read them in
        # the machine's byte order: refuse rather than guess
        raise InvalidType(
            f"data is a memoryview of format {data.format!r} (items of {data.itemsize} "
            "bytes); pass bytes, or a memoryview of bytes (format 'B'), holding 16 bytes"
        )
    if isinstance(data, memoryview) and (data.ndim != 1 or not data.c_contiguous):
        data = data.tobytes()
    if len(data) != 16:
        raise InvalidULID(
            f"{describe(bytes(data))} is not a valid ULID: expected 16 bytes, got {len(data)}"
        )
    return base32.encode_ulid(int.from_bytes(data, "big"))


def text_of_int(value: int) -> str:
    """The ULID text of a 128-bit unsigned integer."""
    require_int(value, "value")
    if not 0 <= value <= _MAX_VALUE:
        raise InvalidULID(
            f"{describe(value)} is not a valid ULID: the integer must be in 0 .. 2**128 - 1"
        )
    return base32.encode_ulid(value)


def id_text(value: Any, *, strict: bool = False) -> str | None:
    """The ULID text of what ``ULID.parse`` reads as an id: 26 characters, a UUID (or its 36
    characters), 32 hex digits, 16 bytes, a ULID's int (37 digits, as today's have), an id
    object of another library (python-ulid, uuid6, uuid_utils: read through ``.bytes``).
    None for a time (any other int: ms, a float: seconds, a datetime), of which ``parse``
    makes a new id. ``strict`` is a pydantic field's rule: text of 26 characters only, and a
    time refused (InvalidULID/InvalidType), since validating must give the same value every
    time."""
    if isinstance(value, str):
        if strict or len(value) == 26:
            return canonical(value)
        if len(value) == 36:
            return text_of_uuid_string(value)
        if len(value) == 32:
            return text_of_hex(value)
        return canonical(value)  # the error names the length
    if isinstance(value, uuid.UUID):
        return text_of_uuid(value)
    if isinstance(value, int) and not isinstance(value, bool):
        if _INT_LOW <= value < _INT_LOW * 10:  # 37 digits, without str() of a huge int
            return text_of_int(value)
        if not strict:
            return None
        raise InvalidULID(
            f"{describe(value)} is no ULID's 128-bit value as ULID.parse reads ints (37 "
            "digits, as every id made from March 1996 to February 2232 has); it reads any "
            "other int as a time in ms and makes a new random id of it, so a ULID field "
            "refuses it: pass the id's text, or ULID.from_int(n) for the id of that 128-bit "
            "value, or ULID.min_for(ms) / ULID.from_timestamp(ms) for an id of that time"
        )
    if isinstance(value, (float, datetime)):
        if not strict:
            return None
        raise InvalidType(
            f"{describe(value)} is a time ({type(value).__name__}), not an id: "
            "ULID.parse would make a new random id of it on every call, so a ULID field "
            "refuses it. Pass the id (its 26 characters, 16 bytes, 128-bit int or a ULID), "
            "or make one first: ULID.min_for(t) (the smallest id of that time) or "
            "ULID.from_timestamp(t) / ULID.from_datetime(t) (a new random id of it)"
        )
    if isinstance(value, (bytes, bytearray, memoryview)):
        return text_of_bytes(value)
    data = getattr(value, "bytes", None)
    if isinstance(data, bytes) and len(data) == 16:
        return text_of_bytes(data)  # python-ulid, uuid6, uuid_utils values
    raise InvalidType(
        f"{describe(value)} has type {type(value).__name__}; a ULID is parsed from str, "
        "bytes, int, float, datetime, uuid.UUID or an id object holding 16 bytes"
    )


def uuid7_int(value: int, compliant: bool) -> int:
    """A ULID's 128-bit value as a UUIDv7's, python-ulid's way: the same 48-bit time first;
    ``compliant`` sets the version and variant bits (6 random bits lost), else the value is
    kept whole."""
    if not compliant:
        return value
    random = value & _RANDOM_MASK
    return (
        (value >> 80 << 80)
        | (0x7 << 76)
        | ((random >> 68) & 0xFFF) << 64
        | (0b10 << 62)
        | (random & ((1 << 62) - 1))
    )


def pydantic_schema(ulid_type: type, validated: Callable[[Any], Any]) -> Any:
    """pydantic-core's schema of a ULID field: a value that ``validated`` (``id_text``'s
    strict rule) takes - a ULID, 26 characters, 16 bytes, a 37-digit int, a ``uuid.UUID``,
    an id object - and the text in JSON; every refusal is pydantic's ``ulid_format`` error."""
    from pydantic_core import PydanticCustomError, core_schema  # pydantic is optional

    def validate(value: Any, handler: Any) -> Any:
        try:
            ulid = validated(value)
        except (ValueError, TypeError) as error:
            raise PydanticCustomError(
                "ulid_format", "Unrecognized format: {error}", {"error": str(error)}
            ) from error
        return handler(ulid)

    return core_schema.no_info_wrap_validator_function(
        validate,
        core_schema.union_schema(
            [
                core_schema.is_instance_schema(ulid_type),
                core_schema.no_info_plain_validator_function(ulid_type),
                core_schema.str_schema(
                    pattern=rf"[0-7][{base32.ALPHABET}]{{25}}", min_length=26, max_length=26
                ),
                core_schema.bytes_schema(min_length=16, max_length=16),
            ]
        ),
        serialization=core_schema.to_string_ser_schema(when_used="json-unless-none"),
    )
