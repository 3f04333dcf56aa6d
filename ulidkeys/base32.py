"""Crockford base32 for ULIDs: the 32-symbol alphabet, integer <-> text, random tails.

Written by hand because speed is the point: encoding uses a 1,024-entry table of two-character
pairs (10 bits per lookup), decoding maps text onto Python's own base-32 digits and lets
``int(text, 32)`` do the arithmetic in C, and random tails are made with ``bytes.translate``.
"""

from __future__ import annotations

import os
import struct

from ulidkeys.errors import InvalidULID, describe

#: Crockford's base32 alphabet. It is in ASCII order, so text order equals numeric order.
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

#: Length of a ULID in characters, of its time part, and of its random part.
ULID_LENGTH = 26
TIME_LENGTH = 10
RANDOM_LENGTH = 16

_PAIRS = [a + b for a in ALPHABET for b in ALPHABET]

# Byte -> Crockford character of its low 5 bits. 256 is a multiple of 32, so a uniform random
# byte gives a uniform character: exactly 5 random bits per character, none biased.
_RANDOM_TABLE = bytes(ord(ALPHABET[b & 31]) for b in range(256))

# Byte -> Python base-32 digit ("0-9a-v") of the same value; everything else -> "!", which
# int() rejects. Lowercase is accepted; Crockford's aliases I, L, O and the excluded U are not.
_DIGITS = "0123456789abcdefghijklmnopqrstuv"
_decode = bytearray(b"!" * 256)
for _value, _char in enumerate(ALPHABET):
    _decode[ord(_char)] = _decode[ord(_char.lower())] = ord(_DIGITS[_value])
#: ``bytes.translate`` table from Crockford's alphabet (either case) to Python's base-32 digits:
#: ``int(text.encode().translate(DECODE_TABLE), 32)`` decodes text already known to be valid.
DECODE_TABLE = bytes(_decode)
_VALID = frozenset(ALPHABET + ALPHABET.lower())
del _decode, _value, _char


def encode_time(ms: int) -> str:
    """The 10 time characters of a 48-bit millisecond value (not range-checked)."""
    p = _PAIRS
    return (
        p[(ms >> 40) & 0x3FF]
        + p[(ms >> 30) & 0x3FF]
        + p[(ms >> 20) & 0x3FF]
        + p[(ms >> 10) & 0x3FF]
        + p[ms & 0x3FF]
    )


def encode_random(value: int) -> str:
    """The 16 random characters of an 80-bit value (not range-checked)."""
    p = _PAIRS
    high, low = value >> 40, value & 0xFF_FFFF_FFFF
    return (
        p[(high >> 30) & 0x3FF]
        + p[(high >> 20) & 0x3FF]
        + p[(high >> 10) & 0x3FF]
        + p[high & 0x3FF]
        + p[(low >> 30) & 0x3FF]
        + p[(low >> 20) & 0x3FF]
        + p[(low >> 10) & 0x3FF]
        + p[low & 0x3FF]
    )


def encode_pair(value: int) -> str:
    """The two characters of a 10-bit value (the last two of a ULID hold its low 10 bits)."""
    return _PAIRS[value & 0x3FF]


def encode_ulid(value: int) -> str:
    """The 26 characters of a 128-bit value (not range-checked)."""
    return encode_time(value >> 80) + encode_random(value & ((1 << 80) - 1))


def decode(text: str, what: str = "ULID") -> int:
    """The integer value of Crockford base32 ``text`` (any length; case-insensitive).

    Raises InvalidULID naming the first character outside the alphabet.
    """
    if text.isascii():
        try:
            return int(text.encode("ascii").translate(DECODE_TABLE), 32)
        except ValueError:
            pass
    for position, char in enumerate(text):
        if char not in _VALID:  # not char.upper(), which maps 'ſ' to 'S'
            raise InvalidULID(
                f"{describe(text)} is not a valid {what}: character {char!r} at position "
                f"{position} is not in Crockford's base32 alphabet (0-9 and A-Z without I, L, O, "
                "U; aliases are not accepted so that every ULID has one spelling)"
            )
    raise InvalidULID(f"{describe(text)} is not a valid {what}: it is empty")


def random_tails(count: int, prefix: str = "") -> list[str]:
    """``count`` strings, each ``prefix`` + 16 characters from 80 fresh CSPRNG bits.

    One ``os.urandom`` call, one ``translate`` and one ``split`` for the whole list: no
    per-id Python arithmetic, which is what makes batches fast.
    """
    if count <= 0:
        return []
    raw = os.urandom(RANDOM_LENGTH * count).translate(_RANDOM_TABLE)
    chunks = struct.unpack("16s" * count, raw)
    head = prefix.encode("ascii")
    return (head + (b"\n" + head).join(chunks)).decode("ascii").split("\n")
