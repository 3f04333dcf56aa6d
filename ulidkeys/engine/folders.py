"""Which period folders of a layout hold data: the day folders under each shard, then the hour
folders under those days, as one I/O-free program (:data:`~ulidkeys.engine.operations.Program`) that
the thread and asyncio shells both run - what ``Bucket.periods`` returns and where ``latest``
starts its search.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable
from typing import Any

from ulidkeys.engine.chains import Ordered
from ulidkeys.engine.operations import Collect, Operation
from ulidkeys.errors import InvalidValue
from ulidkeys.planning.layout import KeyLayout
from ulidkeys.planning.listings import plan_folders
from ulidkeys.planning.partitions import DAY_MS, Period, PeriodFolder
from ulidkeys.planning.plans import Position


def days_found(positions: Iterable[Position]) -> list[int]:
    """The days of a day-folder listing's positions, newest first."""
    return sorted({int(position[0]) for position in positions}, reverse=True)


def day_spans(days: list[int]) -> list[tuple[int, int]]:
    """``[start, end)`` of each day (day starts in ms), in the days' order."""
    return [(day, day + DAY_MS) for day in days]


def data_days(
    layout: KeyLayout, directory: bool, start: int, end: int
) -> Generator[Operation, Any, list[int]]:
    """The days of ``[start, end)`` whose day folders hold data (under any shard), newest
    first: one ``Delimiter='/'`` listing per shard."""
    plan = plan_folders(layout, start, end, Period("day"), directory_bucket=directory)
    found: list[Ordered] = yield Collect(plan)
    return days_found(position for position, _ in found)


def periods_program(
    layout: KeyLayout, directory: bool, start: int, end: int
) -> Generator[Operation, Any, list[PeriodFolder]]:
    """The layout's period folders that overlap ``[start, end)`` and hold at least one key,
    oldest first."""
    partition = layout.partition
    if partition is None:
        raise InvalidValue(f"{layout} has no period folders; periods() needs period='day'/'hour'")
    starts = sorted((yield from data_days(layout, directory, start, end)))
    if partition.size == "hour":
        plan = plan_folders(
            layout, start, end, partition, within=starts, directory_bucket=directory
        )
        found: list[Ordered] = yield Collect(plan)
        starts = sorted({int(position[0]) for position, _ in found})
    return [
        PeriodFolder(partition.folder(ms), ms, partition.next(ms))
        for ms in starts
        if ms < end and partition.next(ms) > start
    ]
