"""The other UUIDs: v1, MySQL's ordered v1 (``UUID_TO_BIN(u, 1)``), v3, v4, v5, nil and max.

Only ordered v1 sorts by time as text; v1 holds a time but scatters it, and v3/v4/v5 hold none,
so layouts and entities refuse them. Also v1 <-> v6 <-> ordered-v1 conversions and v3/v5 keys.
"""

from __future__ import annotations

import hashlib
import os
import re
import uuid

from ulidkeys.errors import InvalidType, InvalidValue, describe
from ulidkeys.ids.schemes import (
    _GREGORIAN_OFFSET,
    _MAX_TICKS,
    _RAND_B,
    _VARIANT,
    IntCodedScheme,
    _UuidScheme,
    gregorian_now,
)

_GREGORIAN_MIN_MS = -(_GREGORIAN_OFFSET // 10_000)  # 1582-10-15T00:00:00Z
_GREGORIAN_MAX_MS = (_MAX_TICKS - _GREGORIAN_OFFSET) // 10_000
_LOW_64 = (1 << 64) - 1


def _v1_ticks(value: int) -> int:
    """The 60-bit count of 100 ns since 1582-10-15 of a v1 UUID (time_hi, time_mid, time_low)."""
    return (((value >> 64) & 0xFFF) << 48) | (((value >> 80) & 0xFFFF) << 32) | (value >> 96)


def _v1_value(ticks: int, low: int) -> int:
    """A v1 UUID of ``ticks`` whose low 64 bits (variant, clock sequence, node) are ``low``."""
    time_low, time_mid, time_hi = ticks & 0xFFFF_FFFF, (ticks >> 32) & 0xFFFF, ticks >> 48
    return (time_low << 96) | (time_mid << 80) | (1 << 76) | (time_hi << 64) | low


def _v6_ticks(value: int) -> int:
    return ((value >> 80) << 12) | ((value >> 64) & 0xFFF)


def _v6_value(ticks: int, low: int) -> int:
    return ((ticks >> 12) << 80) | (6 << 76) | ((ticks & 0xFFF) << 64) | low


def _ordered_value(ticks: int, low: int) -> int:
    # UUID_TO_BIN(u, 1) swaps time_low and time_hi_and_version: the version nibble comes first,
    # then the 60 time bits from the most significant down, so the bytes sort by time.
    return (1 << 124) | (ticks << 64) | low


def _ticks_to_ms(ticks: int) -> int:
    return (ticks - _GREGORIAN_OFFSET) // 10_000


class Uuid1Scheme(_UuidScheme):
    """UUIDv1: 60-bit count of 100 ns since 1582-10-15, clock sequence and node.

    It holds a time (``timestamp_ms``) but its text starts with the *low* time bits, so it does
    not sort by time: layouts and entities refuse it (convert to v6 or ordered v1 instead).
    """

    name = "uuid1"
    version = 1
    pattern = _UuidScheme._uuid_pattern(1)
    sorts_by_time = False
    min_ms = _GREGORIAN_MIN_MS
    max_ms = _GREGORIAN_MAX_MS

    def _time_of(self, value: int) -> int:
        return _ticks_to_ms(_v1_ticks(value))

    def _compose(self, ms: int, fill: bool) -> int:
        raise InvalidValue(
            "uuid1 text starts with the low time bits, so the ids of a millisecond are no range; "
            "convert to uuid6 or uuid1-ordered for windows"
        )

    def _random_of(self, value: int) -> int:
        """The 62 bits after the variant: clock sequence and node."""
        return value & _RAND_B

    def new(self) -> str:
        """A fresh v1 UUID: random node (multicast bit set) and clock sequence, never the
        host's MAC address (see :func:`~ulidkeys.ids.schemes.gregorian_now`)."""
        return self._encode(_v1_value(*gregorian_now()))


_ORDERED_TEXT = re.compile(r"[0-9a-fA-F]{32}")


class OrderedUuid1Scheme(IntCodedScheme):
    """MySQL's ordered UUIDv1 (``UUID_TO_BIN(u, 1)``): time_hi, time_mid, time_low, then the
    clock sequence and node, so it sorts by time.

    Canonical text: 32 lowercase hex digits (``HEX(UUID_TO_BIN(u, 1))`` lowercased). ``parse``
    also takes uppercase and the 8-4-4-4-12 form MySQL's ``BIN_TO_UUID(b)`` (without the swap
    flag) prints. The numeric form is the 16 stored bytes as a big-endian integer.
    """

    name = "uuid1-ordered"
    length = 32
    pattern = "1[0-9a-f]{15}[89ab][0-9a-f]{15}"
    min_ms = _GREGORIAN_MIN_MS
    max_ms = _GREGORIAN_MAX_MS

    def _broken_rule(self, value: int) -> str | None:
        if value >> 124 != 1:
            return f"the first hex digit (the version) is {value >> 124:x}, not 1"
        if (value >> 62) & 0b11 != 0b10:
            return "the variant bits are not the RFC 9562 variant (10)"
        return None

    def _decode(self, text: str) -> int:
        hex_text = text.replace("-", "") if len(text) == 36 and _dashed(text) else text
        if not _ORDERED_TEXT.fullmatch(hex_text):
            raise self._invalid(text, "expected 32 hex digits (or 36 characters 8-4-4-4-12)")
        value = int(hex_text, 16)
        rule = self._broken_rule(value)
        if rule is not None:
            raise self._invalid(text, rule)
        return value

    def _encode(self, value: int) -> str:
        return f"{value:032x}"

    def _time_of(self, value: int) -> int:
        return _ticks_to_ms(_ordered_ticks(value))

    def _compose(self, ms: int, fill: bool) -> int:
        ticks = min(ms * 10_000 + _GREGORIAN_OFFSET + (9_999 if fill else 0), _MAX_TICKS)
        return _ordered_value(ticks, _VARIANT | (_RAND_B if fill else 0))

    def _random_of(self, value: int) -> int:
        return value & _RAND_B

    def new(self) -> str:
        return convert_uuid(UUID1.new(), UUID1, self)


def _dashed(text: str) -> bool:
    return text[8] == text[13] == text[18] == text[23] == "-"


class _TimelessUuidScheme(_UuidScheme):
    """A UUID version without a time (v3, v4, v5): parse, numeric form, no windows."""

    sorts_by_time = False
    min_ms = 0
    max_ms = 0

    def _time_of(self, value: int) -> int:
        raise InvalidValue(
            f"{self.name} ids hold no time (version {self.version} is "
            f"{'random' if self.version == 4 else 'a hash of a namespace and a name'})"
        )

    def _compose(self, ms: int, fill: bool) -> int:
        raise InvalidValue(f"{self.name} ids hold no time, so no id belongs to a millisecond")

    def _random_of(self, value: int) -> int:
        """The 122 bits besides version and variant (random, or a uniform hash for v3/v5)."""
        return (((value >> 80) << 12 | (value >> 64) & 0xFFF) << 62) | (value & _RAND_B)


class Uuid4Scheme(_TimelessUuidScheme):
    """UUIDv4: 122 random bits; no time."""

    name = "uuid4"
    version = 4
    pattern = _UuidScheme._uuid_pattern(4)

    def new(self) -> str:
        random = int.from_bytes(os.urandom(16), "big")
        value = (random & ~(0xF << 76) & ~(0b11 << 62)) | (4 << 76) | _VARIANT
        return self._encode(value)


class _NameUuidScheme(_TimelessUuidScheme):
    """Name-based UUIDs (v3: MD5, v5: SHA-1): the same namespace and name give the same id."""

    def from_name(self, namespace: uuid.UUID | str, name: str | bytes) -> str:
        """The id of ``name`` in ``namespace`` (a UUID, its text, or 'dns'/'url'/'oid'/'x500').

        An idempotent key: the same content name always gives the same key, so a retried
        upload overwrites (or, with a conditional put, finds) its first attempt.
        """
        space = _namespace(namespace)
        if isinstance(name, str):
            data = name.encode("utf-8")
        elif isinstance(name, bytes):
            data = name
        else:
            raise InvalidType(
                f"name={describe(name)} must be str or bytes, not {type(name).__name__}"
            )
        algorithm = hashlib.md5 if self.version == 3 else hashlib.sha1
        digest = algorithm(space.bytes + data, usedforsecurity=False).digest()[:16]
        value = int.from_bytes(digest, "big")
        value = (value & ~(0xF << 76) & ~(0b11 << 62)) | (self.version << 76) | _VARIANT
        return self._encode(value)


class Uuid3Scheme(_NameUuidScheme):
    """UUIDv3: MD5 of a namespace and a name; no time."""

    name = "uuid3"
    version = 3
    pattern = _UuidScheme._uuid_pattern(3)


class Uuid5Scheme(_NameUuidScheme):
    """UUIDv5: SHA-1 of a namespace and a name; no time."""

    name = "uuid5"
    version = 5
    pattern = _UuidScheme._uuid_pattern(5)


_NAMESPACES = {
    "dns": uuid.NAMESPACE_DNS,
    "url": uuid.NAMESPACE_URL,
    "oid": uuid.NAMESPACE_OID,
    "x500": uuid.NAMESPACE_X500,
}


def _namespace(namespace: object) -> uuid.UUID:
    if isinstance(namespace, uuid.UUID):
        return namespace
    if isinstance(namespace, str):
        if namespace in _NAMESPACES:
            return _NAMESPACES[namespace]
        try:
            return uuid.UUID(namespace)
        except ValueError:
            raise InvalidValue(
                f"namespace={describe(namespace)} is neither a UUID nor one of "
                f"{', '.join(map(repr, _NAMESPACES))}"
            ) from None
    raise InvalidType(
        f"namespace={describe(namespace)} must be a uuid.UUID or str, "
        f"not {type(namespace).__name__}"
    )


class _SpecialUuidScheme(_TimelessUuidScheme):
    """The nil UUID (all zeros) or the max UUID (all ones): one id each, no time."""

    def __init__(self, name: str, value: int) -> None:
        self.name = name
        self._value = value
        self.pattern = re.escape(self._encode(value))

    def _broken_rule(self, value: int) -> str | None:
        return None if value == self._value else f"it is not {self._encode(self._value)}"

    def _time_of(self, value: int) -> int:
        raise InvalidValue(f"the {self.name} UUID holds no time")

    def _random_of(self, value: int) -> int:
        return 0


def convert_uuid(text: str, source: IntCodedScheme, target: IntCodedScheme) -> str:
    """``text``, an id of ``source``, as an id of ``target``: each of ``UUID1``, ``UUID6`` and
    ``UUID1_ORDERED``. The 60-bit time moves between the layouts; the clock sequence and node
    stay as they are (RFC 9562 5.6 for v1 <-> v6; MySQL's ``UUID_TO_BIN(u, 1)`` /
    ``BIN_TO_UUID(b, 1)`` for v1 <-> ordered)."""
    read = _TICKS.get(source.name)
    write = _LAYOUTS.get(target.name)
    if read is None or write is None:
        raise InvalidValue(
            f"convert_uuid converts between uuid1, uuid6 and uuid1-ordered, not "
            f"{source.name} -> {target.name}"
        )
    value = source.to_int(text)
    return target.from_int(write(read(value), value & _LOW_64))


def _ordered_ticks(value: int) -> int:
    return (value >> 64) & _MAX_TICKS


_TICKS = {"uuid1": _v1_ticks, "uuid6": _v6_ticks, "uuid1-ordered": _ordered_ticks}
_LAYOUTS = {"uuid1": _v1_value, "uuid6": _v6_value, "uuid1-ordered": _ordered_value}


UUID1 = Uuid1Scheme()
UUID1_ORDERED = OrderedUuid1Scheme()
UUID3 = Uuid3Scheme()
UUID4 = Uuid4Scheme()
UUID5 = Uuid5Scheme()
UUID_NIL = _SpecialUuidScheme("uuid-nil", 0)
UUID_MAX = _SpecialUuidScheme("uuid-max", (1 << 128) - 1)

#: The schemes of this module, in the order ``inspect`` tries them.
UUID_SCHEMES: tuple[IntCodedScheme, ...] = (
    UUID1,
    UUID1_ORDERED,
    UUID3,
    UUID4,
    UUID5,
    UUID_NIL,
    UUID_MAX,
)
