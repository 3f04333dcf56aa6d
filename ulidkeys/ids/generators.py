"""Id generation with an injectable clock and randomness for the time-stamped schemes that need
no generator of their own: the time from the clock, every other free bit random.
(Snowflake-style generation is :class:`ulidkeys.ids.snowflake.SnowflakeGenerator`.)
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable

from ulidkeys.errors import (
    InvalidValue,
    TimeOutOfRange,
    describe,
    require_count,
    require_int,
)
from ulidkeys.ids.base import IntCodedScheme
from ulidkeys.ids.protocol import has_no_time


def wall_ms() -> int:
    """Epoch milliseconds by the wall clock (every generator's default clock)."""
    return time.time_ns() // 1_000_000


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
