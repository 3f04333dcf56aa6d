"""Plans: the calls that answer a window, as plain data, and the one test every key passes.

A plan is groups of call chains: groups follow one another in result order, the chains of a
group (shards) are merged by position. The S3 and DynamoDB planners fill it with their own
calls; the shared executor runs any plan. Positions and cursors are defined here, once.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

from ulidkeys.errors import InvalidCursor, InvalidType, describe
from ulidkeys.timeinput import TimeInput, format_ms
from ulidkeys.timewindow import TimeWindow

#: Where an item stands in the results: ``(id text, key text)``. Ids of one scheme are fixed
#: width and sort by time, and two items of one answer never share both, so this orders every
#: result of every plan - across shards, time partitions and both services.
Position = tuple[str, str]

#: Verdicts for keys the answer does not contain.
SKIP = "skip"  # the key does not fit the layout or template (another item type, a child)
OUTSIDE = "outside"  # it fits, but its time is outside the window, or it is not past the cursor

#: Most call chains one plan may hold: a wider fan-out is almost surely a mistaken window.
MAX_CALLS = 10_000


class Call(Protocol):
    """One call chain of a plan: a first request, then continuation pages."""

    @property
    def ordered(self) -> bool:
        """The service returns this chain's keys in order (checked as they arrive)."""
        ...

    @property
    def stop_at(self) -> str | None:
        """Ordered, ascending chains end at the first key at or above this (None: to the end)."""
        ...

    @property
    def span(self) -> tuple[int, int] | None:
        """The id times ``[lo, hi)`` an ordered chain covers, if it can be cut in time slices."""
        ...

    @property
    def owns(self) -> tuple[str, str] | None:
        """The ids ``[lo, hi)`` this chain answers for (a time slice); None: all of them."""
        ...

    def explain(self) -> str:
        """One line: the request and when the chain ends."""
        ...


CallT = TypeVar("CallT", bound=Call)


class Located(NamedTuple):
    """What a plan reads from a key that fits: the id's text, its time and the key as text
    (a named tuple: one is made for every listed key)."""

    id: str
    ms: int
    key: str


