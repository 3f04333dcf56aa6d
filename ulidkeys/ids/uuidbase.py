"""What every RFC 9562 UUID scheme shares: the 8-4-4-4-12 text, version and variant bits, their
fields, and how ``inspect`` reads a UUID (dashed or as 32 hex digits).
"""

from __future__ import annotations

import re

from ulidkeys.ids.base import IntCodedScheme
from ulidkeys.ids.registration import (
    Field,
    Reading,
)

_UUID_TEXT = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)
#: The 15th character of a UUID's text of each version, in either case.
_VERSION_CHARACTERS = tuple(frozenset({f"{v:x}", f"{v:X}"}) for v in range(16))
_VARIANT = 0b10 << 62  # RFC 9562 variant bits
_RAND_B = (1 << 62) - 1  # the 62 bits after the variant


class UuidScheme(IntCodedScheme):
    """Shared by UUIDv7 and v6: canonical lowercase 8-4-4-4-12 text, version and variant bits."""

    version = 0
    length = 36

    @classmethod
    def _uuid_pattern(cls, version: int) -> str:
        return (
            f"[0-9a-f]{{8}}-[0-9a-f]{{4}}-{version}[0-9a-f]{{3}}-[89ab][0-9a-f]{{3}}-[0-9a-f]{{12}}"
        )

    def could_read(self, text: str) -> bool:
        """False for 8-4-4-4-12 text whose version character (the 15th) is another version's:
        ``inspect`` tries every UUID version on each line, and this refuses most of them
        without building the reason (a scheme with its own rule, nil or max, reads on)."""
        if type(self)._broken_rule is not UuidScheme._broken_rule or len(text) != 36:
            return True
        return text[14:15] in _VERSION_CHARACTERS[self.version]

    def _broken_rule(self, value: int) -> str | None:
        if (value >> 76) & 0xF != self.version:
            return f"the version nibble is {(value >> 76) & 0xF}, not {self.version}"
        if (value >> 62) & 0b11 != 0b10:
            return "the variant bits are not the RFC 9562 variant (10)"
        return None

    def _decode(self, text: str) -> int:
        if not _UUID_TEXT.fullmatch(text):
            raise self._invalid(text, "expected 36 characters of hex in the form 8-4-4-4-12")
        value = int(text.replace("-", ""), 16)
        rule = self._broken_rule(value)
        if rule is not None:
            raise self._invalid(text, rule)
        return value

    def _encode(self, value: int) -> str:
        h = f"{value:032x}"
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def _canonical(self, text: str, value: int) -> str:
        """Text this class decodes is 8-4-4-4-12 hex, whose canonical form is its lower case
        (not encoded again, a listing's every line)."""
        if type(self)._decode is UuidScheme._decode:
            return text.lower()
        return self._encode(value)


def uuid_fields(value: int) -> dict[str, Field]:
    """The version and variant bits every RFC 9562 UUID has."""
    return {"version": (value >> 76) & 0xF, "variant": (value >> 62) & 0b11}


_HEX32 = re.compile(r"[0-9a-fA-F]{32}")


def _dashed_text(text: str) -> str | None:
    return text if _UUID_TEXT.fullmatch(text) else None


def _hex_text(text: str) -> str | None:
    """32 hex digits without dashes (``uuid.hex``), dashed for the UUID parsers."""
    if not _HEX32.fullmatch(text):
        return None
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def _uuid_readings(rank: int) -> tuple[Reading, ...]:
    """A UUID version is read dashed (order 40) and as 32 hex (60), the versions in ``rank``
    order within each: v7, v6, v1, v3, v4, v5, nil, max."""
    return (
        Reading(40 + rank / 10, _dashed_text, frozenset({36})),
        Reading(60 + rank / 10, _hex_text, frozenset({32})),
    )
