"""Typed ids: TypeID (``post_01h455vb4pex5vsknk084sn02q``) and ULIDs with a 2-bit type tag.

Both sort by time within one type, so a scheme per type works in layouts and entities. The
tag lives in the two spare high bits of a ULID's text: off-spec, so plain ULIDs reject it.
"""

from __future__ import annotations

import re

from ulidkeys import base32
from ulidkeys.errors import InvalidId, InvalidType, InvalidValue, describe, require_count
from ulidkeys.ids.base import IntCodedScheme, char_class
from ulidkeys.ids.registration import Field, Reading, Registration
from ulidkeys.ids.ulids import ULID_SCHEME, ulid_fields
from ulidkeys.ids.uuid7 import UUID7
from ulidkeys.ids.uuids import UUID_TEXT, uuid_fields
from ulidkeys.ulid.randomness import new

#: The TypeID spec's prefix rule (v0.3): up to 63 of ``[a-z_]``, starting and ending in a letter.
TYPEID_PREFIX = re.compile(r"([a-z]([a-z_]{0,61}[a-z])?)?")
_SUFFIX_CHARS = base32.ALPHABET.lower()
_SUFFIX = re.compile(r"[0-7][0-9a-hjkmnp-tv-z]{25}")
_MASK_80 = (1 << 80) - 1


def split_typeid(text: str) -> tuple[str, str]:
    """``(prefix, suffix)`` of a TypeID, checked against the spec; InvalidId otherwise.

    The separator is the *last* underscore (prefixes may hold underscores); with an empty
    prefix there is no separator at all.
    """
    if not isinstance(text, str):
        raise InvalidType(f"{describe(text)} must be a TypeID (a str), not {type(text).__name__}")
    prefix, sep, suffix = text.rpartition("_")
    if sep and not prefix:
        raise InvalidId(
            f"{describe(text)} is not a valid TypeID: with an empty prefix there is no '_'"
        )
    if not TYPEID_PREFIX.fullmatch(prefix):
        raise InvalidId(
            f"{describe(text)} is not a valid TypeID: the prefix {prefix!r} must be at most 63 "
            "lowercase ASCII letters or '_', starting and ending with a letter"
        )
    if not _SUFFIX.fullmatch(suffix):
        raise InvalidId(f"{describe(text)} is not a valid TypeID: {_suffix_rule(suffix)}")
    return prefix, suffix


def _suffix_rule(suffix: str) -> str:
    if len(suffix) != 26:
        return f"the suffix must be 26 characters, got {len(suffix)}"
    for position, char in enumerate(suffix):
        if char not in _SUFFIX_CHARS:
            return (
                f"suffix character {char!r} at position {position} is not in the lowercase base32 "
                f"alphabet {_SUFFIX_CHARS!r}"
            )
    return "the suffix's first character must be 0-7 (a suffix holds 128 bits)"


class TypeIdScheme(IntCodedScheme):
    """TypeIDs of one type prefix: ``prefix_`` + the UUID (v7) in 26 lowercase base32 characters.

    The time is the UUIDv7's 48-bit millisecond field, so the texts of one prefix sort by time
    and a layout or entity of this scheme selects time windows within the type. ``to_int`` /
    ``from_int`` are the UUID as a number; ``new`` makes a UUIDv7 as the spec requires.
    """

    min_ms = 0
    max_ms = (1 << 48) - 1

    def __init__(self, prefix: str) -> None:
        if not isinstance(prefix, str):
            raise InvalidType(
                f"prefix={describe(prefix)} must be a str, not {type(prefix).__name__}"
            )
        if not TYPEID_PREFIX.fullmatch(prefix):
            raise InvalidValue(
                f"prefix={describe(prefix)} is not a TypeID prefix: at most 63 lowercase ASCII "
                "letters or '_', starting and ending with a letter (or '' for none)"
            )
        self.prefix = prefix
        self._head = prefix + "_" if prefix else ""
        self.name = f"typeid:{prefix}" if prefix else "typeid"
        self.length = len(self._head) + 26
        self.pattern = re.escape(self._head) + _SUFFIX.pattern

    def _decode(self, text: str) -> int:
        prefix, suffix = split_typeid(text)
        if prefix != self.prefix:
            raise self._invalid(text, f"its prefix is {prefix!r}, not {self.prefix!r}")
        return base32.decode(suffix, "TypeID")

    def _encode(self, value: int) -> str:
        return self._head + base32.encode_ulid(value).lower()

    def _time_of(self, value: int) -> int:
        return value >> 80

    def _compose(self, ms: int, fill: bool) -> int:
        return (ms << 80) | (_MASK_80 if fill else 0)

    def _random_of(self, value: int) -> int:
        return UUID7._random_of(value)

    def from_uuid(self, value: object) -> str:
        """The TypeID of a UUID (a ``uuid.UUID``, anything with 16 ``.bytes``, or UUID text)."""
        data = getattr(value, "bytes", None)
        if isinstance(data, bytes) and len(data) == 16:
            return self._encode(int.from_bytes(data, "big"))
        if not isinstance(value, str):
            raise InvalidType(f"{describe(value)} is not a UUID (a uuid.UUID or its text)")
        if not UUID_TEXT.fullmatch(value):
            raise InvalidId(f"{describe(value)} is not the text of a UUID (8-4-4-4-12 hex)")
        return self._encode(int(value.replace("-", ""), 16))

    def uuid_text(self, text: str) -> str:
        """The UUID (8-4-4-4-12) a TypeID of this prefix encodes."""
        return UUID7._encode(self.to_int(text))

    def new(self) -> str:
        return self._encode(UUID7.new_int())


