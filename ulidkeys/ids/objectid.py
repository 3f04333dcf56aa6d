"""MongoDB's ObjectId: 32-bit Unix seconds + 5 random bytes + a 3-byte counter, 24 hex digits."""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable

from ulidkeys.errors import (
    require_int,
)
from ulidkeys.ids.base import IntCodedScheme
from ulidkeys.ids.generators import draw
from ulidkeys.ids.protocol import IdScheme
from ulidkeys.ids.registration import (
    Clock,
    RandBits,
    Reading,
    Registration,
    hex_digits,
)

_HEX24 = re.compile(r"[0-9a-fA-F]{24}")


class ObjectIdScheme(IntCodedScheme):
    """MongoDB ObjectId: 32-bit Unix seconds + 5 random bytes + 3-byte counter, 24 hex chars."""

    name = "objectid"
    resolution_ms = 1000
    max_ms = ((1 << 32) - 1) * 1000
    bits = 96
    length = 24
    pattern = "[0-9a-f]{24}"

    def _decode(self, text: str) -> int:
        if not _HEX24.fullmatch(text):
            raise self._invalid(text, "expected 24 hex characters")
        return int(text, 16)

    def _encode(self, value: int) -> str:
        return f"{value:024x}"

    def _time_of(self, value: int) -> int:
        return (value >> 64) * 1000

    def _compose(self, ms: int, fill: bool) -> int:
        return ((ms // 1000) << 64) | ((1 << 64) - 1 if fill else 0)

    def _random_of(self, value: int) -> int:
        """The low 64 bits: the 5-byte process-random value and the 3-byte counter."""
        return value & ((1 << 64) - 1)

    def new(self) -> str:
        """A fresh ObjectId as the MongoDB drivers make them: seconds, a 5-byte value random
        per process (renewed in a forked child), a 3-byte counter from a random start."""
        count = next(_object_id_counter) & 0xFFFFFF  # next() on a count is atomic in CPython
        return f"{self._wall_ms() // 1000:08x}{_object_id_random.hex()}{count:06x}"


_object_id_random = os.urandom(5)
_object_id_counter = itertools.count(int.from_bytes(os.urandom(3), "big"))


def _renew_object_id_random() -> None:
    global _object_id_random, _object_id_counter
    _object_id_random = os.urandom(5)
    _object_id_counter = itertools.count(int.from_bytes(os.urandom(3), "big"))


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_renew_object_id_random)


#: MongoDB's ObjectId: 32-bit seconds, 40 random bits, a 24-bit counter, 24 hex digits.
OBJECT_ID = ObjectIdScheme()


def _object_id_generator(
    scheme: IdScheme, clock: Clock, randbits: RandBits, node: int | None
) -> Callable[[], str]:
    """ObjectIds as the MongoDB drivers make them, from ``clock`` and ``randbits``: the
    seconds, a 5-byte value random per generator and process, a 3-byte counter from a random
    start. In a forked child both are drawn afresh (as the drivers do, by process id): the
    child would otherwise issue the parent's ids of every second they share."""

    def fresh() -> tuple[int, int, itertools.count[int]]:
        return os.getpid(), draw(randbits, 40), itertools.count(draw(randbits, 24))

    state = fresh()

    def new() -> str:
        nonlocal state
        ms = require_int(clock(), "clock()")
        base = scheme.to_int(scheme.min_for(ms - ms % 1000))
        pid, process, counter = state  # one tuple: a thread sees one process's pair
        if pid != os.getpid():
            state = fresh()
            pid, process, counter = state
        return scheme.from_int(base | (process << 24) | (next(counter) & 0xFFFFFF))

    return new


REGISTRATIONS = (
    Registration(
        "objectid",
        OBJECT_ID,
        aliases=("object-id",),
        fields=lambda _, v: {
            "seconds": v >> 64,
            "random": hex_digits((v >> 24) & ((1 << 40) - 1), 10),
            "counter": v & 0xFFFFFF,
        },
        readings=(Reading(70.2),),
        explains_refusals=True,
        generator=_object_id_generator,
        summary="MongoDB: 32-bit seconds + 40 random bits + 24-bit counter, 24 hex digits",
    ),
)
