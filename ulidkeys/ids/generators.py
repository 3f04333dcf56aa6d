"""Id generation with an injectable clock and randomness for the time-stamped schemes that need
no generator of their own: the time from the clock, every other free bit random.
(Snowflake-style generation is :class:`ulidkeys.ids.snowflake.SnowflakeGenerator`.)
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable

from ulidkeys.errors import (
    InvalidType,
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


def require_source(value: object, name: str, returns: str) -> None:
    """InvalidType unless ``value`` (a generator's ``clock`` or ``randbits``) can be called: a
    wrong one would otherwise fail only at the first id, with a bare TypeError."""
    if not callable(value):
        raise InvalidType(
            f"{name}={describe(value)} must be a callable returning {returns}, "
            f"not {type(value).__name__}"
        )


def draw(randbits: Callable[[int], int], k: int) -> int:
    """``randbits(k)``, checked: an int of ``k`` bits (``0 .. 2**k - 1``). A source that
    returns more bits, a negative number or a float is refused: masked, it would give ids
    that look random and are not (or a bare TypeError from the arithmetic)."""
    value = require_int(randbits(k), f"randbits({k})")
    if value < 0 or value >> k:
        raise InvalidValue(
            f"randbits({k}) returned {describe(value)}: a source of random bits must return "
            f"an int in 0 .. 2**{k} - 1"
        )
    return value


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
        require_source(clock, "clock", "epoch milliseconds")
        require_source(randbits, "randbits", "k random bits")
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
        return base | (draw(self._randbits, self._width) & self._free)

    def __call__(self) -> str:
        """The next id as canonical text."""
        return self.scheme.from_int(self.next_int())

    def batch(self, n: int) -> list[str]:
        """``n`` new ids (in time order when the clock does not step back)."""
        require_count(n, "n", 0)
        return [self() for _ in range(n)]
