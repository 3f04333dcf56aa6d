"""The other UUIDs: v1, MySQL's ordered v1 (``UUID_TO_BIN(u, 1)``), v3, v4, v5, nil and max.

Only ordered v1 sorts by time as text; v1 holds a time but scatters it, and v3/v4/v5 hold none,
so layouts and entities refuse them. Also v1 <-> v6 <-> ordered-v1 conversions and v3/v5 keys.
"""

from __future__ import annotations

import hashlib
import os
import re
import uuid
from collections.abc import Callable

from ulidkeys.errors import InvalidType, InvalidValue, TimeOutOfRange, describe, require_int
from ulidkeys.ids.protocol import IdScheme
from ulidkeys.ids.registration import (
    Clock,
    Field,
    MakeGenerator,
    RandBits,
    Reading,
    Registration,
    hex_digits,
)
from ulidkeys.ids.schemes import (
    _GREGORIAN_OFFSET,
    _MAX_TICKS,
    _RAND_B,
    _UUID_TEXT,
    _VARIANT,
    UUID6,
    UUID7,
    IntCodedScheme,
    _UuidScheme,
    gregorian_fields,
    gregorian_now,
    uuid_fields,
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


#: RFC 9562 UUIDv1: 100 ns Gregorian time, scattered over the text (does not sort).
UUID1 = Uuid1Scheme()
#: MySQL's ``UUID_TO_BIN(u, 1)``: v1 with the time moved first, 32 hex digits that sort.
UUID1_ORDERED = OrderedUuid1Scheme()
#: RFC 9562 UUIDv3: an MD5 name hash (no time).
UUID3 = Uuid3Scheme()
#: RFC 9562 UUIDv4: 122 random bits (no time).
UUID4 = Uuid4Scheme()
#: RFC 9562 UUIDv5: a SHA-1 name hash (no time).
UUID5 = Uuid5Scheme()
#: The nil UUID (all zeros).
UUID_NIL = _SpecialUuidScheme("uuid-nil", 0)
#: The max UUID (all ones).
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

_HEX32 = re.compile(r"[0-9a-fA-F]{32}")


def _dashed_text(text: str) -> str | None:
    return text if _UUID_TEXT.fullmatch(text) else None


def _hex_text(text: str) -> str | None:
    """32 hex digits without dashes (``uuid.hex``), dashed for the UUID parsers."""
    if not _HEX32.fullmatch(text):
        return None
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def _uuid_readings(rank: int) -> tuple[Reading, ...]:
    """A UUID version is read dashed (order 40) and as 32 hex (60), the versions in ``rank``
    order within each: v7, v6, v1, v3, v4, v5, nil, max."""
    return (Reading(40 + rank / 10, _dashed_text), Reading(60 + rank / 10, _hex_text))


def _v1_family(
    ticks: Callable[[int], int], source: IntCodedScheme, twin: IntCodedScheme
) -> Callable[[object, int], dict[str, Field]]:
    """Fields of a v1 or v6 UUID, with the same id as its twin (v6 of a v1, v1 of a v6: RFC
    9562 5.6, the time fields reordered), so a v1 in a log can be looked up sorted as v6."""

    def fields(_: object, value: int) -> dict[str, Field]:
        found = {**uuid_fields(value), **gregorian_fields(ticks(value), value & _LOW_64)}
        return {**found, twin.name: convert_uuid(source._encode(value), source, twin)}

    return fields


def _hashed(_: object, value: int) -> dict[str, Field]:
    return {**uuid_fields(value), "hash": hex_digits(value, 32)}


def _uuid4_generator(
    scheme: IdScheme, clock: Clock, randbits: RandBits, node: int | None
) -> Callable[[], str]:
    """UUIDv4s from ``randbits``: 122 random bits around the version and variant (no clock)."""
    return lambda: scheme.from_int(uuid.UUID(int=randbits(128), version=4).int)


def _gregorian_generator(compose: Callable[[int, int], int]) -> MakeGenerator:
    """The generator of a v1-family scheme (``compose(ticks, low)``: v1, v6, ordered v1) from
    ``clock`` and ``randbits``: the clock's millisecond in 100 ns ticks plus a random sub-
    millisecond part, a random clock sequence and a random node with the multicast bit set, as
    :func:`~ulidkeys.ids.schemes.gregorian_now` does with the wall clock."""

    def make(
        scheme: IdScheme, clock: Clock, randbits: RandBits, node: int | None
    ) -> Callable[[], str]:
        def new() -> str:
            ms = require_int(clock(), "clock()")
            first = ms * 10_000 + _GREGORIAN_OFFSET
            # the ticks of the millisecond that fit in 60 bits: all 10,000 but in the last one
            ticks_in_ms = min(10_000, _MAX_TICKS - first + 1)
            if first < 0 or ticks_in_ms <= 0:
                raise TimeOutOfRange(f"clock() = {ms} ms is outside what {scheme.name} ids hold")
            bits = (ticks_in_ms - 1).bit_length()
            sub = randbits(bits) if bits else 0
            while sub >= ticks_in_ms:  # uniform over the millisecond's ticks
                sub = randbits(bits)
            random = randbits(62)
            low = _VARIANT | (((random >> 48) & 0x3FFF) << 48) | (random & (1 << 48) - 1)
            return scheme.from_int(compose(first + sub, low | (1 << 40)))

        return new

    return make


REGISTRATIONS = (
    Registration(
        "uuid7",
        UUID7,
        aliases=("uuidv7",),
        fields=lambda _, v: {
            **uuid_fields(v),
            "rand_a": (v >> 64) & 0xFFF,
            "rand_b": hex_digits(v & _RAND_B, 16),
        },
        readings=_uuid_readings(1),
        explains_refusals=True,
        summary="RFC 9562 v7: 48-bit ms time + 74 random bits, 36 characters",
    ),
    Registration(
        "uuid6",
        UUID6,
        aliases=("uuidv6",),
        fields=_v1_family(_v6_ticks, UUID6, UUID1),
        generator=_gregorian_generator(_v6_value),
        readings=_uuid_readings(2),
        summary="RFC 9562 v6: v1's 100 ns Gregorian time reordered to sort, 36 characters",
    ),
    Registration(
        "uuid1",
        UUID1,
        aliases=("uuidv1",),
        fields=_v1_family(_v1_ticks, UUID1, UUID6),
        generator=_gregorian_generator(_v1_value),
        readings=_uuid_readings(3),
        summary="RFC 9562 v1: 100 ns Gregorian time, scattered (does not sort)",
    ),
    Registration(
        "uuid3",
        UUID3,
        generated=False,
        aliases=("uuidv3",),
        fields=_hashed,
        readings=_uuid_readings(4),
        summary="RFC 9562 v3: MD5 of a name (no time)",
    ),
    Registration(
        "uuid4",
        UUID4,
        aliases=("uuidv4",),
        fields=lambda _, v: {**uuid_fields(v), "random": hex_digits(UUID4._random_of(v), 31)},
        generator=_uuid4_generator,
        clock=False,
        readings=_uuid_readings(5),
        summary="RFC 9562 v4: 122 random bits (no time)",
    ),
    Registration(
        "uuid5",
        UUID5,
        generated=False,
        aliases=("uuidv5",),
        fields=_hashed,
        readings=_uuid_readings(6),
        summary="RFC 9562 v5: SHA-1 of a name (no time)",
    ),
    Registration(
        "uuid-nil",
        UUID_NIL,
        generated=False,
        fields=lambda _, v: {"version": 0},
        readings=_uuid_readings(7),
        summary="the nil UUID, all zeros",
    ),
    Registration(
        "uuid-max",
        UUID_MAX,
        generated=False,
        fields=lambda _, v: {"version": 15},
        readings=_uuid_readings(8),
        summary="the max UUID, all ones",
    ),
    Registration(
        "uuid1-ordered",
        UUID1_ORDERED,
        aliases=("ordered-uuid",),
        fields=lambda _, v: {
            "version": 1,
            "variant": (v >> 62) & 0b11,
            "uuid1": convert_uuid(UUID1_ORDERED._encode(v), UUID1_ORDERED, UUID1),
            **gregorian_fields(_ordered_ticks(v), v & _LOW_64),
        },
        readings=(Reading(50, lambda text: text if _HEX32.fullmatch(text) else None),),
        generator=_gregorian_generator(_ordered_value),
        explains_refusals=True,
        summary="MySQL's UUID_TO_BIN(u, 1): v1 with the time moved first, 32 hex digits",
    ),
)
