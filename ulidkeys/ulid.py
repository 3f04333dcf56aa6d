"""ULIDs: the immutable ``ULID`` value, and fast generation (plain, batch, monotonic).

Imports the standard library only. Randomness comes from ``os.urandom`` (the OS CSPRNG), read
in blocks and handed out 80 bits per id; the buffer is dropped in a forked child, so parent and
child never share random bits.
"""

from __future__ import annotations

import abc
import builtins
import math
import os
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any, Final, Protocol, runtime_checkable

from ulidkeys import base32
from ulidkeys.errors import (
    InvalidTime,
    InvalidType,
    InvalidULID,
    MonotonicOverflow,
    TimeOutOfRange,
    describe,
    require_int,
)
from ulidkeys.timeinput import (
    MAX_MS,
    TimeInput,
    check_ms,
    datetime_to_ms,
    format_ms,
    ms_to_datetime,
    now_ms,
    to_ms,
)

#: The largest valid ULID (all 128 bits set).
MAX_ULID: Final = "7ZZZZZZZZZZZZZZZZZZZZZZZZZ"
#: The smallest valid ULID.
MIN_ULID: Final = "00000000000000000000000000"
#: The most ids one ``batch`` call returns: a list of a million ids is ~80 MiB; more is a
#: stream, made by calling again (a monotonic generator stays increasing across calls).
MAX_BATCH: Final = 1_000_000

_MAX_RANDOM = (1 << 80) - 1
_MAX_VALUE = (1 << 128) - 1
_TAILS_PER_REFILL = 2048  # 32 KiB of CSPRNG output per refill

# --- the shared random-tail buffer ---------------------------------------------------------
# A list iterator hands out each tail exactly once even across threads: next() on it is a
# single C call under the GIL. Refills replace the iterator; a tail is never handed out twice.
_tails: Iterator[str] = iter(())


def _refill() -> str:
    global _tails
    fresh = base32.random_tails(_TAILS_PER_REFILL)
    first = fresh.pop()
    _tails = iter(fresh)
    return first


def _next_tail() -> str:
    """16 characters holding 80 fresh random bits."""
    tail = next(_tails, None)
    return _refill() if tail is None else tail


# --- the time-prefix cache: one (ms, text) tuple so readers never see a torn pair ----------
_prefix_cache: tuple[int, str] = (-1, "")


def _time_prefix(ms: int) -> str:
    global _prefix_cache
    text = base32.encode_time(ms)
    _prefix_cache = (ms, text)
    return text


def new() -> str:
    """A fresh ULID string for the current millisecond: the fastest way to name a thing."""
    ms = time.time_ns() // 1_000_000
    cached_ms, prefix = _prefix_cache
    if ms != cached_ms:
        prefix = _time_prefix(ms)
    tail = next(_tails, None)
    return prefix + (_refill() if tail is None else tail)


def batch(n: int, monotonic: bool = False) -> list[str]:
    """``n`` fresh ULID strings of the current millisecond.

    By default every id has its own 80 random bits, so none can be guessed from another (names
    of uploads must not be enumerable); like UUIDv4s they are distinct with overwhelming
    probability (a collision in a batch of a million is less likely than 1 in 10**12). With
    ``monotonic=True`` the result is a strictly increasing run from the process-wide
    monotonic generator instead (spec monotonic mode: each id is the previous + 1).
    """
    _check_count(n)
    if monotonic:
        return _default_monotonic.batch(n)
    return base32.random_tails(n, base32.encode_time(now_ms()))


def _check_count(n: int) -> None:
    require_int(n, "n")
    if n < 0:
        raise InvalidULID(f"n={describe(n)}: a batch size cannot be negative")
    if n > MAX_BATCH:
        raise InvalidULID(
            f"n={describe(n)}: a batch holds at most {MAX_BATCH:,} ids (call batch again for more;"
            " a monotonic generator stays increasing across calls)"
        )


# --- the value type -----------------------------------------------------------------------


