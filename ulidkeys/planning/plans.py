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
from typing import Any, Generic, Protocol, TypeVar

from ulidkeys.errors import (
    InvalidCursor,
    InvalidSlice,
    InvalidType,
    InvalidWindow,
    describe,
    require_count,
)
from ulidkeys.planning.timewindow import TimeWindow
from ulidkeys.timeinput import TimeInput, format_ms, to_ms

#: Where an item stands in the results: ``(id text, key text)``. Ids of one scheme are fixed
#: width and sort by time, and two items of one answer never share both, so this orders every
#: result of every plan - across shards, time partitions and both services.
Position = tuple[str, str]
#: Position key of a bare id given as ``after=``: above every key of that id.
PAST_ALL_KEYS = "\U0010ffff"

#: Verdicts for keys the answer does not contain.
SKIP = "skip"  # the key does not fit the layout or template (another item type, a child)
OUTSIDE = "outside"  # it fits, but its time is outside the window, or it is not past the cursor

#: Most call chains one plan may hold: a wider fan-out is almost surely a mistaken window.
MAX_CALLS = 10_000
#: Most slices one window may be cut into (one per worker of a fan-out).
MAX_SLICES = 100_000


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


#: What a plan reads from a key that fits: ``(id text, id time in ms, key as text)``. A plain
#: tuple, not a named one: one is made for every listed key, and a named tuple costs ten times
#: as much to make.
Located = tuple[str, int, str]
#: What a plan reads from a page of keys that all fit, in ascending order: their ids (in the
#: keys' order, so ascending too) and the times of the first and the last.
KeyRun = tuple[list[str], int, int]


class Strategy(Protocol):
    """How one service reads the keys of its plans and re-plans them: plain data (a layout or
    an entity and the listing's options) with methods, so a plan holds no closure and can be
    printed, compared and pickled whole. One per kind of listing: S3 windows and folders
    (``planning.listings``), DynamoDB queries (``planning.queries``)."""

    @property
    def splittable(self) -> bool:
        """Whether the executor may cut this plan's chains into time slices
        (:meth:`slice_call`)."""
        ...

    def locate(self, key: Any) -> Located | None:
        """The id, time and key text of a returned key (None: it does not fit)."""
        ...

    @property
    def locate_run(self) -> Callable[[list[Any]], KeyRun | None] | None:
        """Reads a page of returned keys at once, given them in strictly ascending order:
        their ids and first and last times when every one of them fits, else None (then
        :meth:`locate` reads each). None when this strategy reads keys one by one only."""
        ...

    def slice_call(self, call: Any, lo_ms: int, hi_ms: int) -> Any:
        """The call listing ``call``'s keys of ``[lo_ms, hi_ms)`` only, past the plan's
        ``after`` (None when nothing can be there); only asked when :attr:`splittable`."""
        ...

    def trim_call(self, call: Any, below_id: str) -> Any:
        """The same chain with its next pages stopping below ``below_id`` (DynamoDB's
        BETWEEN), or ``call`` itself when the service cannot narrow a chain (S3's continuation
        token): the executor then ends a cut chain itself at the first id past the cut."""
        ...

    def replan(self, start_ms: int, end_ms: int, cursor: str | None) -> Plan[Any]:
        """The same listing's plan for another window (a slice of this one), resumed just
        past ``cursor`` if given."""
        ...


