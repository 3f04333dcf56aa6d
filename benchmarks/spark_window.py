"""A 1-day window of keys listed for Spark two ways, against the S3 stand-in of ``s3_scale.py``
(its own process, a fixed latency per request): the way Spark users do it without the library
(the prefix listed on the driver with boto3's paginator, filtered to the window by id time, then
``spark.createDataFrame``) and ``spark.read.format("ulidkeys.s3")`` on ``local[2]`` (one
partition per time slice, listed by the executors). Not a timed test.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/spark_window.py [--keys 100000] [--latency 30]

Each is run twice in the same session and the second run is timed (the first pays for Python
worker start-up). On a 2-core machine the stand-in, the driver and the executors share the
cores: read the ratio with that in mind.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from typing import Any

from pyspark.sql import SparkSession
from s3_scale import DAY, T0, client

import ulidkeys.spark
from ulidkeys.s3 import KeyLayout

LAYOUT = KeyLayout("up/")


def by_hand(spark: SparkSession, s3: Any) -> int:
    """The driver lists the whole prefix, keeps the window's keys, and hands them to Spark."""
    rows = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket="b", Prefix="up/"):
        for obj in page.get("Contents", []):
            ms = LAYOUT.parse(obj["Key"]).ms
            if T0 <= ms < T0 + DAY:
                rows.append((obj["Key"], obj["Size"], obj["LastModified"], obj["ETag"]))
    frame = spark.createDataFrame(
        rows, "key string, size long, last_modified timestamp, etag string"
    )
    return frame.repartition(16).count()


def with_ulidkeys(spark: SparkSession, endpoint: str, partitions: int) -> int:
    return (
        spark.read.format("ulidkeys.s3")
        .options(bucket="b", prefix="up/", since=str(T0), until=str(T0 + DAY))
        .options(partitions=str(partitions), endpoint_url=endpoint, region="us-east-1")
        .load()
        .count()
    )


def timed(run: Any) -> tuple[float, int]:
    run()  # warm: Python workers, the JVM's first job
    began = time.perf_counter()
    count = run()
    return time.perf_counter() - began, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--latency", type=float, default=30.0, help="ms per request")
    parser.add_argument("--partitions", type=int, default=16)
    args = parser.parse_args()
    for name, value in {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench"}.items():
        os.environ.setdefault(name, value)  # the executors' clients take them from here
    os.environ["PYSPARK_PYTHON"] = sys.executable
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "s3_scale.py")
    command = [sys.executable, here, "--serve", "0", str(args.keys), str(args.latency)]
    stand_in = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "16")
        .getOrCreate()
    )
    try:
        assert stand_in.stdout is not None
        port = int(stand_in.stdout.readline())
        endpoint = f"http://127.0.0.1:{port}"
        ulidkeys.spark.register(spark)
        s3 = client(port)
        rows = [
            ("driver paginator + filter + parallelize", *timed(lambda: by_hand(spark, s3))),
            (
                f"ulidkeys.s3, {args.partitions} partitions",
                *timed(lambda: with_ulidkeys(spark, endpoint, args.partitions)),
            ),
        ]
    finally:
        spark.stop()
        stand_in.terminate()
        stand_in.wait()
    print(
        f"{args.keys:,} keys over 1 day, flat layout, {args.latency:g} ms per request, "
        f"local[2], {os.cpu_count()} cores\n"
    )
    print("| method | wall s | keys | x by hand |\n|---|--:|--:|--:|")
    base = rows[0][1]
    for label, wall, keys in rows:
        print(f"| {label} | {wall:.2f} | {keys:,} | {base / wall:.2f} |")


if __name__ == "__main__":
    main()
