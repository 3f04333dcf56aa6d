"""ULIDs: the immutable ``ULID`` value, and fast generation (plain, batch, monotonic).

Imports the standard library only. This module holds the value and the generators that return
it (``ULIDGenerator``, ``Monotonic``); the text they make, the monotonic state, python-ulid's
policies, the buffer of random bits from ``os.urandom`` (the OS CSPRNG) and their reset in a
forked child are :mod:`ulidkeys.ulid.generation`'s, :mod:`~ulidkeys.ulid.policies`'s and
:mod:`~ulidkeys.ulid.randomness`'s. Users import all of it from ``ulidkeys`` (``ULID``,
``new``, ``batch``, ...); what this module offers of its own is python-ulid's module global:

- :data:`default_generator`: the process-wide generator ``ULID()`` draws from (python-ulid's
  ``ulid.default_generator``; set it here, in the module that defines ``ULID``).
"""

from __future__ import annotations

import builtins
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any, cast

from ulidkeys import base32
from ulidkeys.errors import InvalidType, describe
from ulidkeys.timeinput import (
    TimeInput,
    datetime_to_ms,
    format_ms,
    ms_to_datetime,
    now_ms,
    to_ms,
)
from ulidkeys.ulid.forms import (
    canonical,
    id_text,
    pydantic_schema,
    text_of_bytes,
    text_of_hex,
    text_of_int,
    text_of_uuid,
    uuid7_int,
)
from ulidkeys.ulid.generation import (
    TextGenerator,
    check_count,
    clock_ms,
    timestamp_ms,
)
from ulidkeys.ulid.policies import (
    MonotonicityPolicy,
    StrictMonotonicPolicy,
    process_state,
)
from ulidkeys.ulid.randomness import (
    RandomnessSource,
    new,
    next_tail,
)

__all__ = ["default_generator"]


# --- the value type -----------------------------------------------------------------------


class ULID:
    """An immutable, hashable, totally ordered ULID.

    Stored as its canonical (uppercase) 26-character text, which orders exactly like the
    128-bit value. Construct with :meth:`new`, :meth:`parse` (or ``ULID(text)``),
    :meth:`from_bytes`, :meth:`from_int`, :meth:`from_uuid`, :meth:`min_for`, :meth:`max_for`.
    """

    # Immutable as ipaddress values: no attribute can be set, deleted or added. The private slots
    # have no __setattr__ guard: ULID() would set its text by a setter call, a sixth of its time.
    # __weakref__: python-ulid's values can be weakly referenced, so these can too.
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
            # a ULIDGenerator's next text (checking its class would cost a tenth of the time)
            try:
                next_text = default_generator._next_text
            except AttributeError:  # an object of python-ulid's protocol (generate()) only
                text = _generated_text(default_generator, None)
            else:
                self._str = next_text()
                return
        elif isinstance(value, ULID):
            text = value._str
        elif isinstance(value, (builtins.bytes, bytearray, memoryview)):
            text = ULID.from_bytes(value)._str
        else:
            text = canonical(value)
        self._str = text

    @classmethod
    def _trusted(cls, text: str) -> ULID:
        """Wrap text already known to be canonical (internal fast path)."""
        instance = _new_instance(cls)
        instance._str = text
        return instance

    # constructors ------------------------------------------------------------------------
    @classmethod
    def new(cls, at: TimeInput | None = None) -> ULID:
        """A fresh ULID for now, or for the time ``at`` (aware datetime, epoch ms, ISO text)."""
        if at is None:
            return cls._trusted(new())
        return cls._trusted(base32.encode_time(to_ms(at, "at")) + next_tail())

    @classmethod
    def parse(cls, value: Any) -> ULID:
        """A ULID from whatever holds one: 26 characters of Crockford base32 (case-insensitive;
        stored uppercase), a UUID (``uuid.UUID`` or its 36 characters), 32 hex digits, 16
        bytes, a ULID's int (37 digits, as today's have; any other int is a time in ms, as
        python-ulid reads it), a float of seconds, a datetime, or an id object of another
        library (python-ulid, uuid6, uuid_utils: read through ``.bytes``). A time (an int of
        ms, a float, a datetime) gives a new id of that time, with a fresh random part on every
        call, as python-ulid's does; a pydantic field refuses times for that reason."""
        if isinstance(value, ULID):
            return value
        text = id_text(value)
        if text is not None:
            return cls._trusted(text)
        if isinstance(value, datetime):
            return cls.from_datetime(value)
        return cls.from_timestamp(value)

    @classmethod
    def from_str(cls, string: str) -> ULID:
        """python-ulid's name for parsing 26 characters (:meth:`parse` takes any form)."""
        if not isinstance(string, str):
            raise InvalidType(f"string={describe(string)} must be a str")
        return cls._trusted(canonical(string))

    @classmethod
    def from_hex(cls, value: str) -> ULID:
        """The ULID of 32 hex digits (:attr:`hex`)."""
        return cls._trusted(text_of_hex(value))

    @classmethod
    def from_timestamp(cls, value: builtins.int | float) -> ULID:
        """A new ULID of a time from :data:`default_generator`: an int is epoch milliseconds,
        a float epoch seconds (as ``time.time()`` gives; floored to the millisecond, so a time
        before the epoch is refused), python-ulid's reading of each."""
        if isinstance(value, bool) or not isinstance(value, (builtins.int, float)):
            raise InvalidType(f"value={describe(value)} must be an int (ms) or a float (seconds)")
        return cls._trusted(_generated_text(default_generator, timestamp_ms(value, "value")))

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
        return cls._trusted(text_of_bytes(data))

    @classmethod
    def from_int(cls, value: int) -> ULID:
        """The ULID of a 128-bit unsigned integer."""
        return cls._trusted(text_of_int(value))

    @classmethod
    def from_uuid(cls, value: uuid.UUID) -> ULID:
        """The ULID with the same 128 bits as a UUID (the usual way to store ULIDs as UUIDs)."""
        return cls._trusted(text_of_uuid(value))

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
        return uuid.UUID(int=uuid7_int(base32.decode(self._str), compliant))

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
            value = self._hash = hash(self.bytes)
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
        return pydantic_schema(ULID, cls._validated)

    @classmethod
    def _validated(cls, value: Any) -> ULID:
        """The one ULID ``value`` names, read as :meth:`parse` reads it (text: 26 characters
        only, python-ulid's pydantic rule); InvalidULID/InvalidType for a time, of which
        :meth:`parse` makes a fresh random id - validating must give the same value every time.
        """
        if isinstance(value, ULID):
            return value
        return cls._trusted(cast(str, id_text(value, strict=True)))  # never None when strict


