"""The id schemes: ULID, UUIDv7, UUIDv6, KSUID, ObjectId and Snowflake-style ids.

Each is an integer with a time field at a fixed place, written as fixed-width text. One base
class does the shared work (parse, time, smallest/largest id of a millisecond); a scheme only
says how its integer is laid out and written.
"""

from __future__ import annotations

import os
import re
import time

from ulidkeys import base32
from ulidkeys.errors import InvalidId, InvalidType, TimeOutOfRange, describe
from ulidkeys.ulid import ULID, new


class IntCodedScheme:
    """Shared logic for schemes whose id is an integer with a time field."""

    name = "abstract"
    resolution_ms = 1
    min_ms = 0
    max_ms = (1 << 48) - 1
    sorts_by_time = True

    # What a scheme defines --------------------------------------------------------------
    def _decode(self, text: str) -> int:
        raise NotImplementedError

    def _encode(self, value: int) -> str:
        raise NotImplementedError

    def _time_of(self, value: int) -> int:
        raise NotImplementedError

    def _compose(self, ms: int, fill: bool) -> int:
        """The id of millisecond ``ms`` with every non-time bit clear (or set, if ``fill``)."""
        raise NotImplementedError

    # The protocol ------------------------------------------------------------------------
    def _checked_text(self, text: object) -> str:
        if not isinstance(text, str):
            raise InvalidType(f"{describe(text)} must be the text of a {self.name} id (a str)")
        return text

    def parse(self, text: str) -> str:
        return self._encode(self._decode(self._checked_text(text)))

    def timestamp_ms(self, text: str) -> int:
        return self._time_of(self._decode(self._checked_text(text)))

    def to_int(self, text: str) -> int:
        return self._decode(self._checked_text(text))

    def from_int(self, value: int) -> str:
        return self._encode(value)

    def _check(self, ms: int) -> int:
        if not self.min_ms <= ms <= self.max_ms:
            raise TimeOutOfRange(
                f"ms={ms!r} is outside what a {self.name} id can hold "
                f"({self.min_ms} .. {self.max_ms} epoch milliseconds)"
            )
        if ms % self.resolution_ms:
            raise TimeOutOfRange(
                f"ms={ms!r} is not a whole {self.resolution_ms} ms step; {self.name} ids hold "
                "whole seconds"
            )
        return ms

    def min_for(self, ms: int) -> str:
        return self._encode(self._compose(self._check(ms), fill=False))

    def max_for(self, ms: int) -> str:
        return self._encode(self._compose(self._check(ms), fill=True))

    def _invalid(self, text: str, rule: str) -> InvalidId:
        return InvalidId(f"{describe(text)} is not a valid {self.name} id: {rule}")

    def __repr__(self) -> str:
        return f"<id scheme {self.name}>"


class UlidScheme(IntCodedScheme):
    """ULID: 48-bit ms time + 80 random bits, 26 characters of Crockford base32."""

    name = "ulid"

    def _decode(self, text: str) -> int:
        return int(ULID.parse(text))

    def _encode(self, value: int) -> str:
        return base32.encode_ulid(value)

    def _time_of(self, value: int) -> int:
        return value >> 80

    def _compose(self, ms: int, fill: bool) -> int:
        return (ms << 80) | ((1 << 80) - 1 if fill else 0)

    def new(self) -> str:
        return new()


_UUID_TEXT = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)
_VARIANT = 0b10 << 62  # RFC 9562 variant bits


class _UuidScheme(IntCodedScheme):
    """Shared by UUIDv7 and v6: canonical lowercase 8-4-4-4-12 text, version and variant bits."""

    version = 0

    def _decode(self, text: str) -> int:
        if not _UUID_TEXT.fullmatch(text):
            raise self._invalid(text, "expected 36 characters of hex in the form 8-4-4-4-12")
        value = int(text.replace("-", ""), 16)
        if (value >> 76) & 0xF != self.version:
            raise self._invalid(
                text, f"the version nibble is {(value >> 76) & 0xF}, not {self.version}"
            )
        if (value >> 62) & 0b11 != 0b10:
            raise self._invalid(text, "the variant bits are not the RFC 9562 variant (10)")
        return value

    def _encode(self, value: int) -> str:
        h = f"{value:032x}"
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


class Uuid7Scheme(_UuidScheme):
    """UUIDv7 (RFC 9562): 48-bit ms time, version 7, 74 random bits; text sorts by time."""

    name = "uuid7"
    version = 7

    def _time_of(self, value: int) -> int:
        return value >> 80

    def _compose(self, ms: int, fill: bool) -> int:
        rest = (0xFFF << 64) | ((1 << 62) - 1) if fill else 0
        return (ms << 80) | (7 << 76) | _VARIANT | rest

    def new(self) -> str:
        random = int.from_bytes(os.urandom(10), "big")
        rand_a, rand_b = random >> 68, random & ((1 << 62) - 1)
        ms = time.time_ns() // 1_000_000
        return self._encode((ms << 80) | (7 << 76) | (rand_a << 64) | _VARIANT | rand_b)


_GREGORIAN_OFFSET = 0x01B21DD213814000  # 100 ns ticks from 1582-10-15 to 1970-01-01