class ULID:
    """An immutable, hashable, totally ordered ULID.

    Stored as its canonical (uppercase) 26-character text, which orders exactly like the
    128-bit value. Construct with :meth:`new`, :meth:`parse` (or ``ULID(text)``),
    :meth:`from_bytes`, :meth:`from_int`, :meth:`from_uuid`, :meth:`min_for`, :meth:`max_for`.
    """

    # __weakref__: python-ulid's values can be weakly referenced, so these can too
    __slots__ = ("__weakref__", "_hash", "_str")
    _str: str
    _hash: builtins.int

    def __init__(self, value: str | builtins.bytes | ULID | None = None) -> None:
        """``ULID()``: a fresh id from :data:`default_generator`, monotonic within the process
        (python-ulid's default: ids of one millisecond increase by one, so they are guessable
        from a neighbour; keys the library makes for uploads and items use :func:`new`, 80
        fresh random bits each, whatever generator is the default).
        ``ULID(text)`` parses 26 characters; ``ULID(data)`` reads 16 bytes (python-ulid's)."""
        if value is None:
            generator = default_generator
            if generator.__class__ is ULIDGenerator:
                _set_text(self, generator._text())
                return
            text = _generated_text(generator, None)
        elif isinstance(value, ULID):
            text = value._str
        elif isinstance(value, (builtins.bytes, bytearray, memoryview)):
            text = ULID.from_bytes(value)._str
        else:
            text = _canonical(value)
        object.__setattr__(self, "_str", text)

    @classmethod
    def _trusted(cls, text: str) -> ULID:
        """Wrap text already known to be canonical (internal fast path)."""
        instance = _new_instance(cls)
        _set_text(instance, text)
        return instance

    # constructors ------------------------------------------------------------------------
    @classmethod
    def new(cls, at: TimeInput | None = None) -> ULID:
        """A fresh ULID for now, or for the time ``at`` (aware datetime, epoch ms, ISO text)."""
        if at is None:
            return cls._trusted(new())
        return cls._trusted(base32.encode_time(to_ms(at, "at")) + _next_tail())

    @classmethod
    def parse(cls, value: Any) -> ULID:
        """A ULID from whatever holds one: 26 characters of Crockford base32 (case-insensitive;
        stored uppercase), a UUID (``uuid.UUID`` or its 36 characters), 32 hex digits, 16
        bytes, a ULID's int (37 digits, as today's have; any other int is a time in ms, as
        python-ulid reads it), a float of seconds, a datetime, or an id object of another
        library (python-ulid, uuid6, uuid_utils: read through ``.bytes``). A time (an int of
        ms, a float, a datetime) gives a new id of that time, with a fresh random part on every
        call, as python-ulid's does; a pydantic field refuses times for that reason."""
        if isinstance(value, str):
            if len(value) == 26:
                return cls._trusted(_canonical(value))
            if len(value) == 36:
                return cls.from_uuid(_uuid_text(value))
            if len(value) == 32:
                return cls.from_hex(value)
            return cls._trusted(_canonical(value))  # the error names the length
        if isinstance(value, ULID):
            return value
        if isinstance(value, uuid.UUID):
            return cls.from_uuid(value)
        if isinstance(value, builtins.int) and not isinstance(value, bool):
            if _INT_LOW <= value < _INT_LOW * 10:  # 37 digits, without str() of a huge int
                return cls.from_int(value)
            return cls.from_timestamp(value)
        if isinstance(value, float):
            return cls.from_timestamp(value)
        if isinstance(value, datetime):
            return cls.from_datetime(value)
        if isinstance(value, (builtins.bytes, bytearray, memoryview)):
            return cls.from_bytes(value)
        data = getattr(value, "bytes", None)
        if isinstance(data, builtins.bytes) and len(data) == 16:
            return cls.from_bytes(data)  # python-ulid, uuid6, uuid_utils values
        raise InvalidType(
            f"{describe(value)} has type {type(value).__name__}; a ULID is parsed from str, "
            "bytes, int, float, datetime, uuid.UUID or an id object holding 16 bytes"
        )

    @classmethod
    def from_str(cls, string: str) -> ULID:
        """python-ulid's name for parsing 26 characters (:meth:`parse` takes any form)."""
        if not isinstance(string, str):
            raise InvalidType(f"string={describe(string)} must be a str")
        return cls._trusted(_canonical(string))

    @classmethod
    def from_hex(cls, value: str) -> ULID:
        """The ULID of 32 hex digits (:attr:`hex`)."""
        if not isinstance(value, str):
            raise InvalidType(f"value={describe(value)} must be a str of 32 hex digits")
        try:
            data = builtins.bytes.fromhex(value)
        except ValueError:
            raise InvalidULID(
                f"{describe(value)} is not a valid ULID: expected 32 hex digits"
            ) from None
        return cls.from_bytes(data)

    @classmethod
    def from_timestamp(cls, value: builtins.int | float) -> ULID:
        """A new ULID of a time from :data:`default_generator`: an int is epoch milliseconds,
        a float epoch seconds (as ``time.time()`` gives; floored to the millisecond, so a time
        before the epoch is refused), python-ulid's reading of each."""
        if isinstance(value, bool) or not isinstance(value, (builtins.int, float)):
            raise InvalidType(f"value={describe(value)} must be an int (ms) or a float (seconds)")
        return cls._trusted(_generated_text(default_generator, _timestamp_ms(value, "value")))

    @classmethod
    def from_datetime(cls, value: datetime) -> ULID:
        """A new ULID of an aware datetime from :data:`default_generator` (a naive one is
        refused: ulidkeys never guesses the local timezone, where python-ulid would)."""
        if not isinstance(value, datetime):
            raise InvalidType(f"value={describe(value)} must be a datetime")
        return cls._trusted(_generated_text(default_generator, datetime_to_ms(value, "value")))

    @classmethod
    def from_uuid7(cls, value: uuid.UUID) -> ULID:
        """The ULID of a UUIDv7 made by :meth:`to_uuid7` (all 128 bits kept: the same time,
        and the version/variant bits as part of the randomness)."""
        return cls.from_uuid(value)

    @classmethod
    def from_bytes(cls, data: bytes | bytearray | memoryview) -> ULID:
        """The ULID of 16 big-endian bytes."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise InvalidType(f"data={describe(data)} must be bytes, not {type(data).__name__}")
        if isinstance(data, memoryview) and data.format not in ("B", "b", "c"):
            # a view of 16-bit or wider items would count items, not bytes, and read them in
            # the machine's byte order: refuse rather than guess
            raise InvalidType(
                f"data is a memoryview of format {data.format!r} (items of {data.itemsize} "
                "bytes); pass bytes, or a memoryview of bytes (format 'B'), holding 16 bytes"
            )
        if isinstance(data, memoryview) and (data.ndim != 1 or not data.c_contiguous):
            data = data.tobytes()
        if len(data) != 16:
            raise InvalidULID(
                f"{describe(bytes(data))} is not a valid ULID: expected 16 bytes, got {len(data)}"
            )
        return cls._trusted(base32.encode_ulid(int.from_bytes(data, "big")))

    @classmethod
    def from_int(cls, value: int) -> ULID:
        """The ULID of a 128-bit unsigned integer."""
        require_int(value, "value")
        if not 0 <= value <= _MAX_VALUE:
            raise InvalidULID(
                f"{describe(value)} is not a valid ULID: the integer must be in 0 .. 2**128 - 1"
            )
        return cls._trusted(base32.encode_ulid(value))

    @classmethod
    def from_uuid(cls, value: uuid.UUID) -> ULID:
        """The ULID with the same 128 bits as a UUID (the usual way to store ULIDs as UUIDs)."""
        if not isinstance(value, uuid.UUID):
            raise InvalidType(f"value={describe(value)} must be a uuid.UUID")
        return cls._trusted(base32.encode_ulid(value.int))

    @classmethod
    def min_for(cls, at: TimeInput) -> ULID:
        """The smallest ULID of the millisecond ``at`` (random part all zeros)."""
        return cls._trusted(base32.encode_time(to_ms(at, "at")) + "0" * 16)

    @classmethod
    def max_for(cls, at: TimeInput) -> ULID:
        """The largest ULID of the millisecond ``at`` (random part all ones)."""
        return cls._trusted(base32.encode_time(to_ms(at, "at")) + "Z" * 16)

    # conversions -------------------------------------------------------------------------
    def __str__(self) -> str:
        return self._str

    def __repr__(self) -> str:
        return f"ULID({self._str})"  # python-ulid's form

    def __int__(self) -> int:
        return base32.decode(self._str)

    def __bytes__(self) -> bytes:
        return self.bytes

    @property
    def int(self) -> builtins.int:
        """The 128-bit value."""
        return base32.decode(self._str)

    @property
    def bytes(self) -> builtins.bytes:
        """The 16 big-endian bytes."""
        return base32.decode(self._str).to_bytes(16, "big")

    @property
    def uuid(self) -> uuid.UUID:
        """The same 128 bits as a ``uuid.UUID`` (not a v4/v7 UUID: no version bits are set)."""
        return uuid.UUID(int=base32.decode(self._str))

    @property
    def hex(self) -> str:
        """32 lowercase hex digits of the value."""
        return f"{base32.decode(self._str):032x}"

    @property
    def timestamp_ms(self) -> builtins.int:
        """The Unix time in milliseconds held in the first 10 characters."""
        return base32.decode(self._str[:10])

    @property
    def milliseconds(self) -> builtins.int:
        """python-ulid's name for :attr:`timestamp_ms`."""
        return base32.decode(self._str[:10])

    @property
    def timestamp(self) -> float:
        """The Unix time in seconds (a float, as python-ulid gives it)."""
        return base32.decode(self._str[:10]) / 1000

    def to_uuid(self) -> _UUID:
        """The same 128 bits as a ``uuid.UUID`` (python-ulid's name for :attr:`uuid`)."""
        return uuid.UUID(int=base32.decode(self._str))

    def to_uuid4(self) -> _UUID:
        """A version-4 UUID of these bits (the version and variant bits overwritten: it does
        not convert back)."""
        return uuid.UUID(int=base32.decode(self._str), version=4)

    def to_uuid7(self, *, compliant: bool = False) -> _UUID:
        """The ULID as a UUIDv7, python-ulid's way: the same 48-bit time first; ``compliant``
        sets the version and variant bits (6 random bits lost), else all 80 random bits are
        kept and :meth:`from_uuid7` gives this ULID back."""
        value = base32.decode(self._str)
        if compliant:
            random = value & _RANDOM_MASK
            value = (
                (value >> 80 << 80)
                | (0x7 << 76)
                | ((random >> 68) & 0xFFF) << 64
                | (0b10 << 62)
                | (random & ((1 << 62) - 1))
            )
        return uuid.UUID(int=value)

    @property
    def datetime(self) -> datetime:
        """The time as an aware UTC datetime."""
        return ms_to_datetime(self.timestamp_ms)

    @property
    def randomness(self) -> builtins.int:
        """The 80-bit random part as an integer."""
        return base32.decode(self._str[10:])

    def as_dict(self) -> dict[str, builtins.int | str]:
        """Every form of the ULID (what ``ulidkeys inspect`` prints)."""
        return {
            "ulid": self._str,
            "timestamp_ms": self.timestamp_ms,
            "time": format_ms(self.timestamp_ms),
            "randomness": f"{self.randomness:020x}",
            "int": self.int,
            "hex": self.hex,
            "uuid": str(self.uuid),
        }

    # value semantics ---------------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ULID is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("ULID is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        if self.__class__ is ULID:
            return (ULID, (self._str,))
        # a subclass comes back as itself, with the attributes of its __dict__ if it has one
        return (self.__class__.from_str, (self._str,), getattr(self, "__dict__", None))

    def __hash__(self) -> builtins.int:
        # the hash of the bytes, as python-ulid's: equal values of both libraries share a
        # dict slot (comparing with str, int and bytes is exact, hashing can match only one).
        # Computed once: the bytes cost a base-32 decode.
        try:
            return self._hash
        except AttributeError:
            value = hash(self.bytes)
            object.__setattr__(self, "_hash", value)
            return value

    def _compare(self, other: object) -> builtins.int | None:
        """-1, 0 or 1 as this ULID sorts before, equal to or after ``other``, compared the way
        python-ulid compares: a ULID or an id object holding 16 bytes by value, a str by its
        exact text, an int by value, bytes bytewise; None for anything else."""
        mine: Any
        theirs: Any
        if isinstance(other, ULID):
            mine, theirs = self._str, other._str
        elif isinstance(other, str):
            mine, theirs = self._str, other
        elif isinstance(other, builtins.int) and not isinstance(other, bool):
            mine, theirs = base32.decode(self._str), other
        else:
            data = other if isinstance(other, builtins.bytes) else getattr(other, "bytes", None)
            if not isinstance(data, builtins.bytes) or (data is not other and len(data) != 16):
                return None
            mine, theirs = self.bytes, data
        return builtins.int(mine > theirs) - builtins.int(mine < theirs)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ULID):  # the common case, without the general path
            return self._str == other._str
        order = self._compare(other)
        return NotImplemented if order is None else order == 0

    def __ne__(self, other: object) -> bool:
        if isinstance(other, ULID):
            return self._str != other._str
        order = self._compare(other)
        return NotImplemented if order is None else order != 0

    def __lt__(self, other: object) -> bool:
        if isinstance(other, ULID):
            return self._str < other._str
        order = self._compare(other)
        return NotImplemented if order is None else order < 0

    def __le__(self, other: object) -> bool:
        if isinstance(other, ULID):
            return self._str <= other._str
        order = self._compare(other)
        return NotImplemented if order is None else order <= 0

    def __gt__(self, other: object) -> bool:
        if isinstance(other, ULID):
            return self._str > other._str
        order = self._compare(other)
        return NotImplemented if order is None else order > 0

    def __ge__(self, other: object) -> bool:
        if isinstance(other, ULID):
            return self._str >= other._str
        order = self._compare(other)
        return NotImplemented if order is None else order >= 0

    # pydantic v2 -------------------------------------------------------------------------
    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """A pydantic field of this type validates a ULID, its 26 characters, its 16 bytes, its
        128-bit int as :meth:`parse` reads one (37 digits), a ``uuid.UUID`` or another library's
        id object, and serializes to the text in JSON. A time (a float, a datetime, any other
        int) is refused: :meth:`parse` would make a new random id of it on every call."""
        from pydantic_core import core_schema  # pydantic is optional: only its users get here

        return core_schema.no_info_wrap_validator_function(
            cls._pydantic_validate,
            core_schema.union_schema(
                [
                    core_schema.is_instance_schema(ULID),
                    core_schema.no_info_plain_validator_function(ULID),
                    core_schema.str_schema(
                        pattern=rf"[0-7][{base32.ALPHABET}]{{25}}", min_length=26, max_length=26
                    ),
                    core_schema.bytes_schema(min_length=16, max_length=16),
                ]
            ),
            serialization=core_schema.to_string_ser_schema(when_used="json-unless-none"),
        )

    @classmethod
    def _pydantic_validate(cls, value: Any, handler: Any) -> Any:
        from pydantic_core import PydanticCustomError

        try:
            ulid = cls._validated(value)
        except (ValueError, TypeError) as error:
            raise PydanticCustomError(
                "ulid_format", "Unrecognized format: {error}", {"error": str(error)}
            ) from error
        return handler(ulid)

    @classmethod
    def _validated(cls, value: Any) -> ULID:
        """The one ULID ``value`` names, read as :meth:`parse` reads it (text: 26 characters
        only, python-ulid's pydantic rule); InvalidULID/InvalidType for a time, of which
        :meth:`parse` makes a fresh random id - validating must give the same value every time.
        """
        if isinstance(value, ULID):
            return value
        if isinstance(value, str):
            return cls.from_str(value)
        if isinstance(value, builtins.int) and not isinstance(value, bool):
            if _INT_LOW <= value < _INT_LOW * 10:
                return cls.from_int(value)
            raise InvalidULID(
                f"{describe(value)} is no ULID's 128-bit value as ULID.parse reads ints (37 "
                "digits, as every id made from March 1996 to February 2232 has); it reads any "
                "other int as a time in ms and makes a new random id of it, so a ULID field "
                "refuses it: pass the id's text, or ULID.from_int(n) for the id of that 128-bit "
                "value, or ULID.min_for(ms) / ULID.from_timestamp(ms) for an id of that time"
            )
        if isinstance(value, (float, datetime)):
            raise InvalidType(
                f"{describe(value)} is a time ({type(value).__name__}), not an id: "
                "ULID.parse would make a new random id of it on every call, so a ULID field "
                "refuses it. Pass the id (its 26 characters, 16 bytes, 128-bit int or a ULID), "
                "or make one first: ULID.min_for(t) (the smallest id of that time) or "
                "ULID.from_timestamp(t) / ULID.from_datetime(t) (a new random id of it)"
            )
        return cls.parse(value)  # bytes, uuid.UUID, id objects: each names one id


