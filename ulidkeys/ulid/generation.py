"""Making ULID text: the shared buffer of random tails, the monotonic state and python-ulid's
policies that step it, and the state's reset in a forked child. Text and ints only: the
``ULID`` value, and the generators that return it (``ULIDGenerator``, ``Monotonic``), are
:mod:`ulidkeys.ulid`'s, built on this.

Randomness comes from ``os.urandom`` (the OS CSPRNG), read in blocks and handed out 80 bits
per id; the buffer is dropped in a forked child, so parent and child never share random bits.
"""

from __future__ import annotations

import abc
import itertools
import math
import os
import threading
import time
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
from ulidkeys.timeinput import MAX_MS, check_ms, datetime_to_ms, now_ms

#: The most ids one ``batch`` call returns: a list of a million ids is ~80 MiB; more is a
#: stream, made by calling again (a monotonic generator stays increasing across calls).
MAX_BATCH: Final = 1_000_000

_MAX_RANDOM = (1 << 80) - 1
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


def next_tail() -> str:
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


def check_count(n: int) -> None:
    """``n`` as a batch size: an int from 0 to :data:`MAX_BATCH`."""
    require_int(n, "n")
    if n < 0:
        raise InvalidULID(f"n={describe(n)}: a batch size cannot be negative")
    if n > MAX_BATCH:
        raise InvalidULID(
            f"n={describe(n)}: a batch holds at most {MAX_BATCH:,} ids (call batch again for more;"
            " a monotonic generator stays increasing across calls)"
        )


_PAIRS = tuple(base32.encode_pair(value) for value in range(1024))  # 10 bits -> 2 characters

# --- monotonic state, generators and policies ---------------------------------------------
# python-ulid 4.1's generator API (ULIDGenerator and its policies) and ulidkeys' Monotonic are
# one implementation: BaseMonotonicPolicy holds the state (the last millisecond, its 80-bit
# random part and the text of its first 24 characters) and _step is the only code that
# steps it. Monotonic is a strict policy with a clock; ULIDGenerator pairs any policy with a
# clock and a randomness source and returns ULIDs.

#: python-ulid's randomness source: called with the millisecond, returns 10 random bytes.
RandomnessSource = Callable[[int], bytes]

#: The smallest and largest random part, as python-ulid spells them (10 bytes).
MIN_RANDOMNESS: Final = bytes(10)
MAX_RANDOMNESS: Final = b"\xff" * 10


def default_randomness(_timestamp: int) -> bytes:
    """80 fresh bits from the OS CSPRNG (python-ulid's default source). A generator that uses
    it takes them from the shared buffer instead: the same CSPRNG bits, read in blocks."""
    return os.urandom(10)


def random_text(source: RandomnessSource, ms: int) -> str:
    """The 16 characters of the 10 bytes that a randomness source returns for ``ms``."""
    data = source(ms)
    if not isinstance(data, bytes):
        raise InvalidType(
            f"the randomness source returned {describe(data)}, a {type(data).__name__}; "
            "it must return 10 bytes"
        )
    if len(data) != 10:
        raise InvalidULID(
            f"the randomness source returned {describe(data)}: {len(data)} bytes, where a "
            "ULID's random part is 10 bytes (80 bits)"
        )
    return base32.encode_random(int.from_bytes(data, "big"))


def timestamp_ms(value: Any, name: str = "timestamp") -> int:
    """Epoch milliseconds of a timestamp as python-ulid's generators read one: an int is
    milliseconds, a float seconds (floored to the millisecond), a datetime must be aware."""
    if isinstance(value, datetime):
        return datetime_to_ms(value, name)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidType(
            f"{name}={describe(value)} must be an int (ms), a float (seconds) or a datetime, "
            f"not {type(value).__name__}"
        )
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise InvalidTime(f"{name}={value!r} is not a time in seconds")
        # clamped first (value * 1000 of a huge float is inf); floored, not truncated:
        # -0.0005 s is before the epoch, not the epoch itself
        ms = math.floor(min(max(value, -float(MAX_MS)), float(MAX_MS)) * 1000)
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


def clock_ms(clock: Callable[[], int]) -> int:
    """A clock's reading, checked: an int of epoch milliseconds a ULID can carry."""
    ms = clock()
    if ms.__class__ is not int or ms < 0:  # a float or bool would break the order
        require_int(ms, "clock()", "epoch milliseconds as an int")
        check_ms(ms, "clock()")
    return ms


