"""The id schemes: ULID, UUIDv7/v6, KSUID, ObjectId and Snowflake-style ids (Twitter, Discord,
Instagram), each an unsigned integer with a time field, written as fixed-width text that sorts
by time. One base class does the shared work; a scheme says how its integer is laid out."""

from __future__ import annotations

import itertools
import os
import re
import threading
import time
from collections.abc import Callable

from ulidkeys import base32
from ulidkeys.errors import (
    InvalidId,
    InvalidType,
    InvalidULID,
    InvalidValue,
    TimeOutOfRange,
    describe,
    require_int,
)
from ulidkeys.ids.protocol import IdScheme
from ulidkeys.ids.registration import (
    Clock,
    Field,
    RandBits,
    Reading,
    Registration,
    hex_digits,
)
from ulidkeys.ulid import ULID, new


def _char_class(chars: str) -> str:
    """A regex for one of ``chars`` (given in ASCII order): ``[0-9A-HJK]`` or a lone char."""
    runs: list[list[str]] = []
    for char in chars:
        if runs and ord(char) == ord(runs[-1][1]) + 1:
            runs[-1][1] = char
        else:
            runs.append([char, char])
    body = "".join(
        first if first == last else first + (last if ord(last) == ord(first) + 1 else "-" + last)
        for first, last in runs
    )
    return re.escape(chars) if len(chars) == 1 else f"[{body}]"


def _at_most(top: str, alphabet: str) -> str:
    """A regex (no capturing groups) matching exactly the texts of ``len(top)`` characters of
    ``alphabet`` (in ASCII order) that sort at or below ``top``."""
    any_char = _char_class(alphabet)

    def repeat(n: int) -> str:
        return "" if n == 0 else any_char if n == 1 else f"{any_char}{{{n}}}"

    def from_position(i: int) -> str:
        rest = len(top) - i - 1
        upto = alphabet[: alphabet.index(top[i]) + 1]
        if all(char == alphabet[-1] for char in top[i + 1 :]):
            return _char_class(upto) + repeat(rest)
        equal = re.escape(top[i]) + from_position(i + 1)
        below = upto[:-1]
        return equal if not below else f"(?:{_char_class(below)}{repeat(rest)}|{equal})"

    return from_position(0)


