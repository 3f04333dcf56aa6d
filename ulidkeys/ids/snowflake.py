"""Snowflake-style ids (time | node | sequence, any epoch and bit split) and Twitter's, the
original Snowflake: the scheme, the bit split, the thread-safe generator every Snowflake-style
scheme uses (Discord, Instagram, Sonyflake declare theirs in their own modules).

The generator waits for the next step when a sequence runs out and never issues an id twice
when the clock steps back (it raises, or waits if told to).
"""

from __future__ import annotations

import itertools
import os
import re
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from ulidkeys.errors import (
    ClockMovedBackwards,
    ForkedGenerator,
    InvalidType,
    InvalidValue,
    TimeOutOfRange,
    describe,
    require_bool,
    require_count,
    require_int,
)
from ulidkeys.ids.base import IntCodedScheme, at_most
from ulidkeys.ids.generators import require_source, wall_ms
from ulidkeys.ids.protocol import IdScheme
from ulidkeys.ids.registration import (
    Clock,
    Field,
    FieldsOf,
    MakeGenerator,
    RandBits,
    Reading,
    Registration,
)
from ulidkeys.ulid.policies import peek

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
        self.pattern = at_most(top, _DIGITS)

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
        return str(value).zfill(self.length)  # 5x faster than a format of dynamic width

    def _time_of(self, value: int) -> int:
        return (value >> self.shift) * self.resolution_ms + self.epoch_ms

    def _compose(self, ms: int, fill: bool) -> int:
        units = (ms - self.epoch_ms) // self.resolution_ms
        return (units << self.shift) | ((1 << self.shift) - 1 if fill else 0)

    def _random_of(self, value: int) -> None:
        return None


#: Twitter: 41 bits of ms since 2010-11-04, a 63-bit id; times end in 2080.
TWITTER_SNOWFLAKE = SnowflakeScheme("twitter-snowflake", epoch_ms=1_288_834_974_657)


@dataclass(frozen=True)
class SnowflakeSplit:
    """How a Snowflake-style id splits its low ``scheme.shift`` bits: node and sequence.

    ``scheme`` holds the epoch, the time field (the bits above ``shift``) and its step
    (``resolution_ms``); ``sequence_bits`` of the rest are the per-step sequence and the other
    ``shift - sequence_bits`` bits the node: above the sequence (Twitter: 10 node + 12
    sequence; Instagram: 13 logical shard + 10 sequence), or below it with
    ``sequence_first`` (Sonyflake: 8 sequence + 16 machine bits).
    """

    scheme: SnowflakeScheme
    sequence_bits: int
    sequence_first: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.scheme, SnowflakeScheme):
            raise InvalidType(
                f"scheme={describe(self.scheme)} must be a SnowflakeScheme, "
                f"not {type(self.scheme).__name__}"
            )
        require_count(self.sequence_bits, "sequence_bits", 1, self.scheme.shift)
        require_bool(self.sequence_first, "sequence_first")  # "false" would be read as True

    @property
    def node_bits(self) -> int:
        return self.scheme.shift - self.sequence_bits

    @property
    def max_node(self) -> int:
        return (1 << self.node_bits) - 1

    @property
    def max_sequence(self) -> int:
        return (1 << self.sequence_bits) - 1

    def compose(self, ms: int, node: int, sequence: int) -> int:
        """The id of epoch millisecond ``ms``, ``node`` and ``sequence``, each range-checked."""
        self.scheme.min_for(ms)  # checks that the scheme can hold ms
        require_count(node, "node", 0, self.max_node)
        require_count(sequence, "sequence", 0, self.max_sequence)
        return self.bits_of(ms, node, sequence)

    def bits_of(self, ms: int, node: int, sequence: int) -> int:
        """:meth:`compose` without the checks (for generators, whose values are in range)."""
        scheme = self.scheme
        units = (ms - scheme.epoch_ms) // scheme.resolution_ms
        if self.sequence_first:
            return (units << scheme.shift) | (sequence << self.node_bits) | node
        return (units << scheme.shift) | (node << self.sequence_bits) | sequence

    def decompose(self, value: int) -> tuple[int, int, int]:
        """``(ms, node, sequence)`` of an id's number."""
        scheme = self.scheme
        ms = (value >> scheme.shift) * scheme.resolution_ms + scheme.epoch_ms
        if self.sequence_first:
            return ms, value & self.max_node, (value >> self.node_bits) & self.max_sequence
        return ms, (value >> self.sequence_bits) & self.max_node, value & self.max_sequence

    def node_of(self, text: str) -> int:
        """The node (Instagram: the logical shard) of an id (text or unpadded decimal)."""
        return self.decompose(self.scheme.to_int(text))[1]


