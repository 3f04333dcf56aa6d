"""RFC 9562 UUIDs: what every UUID scheme shares (the 8-4-4-4-12 text, version and variant
bits, their fields, how ``inspect`` reads a UUID dashed or as 32 hex digits), and the UUIDs
without a time - v3 and v5 (a hash of a name), v4 (random), nil and max - which parse, but which
layouts and entities refuse. The UUIDs with a time build on :class:`UuidScheme`: v1, v6 and
ordered v1 in :mod:`ulidkeys.ids.gregorian`, v7 in :mod:`ulidkeys.ids.uuid7`.
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
from ulidkeys.ids.protocol import IdScheme
from ulidkeys.ids.registration import (
    Clock,
    Field,
    RandBits,
    Reading,
    Registration,
    hex_digits,
)

UUID_TEXT = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)
#: The 15th character of a UUID's text of each version, in either case.
_VERSION_CHARACTERS = tuple(frozenset({f"{v:x}", f"{v:X}"}) for v in range(16))
VARIANT = 0b10 << 62  # RFC 9562 variant bits
RAND_B = (1 << 62) - 1  # the 62 bits after the variant


class UuidScheme(IntCodedScheme):
    """Shared by UUIDv7 and v6: canonical lowercase 8-4-4-4-12 text, version and variant bits."""

    version = 0
    length = 36

    @classmethod
    def _uuid_pattern(cls, version: int) -> str:
        return (
            f"[0-9a-f]{{8}}-[0-9a-f]{{4}}-{version}[0-9a-f]{{3}}-[89ab][0-9a-f]{{3}}-[0-9a-f]{{12}}"
        )

    def could_read(self, text: str) -> bool:
        """False for 8-4-4-4-12 text whose version character (the 15th) is another version's:
        ``inspect`` tries every UUID version on each line, and this refuses most of them
        without building the reason (a scheme with its own rule, nil or max, reads on)."""
        if type(self)._broken_rule is not UuidScheme._broken_rule or len(text) != 36:
            return True
        return text[14:15] in _VERSION_CHARACTERS[self.version]

    def _broken_rule(self, value: int) -> str | None:
        if (value >> 76) & 0xF != self.version:
            return f"the version nibble is {(value >> 76) & 0xF}, not {self.version}"
        if (value >> 62) & 0b11 != 0b10:
            return "the variant bits are not the RFC 9562 variant (10)"
        return None

    def _decode(self, text: str) -> int:
        if not UUID_TEXT.fullmatch(text):
            raise self._invalid(text, "expected 36 characters of hex in the form 8-4-4-4-12")
        value = int(text.replace("-", ""), 16)
        rule = self._broken_rule(value)
        if rule is not None:
            raise self._invalid(text, rule)
        return value

    def _encode(self, value: int) -> str:
        h = f"{value:032x}"
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def _canonical(self, text: str, value: int) -> str:
        """Text this class decodes is 8-4-4-4-12 hex, whose canonical form is its lower case
        (not encoded again, a listing's every line)."""
        if type(self)._decode is UuidScheme._decode:
            return text.lower()
        return self._encode(value)


def uuid_fields(value: int) -> dict[str, Field]:
    """The version and variant bits every RFC 9562 UUID has."""
    return {"version": (value >> 76) & 0xF, "variant": (value >> 62) & 0b11}


HEX32 = re.compile(r"[0-9a-fA-F]{32}")


def _dashed_text(text: str) -> str | None:
    return text if UUID_TEXT.fullmatch(text) else None


def _hex_text(text: str) -> str | None:
    """32 hex digits without dashes (``uuid.hex``), dashed for the UUID parsers."""
    if not HEX32.fullmatch(text):
        return None
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def uuid_readings(rank: int) -> tuple[Reading, ...]:
    """A UUID version is read dashed (order 40) and as 32 hex (60), the versions in ``rank``
    order within each: v7, v6, v1, v3, v4, v5, nil, max."""
    return (
        Reading(40 + rank / 10, _dashed_text, frozenset({36})),
        Reading(60 + rank / 10, _hex_text, frozenset({32})),
    )


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
        return (((value >> 80) << 12 | (value >> 64) & 0xFFF) << 62) | (value & RAND_B)


class Uuid4Scheme(_TimelessUuidScheme):
    """UUIDv4: 122 random bits; no time."""

    name = "uuid4"
    version = 4
    pattern = UuidScheme._uuid_pattern(4)

    def new(self) -> str:
        random = int.from_bytes(os.urandom(16), "big")
        value = (random & ~(0xF << 76) & ~(0b11 << 62)) | (4 << 76) | VARIANT
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
        value = (value & ~(0xF << 76) & ~(0b11 << 62)) | (self.version << 76) | VARIANT
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


def _hashed(_: object, value: int) -> dict[str, Field]:
    return {**uuid_fields(value), "hash": hex_digits(value, 32)}


def _name_based(scheme: _NameUuidScheme, rank: int, digest: str) -> Registration:
    """UUIDv3 or v5, alike but for their hash: the ``digest`` of a name, never made from a
    clock and random bits; read as a UUID in ``rank`` order."""
    return Registration(
        scheme.name,
        scheme,
        generated=False,
        aliases=(f"uuidv{scheme.version}",),
        fields=_hashed,
        readings=uuid_readings(rank),
        summary=f"RFC 9562 v{scheme.version}: {digest} of a name (no time)",
    )


def _special(scheme: _SpecialUuidScheme, version: int, rank: int, summary: str) -> Registration:
    """The nil or the max UUID: one id, whose version nibble is ``version``."""
    return Registration(
        scheme.name,
        scheme,
        generated=False,
        fields=lambda _, v: {"version": version},
        readings=uuid_readings(rank),
        summary=summary,
    )


def _uuid4_generator(
    scheme: IdScheme, clock: Clock, randbits: RandBits, node: int | None
) -> Callable[[], str]:
    """UUIDv4s from ``randbits``: 122 random bits around the version and variant (no clock)."""
    return lambda: scheme.from_int(uuid.UUID(int=draw(randbits, 128), version=4).int)


REGISTRATIONS = (
    _name_based(UUID3, 4, "MD5"),
    Registration(
        "uuid4",
        UUID4,
        aliases=("uuidv4",),
        fields=lambda _, v: {**uuid_fields(v), "random": hex_digits(UUID4._random_of(v), 31)},
        generator=_uuid4_generator,
        clock=False,
        readings=uuid_readings(5),
        summary="RFC 9562 v4: 122 random bits (no time)",
    ),
    _name_based(UUID5, 6, "SHA-1"),
    _special(UUID_NIL, 0, 7, "the nil UUID, all zeros"),
    _special(UUID_MAX, 15, 8, "the max UUID, all ones"),
)