class IntCodedScheme:
    """Shared logic for schemes whose id is an unsigned integer with a time field.

    A subclass sets the protocol attributes and ``bits`` (every id is an integer in
    ``0 .. 2**bits - 1``) and defines ``_decode`` (text to integer, validating the text),
    ``_encode`` (integer to canonical text), ``_time_of``, ``_compose`` and ``_random_of``.
    """

    name = "abstract"
    resolution_ms = 1
    min_ms = 0
    max_ms = (1 << 48) - 1
    sorts_by_time = True
    length = 0
    pattern = ""
    numeric = False
    #: Width of the numeric form: every id is an integer in ``0 .. 2**bits - 1``.
    bits = 128
    #: The exception raised for a bad id (InvalidULID for ULIDs, which is an InvalidId).
    _error: type[InvalidId] = InvalidId

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

    def _random_of(self, value: int) -> int | None:
        raise NotImplementedError

    def _broken_rule(self, value: int) -> str | None:
        """Why an integer of the right width is no id (UUID version/variant bits), or None."""
        return None

    # The protocol ------------------------------------------------------------------------
    def _checked_text(self, text: object) -> str:
        if not isinstance(text, str):
            raise InvalidType(
                f"{describe(text)} must be the text of a {self.name} id (a str), "
                f"not {type(text).__name__}"
            )
        return text

    def parse(self, text: str) -> str:
        """The canonical text of ``text``; InvalidId naming the rule if it is no id."""
        return self._encode(self._decode(self._checked_text(text)))

    def timestamp_ms(self, text: str) -> int:
        """The epoch millisecond held in the id (floored to the scheme's resolution)."""
        return self._time_of(self._decode(self._checked_text(text)))

    def to_int(self, text: str) -> int:
        """The id's bits as an unsigned integer."""
        return self._decode(self._checked_text(text))

    def from_int(self, value: int) -> str:
        """The canonical text of an integer; InvalidType for a non-int, InvalidId for no id."""
        require_int(value, "value")
        if value < 0 or value >> self.bits:
            raise self._error(
                f"{describe(value)} is not a valid {self.name} id: the integer must be in "
                f"0 .. 2**{self.bits} - 1"
            )
        rule = self._broken_rule(value)
        if rule is not None:
            raise self._error(f"{describe(value)} is not a valid {self.name} id: {rule}")
        return self._encode(value)

    def random_bits(self, text: str) -> int | None:
        """The id's random bits as an integer (None for schemes without any)."""
        return self._random_of(self._decode(self._checked_text(text)))

    def _check(self, ms: int) -> int:
        require_int(ms, "ms", "an int (epoch milliseconds)")
        if not self.min_ms <= ms <= self.max_ms:
            raise TimeOutOfRange(
                f"ms={describe(ms)} is outside what a {self.name} id can hold "
                f"({self.min_ms} .. {self.max_ms} epoch milliseconds)"
            )
        if ms % self.resolution_ms:
            step = self.resolution_ms
            unit = "whole seconds" if step == 1000 else f"whole steps of {step} ms"
            raise TimeOutOfRange(
                f"ms={ms!r} is not a whole {step} ms step; {self.name} ids hold {unit}"
            )
        return ms

    def with_time(self, text: str, ms: int) -> str:
        """The id with its time moved to ``ms``, every other bit (and any sub-resolution part
        of the time) kept: what newest-first keys are made with."""
        value = self._decode(self._checked_text(text))
        moved = self._replace_time(value, self._time_of(value), self._check(ms))
        return self.from_int(moved)

    def _replace_time(self, value: int, old_ms: int, new_ms: int) -> int:
        # The time field is contiguous above the other bits: move it by arithmetic.
        return value - self._compose(old_ms, fill=False) + self._compose(new_ms, fill=False)

    def min_for(self, ms: int) -> str:
        """The smallest id of millisecond ``ms`` (every non-time bit clear)."""
        return self._encode(self._compose(self._check(ms), fill=False))

    def max_for(self, ms: int) -> str:
        """The largest id of millisecond ``ms`` (every non-time bit set)."""
        return self._encode(self._compose(self._check(ms), fill=True))

    def _invalid(self, text: str, rule: str) -> InvalidId:
        return self._error(f"{describe(text)} is not a valid {self.name} id: {rule}")

    def __repr__(self) -> str:
        return f"<id scheme {self.name}>"

    # Schemes are values: one pickled for a worker and read back equals the original, so the
    # layouts, entities and plans holding it compare equal too.
    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self) -> int:
        return hash((type(self), self.name))


_RANDOM_80 = (1 << 80) - 1


class UlidScheme(IntCodedScheme):
    """ULID: 48-bit ms time + 80 random bits, 26 characters of Crockford base32."""

    name = "ulid"
    length = base32.ULID_LENGTH
    pattern = _at_most("7" + "Z" * 25, base32.ALPHABET)
    _error = InvalidULID

    def _decode(self, text: str) -> int:
        return int(ULID.from_str(text))

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

    def _compose(self, ms: int, fill: bool) -> int:
        return (ms << 80) | (_RANDOM_80 if fill else 0)

    def _random_of(self, value: int) -> int:
        """The 80-bit random part: the same number as ``ULID.parse(text).randomness``."""
        return value & _RANDOM_80

    def new(self) -> str:
        return new()


_UUID_TEXT = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)
_VARIANT = 0b10 << 62  # RFC 9562 variant bits
_RAND_B = (1 << 62) - 1  # the 62 bits after the variant


class _UuidScheme(IntCodedScheme):
    """Shared by UUIDv7 and v6: canonical lowercase 8-4-4-4-12 text, version and variant bits."""

    version = 0
    length = 36

    @classmethod
    def _uuid_pattern(cls, version: int) -> str:
        return (
            f"[0-9a-f]{{8}}-[0-9a-f]{{4}}-{version}[0-9a-f]{{3}}-[89ab][0-9a-f]{{3}}-[0-9a-f]{{12}}"
        )

    def _broken_rule(self, value: int) -> str | None:
        if (value >> 76) & 0xF != self.version:
            return f"the version nibble is {(value >> 76) & 0xF}, not {self.version}"
        if (value >> 62) & 0b11 != 0b10:
            return "the variant bits are not the RFC 9562 variant (10)"
        return None

    def _decode(self, text: str) -> int:
        if not _UUID_TEXT.fullmatch(text):
            raise self._invalid(text, "expected 36 characters of hex in the form 8-4-4-4-12")
        value = int(text.replace("-", ""), 16)
        rule = self._broken_rule(value)
        if rule is not None:
            raise self._invalid(text, rule)
        return value

    def _encode(self, value: int) -> str:
        h = f"{value:032x}"
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