def typeid(text: str) -> TypeIdScheme:
    """The scheme of a TypeID's prefix (``typeid("post_01h4...")`` -> ``TypeIdScheme("post")``)."""
    return TypeIdScheme(split_typeid(text)[0])


# --- ULIDs with a type tag in the two spare bits (off-spec) ----------------------------------


class TaggedUlidScheme(IntCodedScheme):
    """Off-spec ULIDs whose two spare high bits (26 base32 characters hold 130 bits, a ULID
    uses 128) carry a type tag 1-3: the first character moves from ``0-7`` to ``8-F``,
    ``G-Q`` or ``R-Z``. Four sub-types in one id space, in the spirit of ``i-0123...`` ids.

    Not part of the ULID spec: other ULID libraries (and ``ULID.parse``) reject these ids, so
    use them only where every reader is this library. Tag 0 is the plain ULID. Within one tag
    the text sorts by time; the numeric form is 130 bits, the tag above the ULID.
    """

    bits = 130
    length = base32.ULID_LENGTH

    def __init__(self, tag: int) -> None:
        require_count(tag, "tag", 1, 3)
        self.tag = tag
        self.name = f"ulid-tag{tag}"
        firsts = base32.ALPHABET[tag * 8 : tag * 8 + 8]
        self.pattern = char_class(firsts) + char_class(base32.ALPHABET) + "{25}"
        #: First characters of the alphabet (either case) that hold another tag.
        self._other_tags = frozenset(
            c for c in base32.ALPHABET + base32.ALPHABET.lower() if c.upper() not in firsts
        )

    def _broken_rule(self, value: int) -> str | None:
        tag = value >> 128
        return None if tag == self.tag else f"its type tag is {tag}, not {self.tag}"

    def could_read(self, text: str) -> bool:
        """False for text whose first character holds another tag (``inspect`` tries every
        scheme on every line: this one refuses most without building the reason)."""
        return text[:1] not in self._other_tags

    def _decode(self, text: str) -> int:
        if len(text) != base32.ULID_LENGTH:
            raise self._invalid(text, f"expected 26 characters, got {len(text)}")
        value = base32.decode(text, self.name)
        rule = self._broken_rule(value)
        if rule is not None:
            raise self._invalid(text, rule)
        return value

    def _encode(self, value: int) -> str:
        return base32.encode_ulid(value)

    def _time_of(self, value: int) -> int:
        return (value >> 80) & ((1 << 48) - 1)

    def _compose(self, ms: int, fill: bool) -> int:
        return (self.tag << 128) | (ms << 80) | (_MASK_80 if fill else 0)

    def _random_of(self, value: int) -> int:
        return value & _MASK_80

    def tag_ulid(self, ulid_text: str) -> str:
        """The tagged form of a plain ULID."""
        return self._encode((self.tag << 128) | ULID_SCHEME.to_int(ulid_text))

    def untag(self, text: str) -> str:
        """The plain ULID of a tagged id."""
        return ULID_SCHEME.from_int(self.to_int(text) & ((1 << 128) - 1))

    def new(self) -> str:
        return self.tag_ulid(new())


#: Off-spec ULIDs with type tag 1 (first character 8-F).
ULID_TAG1 = TaggedUlidScheme(1)
#: Off-spec ULIDs with type tag 2 (first character G-Q).
ULID_TAG2 = TaggedUlidScheme(2)
#: Off-spec ULIDs with type tag 3 (first character R-Z).
ULID_TAG3 = TaggedUlidScheme(3)
#: The three tagged ULID schemes, by tag.
TAGGED_ULIDS: tuple[TaggedUlidScheme, ...] = (ULID_TAG1, ULID_TAG2, ULID_TAG3)


def _typeid_text(text: str) -> str | None:
    """A TypeID without a prefix is a lowercase ULID: only guess one that is lowercase; a
    TypeID never holds '-' (its prefix is letters and '_', its suffix base32), a UUID does;
    its suffix is its last 26 characters, and without a prefix the whole of it (a Snowflake's
    digits are none)."""
    if "-" in text or len(text) < 26:
        return None
    if "_" in text:
        return text
    return text if len(text) == 26 and (text.islower() or text.isdigit()) else None


def _typeid_fields(scheme: object, value: int) -> dict[str, Field]:
    assert isinstance(scheme, TypeIdScheme)
    return {"type": scheme.prefix, "uuid": UUID7._encode(value), **uuid_fields(value)}


def _tagged_fields(scheme: object, value: int) -> dict[str, Field]:
    assert isinstance(scheme, TaggedUlidScheme)
    plain = scheme.untag(scheme._encode(value))
    return {"tag": scheme.tag, "ulid": plain, **ulid_fields(scheme, value)}


REGISTRATIONS = (
    Registration(
        "typeid",
        of_text=typeid,
        member=TypeIdScheme,
        example=TypeIdScheme("post"),
        fields=_typeid_fields,
        readings=(Reading(20, _typeid_text),),
        summary="TypeID: a type prefix, '_' and a UUIDv7 in lowercase Crockford base32",
    ),
    *(
        Registration(
            scheme.name,
            scheme,
            fields=_tagged_fields,
            readings=(Reading(30 + scheme.tag / 10),),
            summary=f"off-spec: a ULID with type tag {scheme.tag} in its two spare bits",
        )
        for scheme in TAGGED_ULIDS
    ),
)
