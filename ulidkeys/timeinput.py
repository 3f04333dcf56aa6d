"""Time inputs: aware datetimes, epoch-millisecond ints, ISO-8601 strings, "now", timedeltas.

Every public function that takes a time funnels it through :func:`to_ms`, so the rules (no
naive datetimes, 48-bit range, sub-millisecond input floored) are the same everywhere.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

from ulidkeys.errors import InvalidTime, InvalidType, NaiveDatetime, TimeOutOfRange, describe

#: Anything ulidkeys accepts as a point in time.
TimeInput = datetime | int | str | timedelta

#: Largest millisecond a ULID can carry (48 bits): 10889-08-02T05:31:50.655Z.
MAX_MS = (1 << 48) - 1

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def now_ms() -> int:
    """The current Unix time in whole milliseconds (floored)."""
    return time.time_ns() // 1_000_000


def check_ms(ms: int, name: str = "time") -> int:
    """Return ``ms`` if it is a millisecond a ULID can carry, else raise TimeOutOfRange."""
    if ms < 0:
        raise TimeOutOfRange(
            f"{name}={describe(ms)} is before the Unix epoch; ULID times start at "
            "1970-01-01T00:00:00Z"
        )
    if ms > MAX_MS:
        raise TimeOutOfRange(
            f"{name}={describe(ms)} is past the 48-bit millisecond limit of a ULID ({MAX_MS}, "
            "10889-08-02T05:31:50.655Z)"
        )
    return ms


def datetime_to_ms(value: datetime, name: str = "time") -> int:
    """Milliseconds of an aware datetime, floored: 12:00:00.0009 is millisecond 12:00:00.000."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise NaiveDatetime(
            f"{name}={describe(value)} is a naive datetime; pass an aware one such as "
            "datetime(..., tzinfo=timezone.utc) - ulidkeys never guesses the local timezone"
        )
    delta = value - _EPOCH
    # Integer arithmetic: float seconds would misround far from the epoch.
    return check_ms((delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000, name)


def parse_iso(text: str, name: str = "time", *, now: int | None = None) -> int:
    """Milliseconds of an ISO-8601 string with an offset or ``Z``; ``"now"`` is ``now`` (or
    the clock, if not given)."""
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
    candidate = stripped[:-1] + "+00:00" if stripped[-1:] in ("Z", "z") else stripped
    try:
        parsed = datetime.fromisoformat(candidate)
    except ValueError:
        raise InvalidTime(
            f"{name}={describe(text)} is not an ISO-8601 time; expected e.g. "
            "'2024-05-17T09:00:00Z' or '2024-05-17T09:00:00+02:00'"
        ) from None
    if parsed.tzinfo is None:
        raise NaiveDatetime(
            f"{name}={describe(text)} has no UTC offset; add 'Z' or '+HH:MM' - ulidkeys never "
            "guesses the local timezone"
        )
    return datetime_to_ms(parsed, name)


def to_ms(value: TimeInput, name: str = "time", *, now: int | None = None) -> int:
    """Convert any accepted time input to Unix epoch milliseconds.

    * aware ``datetime`` -> its millisecond (sub-millisecond part floored);
    * ``int`` -> taken as epoch milliseconds;
    * ``str`` -> ISO-8601 with an offset or ``Z``, or ``"now"``;
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
        return parse_iso(value, name, now=now)
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
    return ms_to_datetime(ms).isoformat(timespec="milliseconds").replace("+00:00", "Z")
