"""The period registry against brute force: for every registered period, floor, next, spans,
label and folder agree with the standard library's calendar (``strftime``, ISO weeks from
``date.isocalendar``) walked step by step, and parse back; the ISO week's edges (53-week years,
January days in the previous ISO year, December days in the next, both ends of time) one by
one; and the registry's own rules (nesting, fixed widths, chronological folder text)."""

from __future__ import annotations

import itertools
import pickle
import random
from datetime import date, datetime, timezone

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from idsupport import in_threads
from periodsupport import (
    ORACLES,
    brute_floor,
    brute_next,
    layout_periods,
    oracle_folder,
    oracle_label,
    periods,
)

from ulidkeys.errors import InvalidLayout, InvalidType, InvalidValue, TimeOutOfRange
from ulidkeys.planning.periods import (
    DAY_MS,
    DEFINITIONS,
    LAYOUT_PERIOD_NAMES,
    LAYOUT_PERIODS,
    PARTITION_LIMIT_MS,
    PERIOD_NAMES,
    PERIODS,
    DateProjection,
    EnumProjection,
    IntegerProjection,
    Period,
    folder_at_end,
    folder_at_start,
    layout_period,
    level_periods,
)

LAST_MS = PARTITION_LIMIT_MS - 1


def ms_at(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=timezone.utc).timestamp() * 1000)


#: Times near the calendar's edges: year ends (ISO weeks cross them), both ends of time.
edges = st.one_of(
    st.integers(1970, 9999).flatmap(
        lambda year: st.integers(-4 * DAY_MS, 4 * DAY_MS).map(
            lambda offset: ms_at(f"{year:04d}-01-01T00:00:00") + offset
        )
    ),
    st.integers(0, 8 * DAY_MS),
    st.integers(LAST_MS - 8 * DAY_MS, LAST_MS),
).filter(lambda ms: 0 <= ms <= LAST_MS)
times = st.one_of(st.integers(0, LAST_MS), edges)


def test_every_period_has_an_oracle_and_a_unique_name() -> None:
    assert set(ORACLES) == set(PERIOD_NAMES)
    assert len(PERIOD_NAMES) == len(DEFINITIONS) == len(PERIODS)
    assert set(LAYOUT_PERIOD_NAMES) <= set(PERIOD_NAMES)
    assert {"week", "month"} <= set(LAYOUT_PERIOD_NAMES)


@given(name=periods, ms=times)
@example(name="week", ms=0)
@example(name="week", ms=LAST_MS)
@example(name="month", ms=LAST_MS)
def test_floor_next_label_and_folder_against_brute_force(name: str, ms: int) -> None:
    period = Period(name)
    first, following = period.floor(ms), period.next(ms)
    assert first == brute_floor(name, ms)
    assert following == brute_next(name, ms)
    assert first <= ms < following
    assert period.floor(following - 1) == first and period.next(first) == following
    label = period.label(ms)
    assert label == oracle_label(name, ms) == period.label(first) == period.label(following - 1)
    assert period.parse_label(label) == first
    folder = period.folder(ms)
    assert folder == oracle_folder(name, ms)
    assert len(folder) == period.folder_length and period.folder_pattern.fullmatch(folder)
    assert period.parse_folder(folder) == first
    if following < PARTITION_LIMIT_MS:  # the next period has the next label
        assert period.label(following) != label and period.floor(following) == following


@given(name=periods, a=times, b=times)
def test_labels_and_folders_sort_as_time(name: str, a: int, b: int) -> None:
    # one listing chain spans many folders because folder text sorts like time
    period = Period(name)
    if period.floor(a) < period.floor(b):
        assert period.label(a) < period.label(b) and period.folder(a) < period.folder(b)
    elif period.floor(a) == period.floor(b):
        assert period.folder(a) == period.folder(b)


@given(name=periods, ms=times)
def test_a_nested_period_lies_in_one_folder_of_its_parent(name: str, ms: int) -> None:
    period = Period(name)
    parent = period.parent
    if parent is None:
        assert period.chain == (period,) and period.top == period
        return
    assert period.chain[-2:] == (parent, period) and period.top == period.chain[0]
    assert parent.floor(period.floor(ms)) == parent.floor(ms)
    assert period.next(ms) <= parent.next(ms)
    assert period.folder(ms).startswith(parent.folder(ms))


#: One Period a name, kept across examples: its folder memo (the period asked for last) meets
#: times in any order, not only the fresh instance of one example.
SHARED = {name: Period(name) for name in PERIOD_NAMES}


