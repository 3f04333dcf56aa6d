"""What Python's cyclic garbage collector costs a split listing: a 1-day window of the
``s3_scale.py`` stand-in (its own process, a fixed latency per request) listed with 16 workers
under the interpreter's default collector settings, after ``gc.freeze()`` and with a larger
first-generation threshold, side by side in one process, each setting twice (interleaved).
A split listing holds the items of later slices until the caller reaches them, so the
collector's full passes walk a heap that grows with the window. Not a timed test.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/s3_gc.py [--keys 100000] [--latency 30]
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import time
from collections.abc import Callable

from s3_scale import DAY, T0, client

from ulidkeys.s3 import Bucket, KeyLayout

#: Each setting: how it is made, and how it is undone afterwards.
SETTINGS: dict[str, tuple[Callable[[], None], Callable[[], None]]] = {
    "default (700, 10, 10)": (lambda: None, lambda: None),
    "gc.freeze() before the listing": (gc.freeze, gc.unfreeze),
    "gc.set_threshold(10_000, 10, 10)": (
        lambda: gc.set_threshold(10_000, 10, 10),
        lambda: gc.set_threshold(700, 10, 10),
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--latency", type=float, default=30.0, help="ms per request")
    parser.add_argument("--workers", type=int, default=16)
    args = parser.parse_args()
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "s3_scale.py")
    command = [sys.executable, here, "--serve", "0", str(args.keys), str(args.latency)]
    stand_in = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    rows: dict[str, list[tuple[float, float, list[int]]]] = {name: [] for name in SETTINGS}
    try:
        assert stand_in.stdout is not None
        bucket = Bucket(client(int(stand_in.stdout.readline())), "b", KeyLayout("up/"))
        sum(1 for _ in bucket.list_window(T0, T0 + DAY, max_workers=4))  # warm the client
        for _round in range(2):
            for name, (make, undo) in SETTINGS.items():
                gc.collect()
                make()
                before = [stats["collections"] for stats in gc.get_stats()]
                began, cpu = time.perf_counter(), time.process_time()
                listing = bucket.list_window(T0, T0 + DAY, max_workers=args.workers)
                count = sum(1 for _ in listing)
                wall, used = time.perf_counter() - began, time.process_time() - cpu
                after = [stats["collections"] for stats in gc.get_stats()]
                undo()
                assert count == args.keys, (name, count)
                passes = [late - early for early, late in zip(before, after, strict=True)]
                rows[name].append((wall, used, passes))
    finally:
        stand_in.terminate()
        stand_in.wait()
    print(
        f"{args.keys:,} keys over 1 day, flat layout, {args.latency:g} ms per request, "
        f"list_window split over {args.workers} workers, best of 2\n"
    )
    print("| collector | wall s | client CPU s | passes (gen 0, 1, 2) |\n|---|--:|--:|---|")
    for name, runs in rows.items():
        wall, used, passes = min(runs)
        print(f"| {name} | {wall:.2f} | {used:.2f} | {', '.join(map(str, passes))} |")


if __name__ == "__main__":
    main()