@runtime_checkable
class MonotonicityPolicy(Protocol):
    """python-ulid's policy protocol: how a generator resolves the random part of an id."""

    def resolve_randomness(self, timestamp: int, randomness_source: RandomnessSource) -> bytes:
        """The 10 random bytes of an id of millisecond ``timestamp``."""
        ...


_monotonic_states: weakref.WeakSet[BaseMonotonicPolicy] = weakref.WeakSet()


class _Run:
    """One millisecond's run of monotonic ids, replaced whole (never edited but its cache).

    ``counter`` hands out the increments: ``next()`` on an ``itertools.count`` is one C call,
    atomic under the GIL, so two threads never get the same id and no lock is taken on the
    common path (a lock costs as much as the rest of the step). ``head`` caches the first 24
    characters of the current block of 1024 random values, as one tuple so that no reader
    sees a block paired with another block's text.
    """

    __slots__ = ("base", "counter", "head", "ms")

    def __init__(self, ms: int, base: int, head: str) -> None:
        self.ms = ms  # millisecond of the run (-1: no id yet)
        self.base = base  # the random part of its first id
        self.counter = itertools.count(1)
        self.head = (base >> 10, head)  # (block, its 24 characters)

    def last_random(self) -> int:
        """The random part of the last id issued from this run."""
        # the counter's repr is count(N), N the next increment: read without taking one
        return self.base + int(repr(self.counter)[6:-1]) - 1


_NO_RUN = (-1, 0, "")


