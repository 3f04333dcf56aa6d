"""Key bounds and prefix covers agree with plain timestamp membership, for every ULID."""

from __future__ import annotations

import pytest
import ulid as reference_ulid  # python-ulid, an independent encoder
from hypothesis import given
from hypothesis import strategies as st

from ulidkeys import ULID, TimeWindow
from ulidkeys.planning.prefixcover import END_OF_TIME_MS, SPAN_MS
from ulidkeys.timeinput import MAX_MS

MAX_RANDOM = (1 << 80) - 1


@st.composite
def windows(draw: st.DrawFn) -> TimeWindow:
    """Windows of every size, often touching block boundaries, 0 and the end of time."""
    span = SPAN_MS[draw(st.integers(0, 10))]
    anchor = draw(st.integers(0, END_OF_TIME_MS // span)) * span
    start = min(max(anchor + draw(st.integers(-40, 40)), 0), MAX_MS)
    length = draw(
        st.one_of(
            st.integers(0, 70),
            st.integers(0, 5000),
            st.builds(
                lambda n, shift: n >> shift, st.integers(0, END_OF_TIME_MS), st.integers(0, 48)
            ),
        )
    )
    return TimeWindow.from_ms(start, min(start + length, END_OF_TIME_MS))


@st.composite
def probes(draw: st.DrawFn, window: TimeWindow) -> str:
    """A ULID at or next to an edge of the window (or anywhere), with edge randomness."""
    s, e = window.start_ms, window.end_ms
    ms = draw(
        st.one_of(
            st.sampled_from([s, e - 1, e, s - 1, s + 1, e - 2, 0, MAX_MS]),
            st.integers(s, max(s, e - 1)),
            st.integers(0, MAX_MS),
        )
    )
    ms = min(max(ms, 0), MAX_MS)
    randomness = draw(
        st.one_of(st.sampled_from([0, 1, MAX_RANDOM - 1, MAX_RANDOM]), st.integers(0, MAX_RANDOM))
    )
    return str(ULID.from_int((ms << 80) | randomness))


def edge_ulids(window: TimeWindow) -> list[str]:
    """The smallest and largest ULIDs of start - 1, start, end - 1 and end (when valid)."""
    found = []
    for ms in {window.start_ms - 1, window.start_ms, window.end_ms - 1, window.end_ms}:
        if 0 <= ms <= MAX_MS:
            found += [str(ULID.min_for(ms)), str(ULID.max_for(ms))]
    return found


@given(st.data())
def test_bounds_timestamp_and_exact_cover_agree(data: st.DataObject) -> None:
    window = data.draw(windows())
    lo, hi = window.bounds()
    cover = window.prefix_cover()
    for text in edge_ulids(window) + [data.draw(probes(window)) for _ in range(8)]:
        in_time = window.start_ms <= ULID.parse(text).timestamp_ms < window.end_ms
        assert (text in window) == in_time
        assert (lo <= text < hi) == in_time
        assert any(text.startswith(p) for p in cover) == in_time
        key = "uploads/2024/" + text + ".jpg"
        plo, phi = window.bounds("uploads/2024/")
        assert (plo <= key < phi) == in_time
        if not window.is_empty:
            ilo, ihi = window.inclusive_bounds()
            assert (ilo <= text <= ihi) == in_time
            slo, shi = window.inclusive_bounds("Post#", "#meta")
            assert (slo <= "Post#" + text + "#meta" <= shi) == in_time


@given(st.data(), st.integers(1, 12))
def test_budgeted_cover_never_misses_and_reports_what_it_adds(
    data: st.DataObject, budget: int
) -> None:
    window = data.draw(windows())
    cover = window.prefix_cover(max_prefixes=budget)
    assert len(cover) <= budget
    for text in edge_ulids(window) + [data.draw(probes(window)) for _ in range(8)]:
        ms = ULID.parse(text).timestamp_ms
        selected = any(text.startswith(p) for p in cover)
        if window.start_ms <= ms < window.end_ms:
            assert selected
        assert selected == (
            not window.is_empty and cover.covered_start_ms <= ms < cover.covered_end_ms
        )


def test_bounds_match_an_independent_encoder() -> None:
    window = TimeWindow("2024-05-17T09:00:00.123Z", "2024-05-17T10:00:00.456Z")
    lo, hi = window.bounds()
    assert lo == str(reference_ulid.ULID.from_int(window.start_ms << 80))
    assert hi == str(reference_ulid.ULID.from_int(window.end_ms << 80))
    _, top = window.inclusive_bounds()
    assert top == str(reference_ulid.ULID.from_int(((window.end_ms - 1) << 80) | MAX_RANDOM))


def test_bounds_at_the_end_of_time() -> None:
    window = TimeWindow.from_ms(MAX_MS - 5, END_OF_TIME_MS)
    lo, hi = window.bounds()
    assert hi == "8" + "0" * 25  # above every valid ULID, so the exclusive bound still works
    assert lo < "7ZZZZZZZZZZZZZZZZZZZZZZZZZ" < hi
    assert window.inclusive_bounds()[1] == "7ZZZZZZZZZZZZZZZZZZZZZZZZZ"
    assert window.prefix_cover() == [f"7ZZZZZZZZ{c}" for c in "TVWXYZ"]  # 6 ms: ...T = 26


def test_windows_known_by_hand() -> None:
    window = TimeWindow.from_ms(30, 70)  # 30, 31 | 32..63 | 64..69
    assert window.prefix_cover() == [
        "000000000Y",
        "000000000Z",
        "000000001",
        "0000000020",
        "0000000021",
        "0000000022",
        "0000000023",
        "0000000024",
        "0000000025",
    ]
    assert TimeWindow.from_ms(0, END_OF_TIME_MS).prefix_cover() == [""]
    assert TimeWindow.from_ms(0, END_OF_TIME_MS - 1).prefix_cover()[:7] == tuple("0123456")
    assert len(TimeWindow.from_ms(1, END_OF_TIME_MS - 1).prefix_cover()) == 564  # worst case
    assert TimeWindow.from_ms(3 << 45, 5 << 45).prefix_cover() == ["3", "4"]
    assert TimeWindow.from_ms(1 << 40, 2 << 40).prefix_cover() == ["01"]


@pytest.mark.parametrize("prefix", ["", "uploads/", "Org#acme#Post#"])
def test_bounds_keep_the_prefix(prefix: str) -> None:
    window = TimeWindow("2024-05-17T09:00:00Z", "2024-05-17T10:00:00Z")
    lo, hi = window.bounds(prefix)
    assert lo.startswith(prefix) and hi.startswith(prefix)
    assert (lo, hi) == (prefix + window.bounds()[0], prefix + window.bounds()[1])


def test_common_prefix_is_the_longest_shared_by_the_ends() -> None:
    window = TimeWindow("2024-05-17T09:00:00Z", "2024-05-17T10:00:00Z")
    first, last = window.bounds()[0][:10], window.inclusive_bounds()[1][:10]
    shared = 0
    while shared < 10 and first[shared] == last[shared]:
        shared += 1
    assert window.common_prefix() == first[:shared] == "01HY2"
    block = window.enclosing_block()
    assert block.start_ms <= window.start_ms and window.end_ms <= block.end_ms
