"""``ulidkeys demo`` / ``make demo``: a short tour of the library, printed step by step."""

from __future__ import annotations

import ulidkeys
from ulidkeys.cli import describe_ulid
from ulidkeys.timewindow import TimeWindow


def _section(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 70 - len(title)))


def run_demo() -> int:
    _section("1. Fresh ULIDs: time-sortable, 80 random bits each")
    ids = ulidkeys.batch(3)
    for text in ids:
        print(" ", text)
    _section("2. What one ULID holds")
    for name, value in describe_ulid(ids[0]).items():
        print(f"  {name:<13} {value}")
    _section("3. A monotonic run (spec monotonic mode: +1 within a millisecond)")
    for text in ulidkeys.batch(3, monotonic=True):
        print(" ", text)
    _section("4. The key bounds of 'the last hour'")
    window = TimeWindow("2024-05-17T09:00:00Z", "2024-05-17T10:00:00Z")
    lo, hi = window.bounds("uploads/")
    print(f"  window {window}\n  {lo} <= key < {hi}")
    return 0
