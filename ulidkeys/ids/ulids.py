"""ULID as an id scheme: 48-bit ms time + 80 random bits, 26 Crockford base32 characters (the
default scheme, first in the registry).
"""

from __future__ import annotations

import re
from itertools import repeat
from operator import itemgetter

from ulidkeys import base32
from ulidkeys.errors import (
    InvalidULID,
)
from ulidkeys.ids.base import IntCodedScheme, at_most
from ulidkeys.ids.registration import (
    Field,
    Reading,
    Registration,
    hex_digits,
)
from ulidkeys.ulid import ULID
from ulidkeys.ulid.randomness import new

_RANDOM_80 = (1 << 80) - 1


class UlidScheme(IntCodedScheme):
    """ULID: 48-bit ms time + 80 random bits, 26 characters of Crockford base32."""

    name = "ulid"
    length = base32.ULID_LENGTH
    pattern = at_most("7" + "Z" * 25, base32.ALPHABET)
    _error = InvalidULID

    def _decode(self, text: str) -> int:
        if _CANONICAL.fullmatch(text) is not None:  # most text read: decoded with no object
            return int(text.encode("ascii").translate(base32.DECODE_TABLE), 32)
        return int(ULID.from_str(text))  # the rest: lowercase, or refused with the reason

    def _encode(self, value: int) -> str:
        return base32.encode_ulid(value)

    def decoded(self, text: str) -> tuple[str, int, int | None]:
        """``(parse(text), to_int(text), timestamp_ms(text))``; canonical text (most of a
        listing) is its own canonical form, not encoded again."""
        if isinstance(text, str) and _CANONICAL.fullmatch(text) is not None:
            value = int(text.encode("ascii").translate(base32.DECODE_TABLE), 32)
            return text, value, value >> 80
        return super().decoded(text)

    def _time_of(self, value: int) -> int:
        return value >> 80

    def canonical_time(self, text: str) -> int:
        """The time of text that already matched :attr:`pattern` (the fast path of listings):
        its 10 time characters, decoded with no further checks."""
        return int(text[:10].encode("ascii").translate(base32.DECODE_TABLE), 32)

    def canonical_random(self, text: str) -> int:
        """The random bits of text that already matched :attr:`pattern` (its last 16
        characters, decoded with no further checks): what keys are sharded by."""
        return int(text[10:].encode("ascii").translate(base32.DECODE_TABLE), 32)

    def all_canonical(self, texts: list[str]) -> bool:
        """Whether every text of a list matches :attr:`pattern`, checked at once in C (a
        listing reads a page of keys at once): 26 characters each of the alphabet, the first
        at most ``7`` - checked on the largest, since text order is value order here."""
        joined = "".join(texts).encode()  # any other character: bytes the check leaves
        if len(joined) != self.length * len(texts) or joined.translate(None, _ALPHABET):
            return False
        return not texts or max(texts)[0] <= "7"

    def canonical_randoms(self, texts: list[str]) -> list[int]:
        """:meth:`canonical_random` of every text of a list (all canonical), decoded with C
        maps: no Python step per text."""
        table = base32.DECODE_TABLE
        encoded = map(str.encode, map(_RANDOM_CHARS, texts))
        return list(map(int, map(bytes.translate, encoded, repeat(table)), repeat(32)))

    def _compose(self, ms: int, fill: bool) -> int:
        return (ms << 80) | (_RANDOM_80 if fill else 0)

    def _random_of(self, value: int) -> int:
        """The 80-bit random part: the same number as ``ULID.parse(text).randomness``."""
        return value & _RANDOM_80

    def new(self) -> str:
        return new()


_ALPHABET = base32.ALPHABET.encode()
_RANDOM_CHARS = itemgetter(slice(10, None))


#: ULID: 48-bit ms time + 80 random bits, 26 Crockford base32 characters (the default).
ULID_SCHEME = UlidScheme()
#: Canonical ULID text (uppercase, at most the largest ULID).
_CANONICAL = re.compile(UlidScheme.pattern)


def ulid_fields(scheme: object, value: int) -> dict[str, Field]:
    return {"random": hex_digits(value & _RANDOM_80, 20)}


REGISTRATIONS = (
    Registration(
        "ulid",
        ULID_SCHEME,
        fields=ulid_fields,
        readings=(Reading(10),),
        explains_refusals=True,
        summary="48-bit ms time + 80 random bits, 26 Crockford base32 characters",
    ),
)
