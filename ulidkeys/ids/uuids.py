"""The UUIDs without a time: v3 and v5 (a hash of a name), v4 (random), nil and max. They parse,
but layouts and entities refuse them. ``UUID_SCHEMES`` lists every UUID but v7 and v6.
"""

from __future__ import annotations

import hashlib
import os
import re
import uuid
from collections.abc import Callable

from ulidkeys.errors import (
    InvalidType,
    InvalidValue,
    describe,
)
from ulidkeys.ids.base import IntCodedScheme
from ulidkeys.ids.generators import draw
from ulidkeys.ids.gregorian import UUID1, UUID1_ORDERED
from ulidkeys.ids.protocol import IdScheme
from ulidkeys.ids.registration import (
    Clock,
    Field,
    RandBits,
    Registration,
    hex_digits,
)
from ulidkeys.ids.uuidbase import _RAND_B, _VARIANT, UuidScheme, _uuid_readings, uuid_fields


class _TimelessUuidScheme(UuidScheme):
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
    pattern = UuidScheme._uuid_pattern(4)

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
    pattern = UuidScheme._uuid_pattern(3)


class Uuid5Scheme(_NameUuidScheme):
    """UUIDv5: SHA-1 of a namespace and a name; no time."""

    name = "uuid5"
    version = 5
    pattern = UuidScheme._uuid_pattern(5)


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
        self._text = self._encode(value)
        self.pattern = re.escape(self._text)

    def could_read(self, text: str) -> bool:
        """Only its one text (in either case): every other UUID is refused before decoding."""
        return len(text) != 36 or text.lower() == self._text

    def _broken_rule(self, value: int) -> str | None:
        return None if value == self._value else f"it is not {self._encode(self._value)}"

    def _time_of(self, value: int) -> int:
        raise InvalidValue(f"the {self.name} UUID holds no time")

    def _random_of(self, value: int) -> int:
        return 0


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

#: Every UUID scheme but v7 and v6 (the two that sort by time), in the order ``inspect`` tries them.
UUID_SCHEMES: tuple[IntCodedScheme, ...] = (
    UUID1,
    UUID1_ORDERED,
    UUID3,
    UUID4,
    UUID5,
    UUID_NIL,
    UUID_MAX,
)


def _hashed(_: object, value: int) -> dict[str, Field]:
    return {**uuid_fields(value), "hash": hex_digits(value, 32)}


def _uuid4_generator(
    scheme: IdScheme, clock: Clock, randbits: RandBits, node: int | None
) -> Callable[[], str]:
    """UUIDv4s from ``randbits``: 122 random bits around the version and variant (no clock)."""
    return lambda: scheme.from_int(uuid.UUID(int=draw(randbits, 128), version=4).int)


REGISTRATIONS = (
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
)