class BaseMonotonicPolicy(abc.ABC):
    """Monotonic state: ids of one millisecond are the previous + 1 in the random part.

    The state is the run of the last millisecond (``prev_timestamp``, ``prev_randomness`` as
    python-ulid names the last id of it). A new millisecond of the clock draws fresh
    randomness; a clock reading earlier than the state keeps the later millisecond and
    increments, so order holds when the clock steps back. An explicit timestamp
    (``generate(t)``, ``ULID.from_timestamp``) increments when it is the state's millisecond
    and otherwise gets fresh randomness without moving the state, so a far past or future time
    never drags ``ULID()`` along. What happens when the 80 bits of one millisecond run out is
    the subclass's :meth:`_on_overflow`. The state is reset in a forked child, so child and
    parent never continue one sequence.

    Thread safety without a lock on the common path: increments come from the run's atomic
    counter; a new run is published under the lock and only ever for a later millisecond (or
    after an overflow), so every thread sees the state move forward. Ids are strictly
    increasing in the order the counter hands them out, and so within every thread.
    """

    def __init__(self) -> None:
        # taken only to start a run; reentrant: a step under it may start one
        self._lock = threading.RLock()
        self._run = _Run(*_NO_RUN)
        _monotonic_states.add(self)

    def _after_fork(self) -> None:
        self._lock = threading.RLock()  # another thread may have held it at fork time
        self._run = _Run(*_NO_RUN)

    def _set_last(self, text: str) -> None:
        """Make ``text`` the last id issued (a canonical ULID's text)."""
        self._run = _Run(base32.decode(text[:10]), base32.decode(text[10:]), text[:24])

    @property
    def prev_timestamp(self) -> int:
        """The millisecond of the last id (python-ulid's ``MIN_TIMESTAMP``, 0, before any)."""
        return max(self._run.ms, 0)

    @prev_timestamp.setter
    def prev_timestamp(self, value: int) -> None:
        ms = check_ms(require_int(value, "prev_timestamp"), "prev_timestamp")
        with self._lock:
            random = self._run.last_random()
            self._set_last(base32.encode_time(ms) + base32.encode_random(random))

    @property
    def prev_randomness(self) -> bytes:
        """The random part of the last id as 10 bytes (python-ulid's form)."""
        return self._run.last_random().to_bytes(10, "big")

    @prev_randomness.setter
    def prev_randomness(self, value: bytes) -> None:
        if not isinstance(value, bytes):
            raise InvalidType(f"prev_randomness={describe(value)} must be 10 bytes")
        if len(value) != 10:
            raise InvalidULID(f"prev_randomness={describe(value)} must be 10 bytes")
        random = int.from_bytes(value, "big")
        with self._lock:
            ms = max(self._run.ms, 0)
            self._set_last(base32.encode_time(ms) + base32.encode_random(random))

    def _step(
        self,
        ms: int | None = None,
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
        run = self._run
        if ms > run.ms if clocked else ms != run.ms:
            return self._fresh(ms, source, clocked)
        random = run.base + next(run.counter)
        block, head = run.head
        if random >> 10 == block:  # past the 80 bits, the block is never a cached one
            return head + _PAIRS[random & 0x3FF]
        return self._next_block(run, random, ms, source, clocked)

    def _fresh(self, ms: int, source: RandomnessSource | None, clocked: bool) -> str:
        """An id of fresh randomness for ``ms``; a clock reading starts a new run with it."""
        text = base32.encode_time(ms) + (next_tail() if source is None else random_text(source, ms))
        if not clocked:
            return text
        with self._lock:
            if ms > self._run.ms:
                self._run = _Run(ms, base32.decode(text[10:]), text[:24])
                return text
        # another thread started this millisecond's run (or a later one) first: join it
        return self._step(ms, source, clocked)

    def _next_block(
        self, run: _Run, random: int, ms: int, source: RandomnessSource | None, clocked: bool
    ) -> str:
        """The id of ``random`` in ``run`` when it starts a block of 1024 or overflows."""
        if random <= _MAX_RANDOM:
            text = base32.encode_time(run.ms) + base32.encode_random(random)
            run.head = (random >> 10, text[:24])
            return text
        with self._lock:
            if self._run is not run:  # another thread replaced the run first: step that one
                return self._step(ms, source, clocked)
            fresh = self._on_overflow(run.ms, source or default_randomness)
            text = base32.encode_time(run.ms) + random_text(lambda _ms: fresh, run.ms)
            self._set_last(text)
            return text

    def resolve_randomness(self, timestamp: int, randomness_source: RandomnessSource) -> bytes:
        """python-ulid's policy method: the 10 random bytes of the next id of ``timestamp``
        (an explicit time: it increments when it is the state's millisecond)."""
        ms = check_ms(require_int(timestamp, "timestamp"), "timestamp")
        source = None if randomness_source is default_randomness else randomness_source
        text = self._step(ms, source, clocked=False)
        return base32.decode(text[10:]).to_bytes(10, "big")

    @abc.abstractmethod
    def _on_overflow(self, timestamp: int, randomness_source: RandomnessSource) -> bytes:
        """The random part to use when millisecond ``timestamp`` has no +1 left (or raise)."""


class StrictMonotonicPolicy(BaseMonotonicPolicy):
    """The default: ids of one millisecond are +1 each; running out of them raises
    :class:`~ulidkeys.errors.MonotonicOverflow` (a ValueError, as python-ulid's) - the ULID
    spec's rule: never wrap, which would break order."""

    def _on_overflow(self, timestamp: int, randomness_source: RandomnessSource) -> bytes:
        raise MonotonicOverflow(
            "Randomness within same millisecond exhausted: all 2**80 random values of "
            f"millisecond {timestamp} are used; wait for the next millisecond, use "
            "LaxMonotonicPolicy, or ulidkeys.new()"
        )


class LaxMonotonicPolicy(BaseMonotonicPolicy):
    """Ids of one millisecond are +1 each; when they run out, fresh randomness is drawn
    instead of raising (that id may sort before the previous one)."""

    def _on_overflow(self, timestamp: int, randomness_source: RandomnessSource) -> bytes:
        return randomness_source(timestamp)


class PureRandomPolicy:
    """No monotonic state: every id gets fresh randomness (ids of one millisecond are in no
    particular order, and none can be guessed from another)."""

    def resolve_randomness(self, timestamp: int, randomness_source: RandomnessSource) -> bytes:
        """Fresh random bytes for every id."""
        return randomness_source(timestamp)


# --- a generator's next text: the fastest correct path for its policy, clock and source -----


def builtin_policy(policy: object) -> BaseMonotonicPolicy | PureRandomPolicy | None:
    """``policy`` if it is a built-in one (its state is stepped directly), else None."""
    method = getattr(type(policy), "resolve_randomness", None)
    if isinstance(policy, BaseMonotonicPolicy):
        return policy if method is BaseMonotonicPolicy.resolve_randomness else None
    if isinstance(policy, PureRandomPolicy):
        return policy if method is PureRandomPolicy.resolve_randomness else None
    return None


def system_clock_step(
    policy: MonotonicityPolicy, clock: Callable[[], int], source: RandomnessSource
) -> Callable[[], str] | None:
    """The monotonic state's own step when one call makes the next id for the clock (a
    built-in monotonic policy on the system clock and the shared CSPRNG buffer: ``ULID()``'s
    path), else None."""
    stepped = builtin_policy(policy)
    if not isinstance(stepped, BaseMonotonicPolicy):
        return None
    return stepped._step if clock is now_ms and source is default_randomness else None


def text_for(
    policy: MonotonicityPolicy,
    source: RandomnessSource,
    lock: Any,
    ms: int,
    clocked: bool,
) -> str:
    """The next id's text for millisecond ``ms`` (checked) under ``policy``; ``clocked``: ``ms``
    is a clock reading, not an explicit time. A policy of the user's is called with
    python-ulid's protocol, under ``lock`` (the generator's)."""
    stepped = builtin_policy(policy)
    own = None if source is default_randomness else source
    if isinstance(stepped, BaseMonotonicPolicy):
        return stepped._step(ms, own, clocked)
    if stepped is not None:
        return base32.encode_time(ms) + (next_tail() if own is None else random_text(own, ms))
    with lock:
        data = policy.resolve_randomness(ms, source)
    return base32.encode_time(ms) + random_text(lambda _ms: data, ms)


class TextGenerator:
    """python-ulid 4.1's generator, text out: a clock, a randomness source and a policy,
    thread-safe (see :class:`~ulidkeys.ulid.ULIDGenerator`, which returns ULIDs of it).

    The next id's text is made the fastest correct way for the three, chosen again whenever
    one is set: on the system clock with a built-in monotonic policy, one call steps the state.
    """

    def __init__(
        self,
        clock: Callable[[], int] | None = None,
        randomness: RandomnessSource | None = None,
        policy: MonotonicityPolicy | None = None,
    ) -> None:
        self.lock = threading.Lock()
        self._clock: Callable[[], int] = clock or now_ms
        self._source: RandomnessSource = randomness or default_randomness
        self._policy: MonotonicityPolicy = StrictMonotonicPolicy() if policy is None else policy
        self._text: Callable[[], str] = self._choose()
        new_lock_after_fork(self)

    # python-ulid's attributes; a change re-chooses the fast path ------------------------
    @property
    def clock(self) -> Callable[[], int]:
        """The clock: a callable returning epoch milliseconds."""
        return self._clock

    @clock.setter
    def clock(self, value: Callable[[], int]) -> None:
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
        step = system_clock_step(self._policy, self._clock, self._source)
        return self._clock_text if step is None else step

    def _clock_text(self) -> str:
        return self._text_for(clock_ms(self._clock), True)

    def _text_for(self, ms: int, clocked: bool) -> str:
        """The next id's text for millisecond ``ms`` (checked)."""
        return text_for(self._policy, self._source, self.lock, ms, clocked)


# --- the process-wide monotonic state -------------------------------------------------------

#: The monotonic state behind :func:`monotonic`, ``batch(monotonic=True)`` and (through
#: ``ulidkeys.ulid.default_generator``, which shares it) ``ULID()``.
process_state = StrictMonotonicPolicy()


def monotonic() -> str:
    """The next id of the process-wide monotonic generator."""
    return process_state._step()


def batch(n: int, monotonic: bool = False) -> list[str]:
    """``n`` fresh ULID strings of the current millisecond.

    By default every id has its own 80 random bits, so none can be guessed from another (names
    of uploads must not be enumerable); like UUIDv4s they are distinct with overwhelming
    probability (a collision in a batch of a million is less likely than 1 in 10**12). With
    ``monotonic=True`` the result is a strictly increasing run from the process-wide
    monotonic generator instead (spec monotonic mode: each id is the previous + 1; an id
    another thread takes from the same generator meanwhile falls between two of them).
    """
    check_count(n)
    if monotonic:
        step = process_state._step
        return [step() for _ in range(n)]
    return base32.random_tails(n, base32.encode_time(now_ms()))


# --- a forked child starts over ---------------------------------------------------------------

_lock_holders: weakref.WeakSet[Any] = weakref.WeakSet()


def new_lock_after_fork(holder: Any) -> None:
    """Give ``holder`` (a generator with python-ulid's ``lock`` attribute) a new lock in a
    forked child: another thread may have held it at fork time."""
    _lock_holders.add(holder)


def _after_fork_in_child() -> None:
    global _tails, _prefix_cache
    _tails = iter(())
    _prefix_cache = (-1, "")
    for state in list(_monotonic_states):
        state._after_fork()
    for holder in list(_lock_holders):
        holder.lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
