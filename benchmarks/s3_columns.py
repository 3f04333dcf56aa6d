"""A window as pages of columns against the same window as items and through boto3's paginator,
over real HTTP against the ListObjectsV2 stand-in of ``s3_scale.py`` (its own process, a fixed
latency per request): a 1-day window of 100,000 keys listed split in 16 as columns (key, size)
with ``list_window(...).pages(columns=...)``, split in 16 as items, and with boto3's paginator
(``StartAfter``, stopping at the window's end); a Polars frame of the window each way
(``ulidkeys.polars.window_frame`` against a frame built from the paginator's pages). Each run
is a fresh process, the methods interleaved, the median of the runs shown. Then the columns
path's client CPU per key against the bare page parse (the library's page reader over the same
pages, reading the same columns, nothing handed over), and a day of 1,000,000 keys as columns.
Not a timed test.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/s3_columns.py [--keys 100000]
        [--million 1000000] [--repeat 3] [--latency 30]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from botocore.parsers import DEFAULT_TIMESTAMP_PARSER
from s3_scale import (
    DAY,
    T0,
    by_paginator,
    client,
)  # benchmarks/ is on the path of a script run from it

from ulidkeys.s3 import Bucket, KeyLayout
from ulidkeys.s3.pages import PageReader, model_fields

try:
    import polars as pl

    from ulidkeys.polars import window_frame
except ImportError:  # the Polars rows are left out
    pl = None

HERE = Path(__file__).resolve().parent
LAYOUT = KeyLayout("up/")
COLUMNS = ("key", "size")
COLUMNS_SPLIT = "columns (key, size) split (16)"
ITEMS_SPLIT = "items split (16)"
PAGINATOR = "boto3 paginator"
POLARS_OURS = "Polars: window_frame (key, size)"
POLARS_BOTO3 = "Polars: frame from boto3's paginator"
#: Targets: (method, baseline, at least this many times faster than the baseline's wall time).
SPEEDUPS = [(COLUMNS_SPLIT, PAGINATOR, 20.0), (ITEMS_SPLIT, PAGINATOR, 12.0)]
POLARS_SPEEDUP = 10.0
#: The columns path's client CPU per key at most this many times the bare page parse's.
CPU_RATIO = 2.0
#: A day of 1,000,000 keys as columns, in at most this many seconds.
MILLION_SECONDS = 5.0


def _columns(bucket: Bucket) -> tuple[int, int]:
    listing = bucket.list_window(T0, T0 + DAY, split=True, max_workers=16)
    found = sum(len(page["key"]) for page in listing.pages(columns=COLUMNS))
    return found, listing.stats.calls


def _items(bucket: Bucket) -> tuple[int, int]:
    listing = bucket.list_window(T0, T0 + DAY, split=True, max_workers=16)
    return sum(1 for _ in listing), listing.stats.calls


def _paginated(s3: Any, bucket: Bucket) -> tuple[list[str], list[int], int]:
    """The window's keys and sizes through boto3's paginator, as a user writes it."""
    found, calls = by_paginator(s3, bucket, T0, T0 + DAY)
    return [obj["Key"] for obj in found], [obj["Size"] for obj in found], calls


def _paginator(s3: Any, bucket: Bucket) -> tuple[int, int]:
    keys, _sizes, calls = _paginated(s3, bucket)
    return len(keys), calls


def _polars_ours(bucket: Bucket) -> tuple[int, int]:
    frame = window_frame(bucket, T0, T0 + DAY, columns=COLUMNS, max_workers=16)
    return frame.height, 0


def _polars_boto3(s3: Any, bucket: Bucket) -> tuple[int, int]:
    keys, sizes, calls = _paginated(s3, bucket)
    frame = pl.DataFrame({"key": keys, "size": sizes}, schema={"key": pl.String, "size": pl.Int64})
    return frame.height, calls


def run_one(method: str, port: int) -> dict[str, float]:
    """In a fresh process: one method's wall time, client CPU, keys and calls (after a warm-up
    request on the same client: connection, models)."""
    s3 = client(port)
    bucket = Bucket(s3, "b", LAYOUT, fast_pages=method not in (PAGINATOR, POLARS_BOTO3))
    s3.list_objects_v2(Bucket="b", Prefix="up/", MaxKeys=1)
    runs: dict[str, Callable[[], tuple[int, int]]] = {
        COLUMNS_SPLIT: lambda: _columns(bucket),
        ITEMS_SPLIT: lambda: _items(bucket),
        PAGINATOR: lambda: _paginator(s3, bucket),
        POLARS_OURS: lambda: _polars_ours(bucket),
        POLARS_BOTO3: lambda: _polars_boto3(s3, bucket),
    }
    wall, cpu = time.perf_counter(), time.process_time()
    keys, calls = runs[method]()
    return {
        "wall": time.perf_counter() - wall,
        "cpu": time.process_time() - cpu,
        "keys": keys,
        "calls": calls,
    }


def bare_parse(port: int, repeat: int) -> dict[str, float]:
    """Seconds of CPU per key of the page reader alone over the window's pages (fetched once):
    reading the columns (key, size), and reading the dicts botocore would build."""
    s3 = client(port)
    bodies: list[bytes] = []

    def keep(response_dict: dict[str, Any], **_: Any) -> None:
        bodies.append(response_dict["body"])

    s3.meta.events.register("before-parse.s3.ListObjectsV2", keep)
    keys = sum(len(page.get("Contents", [])) for page in _pages_of_window(s3))
    model = s3.meta.service_model.operation_model("ListObjectsV2").output_shape
    out = {}
    for label, wanted in [("columns", ("Size",)), ("dicts", None)]:
        reader = PageReader(model_fields(model), DEFAULT_TIMESTAMP_PARSER)
        times = []
        for _ in range(repeat):
            cpu = time.process_time()
            for body in bodies:
                assert reader.read(body, wanted) is not None
            times.append((time.process_time() - cpu) / keys)
        out[label] = min(times)
    return out


def _pages_of_window(s3: Any) -> Any:
    return s3.get_paginator("list_objects_v2").paginate(Bucket="b", Prefix="up/")


def child(arguments: list[str], script: str = __file__) -> Any:
    """What a fresh process of ``script`` (this one by default) prints, read as JSON."""
    answer = subprocess.run(
        [sys.executable, script, *arguments],
        capture_output=True,
        text=True,
        check=True,
        cwd=HERE,
    )
    return json.loads(answer.stdout)


def stand_in(keys: int, latency: float) -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen(
        [sys.executable, str(HERE / "s3_scale.py"), "--serve", "0", str(keys), str(latency)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    return process, int(process.stdout.readline())


def compare(keys: int, latency: float, repeat: int, polars: bool) -> tuple[dict[str, Any], float]:
    """The methods side by side (median of ``repeat`` fresh processes each), and the columns
    path's CPU per key over the bare parse's."""
    methods = [COLUMNS_SPLIT, ITEMS_SPLIT, PAGINATOR]
    if polars:
        methods += [POLARS_OURS, POLARS_BOTO3]
    process, port = stand_in(keys, latency)
    try:
        runs: dict[str, list[dict[str, float]]] = {method: [] for method in methods}
        for _ in range(repeat):
            for method in methods:
                found = child(["--run", method, "--port", str(port)])
                assert found["keys"] == keys, (method, found)
                runs[method].append(found)
        parse = child(["--parse", "--port", str(port), "--repeat", str(max(3, repeat))])
    finally:
        process.terminate()
        process.wait()
    print(
        f"\n{keys:,} keys in one 1-day window, {latency:g} ms a request: median of {repeat} "
        "runs, each in a fresh process"
    )
    print(
        "\n| method | wall s | calls | keys | CPU s | µs CPU per key |\n|---|--:|--:|--:|--:|--:|"
    )
    median: dict[str, dict[str, float]] = {}
    for method, found in runs.items():
        median[method] = {name: statistics.median(r[name] for r in found) for name in found[0]}
        row = median[method]
        print(
            f"| {method} | {row['wall']:.2f} | {row['calls']:.0f} | {row['keys']:,.0f} | "
            f"{row['cpu']:.2f} | {row['cpu'] / keys * 1e6:.2f} |"
        )
    columns_cpu = median[COLUMNS_SPLIT]["cpu"] / keys
    print(
        "\nthe bare page parse (the library's reader over the same pages, best of "
        f"{max(3, repeat)}): {parse['columns'] * 1e6:.2f} µs per key reading the columns (key, "
        f"size), {parse['dicts'] * 1e6:.2f} µs per key reading the dicts"
    )
    return median, columns_cpu / parse["columns"]


def million(keys: int, latency: float) -> dict[str, dict[str, float]]:
    process, port = stand_in(keys, latency)
    try:
        found = {
            method: child(["--run", method, "--port", str(port)])
            for method in (COLUMNS_SPLIT, ITEMS_SPLIT)
        }
    finally:
        process.terminate()
        process.wait()
    print(f"\n{keys:,} keys in one 1-day window, {latency:g} ms a request, one fresh process each")
    print("\n| method | wall s | calls | CPU s | µs CPU per key |\n|---|--:|--:|--:|--:|")
    for method, row in found.items():
        assert row["keys"] == keys, (method, row)
        print(
            f"| {method} | {row['wall']:.2f} | {row['calls']:.0f} | {row['cpu']:.2f} | "
            f"{row['cpu'] / keys * 1e6:.2f} |"
        )
    return found


def target(text: str, measured: str, met: bool) -> None:
    print(f"- target: {text}: {measured} ({'met' if met else 'missed'})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--million", type=int, default=1_000_000, help="0: skip that run")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--latency", type=float, default=30)
    parser.add_argument("--run", help=argparse.SUPPRESS)  # a child: one method
    parser.add_argument("--parse", action="store_true", help=argparse.SUPPRESS)  # a child
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run is not None:
        print(json.dumps(run_one(args.run, args.port)))
        return
    if args.parse:
        print(json.dumps(bare_parse(args.port, args.repeat)))
        return
    has_polars = pl is not None
    median, ratio = compare(args.keys, args.latency, args.repeat, has_polars)
    big = million(args.million, args.latency) if args.million else None
    print("")
    for method, baseline, at_least in SPEEDUPS:
        speedup = median[baseline]["wall"] / median[method]["wall"]
        target(
            f"{method} >= {at_least:g}x faster than the {baseline}",
            f"{speedup:.1f}x",
            speedup >= at_least,
        )
    target(
        f"{COLUMNS_SPLIT}: client CPU per key <= {CPU_RATIO:g}x the bare page parse",
        f"{ratio:.2f}x",
        ratio <= CPU_RATIO,
    )
    if big is not None:
        seconds = big[COLUMNS_SPLIT]["wall"]
        target(
            f"{args.million:,} keys in a day as columns in <= {MILLION_SECONDS:g} s",
            f"{seconds:.2f} s",
            seconds <= MILLION_SECONDS,
        )
    if has_polars:
        speedup = median[POLARS_BOTO3]["wall"] / median[POLARS_OURS]["wall"]
        target(
            f"{POLARS_OURS} >= {POLARS_SPEEDUP:g}x faster than a {POLARS_BOTO3}",
            f"{speedup:.1f}x",
            speedup >= POLARS_SPEEDUP,
        )


if __name__ == "__main__":
    main()
