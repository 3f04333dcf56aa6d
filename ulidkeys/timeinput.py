"""Time inputs: aware datetimes, epoch-millisecond ints, timedeltas, and time text.

Every public function that takes a time funnels it through :func:`to_ms`, so the rules (no
naive datetimes, 48-bit range, sub-millisecond input floored, one grammar for text) are the
same everywhere - in the API and on the command line.
"""

from __future__ import annotations

import re
import time
from datetime import date, datetime, timedelta, timezone

from ulidkeys.errors import InvalidTime, InvalidType, NaiveDatetime, TimeOutOfRange, describe

#: Anything ulidkeys accepts as a point in time.
TimeInput = datetime | int | str | timedelta

#: Largest millisecond a ULID can carry (48 bits): 10889-08-02T05:31:50.655Z.
MAX_MS = (1 << 48) - 1

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def now_ms() -> int:
    """The current Unix time in whole milliseconds (floored)."""
    return time.time_ns() // 1_000_000


def check_ms(ms: int, name: str = "time", shown: str | None = None) -> int:
    """Return ``ms`` if it is a millisecond a ULID can carry, else raise TimeOutOfRange
    naming the input as ``shown`` (the text the user gave; default: the milliseconds)."""
    if ms < 0:
        raise TimeOutOfRange(
            f"{name}={shown or describe(ms)} is before the Unix epoch; ULID times start at "
            "1970-01-01T00:00:00Z"
        )
    if ms > MAX_MS:
        raise TimeOutOfRange(
            f"{name}={shown or describe(ms)} is past the 48-bit millisecond limit of a ULID "
            f"({MAX_MS}, "
            "10889-08-02T05:31:50.655Z)"
        )
    return ms


