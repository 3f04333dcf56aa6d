"""Making ULID text with python-ulid's generators: a timestamp or clock reading checked, the
fastest correct way to the next id for a generator's policy, clock and randomness source
(:class:`TextGenerator`), batches, and generators' locks renewed in a forked child. Text and
ints only: the ``ULID`` value and the generators that return it are :mod:`ulidkeys.ulid`'s; the
random bits are :mod:`ulidkeys.ulid.randomness`'s, the monotonic state
:mod:`ulidkeys.ulid.policies`'s.
"""

from __future__ import annotations

import math
import os
import threading
import weakref
from collections.abc import Callable
from datetime import datetime
from typing import Any, Final

from ulidkeys import base32
from ulidkeys.errors import (
    InvalidTime,
    InvalidType,
    InvalidULID,
    TimeOutOfRange,
    describe,
    require_int,
)
from ulidkeys.timeinput import MAX_MS, check_ms, datetime_to_ms, now_ms
from ulidkeys.ulid.policies import (
    BaseMonotonicPolicy,
    MonotonicityPolicy,
    PureRandomPolicy,
    StrictMonotonicPolicy,
    process_state,
)
from ulidkeys.ulid.randomness import (
    RandomnessSource,
    default_randomness,
    next_tail,
    random_text,
)

#: The most ids one ``batch`` call returns: a list of a million ids is ~80 MiB; more is a
#: stream, made by calling again (a monotonic generator stays increasing across calls).
MAX_BATCH: Final = 1_000_000


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
    # a float or bool would break the order; past 48 bits the text would be no ULID
    if ms.__class__ is not int or not 0 <= ms <= MAX_MS:
        require_int(ms, "clock()", "epoch milliseconds as an int")
        check_ms(ms, "clock()")
    return ms


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
        self._text: Callable[[], str]
        self._choose_text()
        new_lock_after_fork(self)

    # python-ulid's attributes; a change re-chooses the fast path ------------------------
    @property
    def clock(self) -> Callable[[], int]:
        """The clock: a callable returning epoch milliseconds."""
        return self._clock

    @clock.setter
    def clock(self, value: Callable[[], int]) -> None:
        self._clock = value
        self._choose_text()

    @property
    def randomness_source(self) -> RandomnessSource:
        """The randomness source: called with the millisecond, returns 10 bytes."""
        return self._source

    @randomness_source.setter
    def randomness_source(self, value: RandomnessSource) -> None:
        self._source = value
        self._choose_text()

    @property
    def policy(self) -> MonotonicityPolicy:
        """The policy that resolves ids of one millisecond."""
        return self._policy

    @policy.setter
    def policy(self, value: MonotonicityPolicy) -> None:
        self._policy = value
        self._choose_text()

    def _choose_text(self) -> None:
        """Set ``_text`` to the fastest correct way to make the next id's text for the clock."""
        step = system_clock_step(self._policy, self._clock, self._source)
        self._text = self._clock_text if step is None else step

    def _clock_text(self) -> str:
        return self._text_for(clock_ms(self._clock), True)

    def _text_for(self, ms: int, clocked: bool) -> str:
        """The next id's text for millisecond ``ms`` (checked)."""
        return text_for(self._policy, self._source, self.lock, ms, clocked)


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
    for holder in list(_lock_holders):
        holder.lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