class Uuid7Scheme(_UuidScheme):
    """UUIDv7 (RFC 9562): 48-bit ms time, version 7, 74 random bits; text sorts by time."""

    name = "uuid7"
    version = 7
    pattern = _UuidScheme._uuid_pattern(7)

    def _time_of(self, value: int) -> int:
        return value >> 80

    def _compose(self, ms: int, fill: bool) -> int:
        rest = (0xFFF << 64) | _RAND_B if fill else 0
        return (ms << 80) | (7 << 76) | _VARIANT | rest

    def _random_of(self, value: int) -> int:
        """The 74 random bits: rand_a (12 bits) followed by rand_b (62 bits)."""
        return (((value >> 64) & 0xFFF) << 62) | (value & _RAND_B)

    def new_int(self) -> int:
        """A fresh UUIDv7 as a number (what TypeIDs encode)."""
        random = int.from_bytes(os.urandom(10), "big")
        rand_a, rand_b = random >> 68, random & _RAND_B
        ms = time.time_ns() // 1_000_000
        return (ms << 80) | (7 << 76) | (rand_a << 64) | _VARIANT | rand_b

    def new(self) -> str:
        return self._encode(self.new_int())


_GREGORIAN_OFFSET = 0x01B21DD213814000  # 100 ns ticks from 1582-10-15 to 1970-01-01
_MAX_TICKS = (1 << 60) - 1
_ticks_lock = threading.Lock()
_last_ticks = 0


