"""What both surveys share: their budget, how they read the first pages and say what was read,
the exact counts of a service read whole, and the JSON form of the times and counts they report.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, TypeVar

from ulidkeys.engine.chains import Page, Stats
from ulidkeys.engine.operations import Operation, fetch_one
from ulidkeys.planning.periods import DAY_MS
from ulidkeys.survey.counts import Count, exact_histogram
from ulidkeys.timeinput import format_ms, ms_to_datetime

#: The calls a survey makes at most unless told otherwise.
DEFAULT_MAX_CALLS = 50
#: Fewest calls a survey can be given: one page.
MIN_CALLS = 1
#: Bins of the histogram.
BINS = 20

_Found = TypeVar("_Found", bound="Findings")


def first_pages(
    findings: type[_Found],
    location: str,
    call: Any,
    max_calls: int,
    stats: Stats,
    keys_of: Callable[[Page], list[str]],
    limit: int | None = None,
) -> Generator[Operation, Any, tuple[list[str], Any, _Found]]:
    """How every survey opens: the keys (``keys_of`` each page) of ``call``'s pages from its
    first on, read in every call of the budget but one (at least one), and the ``findings``
    of ``location`` so far. Returns ``(keys, token, found)``: the token resumes the reading
    and is None when the call was read whole; ``found`` counts no key yet (zero for sure when
    read whole)."""
    keys: list[str] = []
    token = None
    for _ in range(max(1, max_calls - 1)):
        page: Page = yield from fetch_one(call, token, limit, stats=stats)
        keys += keys_of(page)
        token = page.token
        if token is None:
            break
    return keys, token, findings(location, stats.calls, max_calls, keys=none_fit(token is None))


def none_fit(whole: bool) -> Count:
    """No key fits (yet): zero for sure when everything was read."""
    return Count.exactly(0) if whole else Count.unknown()


def read_note(stats: Stats, whole: bool, count: int, unit: str) -> str:
    if whole:
        return f"read whole: {count:,} {unit} in {stats.calls} calls, every count is exact"
    return f"read the first {count:,} {unit} in key order ({stats.calls} calls), not all"


@dataclass(frozen=True)
class Findings:
    """What every survey reports: where it read, the calls it made of its budget, how many keys
    (items) of the layout (entity) it found - a :class:`~ulidkeys.survey.counts.Count`,
    exact only when everything was read - the oldest and newest id times (exact when
    ``oldest_exact``/``newest_exact``, else the truth is that or earlier, later), the rate per
    day and the histogram when the counts bound them, the config table to copy and notes."""

    location: str
    calls: int
    max_calls: int
    keys: Count = field(default_factory=Count.unknown)
    oldest_ms: int | None = None
    newest_ms: int | None = None
    oldest_exact: bool = False
    newest_exact: bool = False
    per_day: Count | None = None
    histogram: tuple[tuple[int, Count], ...] = ()
    config: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def exact(self) -> bool:
        """True when everything was read, so every count is exact (``keys.exact``)."""
        return self.keys.exact

    @property
    def oldest(self) -> datetime | None:
        """``oldest_ms`` as an aware UTC datetime."""
        return None if self.oldest_ms is None else ms_to_datetime(self.oldest_ms)

    @property
    def newest(self) -> datetime | None:
        """``newest_ms`` as an aware UTC datetime."""
        return None if self.newest_ms is None else ms_to_datetime(self.newest_ms)


def times_dict(found: Findings, unit: str) -> dict[str, Any]:
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