@dataclass(frozen=True)
class Plan(Generic[CallT]):
    """The call chains answering one window, and the test applied to every key they return.

    ``strategy`` reads a key (:meth:`Strategy.locate`; ``None`` when it does not fit); the
    plan keeps the keys whose time is in ``[start_ms, end_ms)`` and, with ``after``, only those
    past that position in result order (with ``before``, only those below it: the slices of a
    newest-first walk). ``scope`` names what is listed (layout or entity, fields), so a cursor
    is refused by any other listing. The strategy also cuts a chain into time slices for the
    executor (:meth:`Strategy.slice_call`) and makes the same listing's plan for another window
    (:meth:`Strategy.replan`): what :meth:`slice_plan` runs one of a window's :meth:`slices`
    with. Everything is data: plans made from the same inputs compare equal.
    """

    groups: tuple[tuple[CallT, ...], ...]
    start_ms: int
    end_ms: int
    strategy: Strategy
    scope: str
    title: str
    newest_first: bool = False
    limit: int | None = None
    after: Position | None = None
    before: Position | None = None
    # the strategy's locate, bound once: judge() runs for every key a listing reads
    _locate: Callable[[Any], Located | None] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_locate", self.strategy.locate)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        del state["_locate"]  # made again from the strategy
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        object.__setattr__(self, "_locate", self.strategy.locate)

    @property
    def calls(self) -> tuple[CallT, ...]:
        return tuple(call for group in self.groups for call in group)

    @property
    def is_empty(self) -> bool:
        """True when the plan makes no call (nothing can be in the window, or limit is 0)."""
        return not self.groups or self.limit == 0

    def judge(self, key: Any) -> Position | str:
        """The position of a key in the answer, else SKIP or OUTSIDE."""
        found = self._locate(key)
        if found is None:
            return SKIP
        id_text, ms, text = found
        if not self.start_ms <= ms < self.end_ms:
            return OUTSIDE
        position = (id_text, text)
        after = self.after
        if after is not None and (position >= after if self.newest_first else position <= after):
            return OUTSIDE
        if self.before is not None and position >= self.before:
            return OUTSIDE
        return position

    def judge_run(
        self, keys: list[Any], owns: tuple[str, str] | None = None
    ) -> tuple[list[Position], int] | None:
        """The positions of a page of keys in strictly ascending order, in an oldest-first
        answer, and the last key's time, when every key fits and lies in the window, past
        ``after``, below ``before`` and with its id in ``owns`` (a time slice's ids:
        ``[first, end)``): what :meth:`judge` gives each of them then, read at once. None
        otherwise - then :meth:`judge` reads each key and says which are left out."""
        locate_run = self.strategy.locate_run
        if locate_run is None or self.newest_first:
            return None
        found = locate_run(keys)
        if found is None:
            return None
        ids, first_ms, last_ms = found  # ids ascend with the keys
        if first_ms < self.start_ms or last_ms >= self.end_ms:
            return None
        if owns is not None and (ids[0] < owns[0] or ids[-1] >= owns[1]):
            return None
        positions = list(zip(ids, keys, strict=True))
        if self.after is not None and positions[0] <= self.after:
            return None
        if self.before is not None and positions[-1] >= self.before:
            return None
        return positions, last_ms

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

    # --- slices: pieces of the window for workers that share nothing ---------------------------
    def slices(self, n: int) -> list[Slice]:
        """``n`` disjoint slices of this plan's window whose union is the window, in time order.

        Slice ``i`` is the milliseconds ``[start + w*i//n, start + w*(i+1)//n)`` (``w`` the
        window's width), on every shard: an item belongs to the one slice holding its id's
        time, so workers listing one slice each (:meth:`slice_plan`) list every item once.
        The cut depends on the window and ``n`` only, so each worker can cut it itself.
        """
        require_count(n, "n", 1, MAX_SLICES)
        if self.limit is not None or self.after is not None or self.before is not None:
            raise InvalidSlice(
                "only the plan of a whole window can be sliced (this one has a limit, a cursor "
                "or after=); slice the window, then resume each slice with its own cursor"
            )
        return [Slice(self.scope, self.start_ms, self.end_ms, i, n) for i in range(n)]

    def slice(self, index: int, count: int, cursor: str | None = None) -> Plan[CallT]:
        """The plan of slice ``index`` (0-based, like array jobs) of ``count`` of this plan's
        window, resumed past ``cursor`` (one that slice's listing gave): what one of ``count``
        workers runs. Every worker must plan the same window: see :func:`fixed_window`."""
        require_count(count, "count", 1, MAX_SLICES)
        require_count(index, "index", 0, count - 1)  # 0-based, like array jobs
        return self.slice_plan(self.slices(count)[index], cursor)

    def slice_plan(self, piece: Slice, cursor: str | None = None) -> Plan[CallT]:
        """The plan listing exactly ``piece`` (a slice of this plan's window), resumed just past
        ``cursor`` (a cursor the same slice's listing gave) if given."""
        require_slice(piece)
        if piece.scope != self.scope or piece.window != (self.start_ms, self.end_ms):
            raise InvalidSlice(
                f"{piece} belongs to another listing or window than this plan "
                f"({format_ms(self.start_ms)} .. {format_ms(self.end_ms)}); plan the slice's "
                "own window with the same layout or entity"
            )
        return self.strategy.replan(piece.start_ms, piece.end_ms, cursor)


_SLICE_MARK = "ulidkeys_slice"
_SLICE_FIELDS = {_SLICE_MARK, "scope", "window", "index", "count", "start_ms", "end_ms"}