#: Twitter's Snowflake: 41 bits of ms, 10 bits of worker, 12 bits of sequence.
TWITTER_SPLIT = SnowflakeSplit(TWITTER_SNOWFLAKE, sequence_bits=12)


_generators: weakref.WeakSet[SnowflakeGenerator] = weakref.WeakSet()


class _Step:
    """One step of a generator's clock and the sequences handed out in it, replaced whole.

    ``counter`` hands out the sequences: ``next()`` on an ``itertools.count`` is one C call,
    atomic under the GIL, so two threads never get the same one and no lock is taken on the
    common path (a lock costs as much as the rest of an id). ``base`` is the id's bits but the
    sequence, which goes in at ``shift``.
    """

    __slots__ = ("base", "counter", "ms", "shift")

    def __init__(self, ms: int | None, base: int, shift: int, first: int = 1) -> None:
        # the step's time, floored to the scheme's resolution; None: none yet (or, in a forked
        # child, none of its own) - no clock reading equals it
        self.ms = ms
        self.base = base
        self.shift = shift
        self.counter = itertools.count(first)

    def last_sequence(self) -> int:
        """The sequence of the last id handed out in this step."""
        return peek(self.counter) - 1


class SnowflakeGenerator:
    """Thread-safe ids of one node (or logical shard): ``gen()`` gives the canonical text,
    ``gen.next_int()`` the number.

    * ``node``: this generator's node number, ``0 .. split.max_node``; two generators running
      at once must have different nodes (a forked child must ``rebind`` to its own);
    * ``split``: the bit layout and epoch (``TWITTER_SPLIT``, ``INSTAGRAM_SPLIT`` or yours);
    * ``on_clock_backwards``: ``"raise"`` (default: :class:`~ulidkeys.errors.ClockMovedBackwards`)
      or ``"wait"`` until the clock is past the last id's millisecond again, for at most
      ``max_wait_ms`` (then it raises);
    * ``max_wait_ms`` also bounds the wait for the next step when a step's sequence runs out
      (a clock that stands still raises ClockMovedBackwards instead of spinning forever);
    * ``clock``: epoch milliseconds (tests inject one).

    No lock is taken on the common path: the sequences of a step come from its atomic counter;
    a new step is published under the lock, and only a later one, so ids never repeat and each
    thread's ids increase.
    """

    def __init__(
        self,
        node: int,
        split: SnowflakeSplit = TWITTER_SPLIT,
        *,
        on_clock_backwards: Literal["raise", "wait"] = "raise",
        max_wait_ms: int = 5_000,
        clock: Callable[[], int] = wall_ms,
    ) -> None:
        if not isinstance(split, SnowflakeSplit):
            raise InvalidType(
                f"split={describe(split)} must be a SnowflakeSplit, not {type(split).__name__}"
            )
        if on_clock_backwards not in ("raise", "wait"):
            raise InvalidValue(
                f"on_clock_backwards={on_clock_backwards!r} must be 'raise' or 'wait'"
            )
        require_count(max_wait_ms, "max_wait_ms", 0)
        require_source(clock, "clock", "epoch milliseconds")
        self.split = split
        self._step = split.scheme.resolution_ms
        self._max_sequence = split.max_sequence
        self._shift = split.node_bits if split.sequence_first else 0
        self._length = split.scheme.length
        self.on_clock_backwards = on_clock_backwards
        self.max_wait_ms = max_wait_ms
        self._clock = clock
        self._lock = threading.Lock()
        self._forked = False
        self._run = _Step(None, 0, self._shift)
        self._parents = self._run  # in a forked child: the step the parent was in
        self.rebind(node)
        _generators.add(self)

    def rebind(self, node: int) -> None:
        """Give the generator another node (in a forked child: its own)."""
        require_count(node, "node", 0, self.split.max_node)
        with self._lock:
            self.node = node
            # The last step and its sequence are kept: started afresh, a rebind to a node
            # this generator had already issued ids of would issue them again (the sequence
            # of a step only ever counts up, whichever node each of its ids names).
            run = self._parents if self._forked else self._run
            self._forked = False
            if run.ms is not None:
                base = self.split.bits_of(run.ms, node, 0)
                self._run = _Step(run.ms, base, self._shift, run.last_sequence() + 1)

    def _after_fork(self) -> None:
        self._lock = threading.Lock()  # another thread may have held it at fork time
        self._forked = True
        # no clock reading matches a step of None: every id takes the locked path, which
        # refuses until rebind (which goes on from the parent's step)
        self._parents, self._run = self._run, _Step(None, 0, self._shift)

    @property
    def _last_ms(self) -> int:
        """The last id's step (-1 before any)."""
        ms = self._run.ms
        return -1 if ms is None else ms

    def _now(self) -> int:
        return require_int(self._clock(), "clock()")

    def next_int(self) -> int:
        """The next id as a number."""
        if self._clock is wall_ms:  # the common path: the system clock, read without the lock
            ms = time.time_ns() // 1_000_000  # looked up per call: freezegun's clock works
            run = self._run
            if ms - ms % self._step == run.ms:
                sequence = next(run.counter)
                if sequence <= self._max_sequence:
                    return run.base | (sequence << run.shift)
        return self._next_step()

    def _next_step(self) -> int:
        """The next id when the common path cannot give it: a new step, a clock that went
        back, a sequence used up, a generator of the parent process, a clock of the caller's
        (read once an id, under the lock, as scripted clocks expect). The clock is read under
        the lock: a reading taken before it may be older than a step another thread started
        since, which is no clock going back."""
        with self._lock:
            if self._forked:
                raise ForkedGenerator(
                    f"this generator (node {self.node}) was created before a fork; the parent "
                    "still issues ids of that node, so call rebind(node) with another node"
                )
            ms = self._now()
            if ms < self._last_ms:
                ms = self._wait_for_clock(ms)
            ms -= ms % self._step  # one sequence per step of the id's time field
            run = self._run
            if ms == run.ms:  # another thread started this step, or its sequence is used up
                sequence = next(run.counter)
                if sequence <= self._max_sequence:
                    return run.base | (sequence << run.shift)
                ms = self._wait_for_next_step()
            scheme = self.split.scheme
            if not scheme.min_ms <= ms <= scheme.max_ms:
                # refused before the step is published: the last step's sequence is kept
                raise TimeOutOfRange(
                    f"clock() = {ms} ms is outside what {scheme.name} ids can hold "
                    f"({scheme.min_ms} .. {scheme.max_ms})"
                )
            self._run = _Step(ms, self.split.bits_of(ms, self.node, 0), self._shift)
            return self._run.base

    def _wait_for_next_step(self) -> int:
        """The first step after the last id's, once the clock reaches it: for at most
        ``max_wait_ms``, then ClockMovedBackwards (a clock that stands still would otherwise
        be waited for forever)."""
        deadline = time.monotonic() + self.max_wait_ms / 1000
        while True:
            ms = self._now()
            ms -= ms % self._step
            if ms > self._last_ms:
                return ms
            if time.monotonic() > deadline:
                raise ClockMovedBackwards(
                    f"the sequence of step {self._last_ms} ms is used up and the clock stayed "
                    f"at or before it (at {ms}) for more than {self.max_wait_ms} ms; refusing "
                    "to issue ids that could repeat"
                )
            time.sleep(0)

    def _wait_for_clock(self, ms: int) -> int:
        behind = self._last_ms - ms
        if self.on_clock_backwards == "raise" or behind > self.max_wait_ms:
            raise ClockMovedBackwards(
                f"the clock went back {behind} ms (to {ms}, after an id of {self._last_ms}); "
                "refusing to issue ids that could repeat"
                + ("" if self.on_clock_backwards == "raise" else f" (waits <= {self.max_wait_ms})")
            )
        deadline = time.monotonic() + self.max_wait_ms / 1000
        while ms < self._last_ms:
            if time.monotonic() > deadline:
                raise ClockMovedBackwards(
                    f"the clock stayed behind the last id ({self._last_ms} ms) for more than "
                    f"{self.max_wait_ms} ms"
                )
            time.sleep(min(0.001 * (self._last_ms - ms), 0.01))
            ms = self._now()
        return ms

    def __call__(self) -> str:
        """The next id as canonical (zero-padded) text."""
        return str(self.next_int()).zfill(self._length)

    def batch(self, n: int) -> list[str]:
        """``n`` ids in increasing order."""
        require_count(n, "n", 0)
        return [self() for _ in range(n)]