# The slot's own setter: about twice as fast as object.__setattr__ on the hot path.
_set_text = ULID.__dict__["_str"].__set__
_PAIRS = tuple(base32.encode_pair(value) for value in range(1024))  # 10 bits -> 2 characters
_new_instance = object.__new__


_UUID = uuid.UUID  # inside ULID, ``uuid`` names the property

#: Decimal digits of an int that ``parse`` reads as a ULID value (python-ulid's rule: the
#: length of today's ULIDs as ints); any other int is a time in milliseconds.
_INT_DIGITS = 37
_INT_LOW = 10 ** (_INT_DIGITS - 1)
_RANDOM_MASK = (1 << 80) - 1


def _uuid_text(text: str) -> uuid.UUID:
    try:
        return uuid.UUID(text)
    except ValueError:
        raise InvalidULID(f"{describe(text)} is not a valid ULID or UUID") from None


def _canonical(text: object) -> str:
    """Validate ULID text and return its uppercase form; raise InvalidULID naming the rule."""
    if not isinstance(text, str):
        raise InvalidType(
            f"{describe(text)} has type {type(text).__name__}; a ULID is parsed from str "
            "(use ULID.from_bytes / from_int / from_uuid for other forms)"
        )
    if len(text) != 26:
        raise InvalidULID(
            f"{describe(text)} is not a valid ULID: expected 26 characters, got {len(text)}"
        )
    if base32.decode(text) > _MAX_VALUE:
        raise InvalidULID(
            f"{describe(text)} is not a valid ULID: it exceeds the largest ULID {MAX_ULID} "
            "(the first character must be 0-7)"
        )
    return text.upper()


