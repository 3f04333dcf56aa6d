"""Id generation with an injectable clock and randomness: Snowflake-style ids (time | node or
logical shard | sequence, any bit split) and every other time-stamped scheme (time | random).

One thread-safe Snowflake generator covers Twitter's, Instagram's and Sony's; it waits for the
next step when a sequence runs out and never issues an id twice when the clock steps back (it
raises, or waits if told to). :class:`IdGenerator` fills any other scheme's free bits.
"""

from __future__ import annotations

import os
import secrets
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
    require_count,
    require_int,
)
from ulidkeys.ids.protocol import IdScheme, has_no_time
from ulidkeys.ids.registration import (
    Clock,
    Field,
    FieldsOf,
    MakeGenerator,
    RandBits,
    Reading,
    Registration,
)
from ulidkeys.ids.schemes import (
    DISCORD_SNOWFLAKE,
    INSTAGRAM_ID,
    TWITTER_SNOWFLAKE,
    IntCodedScheme,
    SnowflakeScheme,
)


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
#: Instagram: 41 bits of ms since 2011-08-24, 13-bit logical shard, 10-bit sequence.
INSTAGRAM_SPLIT = SnowflakeSplit(INSTAGRAM_ID, sequence_bits=10)
#: Discord: 5-bit worker and 5-bit process ids (one 10-bit node here), 12-bit increment.
DISCORD_SPLIT = SnowflakeSplit(DISCORD_SNOWFLAKE, sequence_bits=12)


def instagram_shard_of(text: str) -> int:
    """The logical shard (0 .. 8191) an Instagram-style id was made for."""
    return INSTAGRAM_SPLIT.node_of(text)


def wall_ms() -> int:
    """Epoch milliseconds by the wall clock (every generator's default clock)."""
    return time.time_ns() // 1_000_000


_generators: weakref.WeakSet[SnowflakeGenerator] = weakref.WeakSet()


