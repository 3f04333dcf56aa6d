"""What every integer-coded id scheme shares: :class:`IntCodedScheme` (the protocol written once
over an unsigned integer with a time field) and the regex helpers the schemes' ``pattern`` is
built with. Each scheme lives in its own module with its registration.
"""

from __future__ import annotations

import re
import time

from ulidkeys.errors import (
    InvalidId,
    InvalidType,
    InvalidValue,
    TimeOutOfRange,
    describe,
    require_int,
)


def char_class(chars: str) -> str:
    """A regex for one of ``chars`` (given in ASCII order): ``[0-9A-HJK]`` or a lone char."""
    runs: list[list[str]] = []
    for char in chars:
        if runs and ord(char) == ord(runs[-1][1]) + 1:
            runs[-1][1] = char
        else:
            runs.append([char, char])
    body = "".join(
        first if first == last else first + (last if ord(last) == ord(first) + 1 else "-" + last)
        for first, last in runs
    )
    return re.escape(chars) if len(chars) == 1 else f"[{body}]"


def at_most(top: str, alphabet: str) -> str:
    """A regex (no capturing groups) matching exactly the texts of ``len(top)`` characters of
    ``alphabet`` (in ASCII order) that sort at or below ``top``."""
    any_char = char_class(alphabet)

    def repeat(n: int) -> str:
        return "" if n == 0 else any_char if n == 1 else f"{any_char}{{{n}}}"

    def from_position(i: int) -> str:
        rest = len(top) - i - 1
        upto = alphabet[: alphabet.index(top[i]) + 1]
        if all(char == alphabet[-1] for char in top[i + 1 :]):
            return char_class(upto) + repeat(rest)
        equal = re.escape(top[i]) + from_position(i + 1)
        below = upto[:-1]
        return equal if not below else f"(?:{char_class(below)}{repeat(rest)}|{equal})"

    return from_position(0)


