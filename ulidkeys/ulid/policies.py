"""Monotonic ULID state: python-ulid 4.1's policies (strict, lax, pure random) and the one code
that steps monotonic state, with no lock on its common path; the process-wide state behind
``monotonic()`` and ``ULID()``; the state's reset in a forked child.

python-ulid 4.1's generator API (ULIDGenerator and its policies) and ulidkeys' Monotonic are
one implementation: BaseMonotonicPolicy holds the state (the run of the last millisecond) and
``_step`` is the only code that steps it. Monotonic is a strict policy with a clock;
ULIDGenerator pairs any policy with a clock and a randomness source and returns ULIDs.
"""

from __future__ import annotations

import abc
import itertools
import os
import threading
import time
import weakref
from typing import Protocol, runtime_checkable

from ulidkeys import base32
from ulidkeys.errors import InvalidType, InvalidULID, MonotonicOverflow, describe, require_int
from ulidkeys.timeinput import check_ms
from ulidkeys.ulid.randomness import (
    MAX_RANDOM,
    RandomnessSource,
    default_randomness,
    next_tail,
    random_text,
)

_PAIRS = tuple(base32.encode_pair(value) for value in range(1024))  # 10 bits -> 2 characters


@runtime_checkable
class MonotonicityPolicy(Protocol):
    """python-ulid's policy protocol: how a generator resolves the random part of an id."""

    def resolve_randomness(self, timestamp: int, randomness_source: RandomnessSource) -> bytes:
        """The 10 random bytes of an id of millisecond ``timestamp``."""
        ...


_monotonic_states: weakref.WeakSet[BaseMonotonicPolicy] = weakref.WeakSet()


def peek(counter: itertools.count[int]) -> int:
    """What ``next(counter)`` would give, read without taking it: its repr is ``count(N)``
    (the lock-free runs here and in Snowflake generators ask for their last value this way)."""
    return int(repr(counter)[6:-1])


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
        return self.base + peek(self.counter) - 1


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
        if random <= MAX_RANDOM:
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


#: The monotonic state behind :func:`monotonic`, ``batch(monotonic=True)`` and (through
#: ``ulidkeys.ulid.default_generator``, which shares it) ``ULID()``.
process_state = StrictMonotonicPolicy()


def monotonic() -> str:
    """The next id of the process-wide monotonic generator."""
    return process_state._step()


def _after_fork_in_child() -> None:
    for state in list(_monotonic_states):
        state._after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
