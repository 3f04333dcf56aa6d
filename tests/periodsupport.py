"""The period registry seen from outside: for each registered period, its label and folder as
the standard library says them (``strftime``, ``date.isocalendar``), the brute-force floor and
next that walk those labels step by step, and strategies that draw periods from the registry.

A new period adds its line to :data:`ORACLES`; ``tests/planning/test_periods.py`` fails for a
registered period without one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone

from hypothesis import strategies as st

from ulidkeys.planning.periods import (
    DAY_MS,
    HOUR_MS,
    LAYOUT_PERIOD_NAMES,
    PARTITION_LIMIT_MS,
    PERIOD_NAMES,
)


def _iso_week(moment: datetime) -> str:
    year, week, _ = moment.isocalendar()
    return f"{year:04d}-W{week:02d}"


@dataclass(frozen=True)
class Oracle:
    """A period as the standard library spells it: the label and folder of the period holding
    a moment, and ``step``, a length every boundary of the period is a multiple of (its
    boundaries are found by walking labels in such steps)."""

    label: Callable[[datetime], str]
    folder: Callable[[datetime], str]
    step: int


ORACLES: dict[str, Oracle] = {
    "hour": Oracle(lambda m: f"{m:%Y-%m-%dT%H}", lambda m: f"dt={m:%Y-%m-%d}/hr={m:%H}/", HOUR_MS),
    "day": Oracle(lambda m: f"{m:%Y-%m-%d}", lambda m: f"dt={m:%Y-%m-%d}/", DAY_MS),
    "week": Oracle(_iso_week, lambda m: f"wk={_iso_week(m)}/", DAY_MS),
    "month": Oracle(lambda m: f"{m:%Y-%m}", lambda m: f"dt={m:%Y-%m}/", DAY_MS),
    "year": Oracle(lambda m: f"{m:%Y}", lambda m: f"dt={m:%Y}/", DAY_MS),
}


def moment(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, timezone.utc)


def oracle_label(name: str, ms: int) -> str:
    return ORACLES[name].label(moment(ms))


def oracle_folder(name: str, ms: int) -> str:
    return ORACLES[name].folder(moment(ms))


def brute_floor(name: str, ms: int) -> int:
    """The first millisecond (0 at the earliest) with the label of ``ms``, found by walking
    back step by step."""
    step, label = ORACLES[name].step, oracle_label(name, ms)
    first = ms - ms % step
    while first - step >= 0 and oracle_label(name, first - step) == label:
        first -= step
    return first


def brute_next(name: str, ms: int) -> int:
    """The first millisecond after ``ms`` with another label (the end of time at the latest)."""
    step, label = ORACLES[name].step, oracle_label(name, ms)
    following = ms - ms % step + step
    while following < PARTITION_LIMIT_MS and oracle_label(name, following) == label:
        following += step
    return min(following, PARTITION_LIMIT_MS)


#: Every period, drawn from the registry (DynamoDB buckets take any).
periods = st.sampled_from(PERIOD_NAMES)
#: The periods S3 layouts offer, drawn from the registry.
layout_periods = st.sampled_from(LAYOUT_PERIOD_NAMES)
#: A layout's period or none.
layout_periods_or_none = st.sampled_from([None, *LAYOUT_PERIOD_NAMES])
