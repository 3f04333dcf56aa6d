"""TimeWindow time inputs: every accepted form, the flooring rule, adjacency, and bad inputs."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ulidkeys import TimeWindow, errors
from ulidkeys.planning.prefixcover import END_OF_TIME_MS
from ulidkeys.timeinput import MAX_MS

UTC = timezone.utc
T0 = datetime(2024, 5, 17, 9, 0, tzinfo=UTC)
T0_MS = 1_715_936_400_000
NOW_MS = 1_750_000_000_123


@pytest.fixture
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> int:
    """Freeze both clocks TimeWindow could read at NOW_MS."""
    monkeypatch.setattr("ulidkeys.planning.timewindow.now_ms", lambda: NOW_MS)
    monkeypatch.setattr("ulidkeys.timeinput.now_ms", lambda: NOW_MS)
    return NOW_MS


@pytest.fixture
def ticking_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """A clock that advances 1 ms on every read, as a busy machine's would."""
    ticks: Iterator[int] = iter(range(NOW_MS, NOW_MS + 1_000_000))
    monkeypatch.setattr("ulidkeys.planning.timewindow.now_ms", lambda: next(ticks))
    monkeypatch.setattr("ulidkeys.timeinput.now_ms", lambda: next(ticks))


def test_t0_constant_is_right() -> None:
    assert int(T0.timestamp()) * 1000 == T0_MS


@pytest.mark.parametrize(
    "since",
    [
        T0,
        T0.astimezone(timezone(timedelta(hours=2))),
        T0.astimezone(timezone(timedelta(hours=-5, minutes=-30))),
        T0_MS,
        "2024-05-17T09:00:00Z",
        "2024-05-17T09:00:00z",
        "2024-05-17T09:00:00.000Z",
        "2024-05-17T11:00:00+02:00",
        "2024-05-17T03:30:00-05:30",
        " 2024-05-17T09:00:00+00:00 ",
    ],
)
def test_every_form_of_the_same_instant_gives_the_same_start(since: object) -> None:
    window = TimeWindow(since, T0_MS + 1000)  # type: ignore[arg-type]
    assert (window.start_ms, window.end_ms) == (T0_MS, T0_MS + 1000)


def test_until_defaults_to_now(frozen_clock: int) -> None:
    window = TimeWindow(T0)
    assert (window.start_ms, window.end_ms) == (T0_MS, frozen_clock)


def test_now_string_on_either_end(frozen_clock: int) -> None:
    assert TimeWindow(T0, "now").end_ms == frozen_clock
    assert TimeWindow(T0, "NOW").end_ms == frozen_clock
    assert TimeWindow("now", "now").is_empty


def test_timedeltas_mean_that_long_before_now(frozen_clock: int) -> None:
    window = TimeWindow(timedelta(hours=1))
    assert (window.start_ms, window.end_ms) == (frozen_clock - 3_600_000, frozen_clock)
    window = TimeWindow(timedelta(hours=2), timedelta(hours=1))
    assert (window.start_ms, window.end_ms) == (frozen_clock - 7_200_000, frozen_clock - 3_600_000)
    assert TimeWindow(timedelta(0)).is_empty


def test_now_and_timedeltas_share_one_clock_reading(ticking_clock: None) -> None:
    # Each end reading the clock separately would make the first window negative (an error)
    # and the others one or more milliseconds too long.
    assert TimeWindow("now", timedelta(0)).is_empty
    assert TimeWindow(timedelta(0), "now").is_empty
    assert TimeWindow(timedelta(seconds=1), "now").duration_ms == 1000
    assert TimeWindow(timedelta(seconds=1)).duration_ms == 1000


def test_sub_millisecond_inputs_are_floored_on_both_ends() -> None:
    window = TimeWindow(T0 + timedelta(microseconds=999), T0 + timedelta(microseconds=1999))
    assert (window.start_ms, window.end_ms) == (T0_MS, T0_MS + 1)
    window = TimeWindow("2024-05-17T09:00:00.0009Z", "2024-05-17T09:00:00.002999+00:00")
    assert (window.start_ms, window.end_ms) == (T0_MS, T0_MS + 2)
    # Both ends inside one millisecond: the window is empty, like [b, b).
    assert TimeWindow(T0 + timedelta(microseconds=100), T0 + timedelta(microseconds=900)).is_empty


def test_timedelta_is_truncated_to_whole_milliseconds(frozen_clock: int) -> None:
    window = TimeWindow(timedelta(microseconds=2999), timedelta(microseconds=1001))
    assert (window.start_ms, window.end_ms) == (frozen_clock - 2, frozen_clock - 1)


def test_the_last_ulid_millisecond_can_be_selected() -> None:
    window = TimeWindow(MAX_MS, END_OF_TIME_MS)
    assert MAX_MS in window and window.duration_ms == 1
    assert TimeWindow.from_ms(0, END_OF_TIME_MS).duration_ms == END_OF_TIME_MS
    assert str(window) == f"[{MAX_MS} ms, {END_OF_TIME_MS} ms)"