@dataclass(frozen=True)
class Slice:
    """Slice ``index`` (0-based) of ``count`` of a listing's window: ``[start_ms, end_ms)``.

    Plain, JSON-safe data (:meth:`to_json`, :meth:`from_json`) to hand to a worker: an AWS
    Batch array job, a Lambda, a Spark or Dask task. ``scope`` names the listing (layout or
    entity and fields), so a slice is refused by any other listing.
    """

    scope: str
    window_start_ms: int
    window_end_ms: int
    index: int
    count: int

    def __post_init__(self) -> None:
        require_count(self.count, "count", 1, MAX_SLICES)
        require_count(self.index, "index", 0, self.count - 1)

    @property
    def window(self) -> tuple[int, int]:
        """The whole window the slice is a piece of."""
        return self.window_start_ms, self.window_end_ms

    @property
    def start_ms(self) -> int:
        width = self.window_end_ms - self.window_start_ms
        return self.window_start_ms + width * self.index // self.count

    @property
    def end_ms(self) -> int:
        width = self.window_end_ms - self.window_start_ms
        return self.window_start_ms + width * (self.index + 1) // self.count

    def to_json(self) -> str:
        """One line of JSON; ``start_ms``/``end_ms`` are spelled out for readers in other
        languages and checked against ``window``, ``index`` and ``count`` when read back."""
        body = {
            _SLICE_MARK: 1,
            "scope": self.scope,
            "window": list(self.window),
            "index": self.index,
            "count": self.count,
            "start_ms": self.start_ms,
            "end_ms": self.end_ms,
        }
        return json.dumps(body, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> Slice:
        """The slice a :meth:`to_json` text holds; InvalidSlice for anything else."""
        try:
            body = json.loads(text)
        except (ValueError, TypeError):
            body = None
        ints = (
            [body.get(name) for name in ("index", "count", "start_ms", "end_ms")]
            if isinstance(body, dict)
            else []
        )
        window = body.get("window") if isinstance(body, dict) else None
        if (
            not isinstance(body, dict)
            or set(body) != _SLICE_FIELDS
            or body[_SLICE_MARK] != 1
            or not isinstance(body["scope"], str)
            or not isinstance(window, list)
            or len(window) != 2
            or any(type(value) is not int for value in [*ints, *window])
            or not 0 <= body["index"] < body["count"] <= MAX_SLICES
            or window[0] > window[1]
        ):
            raise InvalidSlice(
                f"text={describe(text)} is not a ulidkeys slice (Slice.to_json() of format 1)"
            )
        piece = cls(body["scope"], window[0], window[1], body["index"], body["count"])
        if (piece.start_ms, piece.end_ms) != (body["start_ms"], body["end_ms"]):
            raise InvalidSlice(
                f"text={describe(text)} is damaged: its start_ms/end_ms are not slice "
                f"{piece.index} of {piece.count} of its window"
            )
        return piece

    def __str__(self) -> str:
        return (
            f"slice {self.index}/{self.count} [{format_ms(self.start_ms)}, "
            f"{format_ms(self.end_ms)})"
        )


def require_slice(piece: object) -> Slice:
    """``piece`` if it is a :class:`Slice`, else InvalidType (a worker handed its text or a
    dict): checked before a slice's window is read, by whatever reads it first."""
    if not isinstance(piece, Slice):
        raise InvalidType(f"piece={describe(piece)} must be a Slice (Slice.from_json(text))")
    return piece


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
                "this cursor was made by "
                + ("a newest-first" if self.newest_first else "an oldest-first")
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


#: Two "now"s far from the epoch: a time relative to now reads differently at each.
_NOW_A, _NOW_B = 1_000_000_000_000, 1_000_000_000_001


def fixed_window(
    since: TimeInput | None,
    until: TimeInput | None,
    why: str,
    names: tuple[str, str] = ("since", "until"),
) -> tuple[int, int]:
    """``[start, end)`` of a window whose ends are fixed times (ISO-8601, epoch ms, an aware
    datetime), the same on every machine that reads them; InvalidWindow naming the end that is
    missing or relative to now (``"now"``, ``"1h"``, a timedelta). ``why`` says who needs it,
    ``names`` what the caller calls the two ends (the CLI: ``--since``, ``--until``)."""
    for name, value in zip(names, (since, until), strict=True):
        if value is None or to_ms(value, name, now=_NOW_A) != to_ms(value, name, now=_NOW_B):
            raise InvalidWindow(
                f"{why} needs a fixed {name} (ISO-8601 or epoch ms, not 'now' or a time "
                "relative to it): every worker must cut the same window"
            )
    return resolve_window(since, until)