@dataclass(frozen=True)
class Plan(Generic[CallT]):
    """The call chains answering one window, and the test applied to every key they return.

    ``locate`` reads a key (``None`` when it does not fit); the plan keeps the keys whose
    time is in ``[start_ms, end_ms)`` and, with ``after``, only those past that position in
    result order (with ``before``, only those below it: the slices of a newest-first walk).
    ``scope`` names what is listed (layout or entity, fields), so a cursor is refused by any
    other listing. ``slicer(call, lo_ms, hi_ms)`` (None: chains are not split) makes the call
    that lists a chain's keys of ``[lo_ms, hi_ms)`` only, with the plan's ``after``: the
    executor uses it to list one chain as concurrent time slices.
    """

    groups: tuple[tuple[CallT, ...], ...]
    start_ms: int
    end_ms: int
    locate: Callable[[Any], Located | None] = field(repr=False, compare=False)
    scope: str
    title: str
    newest_first: bool = False
    limit: int | None = None
    after: Position | None = None
    before: Position | None = None
    slicer: Callable[[Any, int, int], Any] | None = field(default=None, repr=False, compare=False)

    @property
    def calls(self) -> tuple[CallT, ...]:
        return tuple(call for group in self.groups for call in group)

    @property
    def is_empty(self) -> bool:
        """True when the plan makes no call (nothing can be in the window, or limit is 0)."""
        return not self.groups or self.limit == 0

    def judge(self, key: Any) -> Position | str:
        """The position of a key in the answer, else SKIP or OUTSIDE."""
        found = self.locate(key)
        if found is None:
            return SKIP
        if not self.start_ms <= found.ms < self.end_ms:
            return OUTSIDE
        position = (found.id, found.key)
        after = self.after
        if after is not None and (position >= after if self.newest_first else position <= after):
            return OUTSIDE
        if self.before is not None and position >= self.before:
            return OUTSIDE
        return position

    def cursor(self, position: Position) -> str:
        """The resume cursor just past ``position`` (an item this plan returned)."""
        return Cursor(self.scope, self.newest_first, self.start_ms, self.end_ms, position).encode()

    def explain(self) -> str:
        """A header line, then one numbered line per call chain (what ``--explain`` prints)."""
        order = "newest first" if self.newest_first else "oldest first"
        head = f"{self.title}, {format_ms(self.start_ms)} .. {format_ms(self.end_ms)} ({order})"
        calls = self.calls
        head += f": {len(calls)} call chain(s)"
        if self.limit is not None:
            head += f", limit {self.limit}"
        if self.after is not None:
            head += f", resuming after {self.after[1]!r}"
        lines = [head]
        lines += [f"  {n}. {call.explain()}" for n, call in enumerate(calls, 1)]
        if self.is_empty:
            lines.append("  (no calls: nothing can be in this window)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.explain()


def scope_of(*parts: object) -> str:
    """A short, stable digest of what a listing is over (layout or entity, fields, index)."""
    text = json.dumps([str(part) for part in parts], ensure_ascii=False)
    return hashlib.blake2b(text.encode(), digest_size=9).hexdigest()


_PREFIX = "uk1."


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


@dataclass(frozen=True)
class Cursor:
    """A resume point: the listing's scope, direction and window, and the last position given.

    Its text form (:meth:`encode`) is opaque, JSON-safe and URL-safe: store it, pass it back
    as ``cursor=`` and the listing continues just past that item, nothing lost or repeated.
    """

    scope: str
    newest_first: bool
    start_ms: int
    end_ms: int
    position: Position

    def encode(self) -> str:
        body = [self.scope, int(self.newest_first), self.start_ms, self.end_ms, *self.position]
        raw = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
        # A checksum after the body: a cursor changed in storage is refused, never resumed
        # somewhere else (a changed digit of the window would still be valid JSON).
        check = hashlib.blake2b(raw, digest_size=6).digest()
        return _PREFIX + _b64(raw) + "." + _b64(check)

    @classmethod
    def decode(cls, text: object) -> Cursor:
        """The cursor of a text made by :meth:`encode`; InvalidCursor for anything else."""
        if not isinstance(text, str):
            raise InvalidType(f"cursor={describe(text)} must be the str a listing's .cursor gave")
        if not text.startswith(_PREFIX):
            raise InvalidCursor(
                f"cursor={describe(text)} is not a ulidkeys cursor (or one of a newer version "
                f"than this ulidkeys reads: they start with {_PREFIX!r})"
            )
        try:
            body = text[len(_PREFIX) :].partition(".")[0]
            raw = base64.b64decode(body + "=" * (-len(body) % 4), altchars=b"-_", validate=True)
            scope, newest, start, end, id_text, key = json.loads(raw)
            checks: tuple[bool, ...] = (
                isinstance(scope, str),
                newest in (0, 1),
                type(start) is int,  # not a bool
                type(end) is int,
                isinstance(id_text, str),
                isinstance(key, str),
            )
        except (ValueError, TypeError, binascii.Error):
            checks = (False,)
        cursor = cls(scope, bool(newest), start, end, (id_text, key)) if all(checks) else None
        if cursor is None or cursor.encode() != text:  # the checksum, and one spelling only
            raise InvalidCursor(f"cursor={describe(text)} is damaged; pass a listing's .cursor")
        return cursor

    def check(self, scope: str, newest_first: bool, start_ms: int, end_ms: int) -> Position:
        """The position to resume after, if the cursor belongs to this listing; else raise."""
        if scope != self.scope:
            raise InvalidCursor(
                "this cursor belongs to another listing (another layout, entity, index or key "
                "fields); pass it back to the listing that made it"
            )
        if newest_first != self.newest_first:
            raise InvalidCursor(
                "this cursor was made by a "
                + ("newest-first" if self.newest_first else "oldest-first")
                + " listing; resume in the same direction"
            )
        if (start_ms, end_ms) != (self.start_ms, self.end_ms):
            raise InvalidCursor(
                f"this cursor belongs to the window {format_ms(self.start_ms)} .. "
                f"{format_ms(self.end_ms)}, not {format_ms(start_ms)} .. {format_ms(end_ms)}; "
                "pass the same window, or leave since/until out to take the cursor's"
            )
        return self.position


def resolve_window(
    since: TimeInput | None, until: TimeInput | None, cursor: str | None = None
) -> tuple[int, int]:
    """``[start, end)`` of a listing: ``since`` (default: the epoch) to ``until`` (default:
    now), read with one clock; with neither but a ``cursor``, the cursor's own window."""
    if since is None and until is None and cursor is not None:
        decoded = Cursor.decode(cursor)
        return decoded.start_ms, decoded.end_ms
    window = TimeWindow(0 if since is None else since, until)
    return window.start_ms, window.end_ms