def parse_str(text: str) -> str:
    """Validate ULID text and return its canonical uppercase string."""
    return _canonical(text)


# --- monotonic state, generators and policies ---------------------------------------------
# python-ulid 4.1's generator API (ULIDGenerator and its policies) and ulidkeys' Monotonic are
# one implementation: BaseMonotonicPolicy holds the state (the last millisecond, its 80-bit
# random part and the text of its first 24 characters) and _step is the only code that
# steps it. Monotonic is a strict policy with a clock; ULIDGenerator pairs any policy with a
# clock and a randomness source and returns ULIDs.

#: python-ulid's randomness source: called with the millisecond, returns 10 random bytes.
RandomnessSource = Callable[[builtins.int], builtins.bytes]

#: The smallest and largest random part, as python-ulid spells them (10 bytes).
MIN_RANDOMNESS: Final = bytes(10)
MAX_RANDOMNESS: Final = b"\xff" * 10


def _default_randomness(_timestamp: builtins.int) -> builtins.bytes:
    """80 fresh bits from the OS CSPRNG (python-ulid's default source). A generator that uses
    it takes them from the shared buffer instead: the same CSPRNG bits, read in blocks."""
    return os.urandom(10)


def _random_text(source: RandomnessSource, ms: builtins.int) -> str:
    """The 16 characters of the 10 bytes that a randomness source returns for ``ms``."""
    data = source(ms)
    if not isinstance(data, builtins.bytes):
        raise InvalidType(
            f"the randomness source returned {describe(data)}, a {type(data).__name__}; "
            "it must return 10 bytes"
        )
    if len(data) != 10:
        raise InvalidULID(
            f"the randomness source returned {describe(data)}: {len(data)} bytes, where a "
            "ULID's random part is 10 bytes (80 bits)"
        )
    return base32.encode_random(builtins.int.from_bytes(data, "big"))


