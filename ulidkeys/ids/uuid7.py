"""UUIDv7 (RFC 9562): 48-bit ms time, version 7, 74 random bits; its text sorts by time."""

from __future__ import annotations

import os

from ulidkeys.ids.registration import (
    Registration,
    hex_digits,
)
from ulidkeys.ids.uuids import RAND_B, VARIANT, UuidScheme, uuid_fields, uuid_readings


class Uuid7Scheme(UuidScheme):
    """UUIDv7 (RFC 9562): 48-bit ms time, version 7, 74 random bits; text sorts by time."""

    name = "uuid7"
    version = 7
    pattern = UuidScheme._uuid_pattern(7)

    def _time_of(self, value: int) -> int:
        return value >> 80

    def _compose(self, ms: int, fill: bool) -> int:
        rest = (0xFFF << 64) | RAND_B if fill else 0
        return (ms << 80) | (7 << 76) | VARIANT | rest

    def _random_of(self, value: int) -> int:
        """The 74 random bits: rand_a (12 bits) followed by rand_b (62 bits)."""
        return (((value >> 64) & 0xFFF) << 62) | (value & RAND_B)

    def new_int(self) -> int:
        """A fresh UUIDv7 as a number (what TypeIDs encode)."""
        random = int.from_bytes(os.urandom(10), "big")
        rand_a, rand_b = random >> 68, random & RAND_B
        ms = self._wall_ms()
        return (ms << 80) | (7 << 76) | (rand_a << 64) | VARIANT | rand_b

    def new(self) -> str:
        return self._encode(self.new_int())


#: RFC 9562 UUIDv7: 48-bit ms time, 74 random bits.
UUID7 = Uuid7Scheme()


REGISTRATIONS = (
    Registration(
        "uuid7",
        UUID7,
        aliases=("uuidv7",),
        fields=lambda _, v: {
            **uuid_fields(v),
            "rand_a": (v >> 64) & 0xFFF,
            "rand_b": hex_digits(v & RAND_B, 16),
        },
        readings=uuid_readings(1),
        explains_refusals=True,
        summary="RFC 9562 v7: 48-bit ms time + 74 random bits, 36 characters",
    ),
)
