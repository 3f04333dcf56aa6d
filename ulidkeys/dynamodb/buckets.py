"""Time buckets for hot partitions: the UTC hour, day, month or year an item's ULID falls in.

DynamoDB does not split a partition whose writes follow an increasing sort key, so one
partition key stays near 1,000 writes/s; a bucket label in the partition key spreads writes
over time, and a window query visits only the buckets the window touches.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone

from ulidkeys.errors import InvalidKeyTemplate, TimeOutOfRange, describe
from ulidkeys.timeinput import datetime_to_ms, format_ms, ms_to_datetime

_FORMATS = {"hour": "%Y-%m-%dT%H", "day": "%Y-%m-%d", "month": "%Y-%m", "year": "%Y"}
_FIXED_MS = {"hour": 3_600_000, "day": 86_400_000}


@dataclass(frozen=True)
class Bucketing:
    """A bucket size (``"hour"``, ``"day"``, ``"month"`` or ``"year"``, UTC) and its labels."""

    size: str

    def __post_init__(self) -> None:
        if self.size not in _FORMATS:
            raise InvalidKeyTemplate(
                f"bucket={describe(self.size)} is not a bucket size; use one of "
                f"{', '.join(map(repr, _FORMATS))}"
            )

    def label(self, ms: int) -> str:
        """The label of the bucket holding millisecond ``ms``, e.g. ``2024-05-17`` for a day."""
        if ms >= _LAST_MS:
            raise TimeOutOfRange(
                f"{format_ms(ms)} is past 9998-12-31: bucketed keys need a time Python's datetime "
                "can label"
            )
        return ms_to_datetime(ms).strftime(_FORMATS[self.size])

    def start(self, ms: int) -> int:
        """The first millisecond of the bucket holding ``ms``."""
        fixed = _FIXED_MS.get(self.size)
        if fixed is not None:
            return ms - ms % fixed
        moment = ms_to_datetime(ms)
        floor = moment.replace(
            month=1 if self.size == "year" else moment.month,
            day=1,
            hour=0,
            minute=0,
            second=0,
            microsecond=0,
        )
        return datetime_to_ms(floor)

    def next_start(self, start: int) -> int:
        """The first millisecond of the bucket after the one starting at ``start``."""
        fixed = _FIXED_MS.get(self.size)
        if fixed is not None:
            return start + fixed
        moment = ms_to_datetime(start)
        if self.size == "year":
            return datetime_to_ms(moment.replace(year=moment.year + 1))
        month = moment.month % 12 + 1
        return datetime_to_ms(moment.replace(year=moment.year + (month == 1), month=month))

    def spans(self, start_ms: int, end_ms: int) -> Iterator[tuple[str, int, int]]:
        """``(label, first_ms, end_ms)`` of each bucket touched by ``[start_ms, end_ms)``."""
        end_ms = min(end_ms, _LAST_MS)  # no bucketed key can carry a later time
        current = self.start(start_ms) if start_ms < end_ms else end_ms
        while current < end_ms:
            following = self.next_start(current)
            yield self.label(current), current, following
            current = following


# Python's datetime stops at year 9999 (ULID time goes on to 10889): labels stop before it.
_LAST_MS = datetime_to_ms(datetime(9999, 1, 1, tzinfo=timezone.utc))