def _after_fork_in_child() -> None:
    for generator in list(_generators):
        generator._after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _split_fields(split: SnowflakeSplit, node_name: str) -> FieldsOf:
    def fields(_: object, value: int) -> dict[str, Field]:
        _, node, sequence = split.decompose(value)
        return {node_name: node, "sequence": sequence}

    return fields


def _snowflake_generator(split: SnowflakeSplit) -> MakeGenerator:
    """How the registry makes a node-based scheme's generator: a :class:`SnowflakeGenerator`
    of ``split`` for the ``node`` given (required: two machines must not share one)."""

    def make(
        scheme: IdScheme, clock: Clock, randbits: RandBits, node: int | None
    ) -> Callable[[], str]:
        if node is None:
            raise InvalidValue(
                f"{scheme.name} ids need node= (this machine's or shard's number, "
                f"0 .. {split.max_node}): two generators must never share one"
            )
        return SnowflakeGenerator(node, split, clock=clock)

    return make


def snowflake_registration(
    split: SnowflakeSplit,
    *,
    summary: str,
    node_name: str = "node",
    fields: FieldsOf | None = None,
    aliases: tuple[str, ...] = (),
    readings: tuple[Reading, ...] = (),
    explains_refusals: bool = False,
) -> Registration:
    """The registration of a Snowflake-style scheme, ``split.scheme``: its generator a
    :class:`SnowflakeGenerator` of ``split``, which takes ``node=`` and refuses to run without
    one; its fields the node (called ``node_name``) and the sequence, unless ``fields`` reads
    more of it (Discord's worker and process)."""
    return Registration(
        split.scheme.name,
        split.scheme,
        aliases=aliases,
        fields=_split_fields(split, node_name) if fields is None else fields,
        generator=_snowflake_generator(split),
        takes_node=True,
        readings=readings,
        explains_refusals=explains_refusals,
        summary=summary,
    )


REGISTRATIONS = (
    snowflake_registration(
        TWITTER_SPLIT,
        node_name="worker",
        aliases=("snowflake",),
        readings=(Reading(80.1),),
        explains_refusals=True,
        summary="Twitter: 41-bit ms since 2010-11-04, 10-bit worker, 12-bit sequence",
    ),
)