_new_instance = object.__new__


_UUID = uuid.UUID  # inside ULID, ``uuid`` names the property


class ULIDGenerator(TextGenerator):
    """python-ulid 4.1's generator: a clock, a randomness source and a policy, thread-safe.

    ``clock`` returns epoch milliseconds (default: the system clock); ``randomness`` is called
    with the millisecond and returns 10 bytes (default: the OS CSPRNG); ``policy`` resolves
    ids of one millisecond (default: :class:`StrictMonotonicPolicy`). Generators do not
    share state unless given one policy object. The built-in policies step the library's own
    monotonic state (the one :class:`Monotonic` uses); any object with python-ulid's
    ``resolve_randomness`` method works as a policy too. Its clock, randomness source and
    policy (python-ulid's attributes) and the text of its ids are
    :class:`~ulidkeys.ulid.generation.TextGenerator`'s.
    """

    def __init__(
        self,
        clock: Callable[[], builtins.int] | None = None,
        randomness: RandomnessSource | None = None,
        policy: MonotonicityPolicy | None = None,
    ) -> None:
        # python-ulid's signature, here so that it is this class's (and its reference's)
        super().__init__(clock, randomness, policy)

    def generate(self, timestamp: builtins.int | float | datetime | None = None) -> ULID:
        """The next :class:`ULID`: of the clock's millisecond, or of ``timestamp`` (an int is
        milliseconds, a float seconds, a datetime must be aware)."""
        if timestamp is None:
            return ULID._trusted(self._text())
        return ULID._trusted(self._text_for(timestamp_ms(timestamp), False))

    def _choose_text(self) -> None:
        """Also set ``_next_text``, what ``ULID()`` calls for its text: through a subclass's
        own :meth:`generate` if it has one."""
        super()._choose_text()
        overridden = type(self).generate is not ULIDGenerator.generate
        self._next_text = self._text_of_generate if overridden else self._text

    def _text_of_generate(self) -> str:
        return _generated_text(self, None)


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
            self._state._set_last(after._str if isinstance(after, ULID) else canonical(after))

    def __call__(self) -> str:
        """The next id as a string."""
        clock = self._clock
        return self._state._step(None if clock is now_ms else clock_ms(clock))

    def ulid(self) -> ULID:
        """The next id as a :class:`ULID`."""
        return ULID._trusted(self())

    def batch(self, n: builtins.int) -> list[str]:
        """``n`` strictly increasing ids (each the previous + 1, unless another thread takes an
        id of this generator meanwhile: that id falls between two of them)."""
        check_count(n)
        return [self() for _ in range(n)]


#: python-ulid's module-level generator: ``ULID()`` and ``ULID.from_timestamp`` /
#: ``from_datetime`` / ``parse`` of a time draw from it. Reassign it (``ulidkeys.ulid.
#: default_generator = ULIDGenerator(policy=LaxMonotonicPolicy())``) to route them through
#: another clock, randomness or policy; the keys the library makes (``ulidkeys.new()``,
#: ``layout.new_key()``, entities) never use it: they take 80 fresh random bits each.
default_generator: ULIDGenerator = ULIDGenerator(policy=process_state)