class SnowflakeGenerator:
    """Thread-safe ids of one node (or logical shard): ``gen()`` gives the canonical text,
    ``gen.next_int()`` the number.

    * ``node``: this generator's node number, ``0 .. split.max_node``; two generators running
      at once must have different nodes (a forked child must ``rebind`` to its own);
    * ``split``: the bit layout and epoch (``TWITTER_SPLIT``, ``INSTAGRAM_SPLIT`` or yours);
    * ``on_clock_backwards``: ``"raise"`` (default: :class:`~ulidkeys.errors.ClockMovedBackwards`)
      or ``"wait"`` until the clock is past the last id's millisecond again, for at most
      ``max_wait_ms`` (then it raises);
    * ``clock``: epoch milliseconds (tests inject one).
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
        self.split = split
        self._step = split.scheme.resolution_ms
        self.on_clock_backwards = on_clock_backwards
        self.max_wait_ms = max_wait_ms
        self._clock = clock
        self._lock = threading.Lock()
        self._forked = False
        self.rebind(node)
        _generators.add(self)

    def rebind(self, node: int) -> None:
        """Give the generator another node (in a forked child: its own), starting afresh."""
        require_count(node, "node", 0, self.split.max_node)
        with self._lock:
            self.node = node
            self._last_ms = -1
            self._sequence = 0
            self._forked = False

    def _after_fork(self) -> None:
        self._lock = threading.Lock()  # another thread may have held it at fork time
        self._forked = True

    def _now(self) -> int:
        return require_int(self._clock(), "clock()")

    def next_int(self) -> int:
        """The next id as a number."""
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
            if ms == self._last_ms:
                self._sequence = (self._sequence + 1) & self.split.max_sequence
                if self._sequence == 0:  # this step is used up: take the next one
                    while ms <= self._last_ms:
                        time.sleep(0)
                        ms = self._now()
                        ms -= ms % self._step
            else:
                self._sequence = 0
            scheme = self.split.scheme
            if not scheme.min_ms <= ms <= scheme.max_ms:
                raise TimeOutOfRange(
                    f"clock() = {ms} ms is outside what {scheme.name} ids can hold "
                    f"({scheme.min_ms} .. {scheme.max_ms})"
                )
            self._last_ms = ms
            return self.split.bits_of(ms, self.node, self._sequence)

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
        return self.split.scheme._encode(self.next_int())

    def batch(self, n: int) -> list[str]:
        """``n`` ids in increasing order."""
        require_count(n, "n", 0)
        return [self() for _ in range(n)]


def _after_fork_in_child() -> None:
    for generator in list(_generators):
        generator._after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def split_fields(split: SnowflakeSplit, node_name: str) -> FieldsOf:
    def fields(_: object, value: int) -> dict[str, Field]:
        _, node, sequence = split.decompose(value)
        return {node_name: node, "sequence": sequence}

    return fields


def _discord_fields(_: object, value: int) -> dict[str, Field]:
    return {
        "worker": (value >> 17) & 0x1F,
        "process": (value >> 12) & 0x1F,
        "increment": value & 0xFFF,
    }


#: A decimal number says nothing about its epoch: Snowflakes are read last, Twitter's first
#: (pass scheme= to choose another).


class IdGenerator:
    """New ids of a time-stamped scheme from an injectable clock and source of randomness:
    the time field from ``clock()`` (floored to the scheme's step), every other bit the scheme
    leaves free (those that differ between its smallest and largest id of one time) from
    ``randbits``; fixed bits (UUID version and variant, type tags) as the scheme sets them.

    What the registry makes for every scheme that declares no generator of its own
    (:func:`ulidkeys.ids.registry.generator_for`); the model is python-ulid's value providers:
    with a fixed clock and a seeded ``randbits`` the ids are reproducible.
    """

    def __init__(
        self,
        scheme: IntCodedScheme,
        *,
        clock: Callable[[], int] = wall_ms,
        randbits: Callable[[int], int] = secrets.randbits,
    ) -> None:
        if not isinstance(scheme, IntCodedScheme) or has_no_time(scheme):
            raise InvalidValue(
                f"scheme={describe(scheme)} holds no time: its ids are not made from a clock"
            )
        self.scheme = scheme
        low, high = scheme.min_ms, scheme.max_ms - scheme.max_ms % scheme.resolution_ms
        self._free = scheme.to_int(scheme.max_for(low)) ^ scheme.to_int(scheme.min_for(low))
        if self._free != scheme.to_int(scheme.max_for(high)) ^ scheme.to_int(scheme.min_for(high)):
            raise InvalidValue(f"{scheme.name} ids have no fixed set of free bits to randomize")
        self._width = self._free.bit_length()
        self._clock, self._randbits = clock, randbits

    def next_int(self) -> int:
        """The next id as a number."""
        ms = require_int(self._clock(), "clock()")
        scheme = self.scheme
        if not scheme.min_ms <= ms <= scheme.max_ms:
            raise TimeOutOfRange(
                f"clock() = {ms} ms is outside what {scheme.name} ids can hold "
                f"({scheme.min_ms} .. {scheme.max_ms})"
            )
        ms -= ms % scheme.resolution_ms
        base = scheme.to_int(scheme.min_for(ms))
        return base | (require_int(self._randbits(self._width), "randbits()") & self._free)

    def __call__(self) -> str:
        """The next id as canonical text."""
        return self.scheme.from_int(self.next_int())

    def batch(self, n: int) -> list[str]:
        """``n`` new ids (in time order when the clock does not step back)."""
        require_count(n, "n", 0)
        return [self() for _ in range(n)]


def snowflake_generator(split: SnowflakeSplit) -> MakeGenerator:
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


REGISTRATIONS = (
    Registration(
        "twitter-snowflake",
        TWITTER_SNOWFLAKE,
        aliases=("snowflake",),
        fields=split_fields(TWITTER_SPLIT, "worker"),
        generator=snowflake_generator(TWITTER_SPLIT),
        node=True,
        readings=(Reading(80.1),),
        explains_refusals=True,
        summary="Twitter: 41-bit ms since 2010-11-04, 10-bit worker, 12-bit sequence",
    ),
    Registration(
        "discord-snowflake",
        DISCORD_SNOWFLAKE,
        fields=_discord_fields,
        generator=snowflake_generator(DISCORD_SPLIT),
        node=True,
        readings=(Reading(80.2),),
        summary="Discord: 42-bit ms since 2015-01-01, worker, process, increment (64-bit)",
    ),
    Registration(
        "instagram-id",
        INSTAGRAM_ID,
        aliases=("instagram",),
        fields=split_fields(INSTAGRAM_SPLIT, "shard"),
        generator=snowflake_generator(INSTAGRAM_SPLIT),
        node=True,
        readings=(Reading(80.3),),
        summary="Instagram: 41-bit ms since 2011-08-24, 13-bit logical shard, 10-bit sequence",
    ),
)
