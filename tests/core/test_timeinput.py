"""Time inputs shared by every public function: accepted forms and the clear errors."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ulidkeys import ULID, errors
from ulidkeys.timeinput import MAX_DATETIME_MS, MAX_MS, format_ms, to_ms


def test_forms_agree() -> None:
    aware = datetime(2024, 5, 17, 9, 0, tzinfo=timezone(timedelta(hours=2)))
    ms = 1715929200000
    assert to_ms(aware) == ms
    assert to_ms("2024-05-17T07:00:00Z") == ms
    assert to_ms("2024-05-17T07:00:00z") == ms
    assert to_ms("2024-05-17T09:00:00+02:00") == ms
    assert to_ms(ms) == ms
    assert format_ms(ms) == "2024-05-17T07:00:00.000Z"
    assert to_ms(timedelta(seconds=10), now=ms) == ms - 10_000
    assert abs(to_ms("now") - to_ms(timedelta(0))) < 5_000


def test_sub_millisecond_is_floored() -> None:
    base = datetime(2024, 1, 1, tzinfo=timezone.utc)
    assert to_ms(base + timedelta(microseconds=999)) == to_ms(base)
    assert to_ms(base + timedelta(microseconds=1000)) == to_ms(base) + 1


@pytest.mark.parametrize(
    ("value", "error", "words"),
    [
        (datetime(2024, 1, 1), errors.NaiveDatetime, "naive datetime"),
        ("2024-01-01T00:00:00", errors.NaiveDatetime, "no UTC offset"),
        ("yesterday", errors.InvalidTime, "not an ISO-8601 time"),
        (-1, errors.TimeOutOfRange, "before the Unix epoch"),
        (MAX_MS + 1, errors.TimeOutOfRange, "48-bit millisecond limit"),
        (datetime(1969, 12, 31, tzinfo=timezone.utc), errors.TimeOutOfRange, "before the Unix"),
        (timedelta(seconds=-5), errors.InvalidTime, "negative timedelta"),
        (1.5, errors.InvalidType, "float"),
        (True, errors.InvalidType, "bool"),
        ([2024], errors.InvalidType, "list"),
    ],
)
def test_bad_times(value: object, error: type[Exception], words: str) -> None:
    with pytest.raises(error) as caught:
        to_ms(value, "since")  # type: ignore[arg-type]
    message = str(caught.value)
    assert words in message and "since=" in message
    with pytest.raises(error):
        ULID.new(at=value)  # type: ignore[arg-type]


@given(st.integers(0, MAX_DATETIME_MS) | st.sampled_from([0, 86_399_999, MAX_DATETIME_MS]))
def test_format_ms_is_isoformat_of_the_datetime(ms: int) -> None:
    """``format_ms`` writes the text itself (an id listing formats a time a line): the same
    as the datetime's ``isoformat`` with milliseconds, ``Z`` for ``+00:00``."""
    when = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=ms)
    assert format_ms(ms) == when.isoformat(timespec="milliseconds").replace("+00:00", "Z")
