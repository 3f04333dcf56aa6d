"""One Spark partition of ``spark.read.format("ulidkeys.s3")`` (objects) read two ways, side by
side, against the ListObjectsV2 stand-in of ``s3_scale.py`` (its own process, a fixed latency
per request): the executor's code run in this process (no Spark session), its slice's rows made
from pages of columns (``Results.pages``, what the source reads now) and from the objects'
dicts (``_object_row`` of each item, what it read before). Each run is a fresh process, the two
interleaved, the median of the runs shown; both must give the same rows. Not a timed test.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/spark_rows.py [--keys 100000] [--repeat 3]
        [--latency 30]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

from s3_columns import child, stand_in
from s3_scale import DAY, T0  # benchmarks/ is on the path of a script run from it

from ulidkeys.clients import ClientSettings
from ulidkeys.planning.listings import plan_listing
from ulidkeys.s3 import KeyLayout
from ulidkeys.spark.s3 import _Listing, _object_row

LAYOUT = KeyLayout("up/")
COLUMNS = "rows from pages of columns"
ITEMS = "rows from the objects' dicts"


def run_one(method: str, port: int) -> dict[str, Any]:
    """In a fresh process: one partition (the whole day as one slice) read one way: wall time,
    client CPU, rows and a digest of them (after a warm-up request: connection, models)."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):  # as an executor finds them
        os.environ.setdefault(name, "bench")
    settings = ClientSettings("us-east-1", f"http://127.0.0.1:{port}")
    listing = _Listing(settings, "b", LAYOUT)
    listing.open().client.list_objects_v2(Bucket="b", Prefix="up/", MaxKeys=1)
    piece = plan_listing(LAYOUT, T0, T0 + DAY).slices(1)[0]

    def items() -> Iterator[tuple[Any, ...]]:
        return (_object_row(LAYOUT, obj) for _key, obj in listing.objects(piece))

    runs: dict[str, Callable[[], Iterator[tuple[Any, ...]]]] = {
        COLUMNS: lambda: listing.object_rows(piece),
        ITEMS: items,
    }
    wall, cpu = time.perf_counter(), time.process_time()
    rows = list(runs[method]())
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    digest = hashlib.sha256(repr(rows).encode()).hexdigest()
    return {"wall": wall, "cpu": cpu, "rows": len(rows), "digest": digest}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--latency", type=float, default=30)
    parser.add_argument("--run", help=argparse.SUPPRESS)  # a child: one method
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run is not None:
        print(json.dumps(run_one(args.run, args.port)))
        return
    methods = [COLUMNS, ITEMS]
    process, port = stand_in(args.keys, args.latency)
    try:
        runs: dict[str, list[dict[str, Any]]] = {method: [] for method in methods}
        for _ in range(args.repeat):
            for method in methods:
                found = child(["--run", method, "--port", str(port)], __file__)
                assert found["rows"] == args.keys, (method, found)
                runs[method].append(found)
    finally:
        process.terminate()
        process.wait()
    digests = {run["digest"] for found in runs.values() for run in found}
    assert len(digests) == 1, "the two ways gave different rows"
    print(
        f"\n{args.keys:,} keys in one 1-day window read as one Spark partition, "
        f"{args.latency:g} ms a request: median of {args.repeat} runs, each in a fresh process "
        "(the same rows both ways)"
    )
    print("\n| method | wall s | CPU s | µs CPU per key |\n|---|--:|--:|--:|")
    median = {}
    for method, found in runs.items():
        median[method] = {
            name: statistics.median(r[name] for r in found) for name in ("wall", "cpu")
        }
        row = median[method]
        print(
            f"| {method} | {row['wall']:.2f} | {row['cpu']:.2f} | "
            f"{row['cpu'] / args.keys * 1e6:.2f} |"
        )
    print(
        f"\nclient CPU, columns over dicts: {median[COLUMNS]['cpu'] / median[ITEMS]['cpu']:.2f}x; "
        f"wall: {median[COLUMNS]['wall'] / median[ITEMS]['wall']:.2f}x"
    )


if __name__ == "__main__":
    main()
