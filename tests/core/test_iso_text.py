"""ISO-8601 time text is read by ulidkeys' own parser (issue 37): the same forms and the same
milliseconds on every Python, whatever its ``datetime.fromisoformat`` reads (3.10's reads only
what ``isoformat()`` writes, so a 4-digit fraction used to be refused there)."""

from __future__ import annotations

import sys
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ulidkeys.errors import InvalidTime, NaiveDatetime, TimeOutOfRange
from ulidkeys.timeinput import datetime_to_ms, parse_iso, to_ms

T0 = 1_715_936_400_000  # 2024-05-17T09:00:00Z


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("2024-05-17T09:00:00Z", T0),
        ("2024-05-17T09:00:00z", T0),
        ("2024-05-17t09:00:00Z", T0),
        ("2024-05-17 09:00:00Z", T0),
        ("2024-05-17T09:00:00.0009Z", T0),  # refused on 3.10 before: 4 fraction digits
        ("2024-05-17T09:00:00.1Z", T0 + 100),
        ("2024-05-17T09:00:00.12Z", T0 + 120),
        ("2024-05-17T09:00:00.1239Z", T0 + 123),
        ("2024-05-17T09:00:00.12399Z", T0 + 123),
        ("2024-05-17T09:00:00.999999999Z", T0 + 999),  # nanoseconds: floored
        ("2024-05-17T09:00:00,5Z", T0 + 500),
        ("2024-05-17T09Z", T0),
        ("2024-05-17T09:00Z", T0),
        ("2024-05-17T11:00:00+02:00", T0),
        ("2024-05-17T11:00:00+0200", T0),
        ("2024-05-17T11:00:00+02", T0),
        ("2024-05-17T03:30:00-05:30", T0),
        ("2024-05-17T09:00:00+00:00", T0),
        ("2024-05-17T09:00:00-00:00", T0),
        ("2024-05-17T09:00:30+00:00:30", T0),
        ("2024-05-17T09:00:00.5+00:00:00.5", T0),
        ("20240517T090000Z", T0),
        ("20240517T110000.25+0200", T0 + 250),
        ("  2024-05-17T09:00:00Z\n", T0),
        ("1970-01-01T00:00:00Z", 0),
        ("1970-01-01T01:00:00+01:00", 0),
        ("9999-12-31T23:59:59.999Z", 253_402_300_799_999),
        ("9999-12-31T23:59:59.999-01:00", 253_402_300_799_999 + 3_600_000),  # past datetime
        ("2024-02-29T00:00:00Z", 1_709_164_800_000),
    ],
)
def test_iso_forms(text: str, ms: int) -> None:
    assert parse_iso(text) == ms
    assert to_ms(text) == ms


@pytest.mark.parametrize(
    ("text", "error", "words"),
    [
        ("2024-05-17T09:00:00", NaiveDatetime, "no UTC offset"),
        ("2024-05-17T09:00:00.0009", NaiveDatetime, "no UTC offset"),
        ("2024-05-17", NaiveDatetime, "is a day, not a time"),
        ("2024-05-17Z", NaiveDatetime, "is a day, not a time"),
        ("2024-05-17T", InvalidTime, "not an ISO-8601 time"),
        ("2024-05-17T09:00:00.Z", InvalidTime, "not an ISO-8601 time"),
        ("2024-05-17T09:00:00.1234567890Z", InvalidTime, "not an ISO-8601 time"),  # 10 digits
        ("2024-05-17T9:00:00Z", InvalidTime, "not an ISO-8601 time"),
        ("2024-05-17X09:00:00Z", InvalidTime, "not an ISO-8601 time"),
        ("2024-05-1709:00:00Z", InvalidTime, "not an ISO-8601 time"),
        ("2024-0517T09:00:00Z", InvalidTime, "not an ISO-8601 time"),
        ("2024-W20-5T09:00:00Z", InvalidTime, "not an ISO-8601 time"),
        ("2024-138T09:00:00Z", InvalidTime, "not an ISO-8601 time"),
        ("2024-05-17T09:00:00ZZ", InvalidTime, "not an ISO-8601 time"),
        ("2024-05-17T09:00:00+2:00", InvalidTime, "not an ISO-8601 time"),
        ("2024-05-17T09:00:00 +02:00", InvalidTime, "not an ISO-8601 time"),
        ("2024-02-30T09:00:00Z", InvalidTime, "no such day: 2024-02-30"),
        ("2023-02-29T09:00:00Z", InvalidTime, "no such day"),
        ("2024-13-01T09:00:00Z", InvalidTime, "no such day"),
        ("0000-01-01T09:00:00Z", InvalidTime, "no such day"),
        ("2024-05-17T24:00:00Z", InvalidTime, "hour 00-23"),
        ("2024-05-17T09:60:00Z", InvalidTime, "minute 00-59"),
        ("2024-05-17T23:59:60Z", InvalidTime, "leap seconds"),
        ("2024-05-17T09:00:00+24:00", InvalidTime, "below 24 hours"),
        ("2024-05-17T09:00:00+02:60", InvalidTime, "offset"),
        ("2024-05-17T09:00:00\x00Z", InvalidTime, "printable ASCII"),
        ("٢٠٢٤-05-17T09:00:00Z", InvalidTime, "printable ASCII"),
        ("1969-12-31T23:59:59.999Z", TimeOutOfRange, "before the Unix epoch"),
        ("1970-01-01T00:30:00+01:00", TimeOutOfRange, "before the Unix epoch"),
    ],
)
def test_bad_iso_text(text: str, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words.replace("(", r"\(")) as caught:
        parse_iso(text, "--since")
    assert type(caught.value) is error
    if error is not TimeOutOfRange:
        assert str(caught.value).startswith("--since=")


