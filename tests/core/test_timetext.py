"""Time text (``parse_time_text``, also behind every API string): durations, epoch units, and
no reading of epoch seconds as milliseconds."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ulidkeys import ULID, TimeWindow
from ulidkeys.errors import InvalidTime, TimeOutOfRange
from ulidkeys.timeinput import MAX_MS, SECONDS_BAND, parse_time_text, to_ms

NOW = 1_800_000_000_000  # 2027-01-15T08:00:00Z


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("now", NOW),
        (" NOW ", NOW),
        ("90s", NOW - 90_000),
        ("15m", NOW - 900_000),
        ("2h", NOW - 7_200_000),
        ("7d", NOW - 7 * 86_400_000),
        ("1w", NOW - 7 * 86_400_000),
        ("1h30m", NOW - 5_400_000),
        ("2H", NOW - 7_200_000),
        ("1715936400s", 1_715_936_400_000),
        ("1715936400000ms", 1_715_936_400_000),
        ("1715936400000", 1_715_936_400_000),  # bare digits: milliseconds
        ("0", 0),
        ("99999999", 99_999_999),  # below the band: milliseconds (1970-01-02)
        ("2024-05-17T09:00:00Z", 1_715_936_400_000),
        ("2024-05-17T11:00:00+02:00", 1_715_936_400_000),
    ],
)
def test_time_text(text: str, ms: int) -> None:
    assert parse_time_text(text, now=NOW) == ms
    assert to_ms(text, now=NOW) == ms  # the API's strings follow the same grammar


@pytest.mark.parametrize(
    ("text", "words"),
    [
        # epoch seconds typed bare: refused with both readings and both fixes
        (
            "1715936400",
            [
                "1970-01-20T20:38:56.400Z",
                "2024-05-17T09:00:00.000Z",
                "'1715936400s'",
                "'1715936400ms'",
            ],
        ),
        ("100000000", ["as epoch seconds it is 1973-03-03"]),
        ("99999999999", ["as epoch seconds"]),
        # seconds with a unit between a plausible duration and a plausible epoch second
        ("500000000s", ["1985-11-05", "a duration before now", "'500000000000ms'", "5787d"]),
    ],
)
def test_ambiguous_numbers_are_refused_with_both_readings(text: str, words: list[str]) -> None:
    with pytest.raises(InvalidTime) as caught:
        parse_time_text(text, "--at", now=NOW)
    message = str(caught.value)
    assert message.startswith(f"--at={text!r} is ambiguous")
    assert all(word in message for word in words), message


@pytest.mark.parametrize(
    ("text", "error", "words"),
    [
        ("²", InvalidTime, "printable ASCII"),
        ("yesterday", InvalidTime, "'2h'"),
        ("2h ago", InvalidTime, "not an ISO-8601 time"),
        ("-2h", InvalidTime, "not an ISO-8601 time"),
        ("100000w", TimeOutOfRange, "before the Unix epoch"),
        ("9" * 50 + "d", TimeOutOfRange, "before the Unix epoch"),
        ("9" * 30, TimeOutOfRange, "48-bit"),
        (f"{MAX_MS + 1}ms", TimeOutOfRange, "48-bit"),
    ],
)
def test_bad_time_text(text: str, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words.replace("(", r"\(")):
        parse_time_text(text, now=NOW)


@given(st.integers(0, 10**6), st.sampled_from("smhdw"))
def test_durations_equal_timedeltas(amount: int, unit: str) -> None:
    seconds = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}[unit]
    if unit == "s" and amount >= 10**8:
        return
    back = timedelta(seconds=amount * seconds)
    if back > timedelta(milliseconds=NOW):  # before the epoch: refused either way
        with pytest.raises(TimeOutOfRange):
            parse_time_text(f"{amount}{unit}", now=NOW)
        return
    assert parse_time_text(f"{amount}{unit}", now=NOW) == to_ms(back, now=NOW)


@given(st.integers(0, MAX_MS))
def test_explicit_milliseconds_and_bare_digits_never_disagree(ms: int) -> None:
    assert parse_time_text(f"{ms}ms") == ms
    if not SECONDS_BAND[0] <= ms < SECONDS_BAND[1]:
        assert parse_time_text(str(ms)) == ms


def test_both_ends_of_a_window_read_one_clock() -> None:
    window = TimeWindow("2h", "now")
    assert window.end_ms - window.start_ms == 7_200_000
    assert ULID.new(at="1715936400s").timestamp_ms == 1_715_936_400_000
