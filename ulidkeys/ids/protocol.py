"""The protocol every time-sortable id scheme implements, and the window bounds derived from it.

Planners are written once against :class:`IdScheme`: a scheme says how to read the time out of
an id, which ids are the smallest and largest of a millisecond, and whether its text sorts by
time. ULID is one scheme among several (UUIDv7/v6, KSUID, ObjectId, Snowflake-style ids).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ulidkeys.errors import InvalidValue
from ulidkeys.timewindow import TimeWindow


@runtime_checkable
class IdScheme(Protocol):
    """What ulidkeys needs to know about an id scheme."""

    #: Short name, e.g. ``"ulid"``, ``"uuid7"``, ``"ksuid"``.
    name: str
    #: Time resolution of the id in milliseconds (1 for ms schemes, 1000 for second schemes).
    resolution_ms: int
    #: First and last epoch millisecond the scheme can represent.
    min_ms: int
    max_ms: int
    #: Whether the canonical text sorts by time (zero-padded, fixed width, ASCII-ordered digits).
    sorts_by_time: bool

    def parse(self, text: str) -> str:
        """The canonical text of ``text``; raise InvalidId (a ValueError) if it is not one."""
        ...

    def timestamp_ms(self, text: str) -> int:
        """The epoch millisecond held in the id (floored to the scheme's resolution)."""
        ...

    def min_for(self, ms: int) -> str:
        """The smallest id whose time is ``ms`` (which must be a multiple of the resolution)."""
        ...

    def max_for(self, ms: int) -> str:
        """The largest id whose time is ``ms``."""
        ...

    def to_int(self, text: str) -> int:
        """The id's numeric form (its bits as an unsigned integer)."""
        ...


def first_at_or_after(scheme: IdScheme, ms: int) -> str | None:
    """The smallest id whose time is ``>= ms``, or None if the scheme has no such id."""
    if ms > scheme.max_ms:
        return None
    step = scheme.resolution_ms
    rounded = max(scheme.min_ms, -(-ms // step) * step)
    return None if rounded > scheme.max_ms else scheme.min_for(rounded)


def bounds(scheme: IdScheme, window: TimeWindow, prefix: str = "") -> tuple[str, str]:
    """``(lo, hi)`` with ``lo <= key < hi`` exactly for keys ``prefix + id + anything`` whose id
    time is in the window.

    For schemes coarser than a millisecond, an id at second ``s`` has time ``s * 1000``, so
    the window selects the ids whose whole-second time is in it. When the window reaches past
    the scheme's last representable time, ``hi`` is ``prefix + "~"``, above every id text.
    """
    if not scheme.sorts_by_time:
        raise InvalidValue(
            f"the text of {scheme.name} ids does not sort by time, so no string range can select "
            "a time window; use a fixed-width (zero-padded) form of the scheme"
        )
    lo = first_at_or_after(scheme, window.start_ms)
    hi = first_at_or_after(scheme, window.end_ms)
    above_all = prefix + "~"
    return (
        above_all if lo is None else prefix + lo,
        above_all if hi is None else prefix + hi,
    )


def in_window(scheme: IdScheme, window: TimeWindow, text: str) -> bool:
    """Whether the id's time falls in the half-open window."""
    return window.start_ms <= scheme.timestamp_ms(text) < window.end_ms
