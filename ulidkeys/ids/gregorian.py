"""The UUIDs of RFC 9562's Gregorian time (100 ns since 1582-10-15): v6 (sorts by time), v1
(scatters it over the text) and MySQL's ordered v1 (``UUID_TO_BIN(u, 1)``, sorts), with the
conversions between them and their generators.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable

from ulidkeys.errors import (
    InvalidValue,
    TimeOutOfRange,
    require_int,
)
from ulidkeys.ids.base import IntCodedScheme
from ulidkeys.ids.generators import draw
from ulidkeys.ids.protocol import IdScheme
from ulidkeys.ids.registration import (
    Clock,
    Field,
    MakeGenerator,
    RandBits,
    Reading,
    Registration,
    hex_digits,
)
from ulidkeys.ids.uuids import HEX32, RAND_B, VARIANT, UuidScheme, uuid_fields, uuid_readings

_GREGORIAN_OFFSET = 0x01B21DD213814000  # 100 ns ticks from 1582-10-15 to 1970-01-01
_MAX_TICKS = (1 << 60) - 1
_ticks_lock = threading.Lock()
_last_ticks = 0


def gregorian_now() -> tuple[int, int]:
    """``(ticks, low)`` for a new v1-family UUID: 100 ns ticks since 1582-10-15, strictly
    increasing in this process (two calls in one tick differ), and the low 64 bits: variant,
    a random 14-bit clock sequence and a random node with the multicast bit set (RFC 9562's
    mark of a node that is not a MAC address; the host's MAC is never used)."""
    global _last_ticks
    with _ticks_lock:
        ticks = max(time.time_ns() // 100 + _GREGORIAN_OFFSET, _last_ticks + 1)
        _last_ticks = ticks
    random = int.from_bytes(os.urandom(8), "big")
    node = (random & ((1 << 48) - 1)) | (1 << 40)  # the multicast bit of the node's first octet
    return ticks, VARIANT | (((random >> 48) & 0x3FFF) << 48) | node


class Uuid6Scheme(UuidScheme):
    """UUIDv6 (RFC 9562): the v1 Gregorian 100 ns timestamp reordered so text sorts by time.

    Its time starts at the Gregorian epoch, 1582-10-15 (``min_ms`` is negative: ids dated
    before 1970 are valid and have a negative time) and ends with the 60-bit tick counter.
    """

    name = "uuid6"
    version = 6
    pattern = UuidScheme._uuid_pattern(6)
    min_ms = -(_GREGORIAN_OFFSET // 10_000)  # 1582-10-15T00:00:00Z = -12_219_292_800_000
    max_ms = (_MAX_TICKS - _GREGORIAN_OFFSET) // 10_000

    def _time_of(self, value: int) -> int:
        ticks = ((value >> 80) << 12) | ((value >> 64) & 0xFFF)
        return (ticks - _GREGORIAN_OFFSET) // 10_000

    def _compose(self, ms: int, fill: bool) -> int:
        ticks = ms * 10_000 + _GREGORIAN_OFFSET + (9_999 if fill else 0)
        ticks = min(ticks, _MAX_TICKS)
        rest = RAND_B if fill else 0
        return ((ticks >> 12) << 80) | (6 << 76) | ((ticks & 0xFFF) << 64) | VARIANT | rest

    def _random_of(self, value: int) -> int:
        """The 62 bits after the variant (rand_b: clock sequence and node)."""
        return value & RAND_B

    def _replace_time(self, value: int, old_ms: int, new_ms: int) -> int:
        # The 60 tick bits are split around the version nibble: move the ticks, not the int.
        ticks = ((value >> 80) << 12) | ((value >> 64) & 0xFFF)
        ticks += (new_ms - old_ms) * 10_000
        if not 0 <= ticks <= _MAX_TICKS:
            raise TimeOutOfRange(f"ms={new_ms} with this id's sub-ms ticks is past uuid6's range")
        low = value & ((1 << 64) - 1)
        return ((ticks >> 12) << 80) | (6 << 76) | ((ticks & 0xFFF) << 64) | low

    def new(self) -> str:
        """A fresh v6 UUID: random node and clock sequence (see :func:`gregorian_now`)."""
        ticks, low = gregorian_now()
        return self._encode(((ticks >> 12) << 80) | (6 << 76) | ((ticks & 0xFFF) << 64) | low)


def gregorian_fields(ticks: int, low: int) -> dict[str, Field]:
    """Fields of the v1 family: 100 ns ticks, clock sequence, node (multicast = not a MAC)."""
    node = low & ((1 << 48) - 1)
    return {
        "ticks_100ns": ticks,
        "clock_seq": (low >> 48) & 0x3FFF,
        "node": hex_digits(node, 12),
        "node_is_random": bool(node >> 40 & 1),
    }


_GREGORIAN_MIN_MS = -(_GREGORIAN_OFFSET // 10_000)  # 1582-10-15T00:00:00Z
_GREGORIAN_MAX_MS = (_MAX_TICKS - _GREGORIAN_OFFSET) // 10_000
_LOW_64 = (1 << 64) - 1


def _v1_ticks(value: int) -> int:
    """The 60-bit count of 100 ns since 1582-10-15 of a v1 UUID (time_hi, time_mid, time_low)."""
    return (((value >> 64) & 0xFFF) << 48) | (((value >> 80) & 0xFFFF) << 32) | (value >> 96)


def _v1_value(ticks: int, low: int) -> int:
    """A v1 UUID of ``ticks`` whose low 64 bits (variant, clock sequence, node) are ``low``."""
    time_low, time_mid, time_hi = ticks & 0xFFFF_FFFF, (ticks >> 32) & 0xFFFF, ticks >> 48
    return (time_low << 96) | (time_mid << 80) | (1 << 76) | (time_hi << 64) | low


def _v6_ticks(value: int) -> int:
    return ((value >> 80) << 12) | ((value >> 64) & 0xFFF)


def _v6_value(ticks: int, low: int) -> int:
    return ((ticks >> 12) << 80) | (6 << 76) | ((ticks & 0xFFF) << 64) | low


def _ordered_value(ticks: int, low: int) -> int:
    # UUID_TO_BIN(u, 1) swaps time_low and time_hi_and_version: the version nibble comes first,
    # then the 60 time bits from the most significant down, so the bytes sort by time.
    return (1 << 124) | (ticks << 64) | low


def _ticks_to_ms(ticks: int) -> int:
    return (ticks - _GREGORIAN_OFFSET) // 10_000


class Uuid1Scheme(UuidScheme):
    """UUIDv1: 60-bit count of 100 ns since 1582-10-15, clock sequence and node.

    It holds a time (``timestamp_ms``) but its text starts with the *low* time bits, so it does
    not sort by time: layouts and entities refuse it (convert to v6 or ordered v1 instead).
    """

    name = "uuid1"
    version = 1
    pattern = UuidScheme._uuid_pattern(1)
    sorts_by_time = False
    min_ms = _GREGORIAN_MIN_MS
    max_ms = _GREGORIAN_MAX_MS

    def _time_of(self, value: int) -> int:
        return _ticks_to_ms(_v1_ticks(value))

    def _compose(self, ms: int, fill: bool) -> int:
        raise InvalidValue(
            "uuid1 text starts with the low time bits, so the ids of a millisecond are no range; "
            "convert to uuid6 or uuid1-ordered for windows"
        )

    def _random_of(self, value: int) -> int:
        """The 62 bits after the variant: clock sequence and node."""
        return value & RAND_B

    def new(self) -> str:
        """A fresh v1 UUID: random node (multicast bit set) and clock sequence, never the
        host's MAC address (see :func:`~ulidkeys.ids.gregorian.gregorian_now`)."""
        return self._encode(_v1_value(*gregorian_now()))


_ORDERED_TEXT = re.compile(r"[0-9a-fA-F]{32}")


class OrderedUuid1Scheme(IntCodedScheme):
    """MySQL's ordered UUIDv1 (``UUID_TO_BIN(u, 1)``): time_hi, time_mid, time_low, then the
    clock sequence and node, so it sorts by time.

    Canonical text: 32 lowercase hex digits (``HEX(UUID_TO_BIN(u, 1))`` lowercased). ``parse``
    also takes uppercase and the 8-4-4-4-12 form MySQL's ``BIN_TO_UUID(b)`` (without the swap
    flag) prints. The numeric form is the 16 stored bytes as a big-endian integer.
    """

    name = "uuid1-ordered"
    length = 32
    pattern = "1[0-9a-f]{15}[89ab][0-9a-f]{15}"
    min_ms = _GREGORIAN_MIN_MS
    max_ms = _GREGORIAN_MAX_MS

    def _broken_rule(self, value: int) -> str | None:
        if value >> 124 != 1:
            return f"the first hex digit (the version) is {value >> 124:x}, not 1"
        if (value >> 62) & 0b11 != 0b10:
            return "the variant bits are not the RFC 9562 variant (10)"
        return None

    def _decode(self, text: str) -> int:
        hex_text = text.replace("-", "") if len(text) == 36 and _dashed(text) else text
        if not _ORDERED_TEXT.fullmatch(hex_text):
            raise self._invalid(text, "expected 32 hex digits (or 36 characters 8-4-4-4-12)")
        value = int(hex_text, 16)
        rule = self._broken_rule(value)
        if rule is not None:
            raise self._invalid(text, rule)
        return value

    def _encode(self, value: int) -> str:
        return f"{value:032x}"

    def _time_of(self, value: int) -> int:
        return _ticks_to_ms(_ordered_ticks(value))

    def _compose(self, ms: int, fill: bool) -> int:
        ticks = min(ms * 10_000 + _GREGORIAN_OFFSET + (9_999 if fill else 0), _MAX_TICKS)
        return _ordered_value(ticks, VARIANT | (RAND_B if fill else 0))

    def _random_of(self, value: int) -> int:
        return value & RAND_B

    def new(self) -> str:
        return convert_uuid(UUID1.new(), UUID1, self)


def _dashed(text: str) -> bool:
    return text[8] == text[13] == text[18] == text[23] == "-"


def convert_uuid(text: str, source: IntCodedScheme, target: IntCodedScheme) -> str:
    """``text``, an id of ``source``, as an id of ``target``: each of ``UUID1``, ``UUID6`` and
    ``UUID1_ORDERED``. The 60-bit time moves between the layouts; the clock sequence and node
    stay as they are (RFC 9562 5.6 for v1 <-> v6; MySQL's ``UUID_TO_BIN(u, 1)`` /
    ``BIN_TO_UUID(b, 1)`` for v1 <-> ordered)."""
    read = _TICKS.get(source.name)
    write = _LAYOUTS.get(target.name)
    if read is None or write is None:
        raise InvalidValue(
            f"convert_uuid converts between uuid1, uuid6 and uuid1-ordered, not "
            f"{source.name} -> {target.name}"
        )
    value = source.to_int(text)
    return target.from_int(write(read(value), value & _LOW_64))


def _ordered_ticks(value: int) -> int:
    return (value >> 64) & _MAX_TICKS


_TICKS = {"uuid1": _v1_ticks, "uuid6": _v6_ticks, "uuid1-ordered": _ordered_ticks}
_LAYOUTS = {"uuid1": _v1_value, "uuid6": _v6_value, "uuid1-ordered": _ordered_value}


#: RFC 9562 UUIDv6: v1's 100 ns Gregorian time, reordered so the text sorts by time.
UUID6 = Uuid6Scheme()


#: RFC 9562 UUIDv1: 100 ns Gregorian time, scattered over the text (does not sort).
UUID1 = Uuid1Scheme()
#: MySQL's ``UUID_TO_BIN(u, 1)``: v1 with the time moved first, 32 hex digits that sort.
UUID1_ORDERED = OrderedUuid1Scheme()


def _gregorian_generator(compose: Callable[[int, int], int]) -> MakeGenerator:
    """The generator of a v1-family scheme (``compose(ticks, low)``: v1, v6, ordered v1) from
    ``clock`` and ``randbits``: the clock's millisecond in 100 ns ticks plus a random sub-
    millisecond part, a random clock sequence and a random node with the multicast bit set, as
    :func:`~ulidkeys.ids.gregorian.gregorian_now` does with the wall clock."""

    def make(
        scheme: IdScheme, clock: Clock, randbits: RandBits, node: int | None
    ) -> Callable[[], str]:
        def new() -> str:
            ms = require_int(clock(), "clock()")
            first = ms * 10_000 + _GREGORIAN_OFFSET
            # the ticks of the millisecond that fit in 60 bits: all 10,000 but in the last one
            ticks_in_ms = min(10_000, _MAX_TICKS - first + 1)
            if first < 0 or ticks_in_ms <= 0:
                raise TimeOutOfRange(f"clock() = {ms} ms is outside what {scheme.name} ids hold")
            # uniform over the millisecond's ticks to within 2**-64, and never a loop: a
            # source that keeps returning large values would be retried forever
            sub = draw(randbits, 78) % ticks_in_ms
            random = draw(randbits, 62)
            low = VARIANT | (((random >> 48) & 0x3FFF) << 48) | (random & (1 << 48) - 1)
            return scheme.from_int(compose(first + sub, low | (1 << 40)))

        return new

    return make


def _v1_family(
    source: IntCodedScheme, twin: IntCodedScheme, alias: str, rank: int, summary: str
) -> Registration:
    """The registration of a v1 or v6 UUID (``rank``: its place among the UUID readings). Its
    fields name the same id as its twin (v6 of a v1, v1 of a v6: RFC 9562 5.6, the time fields
    reordered), so a v1 in a log can be looked up sorted as v6."""
    ticks = _TICKS[source.name]

    def fields(_: object, value: int) -> dict[str, Field]:
        found = {**uuid_fields(value), **gregorian_fields(ticks(value), value & _LOW_64)}
        return {**found, twin.name: convert_uuid(source._encode(value), source, twin)}

    return Registration(
        source.name,
        source,
        aliases=(alias,),
        fields=fields,
        generator=_gregorian_generator(_LAYOUTS[source.name]),
        readings=uuid_readings(rank),
        summary=summary,
    )


REGISTRATIONS = (
    _v1_family(
        UUID6,
        UUID1,
        "uuidv6",
        2,
        "RFC 9562 v6: v1's 100 ns Gregorian time reordered to sort, 36 characters",
    ),
    _v1_family(
        UUID1, UUID6, "uuidv1", 3, "RFC 9562 v1: 100 ns Gregorian time, scattered (does not sort)"
    ),
    Registration(
        "uuid1-ordered",
        UUID1_ORDERED,
        aliases=("ordered-uuid",),
        fields=lambda _, v: {
            "version": 1,
            "variant": (v >> 62) & 0b11,
            "uuid1": convert_uuid(UUID1_ORDERED._encode(v), UUID1_ORDERED, UUID1),
            **gregorian_fields(_ordered_ticks(v), v & _LOW_64),
        },
        readings=(
            Reading(50, lambda text: text if HEX32.fullmatch(text) else None, frozenset({32})),
        ),
        generator=_gregorian_generator(_ordered_value),
        explains_refusals=True,
        summary="MySQL's UUID_TO_BIN(u, 1): v1 with the time moved first, 32 hex digits",
    ),
)
