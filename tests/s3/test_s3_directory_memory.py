"""Directory-bucket listings hold one folder, not the window (issue 14 item 3), measured with
``tracemalloc`` on a small data set through benchmarks/directory_memory.py (which measures
the issue's 8-day figure at full size)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCHMARK = Path(__file__).parents[2] / "benchmarks" / "directory_memory.py"


def test_memory_is_bounded_by_one_folder_not_the_window() -> None:
    spec = importlib.util.spec_from_file_location("directory_memory", BENCHMARK)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    days = 8
    found = bench.measure(keys_per_day=2000, days=days, workers=1)  # no read-ahead
    one_day, window = found["1 day"], found[f"{days} days"]
    assert (one_day[1], window[1]) == (2000, 2000 * days)
    # one folder at a time: twice the days take no more memory than one day
    assert window[0] < 1.25 * found["half the days"][0], found
    assert window[0] < 1.25 * one_day[0], found
    assert found["latest(20), day folders"][1] == found["latest(20), no folders"][1] == 20
    # without period folders the bucket is one folder; latest(20) keeps only its 20 newest
    assert found["latest(20), no folders"][0] < found["whole flat prefix"][0] / 4, found