class IntCodedScheme:
    """Shared logic for schemes whose id is an unsigned integer with a time field.

    A subclass sets the protocol attributes and ``bits`` (every id is an integer in
    ``0 .. 2**bits - 1``) and defines ``_decode`` (text to integer, validating the text),
    ``_encode`` (integer to canonical text), ``_time_of``, ``_compose`` and ``_random_of``.
    """

    name = "abstract"
    resolution_ms = 1
    min_ms = 0
    max_ms = (1 << 48) - 1
    sorts_by_time = True
    length = 0
    pattern = ""
    numeric = False
    #: Width of the numeric form: every id is an integer in ``0 .. 2**bits - 1``.
    bits = 128
    #: The exception raised for a bad id (InvalidULID for ULIDs, which is an InvalidId).
    _error: type[InvalidId] = InvalidId

    # What a scheme defines --------------------------------------------------------------
    def _decode(self, text: str) -> int:
        raise NotImplementedError

    def _encode(self, value: int) -> str:
        raise NotImplementedError

    def _time_of(self, value: int) -> int:
        raise NotImplementedError

    def _compose(self, ms: int, fill: bool) -> int:
        """The id of millisecond ``ms`` with every non-time bit clear (or set, if ``fill``)."""
        raise NotImplementedError

    def _random_of(self, value: int) -> int | None:
        raise NotImplementedError

    def _broken_rule(self, value: int) -> str | None:
        """Why an integer of the right width is no id (UUID version/variant bits), or None."""
        return None

    # The protocol ------------------------------------------------------------------------
    def _checked_text(self, text: object) -> str:
        if not isinstance(text, str):
            raise InvalidType(
                f"{describe(text)} must be the text of a {self.name} id (a str), "
                f"not {type(text).__name__}"
            )
        return text

    def parse(self, text: str) -> str:
        """The canonical text of ``text``; InvalidId naming the rule if it is no id."""
        return self._encode(self._decode(self._checked_text(text)))

    def decoded(self, text: str) -> tuple[str, int, int | None]:
        """``(parse(text), to_int(text), timestamp_ms(text) or None)`` from one decoding of
        the text: what ``inspect`` reads of every id of a listing (None: the id holds no time,
        a UUIDv4's)."""
        value = self._decode(self._checked_text(text))
        try:
            ms: int | None = self._time_of(value)
        except InvalidValue:
            ms = None
        return self._canonical(text, value), value, ms

    def _canonical(self, text: str, value: int) -> str:
        """The canonical text of ``text``, which decoded to ``value``."""
        return self._encode(value)

    def timestamp_ms(self, text: str) -> int:
        """The epoch millisecond held in the id (floored to the scheme's resolution)."""
        return self._time_of(self._decode(self._checked_text(text)))

    def to_int(self, text: str) -> int:
        """The id's bits as an unsigned integer."""
        return self._decode(self._checked_text(text))

    def from_int(self, value: int) -> str:
        """The canonical text of an integer; InvalidType for a non-int, InvalidId for no id."""
        require_int(value, "value")
        if value < 0 or value >> self.bits:
            raise self._error(
                f"{describe(value)} is not a valid {self.name} id: the integer must be in "
                f"0 .. 2**{self.bits} - 1"
            )
        rule = self._broken_rule(value)
        if rule is not None:
            raise self._error(f"{describe(value)} is not a valid {self.name} id: {rule}")
        return self._encode(value)

    def random_bits(self, text: str) -> int | None:
        """The id's random bits as an integer (None for schemes without any)."""
        return self._random_of(self._decode(self._checked_text(text)))

    def _check(self, ms: int) -> int:
        require_int(ms, "ms", "an int (epoch milliseconds)")
        if not self.min_ms <= ms <= self.max_ms:
            raise TimeOutOfRange(
                f"ms={describe(ms)} is outside what a {self.name} id can hold "
                f"({self.min_ms} .. {self.max_ms} epoch milliseconds)"
            )
        if ms % self.resolution_ms:
            step = self.resolution_ms
            unit = "whole seconds" if step == 1000 else f"whole steps of {step} ms"
            raise TimeOutOfRange(
                f"ms={ms!r} is not a whole {step} ms step; {self.name} ids hold {unit}"
            )
        return ms

    def _wall_ms(self) -> int:
        """The wall clock's epoch millisecond for a new id (``new()``); TimeOutOfRange when
        the scheme cannot hold it (a clock left at 1970 is before KSUID's 2014 epoch): the
        arithmetic would give text that is no id of the scheme."""
        ms = time.time_ns() // 1_000_000  # looked up per call: freezegun's clock works
        if not self.min_ms <= ms - ms % self.resolution_ms <= self.max_ms:
            raise TimeOutOfRange(
                f"the clock reads {ms} ms, outside what {self.name} ids can hold "
                f"({self.min_ms} .. {self.max_ms} epoch milliseconds)"
            )
        return ms

    def with_time(self, text: str, ms: int) -> str:
        """The id with its time moved to ``ms``, every other bit (and any sub-resolution part
        of the time) kept: what newest-first keys are made with."""
        value = self._decode(self._checked_text(text))
        moved = self._replace_time(value, self._time_of(value), self._check(ms))
        return self.from_int(moved)

    def _replace_time(self, value: int, old_ms: int, new_ms: int) -> int:
        # The time field is contiguous above the other bits: move it by arithmetic.
        return value - self._compose(old_ms, fill=False) + self._compose(new_ms, fill=False)

    def min_for(self, ms: int) -> str:
        """The smallest id of millisecond ``ms`` (every non-time bit clear)."""
        return self._encode(self._compose(self._check(ms), fill=False))

    def max_for(self, ms: int) -> str:
        """The largest id of millisecond ``ms`` (every non-time bit set)."""
        return self._encode(self._compose(self._check(ms), fill=True))

    def _invalid(self, text: str, rule: str) -> InvalidId:
        return self._error(f"{describe(text)} is not a valid {self.name} id: {rule}")

    def __repr__(self) -> str:
        return f"<id scheme {self.name}>"

    # Schemes are values: one pickled for a worker and read back equals the original, so the
    # layouts, entities and plans holding it compare equal too.
    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self) -> int:
        return hash((type(self), self.name))
