"""Time windows: "since/until" inputs -> a half-open millisecond window -> ULID key bounds.

Pure functions, no I/O: the S3 and DynamoDB planners call these. A window is always
``start_ms <= t < end_ms`` in integer milliseconds, so adjacent windows partition time; its
prefix covers come from :mod:`ulidkeys.planning.prefixcover`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ulidkeys import base32
from ulidkeys.errors import InvalidWindow, require_str
from ulidkeys.ids.protocol import bounds
from ulidkeys.ids.ulids import ULID_SCHEME
from ulidkeys.planning import prefixcover
from ulidkeys.planning.prefixcover import END_OF_TIME_MS, PrefixBlock, PrefixCover
from ulidkeys.timeinput import TimeInput, format_ms, now_ms, to_ms
from ulidkeys.ulid import ULID

_ZEROS = "0" * base32.RANDOM_LENGTH
_ONES = "Z" * base32.RANDOM_LENGTH


@dataclass(frozen=True, init=False)
class TimeWindow:
    """The half-open window ``start_ms <= t < end_ms`` (Unix epoch milliseconds).

    ``since`` and ``until`` each take an aware datetime, epoch ms, ISO-8601 text, ``"now"``
    or a ``timedelta`` meaning "that long before now"; ``until`` defaults to now. Both ends are
    floored to the millisecond, the same way, so ``[a, b)`` and ``[b, c)`` never share or drop
    a millisecond. ``since == until`` is a valid, empty window.
    """

    start_ms: int
    end_ms: int

    def __init__(self, since: TimeInput, until: TimeInput | None = None) -> None:
        reference = now_ms()  # one clock reading for both ends, "now" and timedeltas alike
        start = to_ms(since, "since", now=reference)
        if until is None:
            end = reference
        elif isinstance(until, int) and not isinstance(until, bool) and until == END_OF_TIME_MS:
            end = until  # exclusive, so one past the last ULID millisecond is a valid end
        else:
            end = to_ms(until, "until", now=reference)
        if start > end:
            raise InvalidWindow(
                f"since={format_ms(start)} is after until={format_ms(end)}; a window needs "
                "since <= until"
            )
        object.__setattr__(self, "start_ms", start)
        object.__setattr__(self, "end_ms", end)

    @classmethod
    def from_ms(cls, start_ms: int, end_ms: int) -> TimeWindow:
        """The window ``[start_ms, end_ms)`` from two epoch-millisecond ints.

        ``end_ms`` may be ``2**48`` (:data:`END_OF_TIME_MS`) to include the last ULID millisecond.
        """
        return cls(start_ms, end_ms)

    @property
    def is_empty(self) -> bool:
        """True when the window selects no millisecond at all."""
        return self.start_ms >= self.end_ms

    @property
    def duration_ms(self) -> int:
        return self.end_ms - self.start_ms

    def __contains__(self, item: int | ULID | str) -> bool:
        """Whether a millisecond, a ULID or ULID text has its time in the window."""
        if isinstance(item, int):
            ms = item
        else:
            ms = (item if isinstance(item, ULID) else ULID.from_str(item)).timestamp_ms
        return self.start_ms <= ms < self.end_ms

    def bounds(self, prefix: str = "") -> tuple[str, str]:
        """``(lo, hi)`` with ``lo <= key < hi`` exactly for keys ``prefix + ULID + anything``.

        ``lo`` is the smallest ULID of ``start_ms`` and ``hi`` the smallest of ``end_ms``; both
        are prefixed by ``prefix``. Any suffix after the ULID (``.jpg``, ``#Comment#...``) keeps
        the comparison exact, because the ULIDs already differ within their 26 characters.
        The same path as every scheme's (:func:`ulidkeys.ids.bounds`); at the end of time
        (``end_ms`` = 2**48) ``hi`` is the 26-character text of ``end_ms``
        (``"80000000000000000000000000"``), where the scheme-wide path gives the shorter ``"8"``:
        both lie above every ULID.
        """
        lo, hi = bounds(ULID_SCHEME, self, prefix)
        if self.end_ms > ULID_SCHEME.max_ms:
            hi = prefix + base32.encode_time(self.end_ms) + _ZEROS
        return lo, hi

    def inclusive_bounds(self, prefix: str = "", suffix: str = "") -> tuple[str, str]:
        """``(lo, hi_incl)``: the smallest ULID of ``start_ms`` and the largest of ``end_ms - 1``.

        Both are wrapped as ``prefix + ULID + suffix``; ``lo <= key <= hi_incl`` is exact for
        keys of exactly that shape (DynamoDB ``BETWEEN`` is inclusive). Keys with a longer
        suffix after the ULID of ``end_ms - 1`` sort above ``hi_incl``: use :meth:`bounds` for
        them. An empty window has no inclusive bounds and raises InvalidWindow: check
        :attr:`is_empty` first.
        """
        if self.is_empty:
            raise InvalidWindow(
                f"the window {self} is empty and has no inclusive bounds; test window.is_empty "
                "and skip the request instead"
            )
        require_str(prefix, "prefix")
        require_str(suffix, "suffix")
        return (
            prefix + base32.encode_time(self.start_ms) + _ZEROS + suffix,
            prefix + base32.encode_time(self.end_ms - 1) + _ONES + suffix,
        )

    def common_prefix(self) -> str:
        """The longest ULID prefix (0-10 characters) shared by every ULID in the window.

        Sent as ``Prefix`` it narrows a listing without losing a key of the window. An empty
        window returns its start's 10 time characters (it selects nothing anyway).
        """
        return self.enclosing_block().prefix

    def enclosing_block(self) -> PrefixBlock:
        """The :meth:`common_prefix` with the milliseconds it selects (its resolution)."""
        return prefixcover.enclosing_block(self.start_ms, self.end_ms)

    def prefix_cover(self, max_prefixes: int | None = None) -> PrefixCover:
        """Sorted ULID prefixes selecting the window: exactly, or with at most ``max_prefixes``.

        ``None``: the minimal set of prefixes whose ULIDs are exactly those of the window.
        ``k``: at most k prefixes selecting a superset, with the least extra time; the result
        reports it as ``extra_ms`` and ``ratio`` (see :class:`PrefixCover`). An empty window
        has no prefixes. ``""`` (all of time) appears only when one prefix must span several
        first characters, or for the window of all time.
        """
        return prefixcover.cover(self.start_ms, self.end_ms, max_prefixes)

    def __str__(self) -> str:
        return f"[{format_ms(self.start_ms)}, {format_ms(self.end_ms)})"
