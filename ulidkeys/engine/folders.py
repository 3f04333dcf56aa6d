"""Which period folders of a layout hold data: the top-level folders under each shard, then the
folders of each nested level under those (``dt=.../`` then ``hr=.../`` for an hour layout), as
one I/O-free program (:data:`~ulidkeys.engine.operations.Program`) that the thread and asyncio
shells both run - what ``Bucket.periods`` returns and where ``latest`` starts its search.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from ulidkeys.engine.chains import Ordered
from ulidkeys.engine.operations import Collect, Operation
from ulidkeys.errors import InvalidValue
from ulidkeys.planning.layout import KeyLayout
from ulidkeys.planning.listings import plan_folders
from ulidkeys.planning.periods import LAYOUT_PERIOD_NAMES, Period, PeriodFolder


def _found(
    layout: KeyLayout, directory: bool, start: int, end: int, level: Period, within: list[int]
) -> Generator[Operation, Any, list[int]]:
    """The starts of the ``level`` folders that hold data and overlap ``[start, end)``, oldest
    first (under the parent folders starting at ``within`` for a nested level)."""
    plan = plan_folders(layout, start, end, level, within=within, directory_bucket=directory)
    found: list[Ordered] = yield Collect(plan)
    starts = sorted({int(position[0]) for position, _ in found})
    return [first for first in starts if first < end and level.next(first) > start]


def data_spans(
    layout: KeyLayout, directory: bool, start: int, end: int
) -> Generator[Operation, Any, list[tuple[int, int]]]:
    """``[first, end)`` of the top-level folders of ``[start, end)`` that hold data (under any
    shard), newest first: one ``Delimiter='/'`` listing per shard. The layout has a period."""
    assert layout.partition is not None  # callers ask only of layouts with period folders
    top = layout.partition.top
    starts = yield from _found(layout, directory, start, end, top, [])
    return [(first, top.next(first)) for first in reversed(starts)]


def periods_program(
    layout: KeyLayout, directory: bool, start: int, end: int
) -> Generator[Operation, Any, list[PeriodFolder]]:
    """The layout's period folders that overlap ``[start, end)`` and hold at least one key,
    oldest first: the top level's folders, then each nested level's under those found."""
    partition = layout.partition
    if partition is None:
        offered = " or ".join(repr(name) for name in LAYOUT_PERIOD_NAMES)
        raise InvalidValue(f"{layout} has no period folders; periods() needs period={offered}")
    starts = [
        first for first, _ in reversed((yield from data_spans(layout, directory, start, end)))
    ]
    for level in partition.chain[1:]:
        if not starts:
            break
        starts = yield from _found(layout, directory, start, end, level, starts)
    return [PeriodFolder(partition.folder(ms), ms, partition.next(ms)) for ms in starts]