def gregorian_now() -> tuple[int, int]:
    """``(ticks, low)`` for a new v1-family UUID: 100 ns ticks since 1582-10-15, strictly
    increasing in this process (two calls in one tick differ), and the low 64 bits: variant,
    a random 14-bit clock sequence and a random node with the multicast bit set (RFC 9562's
    mark of a node that is not a MAC address; the host's MAC is never used)."""
    global _last_ticks
    with _ticks_lock:
        ticks = max(time.time_ns() // 100 + _GREGORIAN_OFFSET, _last_ticks + 1)
        _last_ticks = ticks
    random = int.from_bytes(os.urandom(8), "big")
    node = (random & ((1 << 48) - 1)) | (1 << 40)  # the multicast bit of the node's first octet
    return ticks, _VARIANT | (((random >> 48) & 0x3FFF) << 48) | node


class Uuid6Scheme(_UuidScheme):
    """UUIDv6 (RFC 9562): the v1 Gregorian 100 ns timestamp reordered so text sorts by time.

    Its time starts at the Gregorian epoch, 1582-10-15 (``min_ms`` is negative: ids dated
    before 1970 are valid and have a negative time) and ends with the 60-bit tick counter.
    """

    name = "uuid6"
    version = 6
    pattern = _UuidScheme._uuid_pattern(6)
    min_ms = -(_GREGORIAN_OFFSET // 10_000)  # 1582-10-15T00:00:00Z = -12_219_292_800_000
    max_ms = (_MAX_TICKS - _GREGORIAN_OFFSET) // 10_000

    def _time_of(self, value: int) -> int:
        ticks = ((value >> 80) << 12) | ((value >> 64) & 0xFFF)
        return (ticks - _GREGORIAN_OFFSET) // 10_000

    def _compose(self, ms: int, fill: bool) -> int:
        ticks = ms * 10_000 + _GREGORIAN_OFFSET + (9_999 if fill else 0)
        ticks = min(ticks, _MAX_TICKS)
        rest = _RAND_B if fill else 0
        return ((ticks >> 12) << 80) | (6 << 76) | ((ticks & 0xFFF) << 64) | _VARIANT | rest

    def _random_of(self, value: int) -> int:
        """The 62 bits after the variant (rand_b: clock sequence and node)."""
        return value & _RAND_B

    def _replace_time(self, value: int, old_ms: int, new_ms: int) -> int:
        # The 60 tick bits are split around the version nibble: move the ticks, not the int.
        ticks = ((value >> 80) << 12) | ((value >> 64) & 0xFFF)
        ticks += (new_ms - old_ms) * 10_000
        if not 0 <= ticks <= _MAX_TICKS:
            raise TimeOutOfRange(f"ms={new_ms} with this id's sub-ms ticks is past uuid6's range")
        low = value & ((1 << 64) - 1)
        return ((ticks >> 12) << 80) | (6 << 76) | ((ticks & 0xFFF) << 64) | low

    def new(self) -> str:
        """A fresh v6 UUID: random node and clock sequence (see :func:`gregorian_now`)."""
        ticks, low = gregorian_now()
        return self._encode(((ticks >> 12) << 80) | (6 << 76) | ((ticks & 0xFFF) << 64) | low)


_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_BASE62_VALUE = {c: i for i, c in enumerate(_BASE62)}
_KSUID_EPOCH_S = 1_400_000_000
_KSUID_LENGTH = 27


def _to_base62(value: int) -> str:
    chars = []
    for _ in range(_KSUID_LENGTH):
        value, digit = divmod(value, 62)
        chars.append(_BASE62[digit])
    return "".join(reversed(chars))


class KsuidScheme(IntCodedScheme):
    """KSUID (Segment): 32-bit seconds since 2014-05-13 + 128 random bits, 27 chars base62.

    ``pattern`` matches exactly the 27-character texts up to the largest KSUID
    (``aWgEPTl1tmebfsQzFP4bxwgy80V``); ``parse`` is the full check either way.
    """

    name = "ksuid"
    resolution_ms = 1000
    min_ms = _KSUID_EPOCH_S * 1000
    max_ms = (_KSUID_EPOCH_S + (1 << 32) - 1) * 1000
    bits = 160
    length = _KSUID_LENGTH
    pattern = _at_most(_to_base62((1 << 160) - 1), _BASE62)

    def _decode(self, text: str) -> int:
        if len(text) != _KSUID_LENGTH:
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
        return _to_base62(value)

    def _time_of(self, value: int) -> int:
        return ((value >> 128) + _KSUID_EPOCH_S) * 1000

    def _compose(self, ms: int, fill: bool) -> int:
        return ((ms // 1000 - _KSUID_EPOCH_S) << 128) | ((1 << 128) - 1 if fill else 0)

    def _random_of(self, value: int) -> int:
        """The 128-bit payload."""
        return value & ((1 << 128) - 1)

    def new(self) -> str:
        seconds = time.time_ns() // 1_000_000_000 - _KSUID_EPOCH_S
        return self._encode((seconds << 128) | int.from_bytes(os.urandom(16), "big"))


_HEX24 = re.compile(r"[0-9a-fA-F]{24}")


class ObjectIdScheme(IntCodedScheme):
    """MongoDB ObjectId: 32-bit Unix seconds + 5 random bytes + 3-byte counter, 24 hex chars."""

    name = "objectid"
    resolution_ms = 1000
    max_ms = ((1 << 32) - 1) * 1000
    bits = 96
    length = 24
    pattern = "[0-9a-f]{24}"

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

    def _random_of(self, value: int) -> int:
        """The low 64 bits: the 5-byte process-random value and the 3-byte counter."""
        return value & ((1 << 64) - 1)

    def new(self) -> str:
        """A fresh ObjectId as the MongoDB drivers make them: seconds, a 5-byte value random
        per process (renewed in a forked child), a 3-byte counter from a random start."""
        count = next(_object_id_counter) & 0xFFFFFF  # next() on a count is atomic in CPython
        return f"{time.time_ns() // 1_000_000_000:08x}{_object_id_random.hex()}{count:06x}"


_object_id_random = os.urandom(5)
_object_id_counter = itertools.count(int.from_bytes(os.urandom(3), "big"))


def _renew_object_id_random() -> None:
    global _object_id_random, _object_id_counter
    _object_id_random = os.urandom(5)
    _object_id_counter = itertools.count(int.from_bytes(os.urandom(3), "big"))


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_renew_object_id_random)


_DIGITS = "0123456789"
_ASCII_DIGITS = re.compile(r"[0-9]+")


class SnowflakeScheme(IntCodedScheme):
    """Snowflake-style ids: milliseconds since a custom epoch, shifted left by ``shift``.

    Twitter and Discord use ``shift=22`` (10 worker + 12 sequence bits), Instagram ``shift=23``
    (13 shard + 10 sequence bits). ``bits`` is 63 (a signed 64-bit integer that stays
    positive: Twitter, Instagram) or 64 (unsigned: Discord); the time field is the top
    ``bits - shift`` bits, so the time range ends at ``epoch_ms + 2**(bits - shift) - 1``.
    Instagram's ids are a signed Postgres bigint: 41 bits of time on paper, but the top bit
    must stay 0, so 40 bits are usable and its range ends where ``(ms - epoch) << 23``
    reaches 2**63 (2046-06-27); ``INSTAGRAM_ID`` is therefore 63-bit.

    The canonical text is zero-padded decimal of the full width (19 digits for 63 bits, 20 for
    64), so it sorts by time and works as an S3 key or DynamoDB string sort key; ``parse``
    also accepts the usual unpadded decimal (ASCII digits only). Snowflakes have no random
    bits: ``random_bits`` is None and shards hash the text.
    """

    numeric = True

    def __init__(
        self, name: str, epoch_ms: int, shift: int = 22, bits: int = 63, resolution_ms: int = 1
    ) -> None:
        if not isinstance(name, str):
            raise InvalidType(f"name={describe(name)} must be a str, not {type(name).__name__}")
        if not name:
            raise InvalidValue("name='' must not be empty")
        require_int(epoch_ms, "epoch_ms")
        require_int(shift, "shift")
        require_int(bits, "bits")
        require_int(resolution_ms, "resolution_ms")
        if bits not in (63, 64):
            raise InvalidValue(f"bits={bits!r} must be 63 (signed, kept positive) or 64 (unsigned)")
        if not 0 <= shift < bits:
            raise InvalidValue(f"shift={shift!r} must be in 0 .. {bits - 1}")
        if resolution_ms < 1 or epoch_ms % resolution_ms:
            # Windows round times down to whole steps counted from 1970: that is the id's own
            # step only when the epoch is a whole number of steps.
            raise InvalidValue(
                f"resolution_ms={resolution_ms!r} must be >= 1 and divide epoch_ms={epoch_ms!r}"
            )
        self.name = name
        self.epoch_ms = epoch_ms
        self.shift = shift
        self.bits = bits
        self.resolution_ms = resolution_ms
        self.min_ms = epoch_ms
        self.max_ms = epoch_ms + ((1 << (bits - shift)) - 1) * resolution_ms
        top = str((1 << bits) - 1)
        self.length = len(top)
        self.pattern = _at_most(top, _DIGITS)

    def _decode(self, text: str) -> int:
        # Length first: int() of thousands of digits is slow and raises its own ValueError.
        if not 0 < len(text) <= self.length:
            raise self._invalid(
                text,
                f"expected 1 to {self.length} decimal digits (zero-padded or not), "
                f"got {len(text)} characters",
            )
        if _ASCII_DIGITS.fullmatch(text) is None:
            raise self._invalid(text, "expected ASCII decimal digits (0-9) only")
        value = int(text)
        if value >> self.bits:
            raise self._invalid(text, f"it exceeds the largest {self.name} id (2**{self.bits} - 1)")
        return value

    def _encode(self, value: int) -> str:
        return f"{value:0{self.length}d}"

    def _time_of(self, value: int) -> int:
        return (value >> self.shift) * self.resolution_ms + self.epoch_ms

    def _compose(self, ms: int, fill: bool) -> int:
        units = (ms - self.epoch_ms) // self.resolution_ms
        return (units << self.shift) | ((1 << self.shift) - 1 if fill else 0)

    def _random_of(self, value: int) -> None:
        return None


#: ULID: 48-bit ms time + 80 random bits, 26 Crockford base32 characters (the default).
ULID_SCHEME = UlidScheme()
#: RFC 9562 UUIDv7: 48-bit ms time, 74 random bits.
UUID7 = Uuid7Scheme()
#: RFC 9562 UUIDv6: v1's 100 ns Gregorian time, reordered so the text sorts by time.
UUID6 = Uuid6Scheme()
#: KSUID: 32-bit seconds since 2014-05-13 + 128 random bits, 27 base62 characters.
KSUID = KsuidScheme()
#: MongoDB's ObjectId: 32-bit seconds, 40 random bits, a 24-bit counter, 24 hex digits.
OBJECT_ID = ObjectIdScheme()
#: Twitter: 41 bits of ms since 2010-11-04, a 63-bit id; times end in 2080.
TWITTER_SNOWFLAKE = SnowflakeScheme("twitter-snowflake", epoch_ms=1_288_834_974_657)
#: Discord: unsigned 64-bit ids, 42 bits of ms since 2015-01-01; times end in 2154.
DISCORD_SNOWFLAKE = SnowflakeScheme("discord-snowflake", epoch_ms=1_420_070_400_000, bits=64)
#: Instagram: a signed Postgres bigint, ``(ms - epoch) << 23 | shard << 10 | sequence``. Its
#: time field is nominally 41 bits, but the top bit must stay 0 (the id is a positive bigint),
#: so only 40 bits are usable: times end where ``(ms - epoch) << 23`` reaches 2**63, on
#: 2046-06-27 (epoch 2011-08-24 + 2**40 ms). Kept 63-bit.
INSTAGRAM_ID = SnowflakeScheme("instagram-id", epoch_ms=1_314_220_021_721, shift=23)

#: Every built-in scheme, ULID first: what test suites and tools parametrize over.
SCHEMES: tuple[IntCodedScheme, ...] = (
    ULID_SCHEME,
    UUID7,
    UUID6,
    KSUID,
    OBJECT_ID,
    TWITTER_SNOWFLAKE,
    DISCORD_SNOWFLAKE,
    INSTAGRAM_ID,
)


_MASK_128 = (1 << 128) - 1


def uuid_fields(value: int) -> dict[str, Field]:
    """The version and variant bits every RFC 9562 UUID has."""
    return {"version": (value >> 76) & 0xF, "variant": (value >> 62) & 0b11}


def gregorian_fields(ticks: int, low: int) -> dict[str, Field]:
    """Fields of the v1 family: 100 ns ticks, clock sequence, node (multicast = not a MAC)."""
    node = low & ((1 << 48) - 1)
    return {
        "ticks_100ns": ticks,
        "clock_seq": (low >> 48) & 0x3FFF,
        "node": hex_digits(node, 12),
        "node_is_random": bool(node >> 40 & 1),
    }


def ulid_fields(scheme: object, value: int) -> dict[str, Field]:
    return {"random": hex_digits(value & _RANDOM_80, 20)}


def _object_id_generator(
    scheme: IdScheme, clock: Clock, randbits: RandBits, node: int | None
) -> Callable[[], str]:
    """ObjectIds as the MongoDB drivers make them, from ``clock`` and ``randbits``: the
    seconds, a 5-byte value random per generator, a 3-byte counter from a random start."""
    process = randbits(40) & ((1 << 40) - 1)
    counter = itertools.count(randbits(24) & 0xFFFFFF)

    def new() -> str:
        ms = require_int(clock(), "clock()")
        base = scheme.to_int(scheme.min_for(ms - ms % 1000))
        return scheme.from_int(base | (process << 24) | (next(counter) & 0xFFFFFF))

    return new


REGISTRATIONS = (
    Registration(
        "ulid",
        ULID_SCHEME,
        fields=ulid_fields,
        readings=(Reading(10),),
        explains_refusals=True,
        summary="48-bit ms time + 80 random bits, 26 Crockford base32 characters",
    ),
    Registration(
        "ksuid",
        KSUID,
        fields=lambda _, v: {
            "timestamp": v >> 128,
            "payload": hex_digits(v & ((1 << 128) - 1), 32),
        },
        readings=(Reading(70.1),),
        explains_refusals=True,
        summary="32-bit seconds since 2014-05-13 + 128 random bits, 27 base62 characters",
    ),
    Registration(
        "objectid",
        OBJECT_ID,
        aliases=("object-id",),
        fields=lambda _, v: {
            "seconds": v >> 64,
            "random": hex_digits((v >> 24) & ((1 << 40) - 1), 10),
            "counter": v & 0xFFFFFF,
        },
        readings=(Reading(70.2),),
        explains_refusals=True,
        generator=_object_id_generator,
        summary="MongoDB: 32-bit seconds + 40 random bits + 24-bit counter, 24 hex digits",
    ),
)
