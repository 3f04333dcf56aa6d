"""Prefix covers against brute force: exact covers are minimal, budgeted covers add least time.

The brute force knows prefixes only as strings: a prefix selects the ULIDs that start with it,
i.e. the times from ``prefix + "000..."`` to ``prefix + "ZZZ..."``, clipped to valid ULIDs.
"""

from __future__ import annotations

import dataclasses
from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ulidkeys import TimeWindow, base32, errors
from ulidkeys.planning.prefixcover import (
    END_OF_TIME_MS,
    SPAN_MS,
    cover,
    exact_prefixes,
    human_span,
    prefix_block,
    resolution_table,
)
from ulidkeys.timeinput import MAX_MS

INF = 1 << 60


def block(prefix: str) -> tuple[int, int]:
    """``[lo, hi)`` ms of the valid ULIDs starting with ``prefix``, from the strings alone."""
    lo = base32.decode(prefix.ljust(10, "0")) if prefix else 0
    hi = base32.decode(prefix.ljust(10, "Z")) + 1 if prefix else END_OF_TIME_MS
    return min(lo, END_OF_TIME_MS), min(hi, END_OF_TIME_MS)


def children(prefix: str) -> list[str]:
    """Longer prefixes that still start some valid ULID (first character 0-7)."""
    if len(prefix) == 10:
        return []
    return [p for p in (prefix + c for c in base32.ALPHABET) if block(p)[0] < END_OF_TIME_MS]


def brute_min_exact(start: int, end: int) -> int:
    """Fewest prefixes whose ULIDs are exactly the window: breadth-first over all tilings.

    Overlapping prefixes are nested, so a minimal exact cover is a tiling; every tile is a
    prefix whose block starts where the previous one ended and stays inside the window.
    """
    if start >= end:
        return 0
    seen, frontier, steps = {start}, [start], 0
    while frontier:
        steps += 1
        following = []
        for pos in frontier:
            text = base32.encode_time(pos)
            for length in range(0, 11):
                lo, hi = block(text[:length])
                if lo == pos and hi <= end and hi not in seen:
                    if hi == end:
                        return steps
                    seen.add(hi)
                    following.append(hi)
        frontier = following
    raise AssertionError("a window is always tiled by 1 ms prefixes")


def brute_budget(start: int, end: int, budget: int) -> tuple[int, int]:
    """(least ms covered by <= budget prefixes covering the window, fewest prefixes for it).

    Dynamic programme over the prefix tree: a prefix is either taken whole or its children
    share the budget (knapsack). A prefix inside the window costs its size either way.
    """

    @cache
    def least(prefix: str, allowed: int) -> int:
        lo, hi = block(prefix)
        if hi <= start or end <= lo:
            return 0
        best = hi - lo if allowed >= 1 else INF
        if start <= lo and hi <= end:
            return best
        table = [0] * (allowed + 1)  # table[t]: least cost of the children so far with <= t
        for child in children(prefix):
            costs = [least(child, t) for t in range(allowed + 1)]
            table = [min(table[t - u] + costs[u] for u in range(t + 1)) for t in range(allowed + 1)]
        return min(best, table[allowed])

    optimum = least("", budget)
    fewest = next(k for k in range(1, budget + 1) if least("", k) == optimum)
    return optimum, fewest


def assert_disjoint_cover(prefixes: list[str], lo: int, hi: int) -> None:
    """The prefixes' blocks are disjoint, sorted, and tile exactly ``[lo, hi)``."""
    blocks = [block(p) for p in prefixes]
    assert prefixes == sorted(prefixes)
    assert all(b[0] < b[1] for b in blocks)
    assert [b[0] for b in blocks[1:]] == [b[1] for b in blocks[:-1]]
    assert (blocks[0][0], blocks[-1][1]) == (lo, hi)