class Uuid6Scheme(_UuidScheme):
    """UUIDv6 (RFC 9562): the v1 Gregorian 100 ns timestamp reordered so text sorts by time."""

    name = "uuid6"
    version = 6
    max_ms = ((1 << 60) - 1 - _GREGORIAN_OFFSET) // 10_000

    def _time_of(self, value: int) -> int:
        ticks = ((value >> 80) << 12) | ((value >> 64) & 0xFFF)
        return (ticks - _GREGORIAN_OFFSET) // 10_000

    def _compose(self, ms: int, fill: bool) -> int:
        ticks = ms * 10_000 + _GREGORIAN_OFFSET + (9_999 if fill else 0)
        ticks = min(ticks, (1 << 60) - 1)
        rest = (1 << 62) - 1 if fill else 0
        return ((ticks >> 12) << 80) | (6 << 76) | ((ticks & 0xFFF) << 64) | _VARIANT | rest


_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_BASE62_VALUE = {c: i for i, c in enumerate(_BASE62)}
_KSUID_EPOCH_S = 1_400_000_000


class KsuidScheme(IntCodedScheme):
    """KSUID (Segment): 32-bit seconds since 2014-05-13 + 128 random bits, 27 chars base62."""

    name = "ksuid"
    resolution_ms = 1000
    min_ms = _KSUID_EPOCH_S * 1000
    max_ms = (_KSUID_EPOCH_S + (1 << 32) - 1) * 1000

    def _decode(self, text: str) -> int:
        if len(text) != 27:
            raise self._invalid(text, f"expected 27 base62 characters, got {len(text)}")
        value = 0
        for position, char in enumerate(text):
            digit = _BASE62_VALUE.get(char)
            if digit is None:
                raise self._invalid(
                    text, f"character {char!r} at position {position} is not base62 (0-9, A-Z, a-z)"
                )
            value = value * 62 + digit
        if value >> 160:
            raise self._invalid(text, "it exceeds the largest KSUID (160 bits)")
        return value

    def _encode(self, value: int) -> str:
        chars = []
        for _ in range(27):
            value, digit = divmod(value, 62)
            chars.append(_BASE62[digit])
        return "".join(reversed(chars))

    def _time_of(self, value: int) -> int:
        return ((value >> 128) + _KSUID_EPOCH_S) * 1000

    def _compose(self, ms: int, fill: bool) -> int:
        return ((ms // 1000 - _KSUID_EPOCH_S) << 128) | ((1 << 128) - 1 if fill else 0)

    def new(self) -> str:
        seconds = time.time_ns() // 1_000_000_000 - _KSUID_EPOCH_S
        return self._encode((seconds << 128) | int.from_bytes(os.urandom(16), "big"))


_HEX24 = re.compile(r"[0-9a-fA-F]{24}")


class ObjectIdScheme(IntCodedScheme):
    """MongoDB ObjectId: 32-bit Unix seconds + 5 random bytes + 3-byte counter, 24 hex chars."""

    name = "objectid"
    resolution_ms = 1000
    max_ms = ((1 << 32) - 1) * 1000

    def _decode(self, text: str) -> int:
        if not _HEX24.fullmatch(text):
            raise self._invalid(text, "expected 24 hex characters")
        return int(text, 16)

    def _encode(self, value: int) -> str:
        return f"{value:024x}"

    def _time_of(self, value: int) -> int:
        return (value >> 64) * 1000

    def _compose(self, ms: int, fill: bool) -> int:
        return ((ms // 1000) << 64) | ((1 << 64) - 1 if fill else 0)


class SnowflakeScheme(IntCodedScheme):
    """Snowflake-style 64-bit ids: milliseconds since a custom epoch, shifted left by ``shift``.

    Twitter and Discord use ``shift=22`` (10 worker + 12 sequence bits), Instagram ``shift=23``
    (13 shard + 10 sequence bits). Their usual decimal text does **not** sort by time (its
    length varies); give ``width`` (e.g. 19) to use zero-padded text that does.
    """

    def __init__(self, name: str, epoch_ms: int, shift: int = 22, width: int | None = None):
        self.name = name
        self.epoch_ms = epoch_ms
        self.shift = shift
        self.width = width
        self.sorts_by_time = width is not None
        self.min_ms = epoch_ms
        self.max_ms = epoch_ms + (1 << (63 - shift)) - 1

    def _decode(self, text: str) -> int:
        if not text.isascii() or not text.isdigit():
            raise self._invalid(text, "expected decimal digits")
        if self.width is not None and len(text) != self.width:
            raise self._invalid(text, f"expected {self.width} zero-padded digits, got {len(text)}")
        value = int(text)
        if value >> 63:
            raise self._invalid(text, "it exceeds 63 bits")
        return value

    def _encode(self, value: int) -> str:
        return str(value) if self.width is None else str(value).zfill(self.width)

    def _time_of(self, value: int) -> int:
        return (value >> self.shift) + self.epoch_ms

    def _compose(self, ms: int, fill: bool) -> int:
        return ((ms - self.epoch_ms) << self.shift) | ((1 << self.shift) - 1 if fill else 0)


ULID_SCHEME = UlidScheme()
UUID7 = Uuid7Scheme()
UUID6 = Uuid6Scheme()
KSUID = KsuidScheme()
OBJECT_ID = ObjectIdScheme()
TWITTER_SNOWFLAKE = SnowflakeScheme("twitter-snowflake", epoch_ms=1_288_834_974_657)
DISCORD_SNOWFLAKE = SnowflakeScheme("discord-snowflake", epoch_ms=1_420_070_400_000)
INSTAGRAM_ID = SnowflakeScheme("instagram-id", epoch_ms=1_314_220_021_721, shift=23)
