"""ULID as an id scheme: 48-bit ms time + 80 random bits, 26 Crockford base32 characters (the
default scheme, first in the registry).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
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
from ulidkeys.ulid import ULID, new

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

    def canonical_times(self, texts: list[str]) -> list[int]:
        """:meth:`canonical_time` of every text of a list (all already matched): decoded with C
        maps, no Python step per text (a listing reads a page of keys at once)."""
        return _decoded(map(_TIME_CHARS, texts))

    def canonical_randoms(self, texts: list[str]) -> list[int]:
        """:meth:`canonical_random` of every text of a list (all already matched)."""
        return _decoded(map(_RANDOM_CHARS, texts))

    def _compose(self, ms: int, fill: bool) -> int:
        return (ms << 80) | (_RANDOM_80 if fill else 0)

    def _random_of(self, value: int) -> int:
        """The 80-bit random part: the same number as ``ULID.parse(text).randomness``."""
        return value & _RANDOM_80

    def new(self) -> str:
        return new()


_TIME_CHARS = itemgetter(slice(0, 10))
_RANDOM_CHARS = itemgetter(slice(10, None))


def _decoded(texts: Iterator[str]) -> list[int]:
    """The numbers of valid Crockford base32 texts, decoded in C (see ``base32.DECODE_TABLE``)."""
    table = base32.DECODE_TABLE
    return list(map(int, map(bytes.translate, map(str.encode, texts), repeat(table)), repeat(32)))


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
