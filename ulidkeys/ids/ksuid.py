"""KSUID (Segment): 32-bit seconds since 2014-05-13 + 128 random bits, 27 base62 characters."""

from __future__ import annotations

import os

from ulidkeys.ids.base import IntCodedScheme, at_most
from ulidkeys.ids.registration import (
    Reading,
    Registration,
    hex_digits,
)

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_BASE62_VALUE = {c: i for i, c in enumerate(_BASE62)}
_KSUID_EPOCH_S = 1_400_000_000
_KSUID_LENGTH = 27


def _to_base62(value: int) -> str:
    chars = []
    for _ in range(_KSUID_LENGTH):
        value, digit = divmod(value, 62)
        chars.append(_BASE62[digit])
    return "".join(reversed(chars))


class KsuidScheme(IntCodedScheme):
    """KSUID (Segment): 32-bit seconds since 2014-05-13 + 128 random bits, 27 chars base62.

    ``pattern`` matches exactly the 27-character texts up to the largest KSUID
    (``aWgEPTl1tmebfsQzFP4bxwgy80V``); ``parse`` is the full check either way.
    """

    name = "ksuid"
    resolution_ms = 1000
    min_ms = _KSUID_EPOCH_S * 1000
    max_ms = (_KSUID_EPOCH_S + (1 << 32) - 1) * 1000
    bits = 160
    length = _KSUID_LENGTH
    pattern = at_most(_to_base62((1 << 160) - 1), _BASE62)

    def _decode(self, text: str) -> int:
        if len(text) != _KSUID_LENGTH:
            raise self._invalid(text, f"expected 27 base62 characters, got {len(text)}")
        value = 0
        for position, char in enumerate(text):
            digit = _BASE62_VALUE.get(char)
            if digit is None:
                raise self._invalid(
                    text, f"character {char!r} at position {position} is not base62 (0-9, A-Z, a-z)"
                )
            value = value * 62 + digit
        if value >> 160:
            raise self._invalid(text, "it exceeds the largest KSUID (160 bits)")
        return value

    def _encode(self, value: int) -> str:
        return _to_base62(value)

    def _time_of(self, value: int) -> int:
        return ((value >> 128) + _KSUID_EPOCH_S) * 1000

    def _compose(self, ms: int, fill: bool) -> int:
        return ((ms // 1000 - _KSUID_EPOCH_S) << 128) | ((1 << 128) - 1 if fill else 0)

    def _random_of(self, value: int) -> int:
        """The 128-bit payload."""
        return value & ((1 << 128) - 1)

    def new(self) -> str:
        seconds = self._wall_ms() // 1000 - _KSUID_EPOCH_S
        return self._encode((seconds << 128) | int.from_bytes(os.urandom(16), "big"))


#: KSUID: 32-bit seconds since 2014-05-13 + 128 random bits, 27 base62 characters.
KSUID = KsuidScheme()


REGISTRATIONS = (
    Registration(
        "ksuid",
        KSUID,
        fields=lambda _, v: {
            "timestamp": v >> 128,
            "payload": hex_digits(v & ((1 << 128) - 1), 32),
        },
        readings=(Reading(70.1),),
        explains_refusals=True,
        summary="32-bit seconds since 2014-05-13 + 128 random bits, 27 base62 characters",
    ),
)