@given(name=periods, ms=st.lists(times, min_size=1, max_size=12), data=st.data())
@example(name="hour", ms=[3_600_000, 3_599_999, 3_600_000, 7_199_999, 7_200_000], data=None)
@example(name="week", ms=[0, 4 * DAY_MS - 1, 4 * DAY_MS, LAST_MS, 0], data=None)
def test_a_kept_period_spells_each_folder_as_a_fresh_one_does(
    name: str, ms: list[int], data: st.DataObject | None
) -> None:
    # neighbours of the drawn times too: the first and last millisecond of their periods
    period = SHARED[name]
    asked = [t for m in ms for t in (m, period.floor(m), period.next(m) - 1, m) if t <= LAST_MS]
    if data is not None:
        asked = data.draw(st.permutations(asked))
    for t in asked:
        assert period.folder(t) == oracle_folder(name, t) == Period(name).folder(t), t
        # what is not an int is refused even inside the period just asked for
        for wrong in (float(t), str(t), None, True):
            with pytest.raises(InvalidType):
                period.folder(wrong)  # type: ignore[arg-type]
    with pytest.raises(TimeOutOfRange):
        period.folder(PARTITION_LIMIT_MS)


def test_a_period_shared_by_threads_spells_every_folder_right() -> None:
    # the memo is one tuple replaced whole: threads asking for other periods never mix them
    period, rng = SHARED["hour"], random.Random(4)

    def ask() -> tuple[int, str]:
        t = rng.randrange(0, 40 * DAY_MS)
        return t, period.folder(t)

    asked = [pair for results in in_threads(ask, threads=4, each=3_000) for pair in results]
    assert [(t, folder) for t, folder in asked if folder != oracle_folder("hour", t)] == []


@given(name=periods, start=times, length=st.integers(0, 90 * DAY_MS))
def test_spans_cover_the_window_without_gaps(name: str, start: int, length: int) -> None:
    period = Period(name)
    end = min(start + length, PARTITION_LIMIT_MS)
    spans = list(period.spans(start, end))
    if start >= end:
        assert spans == []
        return
    assert spans[0][0] == brute_floor(name, start) and spans[-1][1] == brute_next(name, end - 1)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))
    assert all(period.next(first) == following for first, following in spans)


@given(name=periods, digits=st.lists(st.integers(0, 9), min_size=14, max_size=14))
def test_parse_label_takes_labels_only(name: str, digits: list[int]) -> None:
    # any text of a label's shape: a label (which names the period it parses to) or None
    period = Period(name)
    shaped = iter(digits)
    text = "".join(str(next(shaped)) if c.isdigit() else c for c in period.label(0))
    first = period.parse_label(text)
    assert first is None or period.label(first) == text
    folder = period.folder(0)
    shaped = iter(digits)
    folder = "".join(str(next(shaped)) if c.isdigit() else c for c in folder)
    parsed = period.parse_folder(folder)
    assert parsed is None or period.folder(parsed) == folder
    for wrong in {text + "0", text[1:], " " + text, text.replace("-", "/")} - {text}:
        assert period.parse_label(wrong) is None
    assert period.parse_folder(folder[:-1]) is None and period.parse_folder(folder + "x/") is None


# --- ISO weeks, edge by edge -------------------------------------------------------------------

WEEK = Period("week")


@pytest.mark.parametrize("year", [1970, 1976, 1981, 2004, 2009, 2015, 2020, 2021, 2026, 9998])
def test_iso_week_53_exists_only_in_long_years(year: int) -> None:
    long_year = date(year, 12, 28).isocalendar()[1] == 53  # Dec 28 is in the year's last week
    parsed = WEEK.parse_label(f"{year:04d}-W53")
    assert (parsed is not None) == long_year
    if parsed is not None:
        assert WEEK.label(parsed + 7 * DAY_MS) == f"{year + 1:04d}-W01"
    assert WEEK.parse_label(f"{year:04d}-W54") is None
    assert WEEK.parse_label(f"{year:04d}-W00") is None


@pytest.mark.parametrize(
    ("day", "label", "monday"),
    [
        ("2021-01-01", "2020-W53", "2020-12-28"),  # Jan 1-3 in the previous ISO year
        ("2021-01-03", "2020-W53", "2020-12-28"),
        ("2021-01-04", "2021-W01", "2021-01-04"),
        ("2016-01-01", "2015-W53", "2015-12-28"),
        ("2024-12-29", "2024-W52", "2024-12-23"),
        ("2024-12-30", "2025-W01", "2024-12-30"),  # Dec 29-31 in the next ISO year
        ("2024-12-31", "2025-W01", "2024-12-30"),
        ("2019-12-31", "2020-W01", "2019-12-30"),
        ("2026-12-31", "2026-W53", "2026-12-28"),
        ("2024-05-17", "2024-W20", "2024-05-13"),
    ],
)
def test_iso_week_edges(day: str, label: str, monday: str) -> None:
    ms = ms_at(f"{day}T13:45:00")
    assert WEEK.label(ms) == label and WEEK.floor(ms) == ms_at(f"{monday}T00:00:00")
    assert WEEK.next(ms) == WEEK.floor(ms) + 7 * DAY_MS
    assert WEEK.folder(ms) == f"wk={label}/" and WEEK.parse_folder(f"wk={label}/") == WEEK.floor(ms)