def _timestamp_ms(value: Any, name: str = "timestamp") -> builtins.int:
    """Epoch milliseconds of a timestamp as python-ulid's generators read one: an int is
    milliseconds, a float seconds (floored to the millisecond), a datetime must be aware."""
    if isinstance(value, datetime):
        return datetime_to_ms(value, name)
    if isinstance(value, bool) or not isinstance(value, (builtins.int, float)):
        raise InvalidType(
            f"{name}={describe(value)} must be an int (ms), a float (seconds) or a datetime, "
            f"not {type(value).__name__}"
        )
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise InvalidTime(f"{name}={value!r} is not a time in seconds")
        # floored, not truncated: -0.0005 s is before the epoch, not the epoch itself
        ms = math.floor(value * 1000)
    else:
        ms = value
    if ms > MAX_MS:
        raise TimeOutOfRange(
            f"Value exceeds maximum possible timestamp: {name}={describe(value)} is past the "
            f"48-bit millisecond limit of a ULID ({MAX_MS} ms, 10889-08-02T05:31:50.655Z)"
        )
    if ms < 0:
        raise TimeOutOfRange(
            f"{name}={describe(value)} is before the Unix epoch (millisecond {ms}); ULID times "
            "start at 1970-01-01T00:00:00Z"
        )
    return ms


