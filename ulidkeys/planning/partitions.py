"""Time partitions: the UTC hour, day, month or year an id's time falls in, as one rule.

S3 layouts write a partition as a Hive folder (``dt=2024-05-17/hr=09/``), DynamoDB entities as a
bucket label in the partition key (``2024-05-17``); both floor, step and span time the same way
here, with one end of time (the last day a four-digit year can name).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from typing import Literal

from ulidkeys.errors import (
    InvalidValue,
    TimeOutOfRange,
    describe,
    require_int,
    require_str,
)
from ulidkeys.timeinput import format_ms, ms_to_datetime

PeriodSize = Literal["hour", "day", "month", "year"]

HOUR_MS = 3_600_000
DAY_MS = 86_400_000
#: Labels and folders spell a four-digit year: no partition starts at or after 10000-01-01.
PARTITION_LIMIT_MS = 253_402_300_800_000

_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
_SIZES = ("hour", "day", "month", "year")
_LABEL_LENGTH = {"hour": 13, "day": 10, "month": 7, "year": 4}


def _day_of(ms: int) -> date:
    return date.fromordinal(_EPOCH_ORDINAL + ms // DAY_MS)


def _ms_of(day: date) -> int:
    return (day.toordinal() - _EPOCH_ORDINAL) * DAY_MS


@dataclass(frozen=True)
class Period:
    """A partition size (``"hour"``, ``"day"``, ``"month"`` or ``"year"``, UTC) and its spellings.

    ``label`` is the compact form used in DynamoDB partition keys (``2024-05-17T09``,
    ``2024-05-17``, ``2024-05``, ``2024``); ``folder`` the Hive form used in S3 keys
    (``dt=2024-05-17/hr=09/``, ``dt=2024-05-17/``, ``dt=2024-05/``, ``dt=2024/``).
    """

    size: PeriodSize

    def __post_init__(self) -> None:
        if self.size not in _SIZES:
            raise InvalidValue(
                f"period={describe(self.size)} is not a partition size; use one of "
                f"{', '.join(map(repr, _SIZES))}"
            )

    # --- arithmetic -----------------------------------------------------------------------
    def check(self, ms: int) -> int:
        """``ms`` if a partition can name it, else TimeOutOfRange (InvalidType if no int)."""
        require_int(ms, "ms", "epoch milliseconds (an int)")
        if not 0 <= ms < PARTITION_LIMIT_MS:
            raise TimeOutOfRange(
                f"{format_ms(ms)} is outside 1970-01-01 .. 9999-12-31, the times a {self.size} "
                "partition can name (labels and folders spell a four-digit year)"
            )
        return ms

    def floor(self, ms: int) -> int:
        """The first millisecond of the partition holding ``ms``."""
        self.check(ms)
        if self.size == "hour":
            return ms - ms % HOUR_MS
        if self.size == "day":
            return ms - ms % DAY_MS
        day = _day_of(ms)
        return _ms_of(day.replace(month=1 if self.size == "year" else day.month, day=1))

    def next(self, start: int) -> int:
        """The first millisecond of the partition after the one holding ``start``."""
        start = self.floor(start)
        if self.size == "hour":
            return start + HOUR_MS
        if self.size == "day":
            return start + DAY_MS
        day = _day_of(start)
        if self.size == "year":
            year, month = day.year + 1, 1
        else:
            year, month = day.year + day.month // 12, day.month % 12 + 1
        return PARTITION_LIMIT_MS if year > 9999 else _ms_of(date(year, month, 1))

    def spans(self, start_ms: int, end_ms: int) -> Iterator[tuple[int, int]]:
        """``(first_ms, end_ms)`` of each partition that ``[start_ms, end_ms)`` touches.

        The window is clipped to the times a partition can name; nothing later is yielded.
        """
        end_ms = min(end_ms, PARTITION_LIMIT_MS)
        start_ms = max(start_ms, 0)  # clipped like the end: no partition starts before 1970
        current = self.floor(start_ms) if start_ms < end_ms else end_ms
        while current < end_ms:
            following = self.next(current)
            yield current, following
            current = following

    # --- spellings ------------------------------------------------------------------------
    def label(self, ms: int) -> str:
        """The compact label of the partition holding ``ms``: ``2024-05-17T09`` for an hour."""
        self.check(ms)
        day = _day_of(ms)
        text = f"{day.year:04d}"
        if self.size != "year":
            text += f"-{day.month:02d}"
        if self.size in ("day", "hour"):
            text += f"-{day.day:02d}"
        if self.size == "hour":
            text += f"T{ms % DAY_MS // HOUR_MS:02d}"
        return text

    def parse_label(self, text: str) -> int | None:
        """The first millisecond of the partition a label names, None if it is not a label."""
        require_str(text, "label")
        if len(text) != _LABEL_LENGTH[self.size] or not text.isascii():
            return None
        try:
            year = int(text[0:4])
            month = int(text[5:7]) if self.size != "year" else 1
            day = int(text[8:10]) if self.size in ("day", "hour") else 1
            hour = int(text[11:13]) if self.size == "hour" else 0
            ms = _ms_of(date(year, month, day)) + hour * HOUR_MS
        except ValueError:
            return None
        return ms if 0 <= ms < PARTITION_LIMIT_MS and self.label(ms) == text else None

    def folder(self, ms: int) -> str:
        """The Hive folder of the partition holding ``ms``: ``dt=2024-05-17/hr=09/``."""
        label = self.label(ms)
        if self.size == "hour":
            return f"dt={label[:10]}/hr={label[11:]}/"
        return f"dt={label}/"

    @property
    def folder_length(self) -> int:
        """Characters of every folder of this size."""
        return _LABEL_LENGTH[self.size] + (len("dt=/hr=/") - 1 if self.size == "hour" else 4)

    def parse_folder(self, folder: str) -> int | None:
        """The first millisecond of the partition a folder names, None if it is not one."""
        require_str(folder, "folder")
        if len(folder) != self.folder_length or not folder.startswith("dt="):
            return None
        if self.size == "hour":
            if folder[13:17] != "/hr=":
                return None
            label = f"{folder[3:13]}T{folder[17:19]}"
        else:
            label = folder[3:-1]
        ms = self.parse_label(label)
        return ms if ms is not None and self.folder(ms) == folder else None

    def __str__(self) -> str:
        return self.size


@dataclass(frozen=True)
class PeriodFolder:
    """A period folder that holds data: its name (``dt=2024-05-17/hr=09/``) and time span."""

    folder: str
    start_ms: int
    end_ms: int

    @property
    def start(self) -> datetime:
        return ms_to_datetime(self.start_ms)
