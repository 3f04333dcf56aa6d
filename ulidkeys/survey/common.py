"""What both surveys share: their budget, how they say what was read, the exact counts of a
service read whole, and the JSON form of the times and counts they report.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ulidkeys.engine.chains import Stats
from ulidkeys.planning.counts import Count, exact_histogram
from ulidkeys.planning.partitions import DAY_MS
from ulidkeys.timeinput import format_ms

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

#: The calls a survey makes at most unless told otherwise.
DEFAULT_MAX_CALLS = 50
#: Fewest calls a survey can be given: one page.
MIN_CALLS = 1
#: Bins of the histogram.
BINS = 20

_Found = TypeVar("_Found", bound="DataclassInstance")


def none_fit(whole: bool) -> Count:
    """No key fits (yet): zero for sure when everything was read."""
    return Count.exactly(0) if whole else Count.unknown()


def read_note(stats: Stats, whole: bool, count: int, unit: str) -> str:
    if whole:
        return f"read whole: {count:,} {unit} in {stats.calls} calls, every count is exact"
    return f"read the first {count:,} {unit} in key order ({stats.calls} calls), not all"


class Times(Protocol):
    """What both surveys say about the times of the keys (items) they counted."""

    @property
    def keys(self) -> Count: ...
    @property
    def oldest_ms(self) -> int | None: ...
    @property
    def newest_ms(self) -> int | None: ...
    @property
    def oldest_exact(self) -> bool: ...
    @property
    def newest_exact(self) -> bool: ...
    @property
    def per_day(self) -> Count | None: ...
    @property
    def histogram(self) -> tuple[tuple[int, Count], ...]: ...


def times_dict(found: Times, unit: str) -> dict[str, Any]:
    """The count, oldest, newest, rate and histogram as JSON-safe data; ``unit`` names what
    was counted (``keys``, ``items``)."""
    return {
        unit: found.keys.as_dict(),
        "oldest": None if found.oldest_ms is None else format_ms(found.oldest_ms),
        "oldest_exact": found.oldest_exact,
        "newest": None if found.newest_ms is None else format_ms(found.newest_ms),
        "newest_exact": found.newest_exact,
        "per_day": None if found.per_day is None else found.per_day.as_dict(),
        "histogram": [
            {"start": format_ms(start), unit: keys.as_dict()} for start, keys in found.histogram
        ],
    }


def exact_counts(times: list[int]) -> dict[str, Any]:
    count = Count.exactly(len(times))
    if not times:
        return {"keys": count}
    oldest, newest = min(times), max(times)
    span = max(1, newest - oldest + 1)
    return {
        "keys": count,
        "oldest_ms": oldest,
        "newest_ms": newest,
        "oldest_exact": True,
        "newest_exact": True,
        "per_day": Count.exactly(len(times) * DAY_MS / span),
        "histogram": tuple(exact_histogram(times, oldest, newest + 1, BINS)),
    }


def updated(found: _Found, stats: Stats, **changes: Any) -> _Found:
    """A survey with ``changes`` and the calls made so far."""
    return replace(found, calls=stats.calls, **changes)