def _clock_ms(clock: Callable[[], builtins.int]) -> builtins.int:
    """A clock's reading, checked: an int of epoch milliseconds a ULID can carry."""
    ms = clock()
    if ms.__class__ is not builtins.int or ms < 0:  # a float or bool would break the order
        require_int(ms, "clock()", "epoch milliseconds as an int")
        check_ms(ms, "clock()")
    return ms


@runtime_checkable
class MonotonicityPolicy(Protocol):
    """python-ulid's policy protocol: how a generator resolves the random part of an id."""

    def resolve_randomness(
        self, timestamp: builtins.int, randomness_source: RandomnessSource
    ) -> builtins.bytes:
        """The 10 random bytes of an id of millisecond ``timestamp``."""
        ...


_monotonic_states: weakref.WeakSet[BaseMonotonicPolicy] = weakref.WeakSet()


class BaseMonotonicPolicy(abc.ABC):
    """Monotonic state: ids of one millisecond are the previous + 1 in the random part.

    The state is the last id issued (``prev_timestamp``, ``prev_randomness`` as python-ulid
    names them). A new millisecond of the clock draws fresh randomness; a clock reading
    earlier than the state keeps the later millisecond and increments, so order holds when
    the clock steps back. An explicit timestamp (``generate(t)``, ``ULID.from_timestamp``)
    increments when it is the state's millisecond and otherwise gets fresh randomness without
    moving the state, so a far past or future time never drags ``ULID()`` along. What happens
    when the 80 bits of one millisecond run out is the subclass's :meth:`_on_overflow`. The
    state is reset in a forked child, so child and parent never continue one sequence.
    """

    def __init__(self) -> None:
        # reentrant: a batch holds it across many steps, and each step takes it too
        self._lock = threading.RLock()
        self._reset()
        _monotonic_states.add(self)

    def _reset(self) -> None:
        self._ms = -1  # millisecond of the last id issued (-1: none yet)
        self._random = 0  # its 80-bit random part
        self._head = ""  # its first 24 characters (time + 14 random)

    def _after_fork(self) -> None:
        self._lock = threading.RLock()  # another thread may have held it at fork time
        self._reset()

    def _set_last(self, text: str) -> None:
        self._ms = base32.decode(text[:10])
        self._random = base32.decode(text[10:])
        self._head = text[:24]

    @property
    def prev_timestamp(self) -> builtins.int:
        """The millisecond of the last id (python-ulid's ``MIN_TIMESTAMP``, 0, before any)."""
        return max(self._ms, 0)

    @prev_timestamp.setter
    def prev_timestamp(self, value: builtins.int) -> None:
        ms = check_ms(require_int(value, "prev_timestamp"), "prev_timestamp")
        with self._lock:
            self._set_last(base32.encode_time(ms) + base32.encode_random(self._random))

    @property
    def prev_randomness(self) -> builtins.bytes:
        """The random part of the last id as 10 bytes (python-ulid's form)."""
        return self._random.to_bytes(10, "big")

    @prev_randomness.setter
    def prev_randomness(self, value: builtins.bytes) -> None:
        if not isinstance(value, builtins.bytes):
            raise InvalidType(f"prev_randomness={describe(value)} must be 10 bytes")
        if len(value) != 10:
            raise InvalidULID(f"prev_randomness={describe(value)} must be 10 bytes")
        random = builtins.int.from_bytes(value, "big")
        with self._lock:
            self._set_last(base32.encode_time(max(self._ms, 0)) + base32.encode_random(random))

    def _step(
        self,
        ms: builtins.int | None = None,
        source: RandomnessSource | None = None,
        clocked: bool = True,
    ) -> str:
        """The next id's text: the only code that steps monotonic state.

        ``ms`` is a checked millisecond, or None for the system clock (``ULID()``'s path, kept
        to one call); ``source`` None means the shared CSPRNG buffer; ``clocked`` says ``ms``
        is a clock reading (see the class docstring for what an explicit time does).
        """
        if ms is None:
            ms = time.time_ns() // 1_000_000  # looked up per call: freezegun's clock works
        with self._lock:
            last = self._ms
            if ms > last if clocked else ms != last:
                text = base32.encode_time(ms) + (
                    _next_tail() if source is None else _random_text(source, ms)
                )
                if clocked:
                    self._ms = ms
                    self._random = base32.decode(text[10:])
                    self._head = text[:24]
                return text
            random = self._random + 1
            if random > _MAX_RANDOM:
                fresh = self._on_overflow(last, source or _default_randomness)
                text = base32.encode_time(last) + _random_text(lambda _ms: fresh, last)
                self._set_last(text)
                return text
            self._random = random
            if random & 0x3FF:
                return self._head + _PAIRS[random & 0x3FF]
            text = base32.encode_time(last) + base32.encode_random(random)
            self._head = text[:24]
            return text

    def resolve_randomness(
        self, timestamp: builtins.int, randomness_source: RandomnessSource
    ) -> builtins.bytes:
        """python-ulid's policy method: the 10 random bytes of the next id of ``timestamp``
        (an explicit time: it increments when it is the state's millisecond)."""
        ms = check_ms(require_int(timestamp, "timestamp"), "timestamp")
        source = None if randomness_source is _default_randomness else randomness_source
        text = self._step(ms, source, clocked=False)
        return base32.decode(text[10:]).to_bytes(10, "big")

    @abc.abstractmethod
    def _on_overflow(
        self, timestamp: builtins.int, randomness_source: RandomnessSource
    ) -> builtins.bytes:
        """The random part to use when millisecond ``timestamp`` has no +1 left (or raise)."""


