"""The random bits of ULIDs: the shared buffer of random tails that ``new()`` and the monotonic
state draw from, and python-ulid's randomness sources (a callable giving 10 bytes for a
millisecond).

Randomness comes from ``os.urandom`` (the OS CSPRNG), read in blocks and handed out 80 bits
per id; the buffer is dropped in a forked child, so parent and child never share random bits.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from typing import Final

from ulidkeys import base32
from ulidkeys.errors import InvalidType, InvalidULID, describe

#: The largest 80-bit random part.
MAX_RANDOM: Final = (1 << 80) - 1
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


def _after_fork_in_child() -> None:
    global _tails, _prefix_cache
    _tails = iter(())
    _prefix_cache = (-1, "")


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
