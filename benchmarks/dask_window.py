"""A 1-day window listed on a Dask cluster of 1, 2 and 4 worker processes (``window_bag``),
against the S3 stand-in of ``s3_scale.py`` (its own process, a fixed latency per request),
next to one process's ``list_window`` split. Not a timed test.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/dask_window.py [--keys 1000000] [--latency 30]

On a 2-core machine the stand-in, the scheduler and the workers share the cores: read the
ratios with that in mind (the table prints the core count and the stand-in's own CPU seconds
for each row, read from /proc).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from distributed import Client, LocalCluster
from s3_scale import DAY, T0, client

from ulidkeys.dask import window_bag
from ulidkeys.s3 import Bucket, KeyLayout


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux /proc; NaN elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=1_000_000)
    parser.add_argument("--latency", type=float, default=30.0, help="ms per request")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    args = parser.parse_args()
    for name, value in {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench"}.items():
        os.environ.setdefault(name, value)  # the workers' clients take them from here
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "s3_scale.py")
    command = [sys.executable, here, "--serve", "0", str(args.keys), str(args.latency)]
    stand_in = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert stand_in.stdout is not None
        bucket = Bucket(client(int(stand_in.stdout.readline())), "b", KeyLayout("up/"))
        rows = []
        served = cpu_seconds(stand_in.pid)
        began = time.perf_counter()
        count = sum(1 for _ in bucket.list_window(T0, T0 + DAY, max_workers=16))
        wall, served = time.perf_counter() - began, cpu_seconds(stand_in.pid) - served
        rows.append(("one process, list_window split (16)", 1, wall, count, served))
        for workers in args.workers:
            with (
                LocalCluster(
                    n_workers=workers, processes=True, threads_per_worker=1, dashboard_address=None
                ) as cluster,
                Client(cluster),
            ):
                bag = window_bag(bucket, T0, T0 + DAY, partitions=8 * workers)
                served = cpu_seconds(stand_in.pid)
                began = time.perf_counter()
                count = bag.count().compute()
                wall, served = time.perf_counter() - began, cpu_seconds(stand_in.pid) - served
                label = f"window_bag, {8 * workers} partitions"
                rows.append((label, workers, wall, count, served))
    finally:
        stand_in.terminate()
        stand_in.wait()
    print(
        f"{args.keys:,} keys over 1 day, flat layout, {args.latency:g} ms per request, "
        f"{os.cpu_count()} cores\n"
    )
    print(
        "| method | worker processes | wall s | stand-in CPU s | keys | x one process |\n"
        "|---|--:|--:|--:|--:|--:|"
    )
    base = rows[0][2]
    for label, workers, wall, keys, stand_in_cpu in rows:
        print(
            f"| {label} | {workers} | {wall:.2f} | {stand_in_cpu:.2f} | {keys:,} "
            f"| {base / wall:.2f} |"
        )


if __name__ == "__main__":
    main()