class StrictMonotonicPolicy(BaseMonotonicPolicy):
    """The default: ids of one millisecond are +1 each; running out of them raises
    :class:`~ulidkeys.errors.MonotonicOverflow` (a ValueError, as python-ulid's) - the ULID
    spec's rule: never wrap, which would break order."""

    def _on_overflow(
        self, timestamp: builtins.int, randomness_source: RandomnessSource
    ) -> builtins.bytes:
        raise MonotonicOverflow(
            "Randomness within same millisecond exhausted: all 2**80 random values of "
            f"millisecond {timestamp} are used; wait for the next millisecond, use "
            "LaxMonotonicPolicy, or ulidkeys.new()"
        )


class LaxMonotonicPolicy(BaseMonotonicPolicy):
    """Ids of one millisecond are +1 each; when they run out, fresh randomness is drawn
    instead of raising (that id may sort before the previous one)."""

    def _on_overflow(
        self, timestamp: builtins.int, randomness_source: RandomnessSource
    ) -> builtins.bytes:
        return randomness_source(timestamp)


class PureRandomPolicy:
    """No monotonic state: every id gets fresh randomness (ids of one millisecond are in no
    particular order, and none can be guessed from another)."""

    def resolve_randomness(
        self, timestamp: builtins.int, randomness_source: RandomnessSource
    ) -> builtins.bytes:
        """Fresh random bytes for every id."""
        return randomness_source(timestamp)


_generators: weakref.WeakSet[ULIDGenerator] = weakref.WeakSet()


class ULIDGenerator:
    """python-ulid 4.1's generator: a clock, a randomness source and a policy, thread-safe.

    ``clock`` returns epoch milliseconds (default: the system clock); ``randomness`` is called
    with the millisecond and returns 10 bytes (default: the OS CSPRNG); ``policy`` resolves
    ids of one millisecond (default: :class:`StrictMonotonicPolicy`). Generators do not
    share state unless given one policy object. The built-in policies step the library's own
    monotonic state (the one :class:`Monotonic` uses); any object with python-ulid's
    ``resolve_randomness`` method works as a policy too.
    """

    def __init__(
        self,
        clock: Callable[[], builtins.int] | None = None,
        randomness: RandomnessSource | None = None,
        policy: MonotonicityPolicy | None = None,
    ) -> None:
        self.lock = threading.Lock()
        self._clock: Callable[[], builtins.int] = clock or now_ms
        self._source: RandomnessSource = randomness or _default_randomness
        self._policy: MonotonicityPolicy = StrictMonotonicPolicy() if policy is None else policy
        self._text: Callable[[], str] = self._choose()
        _generators.add(self)

    # python-ulid's attributes; a change re-chooses the fast path ------------------------
    @property
    def clock(self) -> Callable[[], builtins.int]:
        """The clock: a callable returning epoch milliseconds."""
        return self._clock

    @clock.setter
    def clock(self, value: Callable[[], builtins.int]) -> None:
        self._clock = value
        self._text = self._choose()

    @property
    def randomness_source(self) -> RandomnessSource:
        """The randomness source: called with the millisecond, returns 10 bytes."""
        return self._source

    @randomness_source.setter
    def randomness_source(self, value: RandomnessSource) -> None:
        self._source = value
        self._text = self._choose()

    @property
    def policy(self) -> MonotonicityPolicy:
        """The policy that resolves ids of one millisecond."""
        return self._policy

    @policy.setter
    def policy(self, value: MonotonicityPolicy) -> None:
        self._policy = value
        self._text = self._choose()

    def _choose(self) -> Callable[[], str]:
        """The fastest correct way to make the next id's text for the clock."""
        stepped = self._stepped()
        if (
            isinstance(stepped, BaseMonotonicPolicy)
            and self._clock is now_ms
            and self._source is _default_randomness
        ):
            return stepped._step  # ULID()'s path: one call steps the state on the system clock
        return self._clock_text

    def _stepped(self) -> BaseMonotonicPolicy | PureRandomPolicy | None:
        """The policy if it is a built-in one (its state is stepped directly), else None."""
        policy = self._policy
        method = getattr(type(policy), "resolve_randomness", None)
        if isinstance(policy, BaseMonotonicPolicy):
            return policy if method is BaseMonotonicPolicy.resolve_randomness else None
        if isinstance(policy, PureRandomPolicy):
            return policy if method is PureRandomPolicy.resolve_randomness else None
        return None

    def _clock_text(self) -> str:
        return self._text_for(_clock_ms(self._clock), True)

    def _text_for(self, ms: builtins.int, clocked: bool) -> str:
        """The next id's text for millisecond ``ms`` (checked)."""
        stepped = self._stepped()
        source = None if self._source is _default_randomness else self._source
        if isinstance(stepped, BaseMonotonicPolicy):
            return stepped._step(ms, source, clocked)
        if stepped is not None:
            return base32.encode_time(ms) + (
                _next_tail() if source is None else _random_text(source, ms)
            )
        with self.lock:  # a policy of the user's: python-ulid's protocol, under our lock
            data = self._policy.resolve_randomness(ms, self._source)
        return base32.encode_time(ms) + _random_text(lambda _ms: data, ms)

    def generate(self, timestamp: builtins.int | float | datetime | None = None) -> ULID:
        """The next :class:`ULID`: of the clock's millisecond, or of ``timestamp`` (an int is
        milliseconds, a float seconds, a datetime must be aware)."""
        if timestamp is None:
            return ULID._trusted(self._text())
        return ULID._trusted(self._text_for(_timestamp_ms(timestamp), False))