# --- adjacent windows partition time -------------------------------------------------------

_US_RANGE = (0, 10**15)  # microseconds: up to year 2001, enough variety of boundaries


def _as_input(us: int, form: int, offset_minutes: int) -> datetime | str | int:
    """The instant ``us`` (microseconds since the epoch) in one of the accepted forms."""
    moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=us)
    local = moment.astimezone(timezone(timedelta(minutes=offset_minutes)))
    if form == 0:
        return local
    if form == 1:
        return local.isoformat()
    if form == 2:
        return moment.isoformat().replace("+00:00", "Z")
    return us // 1000  # ints are whole milliseconds already


_form = st.integers(0, 3)
_offset = st.integers(-14 * 60, 14 * 60)


@given(
    st.lists(st.integers(*_US_RANGE), min_size=3, max_size=3).map(sorted),
    st.tuples(_form, _form, _form, _form),
    st.tuples(_offset, _offset, _offset, _offset),
    st.lists(st.integers(-3, 3), min_size=1, max_size=5),
)
def test_adjacent_windows_partition_time(
    points: list[int],
    forms: tuple[int, int, int, int],
    offsets: tuple[int, int, int, int],
    nudges: list[int],
) -> None:
    a, b, c = points
    first = TimeWindow(_as_input(a, forms[0], offsets[0]), _as_input(b, forms[1], offsets[1]))
    second = TimeWindow(_as_input(b, forms[2], offsets[2]), _as_input(c, forms[3], offsets[3]))
    assert first.end_ms == second.start_ms == b // 1000
    whole = TimeWindow.from_ms(first.start_ms, second.end_ms)
    probes = {a // 1000, b // 1000, c // 1000}
    probes |= {p + d for p in list(probes) for d in [-1, 1, *nudges] if 0 <= p + d <= MAX_MS}
    for ms in probes:
        assert (ms in first) + (ms in second) == (ms in whole)
        assert (ms in first) + (ms in second) <= 1


# --- bad inputs ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("since", "until", "error", "named"),
    [
        (datetime(2024, 5, 17, 9), None, errors.NaiveDatetime, "since"),
        (T0, datetime(2024, 5, 17, 10), errors.NaiveDatetime, "until"),
        ("2024-05-17T09:00:00", None, errors.NaiveDatetime, "since"),
        (T0_MS + 1, T0_MS, errors.InvalidWindow, "since"),
        ("2024-05-17T10:00:00Z", "2024-05-17T09:00:00Z", errors.InvalidWindow, "after"),
        (-1, None, errors.TimeOutOfRange, "since=-1"),
        (datetime(1969, 12, 31, 23, 59, tzinfo=UTC), None, errors.TimeOutOfRange, "since"),
        ("1969-12-31T23:59:59.999Z", None, errors.TimeOutOfRange, "since"),
        (timedelta(days=10**6), None, errors.TimeOutOfRange, "since"),
        (MAX_MS + 1, None, errors.TimeOutOfRange, "48-bit"),
        (0, END_OF_TIME_MS + 1, errors.TimeOutOfRange, "until"),
        ("yesterday", None, errors.InvalidTime, "since='yesterday'"),
        (T0, "2024-13-01T00:00:00Z", errors.InvalidTime, "until"),
        ("", None, errors.InvalidTime, "since"),
        (timedelta(seconds=-1), None, errors.InvalidTime, "negative"),
        (1.5, None, errors.InvalidType, "float"),
        (True, None, errors.InvalidType, "bool"),
        (None, None, errors.InvalidType, "since"),
    ],
)
def test_bad_inputs_raise_the_documented_error(
    since: object, until: object, error: type[Exception], named: str
) -> None:
    with pytest.raises(error, match=named):
        TimeWindow(since, until)  # type: ignore[arg-type]


def test_bad_values_are_value_errors_and_bad_types_type_errors() -> None:
    with pytest.raises(ValueError):
        TimeWindow(T0_MS + 1, T0_MS)
    with pytest.raises(TypeError):
        TimeWindow(1.5)  # type: ignore[arg-type]


def test_since_after_until_far_in_the_future_still_reports_clearly() -> None:
    # Past year 9999 no datetime exists; the message falls back to the number.
    with pytest.raises(errors.InvalidWindow, match=f"since={MAX_MS} ms"):
        TimeWindow.from_ms(MAX_MS, 0)


def test_empty_window_is_valid_and_selects_nothing() -> None:
    window = TimeWindow(T0, T0)
    assert window.is_empty and window.duration_ms == 0
    lo, hi = window.bounds()
    assert lo == hi  # no key k has lo <= k < hi
    assert T0_MS not in window
    assert list(window.prefix_cover()) == []
    assert list(window.prefix_cover(max_prefixes=3)) == []
    with pytest.raises(errors.InvalidWindow, match="empty"):
        window.inclusive_bounds()