@st.composite
def small_windows(draw: st.DrawFn, longest: int) -> tuple[int, int]:
    """Windows up to ``longest`` ms placed across block boundaries of every level."""
    span = SPAN_MS[draw(st.integers(0, 10))]
    anchor = draw(st.integers(0, END_OF_TIME_MS // span)) * span
    start = min(max(anchor - draw(st.integers(0, longest)), 0), MAX_MS)
    end = min(start + draw(st.integers(0, longest)), END_OF_TIME_MS)
    return start, end


@st.composite
def any_windows(draw: st.DrawFn) -> tuple[int, int]:
    """Windows of any length, including ones reaching 0 or the end of time."""
    a = draw(st.one_of(st.integers(0, END_OF_TIME_MS), st.sampled_from([0, END_OF_TIME_MS])))
    b = draw(st.one_of(st.integers(0, END_OF_TIME_MS), st.sampled_from([0, END_OF_TIME_MS])))
    start, end = min(a, b), max(a, b)
    return min(start, MAX_MS), end


@given(small_windows(longest=2500))
def test_exact_cover_is_exact_and_minimal_against_brute_force(window: tuple[int, int]) -> None:
    start, end = window
    prefixes = exact_prefixes(start, end)
    assert len(prefixes) == brute_min_exact(start, end)
    if start < end:
        assert_disjoint_cover(prefixes, start, end)


@given(st.one_of(any_windows(), small_windows(longest=3000)))
def test_exact_cover_is_exact_for_any_window(window: tuple[int, int]) -> None:
    start, end = window
    prefixes = exact_prefixes(start, end)
    assert len(prefixes) <= 9 * 31 * 2 + 6  # the documented worst case
    if start < end:
        assert_disjoint_cover(prefixes, start, end)
        # Maximal: no prefix's parent fits in the window, so no two siblings could merge.
        for p in prefixes:
            if p:
                lo, hi = block(p[:-1])
                assert lo < start or hi > end
    else:
        assert prefixes == []


@given(st.one_of(any_windows(), small_windows(longest=3000)), st.integers(1, 9))
def test_budgeted_cover_adds_least_time_against_brute_force(
    window: tuple[int, int], budget: int
) -> None:
    start, end = window
    result = cover(start, end, budget)
    if start >= end:
        assert list(result) == [] and result.extra_ms == 0
        return
    least, fewest = brute_budget(start, end, budget)
    assert len(result) <= budget
    assert_disjoint_cover(list(result), result.covered_start_ms, result.covered_end_ms)
    assert result.covered_start_ms <= start and end <= result.covered_end_ms
    assert result.covered_end_ms - result.covered_start_ms == least
    assert result.extra_ms == least - (end - start)
    assert result.ratio == pytest.approx(result.extra_ms / (end - start))
    assert len(result) == fewest


def test_exact_minimal_counts_agree_with_the_tree_programme() -> None:
    # The knapsack brute force reaches the exact cover with exactly as many prefixes.
    for start, end in [(30, 70), (1000, 3072), (SPAN_MS[7] - 3, SPAN_MS[7] + 40), (5, 33)]:
        least, fewest = brute_budget(start, end, 30)
        assert least == end - start
        assert fewest == len(exact_prefixes(start, end))


def test_a_budget_at_least_the_exact_size_gives_the_exact_cover() -> None:
    window = TimeWindow("2024-05-17T09:13:27.123Z", "2024-05-17T10:13:27.130Z")
    exact = window.prefix_cover()
    assert exact.is_exact and exact.extra_ms == 0 and exact.ratio == 0.0
    assert window.prefix_cover(max_prefixes=len(exact)) == exact
    tighter = window.prefix_cover(max_prefixes=len(exact) - 1)
    assert len(tighter) < len(exact) and tighter.extra_ms > 0


def test_one_prefix_across_first_characters_is_the_empty_prefix() -> None:
    result = cover((3 << 45) - 1, (3 << 45) + 1, 1)
    assert list(result) == [""] and result.covered_end_ms == END_OF_TIME_MS
    assert list(cover((3 << 45) - 1, (3 << 45) + 1, 2)) == ["2ZZZZZZZZZ", "3000000000"]


@pytest.mark.parametrize(
    ("budget", "error"),
    [
        (0, errors.InvalidPrefixBudget),
        (-3, errors.InvalidPrefixBudget),
        (True, errors.InvalidType),
        (2.0, errors.InvalidType),
    ],
)
def test_bad_budgets_raise(budget: object, error: type[Exception]) -> None:
    window = TimeWindow.from_ms(0, 10)
    with pytest.raises(error, match="max_prefixes"):
        window.prefix_cover(max_prefixes=budget)  # type: ignore[arg-type]


def test_cover_is_a_sequence_of_prefixes() -> None:
    result = TimeWindow.from_ms(30, 33).prefix_cover()
    assert len(result) == 3 and result[0] == "000000000Y" and result[1:] == result.prefixes[1:]
    assert list(result) == ["000000000Y", "000000000Z", "0000000010"]
    assert "extra_ms=0" in repr(result)
    assert result == TimeWindow.from_ms(30, 33).prefix_cover() and result != ["000000000Y"]
    assert hash(result) == hash(TimeWindow.from_ms(30, 33).prefix_cover())
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.prefixes = ()  # type: ignore[misc]


# --- prefix blocks, the enclosing prefix and the resolution table --------------------------


@given(st.integers(0, MAX_MS), st.integers(0, 10))
def test_prefix_block_matches_the_strings(ms: int, length: int) -> None:
    prefix = base32.encode_time(ms)[:length]
    found = prefix_block(prefix.lower())
    assert found.prefix == prefix
    assert (found.start_ms, found.end_ms) == block(prefix)
    assert found.start_ms <= ms < found.end_ms and found.span_ms == SPAN_MS[length]


@pytest.mark.parametrize("bad", ["8", "Z0", "01U", "01I", "00000000000"])
def test_prefix_block_rejects_what_starts_no_ulid(bad: str) -> None:
    with pytest.raises(errors.InvalidULID, match="prefix"):
        prefix_block(bad)


@given(st.one_of(any_windows(), small_windows(longest=100)))
def test_enclosing_block_is_the_longest_prefix_holding_the_window(window: tuple[int, int]) -> None:
    start, end = window
    found = TimeWindow.from_ms(start, end).enclosing_block()
    last = max(start, end - 1)
    assert found.start_ms <= start and last < found.end_ms
    longer = [p for p in children(found.prefix) if block(p)[0] <= start and last < block(p)[1]]
    assert longer == []
    # ... which is also the cheapest single-prefix cover.
    if start < end:
        assert list(cover(start, end, 1)) == [found.prefix]


def test_resolution_table_spans() -> None:
    table = resolution_table()
    assert [row.position for row in table] == list(range(1, 11))
    assert [row.values for row in table] == [8] + [32] * 9
    day, hour, minute, second = 86_400_000, 3_600_000, 60_000, 1000
    expected = [
        (407_226 * day, 407_227 * day),
        (12_725 * day, 12_726 * day),
        (397 * day, 398 * day),
        (12.4 * day, 12.5 * day),
        (9.3 * hour, 9.4 * hour),
        (17.4 * minute, 17.5 * minute),
        (32.7 * second, 32.8 * second),
        (1.02 * second, 1.03 * second),
        (32, 32),
        (1, 1),
    ]
    for row, (low, high) in zip(table, expected, strict=True):
        assert low <= row.step_ms <= high
    assert table[0].step_ms * table[0].values == END_OF_TIME_MS
    assert [row.human for row in table][-3:] == ["1.024 s", "32 ms", "1 ms"]
    assert table[0].human == "407,226.5 days"


@given(st.integers(0, MAX_MS), st.integers(1, 10))
def test_one_step_of_a_character_is_its_span(ms: int, position: int) -> None:
    step = resolution_table()[position - 1].step_ms
    if ms + step > MAX_MS:
        ms = MAX_MS - step
    here, there = base32.encode_time(ms), base32.encode_time(ms + step)
    assert base32.decode(there[:position]) - base32.decode(here[:position]) == 1


def test_human_span() -> None:
    assert human_span(1) == "1 ms"
    assert human_span(90_000) == "1.5 min"
    assert human_span(0) == "0 ms"