def datetime_to_ms(value: datetime, name: str = "time", shown: str | None = None) -> int:
    """Milliseconds of an aware datetime, floored: 12:00:00.0009 is millisecond 12:00:00.000."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise NaiveDatetime(
            f"{name}={describe(value)} is a naive datetime; pass an aware one such as "
            "datetime(..., tzinfo=timezone.utc) - ulidkeys never guesses the local timezone"
        )
    delta = value - _EPOCH
    # Integer arithmetic: float seconds would misround far from the epoch.
    ms = (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000
    return check_ms(ms, name, shown)


#: Bare integers in ``[SECONDS_BAND)`` are refused: as epoch milliseconds they fall in
#: 1970-01-02 .. 1973-03-03, which nobody means, while as epoch seconds they are 1973 .. 5138.
SECONDS_BAND = (10**8, 10**11)
#: ``Ns`` is epoch seconds from 10**9 (2001-09-09T01:46:40Z) on and a duration below 10**8
#: (3.2 years); in between it is refused, as both readings are plausible.
EPOCH_SECONDS_FROM = 10**9
_DURATION_UP_TO = 10**8

_UNIT_MS = {"w": 604_800_000, "d": 86_400_000, "h": 3_600_000, "m": 60_000, "s": 1000}
_DURATION_RE = re.compile(r"(?:[0-9]+[wdhms])+")
_TERM_RE = re.compile(r"([0-9]+)([wdhms])")
_EPOCH_RE = re.compile(r"([0-9]+)(ms|s)?")

#: The grammar of a time as text, for error messages and ``--help``.
TIME_TEXT_RULE = (
    "ISO-8601 with an offset ('2024-05-17T09:00:00Z'), 'now', a duration before now ('90s', "
    "'15m', '2h', '7d', '1w', '1h30m'), or epoch time with its unit ('1715936400s', "
    "'1715936400000ms'; bare digits are milliseconds)"
)


def _both_readings(text: str, name: str, first: tuple[str, int], second: tuple[str, int]) -> str:
    shown = [f"as {how} it is {format_ms(ms)}" for how, ms in (first, second)]
    return f"{name}={text!r} is ambiguous: {shown[0]}, {shown[1]}"


def _number_time(text: str, name: str, now: int | None) -> int | None:
    """The millisecond of ``digits``, ``digits ms`` or ``digits s``; None for other text."""
    found = _EPOCH_RE.fullmatch(text)
    if found is None:
        return None
    digits, unit = found.groups()
    if len(digits) > 20:  # past any 48-bit millisecond, and int() of it stays cheap
        raise TimeOutOfRange(f"{name}={describe(text)} is past the 48-bit millisecond limit")
    value = int(digits)
    if unit == "ms":
        return check_ms(value, name)
    if unit is None:
        if SECONDS_BAND[0] <= value < SECONDS_BAND[1]:
            readings = ("epoch milliseconds", value), ("epoch seconds", value * 1000)
            raise InvalidTime(
                _both_readings(text, name, *readings)
                + f"; write {digits + 's'!r} for seconds or {digits + 'ms'!r} for milliseconds"
            )
        return check_ms(value, name)
    if value >= EPOCH_SECONDS_FROM:
        return check_ms(value * 1000, name)
    if value < _DURATION_UP_TO:
        return None  # a duration: the caller reads it
    reference = now_ms() if now is None else now
    readings = ("epoch seconds", value * 1000), ("a duration before now", reference - value * 1000)
    raise InvalidTime(
        _both_readings(text, name, *readings)
        + f"; write {digits + '000ms'!r} for the epoch time or the duration in days "
        f"({value // 86_400}d)"
    )


def parse_time_text(text: str, name: str = "time", *, now: int | None = None) -> int:
    """Milliseconds of a time written as text (see :data:`TIME_TEXT_RULE`).

    One grammar for the command line and the API's strings, built so that it cannot misread
    epoch seconds as milliseconds: bare digits are milliseconds, except those plausible only
    as seconds (:data:`SECONDS_BAND`), which are refused with both readings shown; ``s`` and
    ``ms`` say the unit. Durations (``2h``) count back from ``now`` (or the clock).
    """
    stripped = text.strip()
    if stripped.isascii() and stripped.isprintable():
        lowered = stripped.lower()
        number = _number_time(lowered, name, now)
        if number is not None:
            return number
        if _DURATION_RE.fullmatch(lowered):
            terms = _TERM_RE.findall(lowered)
            if sum(len(digits) for digits, _ in terms) > 40:
                raise TimeOutOfRange(f"{name}={describe(text)} reaches before the Unix epoch")
            back = sum(int(digits) * _UNIT_MS[unit] for digits, unit in terms)
            reference = now_ms() if now is None else now
            if back > reference:
                raise TimeOutOfRange(
                    f"{name}={text!r} reaches back before the Unix epoch (1970-01-01T00:00:00Z)"
                )
            return reference - back
    return parse_iso(text, name, now=now)


#: A calendar day alone (``2024-05-17``, ``2024-05-17Z``, ``2024-05-17+00:00``).
_DAY_ONLY = re.compile(r"(\d{4}-\d{2}-\d{2})(?:[Zz]|[+-]\d{2}:?\d{2})?")

#: The ISO-8601 times ulidkeys reads, the same on every Python (3.10's ``fromisoformat`` reads
#: only what ``isoformat()`` writes, 3.11's far more): a calendar date (``2024-05-17`` or
#: ``20240517``), ``T``, ``t`` or a space, the hour, then optionally minutes and seconds
#: (``09:00:00`` or ``090000``), a fraction of the second of 1 to 9 digits after ``.`` or ``,``,
#: and the offset: ``Z``, ``z``, ``+HH``, ``+HHMM``, ``+HH:MM`` or ``+HH:MM:SS[.ffffff]`` (what
#: ``isoformat()`` writes for an offset with seconds), below 24 hours. Week and ordinal dates,
#: hour 24 and leap seconds are refused; digits are ASCII only.
_ISO_TIME = re.compile(
    r"""
    (?P<year>\d{4})(?P<dash>-?)(?P<month>\d{2})(?P=dash)(?P<day>\d{2})
    [Tt\ ]
    (?P<hour>\d{2})
    (?:(?P<colon>:?)(?P<minute>\d{2})
        (?:(?P=colon)(?P<second>\d{2})(?:[.,](?P<fraction>\d{1,9}))?)?)?
    (?P<offset>[Zz]
        |(?P<sign>[+-])(?P<off_hour>\d{2})
         (?:(?P<off_colon>:?)(?P<off_minute>\d{2})
            (?:(?P=off_colon)(?P<off_second>\d{2})(?:\.(?P<off_fraction>\d{1,6}))?)?)?)?
    """,
    re.VERBOSE | re.ASCII,
)

#: date(1970, 1, 1).toordinal(): days are counted from the epoch in integers.
_EPOCH_ORDINAL = 719_163
_NS = 1_000_000_000


def parse_iso(text: str, name: str = "time", *, now: int | None = None) -> int:
    """Milliseconds of an ISO-8601 string with an offset or ``Z``; ``"now"`` is ``now`` (or
    the clock, if not given).

    The forms read (see ``_ISO_TIME``) and the answers are the same on every Python version:
    the parser is ulidkeys' own, in integer nanoseconds, never ``datetime.fromisoformat``.
    A fraction finer than a millisecond is floored, as for a datetime: ``09:00:00.0009Z`` is
    millisecond ``09:00:00.000``.
    """
    stripped = text.strip()
    # Only ASCII: the C parser stops at a NUL (accepting "...Z\x00; rm -rf /"), and digits of
    # other scripts ("٢٠٢٤") would read as numbers nobody typed.
    if not (stripped.isascii() and stripped.isprintable()):
        raise InvalidTime(
            f"{name}={describe(text)} holds a character that is not printable ASCII; an "
            "ISO-8601 time is ASCII, e.g. '2024-05-17T09:00:00Z'"
        )
    if stripped.lower() == "now":
        return now_ms() if now is None else now
    day = _DAY_ONLY.fullmatch(stripped)
    if day is not None:  # a day with or without an offset: Python reads neither as a time
        raise NaiveDatetime(
            f"{name}={describe(text)} is a day, not a time; write {day.group(1)}T00:00:00Z "
            "(midnight UTC) or give the hour and its offset - ulidkeys never guesses the local "
            "timezone"
        )
    found = _ISO_TIME.fullmatch(stripped)
    if found is None:
        raise InvalidTime(
            f"{name}={describe(text)} is not an ISO-8601 time or any other time text; expected "
            + TIME_TEXT_RULE
        )
    if found["offset"] is None:
        raise NaiveDatetime(
            f"{name}={describe(text)} has no UTC offset; add 'Z' or '+HH:MM' - ulidkeys never "
            "guesses the local timezone"
        )
    utc_ns = _local_ns(found, text, name) - _offset_ns(found, text, name)
    # floored, as datetime_to_ms floors; a refusal names the text given, not its ms
    return check_ms(utc_ns // 1_000_000, name, describe(text))


def _field(found: re.Match[str], group: str) -> int:
    value = found[group]
    return 0 if value is None else int(value)


def _local_ns(found: re.Match[str], text: str, name: str) -> int:
    """Nanoseconds from the epoch of the date and time as written (before the offset)."""
    year, month, day = _field(found, "year"), _field(found, "month"), _field(found, "day")
    try:
        days = date(year, month, day).toordinal() - _EPOCH_ORDINAL
    except ValueError:
        raise InvalidTime(
            f"{name}={describe(text)} has no such day: {found['year']}-{found['month']}-"
            f"{found['day']} (month 01-12, a day the month has, year 0001-9999)"
        ) from None
    hour, minute, second = _field(found, "hour"), _field(found, "minute"), _field(found, "second")
    if hour > 23 or minute > 59 or second > 59:
        raise InvalidTime(
            f"{name}={describe(text)} has no such time of day: hour 00-23, minute 00-59, "
            "second 00-59 (hour 24 and leap seconds are not read)"
        )
    fraction = (found["fraction"] or "").ljust(9, "0")
    return (((days * 24 + hour) * 60 + minute) * 60 + second) * _NS + int(fraction)


def _offset_ns(found: re.Match[str], text: str, name: str) -> int:
    """The UTC offset in nanoseconds (local time minus UTC); 0 for ``Z``."""
    if found["sign"] is None:
        return 0
    hours, minutes = _field(found, "off_hour"), _field(found, "off_minute")
    seconds = _field(found, "off_second")
    fraction = (found["off_fraction"] or "").ljust(9, "0")
    size = ((hours * 60 + minutes) * 60 + seconds) * _NS + int(fraction)
    if minutes > 59 or seconds > 59 or size >= 24 * 3600 * _NS:
        raise InvalidTime(
            f"{name}={describe(text)} has an offset that is no UTC offset: it must be below "
            "24 hours, with minutes and seconds 00-59 (e.g. '+02:00', '-05:30', 'Z')"
        )
    return -size if found["sign"] == "-" else size


def to_ms(value: TimeInput, name: str = "time", *, now: int | None = None) -> int:
    """Convert any accepted time input to Unix epoch milliseconds.

    * aware ``datetime`` -> its millisecond (sub-millisecond part floored);
    * ``int`` -> taken as epoch milliseconds;
    * ``str`` -> :func:`parse_time_text`: ISO-8601 with an offset or ``Z``, ``"now"``, a
      duration before now (``"2h"``) or epoch time with its unit (``"1715936400s"``);
    * ``timedelta`` -> that long before now.

    ``now`` may be passed so that both ends of a window (``"now"`` and timedeltas alike) use
    one clock reading.
    """
    if isinstance(value, datetime):
        return datetime_to_ms(value, name)
    if isinstance(value, bool):
        raise InvalidType(f"{name}={value!r} is a bool, not a time")
    if isinstance(value, int):
        return check_ms(value, name)
    if isinstance(value, str):
        return parse_time_text(value, name, now=now)
    if isinstance(value, timedelta):
        reference = now_ms() if now is None else now
        back = value // timedelta(milliseconds=1)
        if back < 0:
            raise InvalidTime(
                f"{name}={describe(value)} is a negative timedelta; a timedelta means "
                "'that long before now', so pass a positive one"
            )
        return check_ms(reference - back, name)
    if isinstance(value, float):
        raise InvalidType(
            f"{name}={value!r} is a float; pass epoch milliseconds as an int "
            "(e.g. int(seconds * 1000)) or an aware datetime"
        )
    raise InvalidType(
        f"{name}={describe(value)} has type {type(value).__name__}; expected an aware datetime, "
        "epoch milliseconds (int), an ISO-8601 string, 'now' or a timedelta"
    )


#: The last millisecond a Python datetime can hold (9999-12-31T23:59:59.999Z); ULIDs go further.
MAX_DATETIME_MS = 253_402_300_799_999


def ms_to_datetime(ms: int) -> datetime:
    """The aware UTC datetime of an epoch millisecond."""
    if ms > MAX_DATETIME_MS:
        raise TimeOutOfRange(
            f"ms={describe(ms)} is after 9999-12-31, the last day a Python datetime can hold; "
            "use the epoch milliseconds instead"
        )
    return _EPOCH + timedelta(milliseconds=ms)


def format_ms(ms: int) -> str:
    """ISO-8601 text of an epoch millisecond, e.g. ``2024-05-17T09:00:00.000Z``."""
    if not 0 <= ms <= MAX_DATETIME_MS:
        return f"{ms} ms" if ms.bit_length() <= 256 else describe(ms)
    # what isoformat(timespec="milliseconds") writes, without a datetime: an id listing
    # formats one time a line, mostly of a few days
    day, ms_of_day = divmod(ms, _DAY_MS)
    day_text = _DAY_TEXTS.get(day)
    if day_text is None:
        day_text = date.fromordinal(_EPOCH_ORDINAL + day).isoformat() + "T"
        if len(_DAY_TEXTS) < 4096:
            _DAY_TEXTS[day] = day_text
    minute, ms_of_minute = divmod(ms_of_day, 60_000)
    second, milli = divmod(ms_of_minute, 1000)
    return f"{day_text}{_MINUTE_TEXTS[minute]}:{second:02d}.{milli:03d}Z"


_DAY_MS = 86_400_000
#: ``YYYY-MM-DDT`` of the days formatted so far, by day since the epoch.
_DAY_TEXTS: dict[int, str] = {}
#: ``HH:MM`` of each minute of a day.
_MINUTE_TEXTS = tuple(f"{m // 60:02d}:{m % 60:02d}" for m in range(1440))
