"""Prefix covers: which ULID prefixes (0-10 time characters) select a millisecond window.

A prefix of L characters selects one aligned block of ``32**(10-L)`` ms (the first character
only takes 0-7, so one step of it is 2**45 ms and ``""`` is all 2**48 ms). Pure arithmetic.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import overload

from ulidkeys import base32
from ulidkeys.errors import InvalidPrefixBudget, InvalidType, InvalidULID, describe, require_int

#: One past the largest ULID millisecond: the exclusive end of all time a ULID can carry.
END_OF_TIME_MS = 1 << 48

#: ``SPAN_MS[L]``: milliseconds selected by a prefix of L time characters (L = 0..10).
SPAN_MS: tuple[int, ...] = (END_OF_TIME_MS, *(1 << (5 * (10 - n)) for n in range(1, 11)))

_ALPHABET = base32.ALPHABET


@dataclass(frozen=True)
class PrefixBlock:
    """The milliseconds ``[start_ms, end_ms)`` selected by one ULID prefix."""

    prefix: str
    start_ms: int
    end_ms: int

    @property
    def span_ms(self) -> int:
        return self.end_ms - self.start_ms


def prefix_block(prefix: str) -> PrefixBlock:
    """The block of milliseconds a ULID prefix of 0-10 characters selects.

    Raises InvalidULID for text that is no ULID's beginning (too long, not Crockford base32,
    or a first character above 7, past the 48-bit time limit).
    """
    if not isinstance(prefix, str):
        raise InvalidType(f"prefix={describe(prefix)} must be a str")
    if len(prefix) > base32.TIME_LENGTH:
        raise InvalidULID(
            f"prefix={describe(prefix)} has {len(prefix)} characters; a time prefix has 0-10 "
            "(longer prefixes reach into the random part and select no whole millisecond)"
        )
    if not prefix:
        return PrefixBlock("", 0, END_OF_TIME_MS)
    value = base32.decode(prefix, "ULID prefix")
    span = SPAN_MS[len(prefix)]
    if value * span >= END_OF_TIME_MS:
        raise InvalidULID(
            f"prefix={describe(prefix)} starts no ULID: the first character must be 0-7 "
            "(48-bit time)"
        )
    return PrefixBlock(prefix.upper(), value * span, (value + 1) * span)


# --- exact covers -------------------------------------------------------------------------


def _runs(start: int, end: int) -> list[tuple[int, int, int]]:
    """The minimal cover of ``[start, end)`` as runs ``(length, first_ms, count)`` in time order.

    A run is ``count`` sibling prefixes of ``length`` characters starting at ``first_ms``.
    Peels the finest level first from both ends, so every block taken is maximal: its parent
    sticks out of the window. Maximal blocks are disjoint and each needs a prefix of its own,
    hence the cover is the unique minimal one.
    """
    left: list[tuple[int, int, int]] = []
    right: list[tuple[int, int, int]] = []
    s, e = start, end
    for length in range(10, 0, -1):
        if s >= e:
            break
        size = SPAN_MS[length]
        parent = SPAN_MS[length - 1]
        # Invariant: s and e are multiples of size here, so the counts below are exact.
        count = (min(-(-s // parent) * parent, e) - s) // size
        if count:
            left.append((length, s, count))
            s += count * size
        count = (e - max(e // parent * parent, s)) // size
        if count:
            e -= count * size
            right.append((length, e, count))
    else:
        if s < e:  # only [0, 2**48) gets here: the empty prefix is all of time
            left.append((0, 0, 1))
    right.reverse()
    return left + right


def exact_count(start_ms: int, end_ms: int) -> int:
    """How many prefixes the minimal exact cover of ``[start_ms, end_ms)`` has."""
    return sum(count for _, _, count in _runs(start_ms, end_ms))


def exact_prefixes(start_ms: int, end_ms: int) -> list[str]:
    """The minimal set of prefixes selecting exactly the ULIDs of ``[start_ms, end_ms)``, sorted.

    Sorted by text is sorted by time: the blocks are disjoint, so no prefix is a prefix of
    another and the first differing character orders them like their times.
    """
    out: list[str] = []
    for length, first, count in _runs(start_ms, end_ms):
        if length == 0:
            out.append("")
            continue
        head = base32.encode_time(first)[: length - 1]
        digit = (first // SPAN_MS[length]) & 31
        out.extend(head + char for char in _ALPHABET[digit : digit + count])
    return out


# --- budgeted covers ----------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class PrefixCover(Sequence[str]):
    """Prefixes covering a window, with what they cover beyond it.

    Behaves as the sorted sequence of prefixes (``list(cover)``, ``len(cover)``,
    ``cover[0]``, equal to a list of the same prefixes). The prefixes together select the
    milliseconds ``[covered_start_ms, covered_end_ms)``, a superset of the window
    ``[start_ms, end_ms)``; ``extra_ms`` is how much more that is and ``ratio`` is
    ``extra_ms / window length``. Filter keys by :meth:`TimeWindow.bounds` when ``extra_ms``
    is not 0.
    """

    prefixes: tuple[str, ...]
    start_ms: int
    end_ms: int
    covered_start_ms: int
    covered_end_ms: int

    @property
    def extra_ms(self) -> int:
        """Milliseconds selected by the prefixes that are outside the window."""
        return (self.covered_end_ms - self.covered_start_ms) - (self.end_ms - self.start_ms)

    @property
    def ratio(self) -> float:
        """``extra_ms`` as a fraction of the window length (0.0 for an exact cover)."""
        window = self.end_ms - self.start_ms
        return self.extra_ms / window if window else 0.0

    @property
    def is_exact(self) -> bool:
        return self.extra_ms == 0

    def __len__(self) -> int:
        return len(self.prefixes)

    def __iter__(self) -> Iterator[str]:
        return iter(self.prefixes)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return self.prefixes[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PrefixCover):
            return self._key() == other._key()
        if isinstance(other, list):
            return list(self.prefixes) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple[object, ...]:
        return (
            self.prefixes,
            self.start_ms,
            self.end_ms,
            self.covered_start_ms,
            self.covered_end_ms,
        )

    def __repr__(self) -> str:
        return (
            f"PrefixCover({list(self.prefixes)!r}, extra_ms={self.extra_ms}, "
            f"ratio={self.ratio:.6g})"
        )


def _check_budget(max_prefixes: int) -> int:
    require_int(max_prefixes, "max_prefixes", "an int or None")
    if max_prefixes < 1:
        raise InvalidPrefixBudget(
            f"max_prefixes={max_prefixes!r}: a cover needs at least 1 prefix; pass None for "
            "the exact cover"
        )
    return max_prefixes


def cover(start_ms: int, end_ms: int, max_prefixes: int | None = None) -> PrefixCover:
    """The prefix cover of ``[start_ms, end_ms)``: exact, or at most ``max_prefixes`` prefixes.

    An empty window has no prefixes. With a budget smaller than the exact cover, see
    :func:`_least_extra` for how the cheapest superset is found.
    """
    require_int(start_ms, "start_ms")
    require_int(end_ms, "end_ms")
    if max_prefixes is not None:
        _check_budget(max_prefixes)
    if start_ms >= end_ms:
        return PrefixCover((), start_ms, end_ms, start_ms, start_ms)
    low, high = start_ms, end_ms
    if max_prefixes is not None and exact_count(start_ms, end_ms) > max_prefixes:
        low, high = _least_extra(start_ms, end_ms, max_prefixes)
    return PrefixCover(tuple(exact_prefixes(low, high)), start_ms, end_ms, low, high)


def _least_extra(start: int, end: int, budget: int) -> tuple[int, int]:
    """The run ``[low, high)`` of least length (then fewest prefixes) coverable by ``budget``.

    Chosen prefixes can be taken disjoint, so together they select one run ``[low, high)``:
    ``low`` starts the block of some length holding ``start``, ``high`` ends the block holding
    ``end - 1``, and the fewest prefixes for the run is its exact cover. Inside the enclosing
    block N (children of span C), the run's count is left part + whole children between +
    right part, so each side is counted once per length (10 + 10 counts, then 100 sums); a run
    reaching outside a child of N on one side is never better than N itself.
    """
    enclosing = enclosing_block(start, end)
    level = len(enclosing.prefix)  # < 10: a one-millisecond window fits any budget
    child = SPAN_MS[level + 1]
    left_edge = (start // child + 1) * child  # end of the child holding start
    right_edge = (end - 1) // child * child  # start of the child holding end - 1
    between = (right_edge - left_edge) // child
    lows = {start // SPAN_MS[n] * SPAN_MS[n] for n in range(level + 1, 11)}
    highs = {-(-end // SPAN_MS[n]) * SPAN_MS[n] for n in range(level + 1, 11)}
    lefts = [(start - low, exact_count(low, left_edge), low) for low in lows]
    rights = [(high - end, exact_count(right_edge, high), high) for high in highs]
    best = (enclosing.span_ms - (end - start), 1, enclosing.start_ms, enclosing.end_ms)
    for extra_left, count_left, low in lefts:
        for extra_right, count_right, high in rights:
            count = count_left + between + count_right
            if count <= budget:
                best = min(best, (extra_left + extra_right, count, low, high))
    return best[2], best[3]


def enclosing_block(start_ms: int, end_ms: int) -> PrefixBlock:
    """The longest single prefix whose block holds all of ``[start_ms, end_ms)``.

    An empty window is taken as its start millisecond.
    """
    last = max(start_ms, end_ms - 1)
    for length in range(10, -1, -1):
        span = SPAN_MS[length]
        if start_ms // span == last // span:
            return prefix_block(base32.encode_time(start_ms)[:length])
    raise AssertionError("unreachable: the empty prefix holds every millisecond")


# --- the resolution table -----------------------------------------------------------------


@dataclass(frozen=True)
class CharResolution:
    """What one step of the n-th time character spans."""

    position: int  # 1..10
    step_ms: int  # milliseconds between consecutive values of this character
    values: int  # values this character takes: 8 for the first (0-7), 32 for the others

    @property
    def human(self) -> str:
        return human_span(self.step_ms)


def resolution_table() -> tuple[CharResolution, ...]:
    """One row per time character: 1 -> ~407,226 days per step ... 10 -> 1 ms per step."""
    return tuple(
        CharResolution(n, SPAN_MS[n], 8 if n == 1 else 32) for n in range(1, base32.TIME_LENGTH + 1)
    )


_UNITS = ((86_400_000, "days"), (3_600_000, "h"), (60_000, "min"), (1_000, "s"), (1, "ms"))


def human_span(ms: int) -> str:
    """A duration in the largest unit that keeps it >= 1, to 4 significant digits."""
    for unit, name in _UNITS:
        if ms >= unit:
            value = ms / unit
            return f"{value:,.1f} {name}" if value >= 1000 else f"{value:.4g} {name}"
    return f"{ms} ms"