_moments = st.datetimes(
    min_value=datetime(1970, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.none()
)
_offsets = st.integers(-(24 * 3600 * 10**6) + 1, 24 * 3600 * 10**6 - 1).map(
    lambda us: timezone(timedelta(microseconds=us))
)
_timespecs = st.sampled_from(["hours", "minutes", "seconds", "milliseconds", "microseconds"])


@given(_moments, _offsets, _timespecs)
def test_whatever_isoformat_writes_is_read_to_the_same_millisecond(
    moment: datetime, offset: timezone, timespec: str
) -> None:
    aware = moment.replace(tzinfo=offset)
    text = aware.isoformat(timespec=timespec)
    # What the text says: isoformat truncates the time of day to the timespec and writes the
    # offset whole (to the microsecond, which 3.11's fromisoformat drops: it is no reference).
    kept = ["hours", "minutes", "seconds", "milliseconds", "microseconds"].index(timespec)
    written = aware.replace(
        minute=aware.minute if kept >= 1 else 0,
        second=aware.second if kept >= 2 else 0,
        microsecond=aware.microsecond // (1 if kept == 4 else 1000) * (1 if kept == 4 else 1000)
        if kept >= 3
        else 0,
    )
    assert parse_iso(text) == datetime_to_ms(written)
    if offset.utcoffset(None) == timedelta(0):
        assert parse_iso(text.replace("+00:00", "Z")) == datetime_to_ms(written)


@given(
    st.integers(0, 253_402_300_799),
    st.text("0123456789", min_size=1, max_size=9),
    st.integers(-23 * 60 - 59, 23 * 60 + 59),
    st.booleans(),
)
def test_fractions_of_1_to_9_digits_are_floored_to_the_millisecond(
    second: int, fraction: str, offset_minutes: int, basic: bool
) -> None:
    """Built by integer arithmetic alone, independent of the parser and of datetime's reader."""
    local = datetime(1970, 1, 1) + timedelta(seconds=second)
    sign = "-" if offset_minutes < 0 else "+"
    hours, minutes = divmod(abs(offset_minutes), 60)
    if basic:
        text = f"{local:%Y%m%dT%H%M%S}.{fraction}{sign}{hours:02}{minutes:02}"
    else:
        text = f"{local:%Y-%m-%dT%H:%M:%S}.{fraction}{sign}{hours:02}:{minutes:02}"
    expected = (second - offset_minutes * 60) * 1000 + int(fraction.ljust(3, "0")[:3])
    if expected < 0:
        with pytest.raises(TimeOutOfRange):
            parse_iso(text)
    else:
        assert parse_iso(text) == expected


@pytest.mark.skipif(sys.version_info < (3, 11), reason="3.10's fromisoformat reads fewer forms")
@given(
    _moments,
    st.integers(-(24 * 60) + 1, 24 * 60 - 1),
    st.sampled_from(["T", " "]),
    st.booleans(),
    st.integers(0, 3),
    st.text("0123456789", min_size=1, max_size=6),
)
def test_forms_read_as_python_3_11_reads_them(
    moment: datetime, offset_minutes: int, sep: str, basic: bool, parts: int, fraction: str
) -> None:
    """Where 3.11+'s own reader also reads a text, both give the same instant."""
    sign = "-" if offset_minutes < 0 else "+"
    hours, minutes = divmod(abs(offset_minutes), 60)
    colon, dash = ("", "") if basic else (":", "-")
    clock = [f"{moment:%H}", f"{moment:%M}", f"{moment:%S}", f"{moment:%S}.{fraction}"][: parts + 1]
    if parts == 3:
        clock = [*clock[:2], clock[3]]
    text = (
        f"{moment.year:04}{dash}{moment:%m}{dash}{moment:%d}{sep}{colon.join(clock)}"
        f"{sign}{hours:02}{colon}{minutes:02}"
    )
    theirs = datetime.fromisoformat(text)
    assert theirs.tzinfo is not None
    assert parse_iso(text) == datetime_to_ms(theirs)