def test_the_ends_of_time() -> None:
    # 1970-W01 starts on Monday 1969-12-29: its period starts at 0, like every period's first
    assert WEEK.label(0) == "1970-W01" and WEEK.floor(0) == 0 and WEEK.parse_label("1970-W01") == 0
    assert WEEK.next(0) == 4 * DAY_MS  # Monday 1970-01-05
    assert WEEK.parse_label("1969-W52") is None
    # 9999-12-31 is a Friday of 9999-W52, whose Sunday would be in year 10000: it ends at the limit
    assert WEEK.label(LAST_MS) == "9999-W52" and WEEK.next(LAST_MS) == PARTITION_LIMIT_MS
    assert WEEK.floor(LAST_MS) == ms_at("9999-12-27T00:00:00")
    assert WEEK.parse_label("9999-W53") is None
    for period in PERIODS:
        assert period.next(LAST_MS) == PARTITION_LIMIT_MS and period.floor(0) == 0
        assert list(period.spans(LAST_MS, PARTITION_LIMIT_MS + DAY_MS))[-1][1] == PARTITION_LIMIT_MS
        with pytest.raises(TimeOutOfRange, match="9999-12-31"):
            period.floor(PARTITION_LIMIT_MS)
        with pytest.raises(TimeOutOfRange):
            period.label(-1)


# --- the registry's rules ------------------------------------------------------------------------


def test_each_definition_projects_its_level_as_athena_can() -> None:
    for period in PERIODS:
        spec = period.athena
        if period.parent is None:  # the range of a top level: dates, or the labels listed
            assert isinstance(spec, DateProjection | EnumProjection)
        else:  # a level under its parent's folder: a number within it
            assert isinstance(spec, IntegerProjection)
            values = {int(period.level_value(first)) for first, _ in period.spans(0, 3 * DAY_MS)}
            assert values <= set(range(spec.low, spec.high + 1))
    assert isinstance(WEEK.athena, EnumProjection) and "locale" in WEEK.athena.reason


def test_periods_are_named_and_pickle_by_name() -> None:
    for period in PERIODS:
        assert pickle.loads(pickle.dumps(period)) == period and str(period) == period.size
    with pytest.raises(InvalidValue, match="period='fortnight' is not a period; use one of 'hour'"):
        Period("fortnight")
    with pytest.raises(InvalidValue, match="not a period"):
        Period(7)  # type: ignore[arg-type]


def test_layout_periods_are_the_registry_s() -> None:
    assert layout_period(None) is None
    assert [layout_period(name) for name in LAYOUT_PERIOD_NAMES] == list(LAYOUT_PERIODS)
    offered = ", ".join(map(repr, LAYOUT_PERIOD_NAMES))
    with pytest.raises(InvalidLayout, match=f"must be None or one of {offered}"):
        layout_period("fortnight")
    for name in set(PERIOD_NAMES) - set(LAYOUT_PERIOD_NAMES):
        with pytest.raises(InvalidLayout, match="DynamoDB bucket size that S3 layouts do not"):
            layout_period(name)


@given(name=layout_periods, ms=times, before=st.sampled_from(["", "u/", "u/07/", "a/dt=x/"]))
def test_folders_are_found_at_either_end_of_a_text(name: str, ms: int, before: str) -> None:
    period = Period(name)
    folder = period.folder(ms)
    assert folder_at_start(folder + "01HY2WF4M0") == (period, len(folder))
    assert folder_at_end(before + folder) == (period, len(before))
    assert folder_at_start("x" + folder) is None and folder_at_end(folder + "x") is None
    # level by level from the top, as the CLI's hint walks folders
    above = None
    for depth, level in enumerate(period.chain):
        assert level in level_periods(depth, above)
        assert level.level_pattern.fullmatch(level.level(ms))
        above = level


@given(ms=times)
def test_a_folder_names_one_period(ms: int) -> None:
    # the survey, hints and pasted keys tell periods apart by their folders alone
    for period in LAYOUT_PERIODS:
        folder = period.folder(ms)
        assert [p for p in LAYOUT_PERIODS if p.folder_pattern.fullmatch(folder)] == [period]
        assert folder_at_start(folder) == (period, len(folder))