def _generated_text(generator: Any, ms: builtins.int | None) -> str:
    """The text of the next id of ``generator`` (a :class:`ULIDGenerator`, or any object
    with python-ulid's ``generate(timestamp)``), for the clock or for ``ms``."""
    if isinstance(generator, ULIDGenerator) and type(generator).generate is ULIDGenerator.generate:
        return generator._text() if ms is None else generator._text_for(ms, False)
    made = generator.generate() if ms is None else generator.generate(ms)
    return ULID.parse(made)._str if not isinstance(made, ULID) else made._str


class Monotonic:
    """A thread-safe monotonic ULID generator (the ULID spec's monotonic mode), text out.

    Within one millisecond each id is the previous one + 1 in the random part, so ids from one
    generator strictly increase. If the clock goes backwards the generator keeps the later
    millisecond and keeps incrementing, so order holds. When the 80-bit random part would
    overflow inside one millisecond it raises :class:`MonotonicOverflow` (spec behaviour)
    rather than wrap. In a forked child the generator starts over from fresh random bits, so
    child and parent never issue the same id. Its state is a :class:`StrictMonotonicPolicy`:
    the same code steps ``ULIDGenerator``'s.

    ``after`` resumes after a known id (for example the last one persisted); ``clock`` is a
    function returning epoch milliseconds (tests use it to freeze time).
    """

    def __init__(
        self, after: str | ULID | None = None, clock: Callable[[], builtins.int] | None = None
    ) -> None:
        self._clock = clock or now_ms
        self._state = StrictMonotonicPolicy()
        if after is not None:
            self._state._set_last(after._str if isinstance(after, ULID) else _canonical(after))

    def __call__(self) -> str:
        """The next id as a string."""
        clock = self._clock
        return self._state._step(None if clock is now_ms else _clock_ms(clock))

    def ulid(self) -> ULID:
        """The next id as a :class:`ULID`."""
        return ULID._trusted(self())

    def batch(self, n: builtins.int) -> list[str]:
        """``n`` strictly increasing ids, made under one lock hold so no other call interleaves."""
        _check_count(n)
        with self._state._lock:  # reentrant: each step takes it again, no one else can
            return [self() for _ in range(n)]


#: The process-wide monotonic generator behind :func:`monotonic`, ``batch(monotonic=True)``
#: and (through :data:`default_generator`, which shares its state) ``ULID()``.
_default_monotonic = Monotonic()

#: python-ulid's module-level generator: ``ULID()`` and ``ULID.from_timestamp`` /
#: ``from_datetime`` / ``parse`` of a time draw from it. Reassign it (``ulidkeys.ulid.
#: default_generator = ULIDGenerator(policy=LaxMonotonicPolicy())``) to route them through
#: another clock, randomness or policy; the keys the library makes (``ulidkeys.new()``,
#: ``layout.new_key()``, entities) never use it: they take 80 fresh random bits each.
default_generator: ULIDGenerator = ULIDGenerator(policy=_default_monotonic._state)


def monotonic() -> str:
    """The next id of the process-wide monotonic generator."""
    return _default_monotonic()


def _after_fork_in_child() -> None:
    global _tails, _prefix_cache
    _tails = iter(())
    _prefix_cache = (-1, "")
    for state in list(_monotonic_states):
        state._after_fork()
    for generator in list(_generators):
        generator.lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
