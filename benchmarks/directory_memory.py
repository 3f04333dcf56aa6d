"""Benchmark: peak memory of directory-bucket listings, measured with ``tracemalloc``.

A directory bucket lists a folder in no order, so a folder is read whole before any of it is
returned; memory must be bounded by one folder, not the window. Run:

    .venv/bin/python benchmarks/directory_memory.py [--keys-per-day 60000] [--days 8]
"""

from __future__ import annotations

import argparse
import hashlib
import tracemalloc
from collections.abc import Callable
from typing import Any

from ulidkeys.s3 import Bucket, KeyLayout
from ulidkeys.ulid import ULID

DAY = 86_400_000
BASE = 1_715_904_000_000  # 2024-05-17T00:00:00Z
BUCKET = "memory--use1-az4--x-s3"


class LeanDirectoryBucket:
    """ListObjectsV2 of a directory bucket whose folders are scrambled once, up front, so a
    call allocates only its page: what is measured is the listing's memory, not the fake's."""

    def __init__(self, keys: list[str]) -> None:
        self.folders: dict[str, list[str]] = {}
        for key in keys:
            folder = key[: key.rfind("/") + 1]
            for cut in range(len(folder)):  # every '/'-ending prefix of the key
                if folder[cut] == "/":
                    self.folders.setdefault(folder[: cut + 1], []).append(key)
            self.folders.setdefault("", []).append(key)
        for listed in self.folders.values():
            listed.sort(key=lambda k: hashlib.md5(k.encode()).digest())

    def list_objects_v2(self, **kwargs: Any) -> dict[str, Any]:
        prefix = kwargs.get("Prefix", "")
        if kwargs.get("Delimiter") == "/":  # the folders right under the prefix
            inner = [
                f
                for f in self.folders
                if f.startswith(prefix) and f.count("/") == 1 + prefix.count("/")
            ]
            return {"CommonPrefixes": [{"Prefix": f} for f in inner], "IsTruncated": False}
        listed = self.folders.get(prefix, [])
        start = int(kwargs.get("ContinuationToken", "0"))
        end = start + kwargs["MaxKeys"]
        result: dict[str, Any] = {
            "Contents": [{"Key": key, "Size": 0} for key in listed[start:end]],
            "IsTruncated": end < len(listed),
        }
        if result["IsTruncated"]:
            result["NextContinuationToken"] = str(end)
        return result


def make_keys(layout: KeyLayout, keys_per_day: int, days: int) -> list[str]:
    step = DAY // keys_per_day
    return [
        layout.key_for(ULID.new(BASE + day * DAY + n * step))
        for day in range(days)
        for n in range(keys_per_day)
    ]


def peak(run: Callable[[], object]) -> tuple[int, object]:
    """Peak bytes allocated while ``run`` runs (the listing is consumed, not stored)."""
    tracemalloc.start()
    try:
        result = run()
        return tracemalloc.get_traced_memory()[1], result
    finally:
        tracemalloc.stop()


def measure(keys_per_day: int, days: int, workers: int = 8) -> dict[str, tuple[int, int]]:
    """``{case: (peak bytes, objects returned)}`` for one day, the whole window, and
    ``latest(20)`` with and without period folders. Beyond one folder, a listing reads ahead
    the first page of up to ``workers`` later folders."""
    dated = KeyLayout("up/", period="day")
    flat = KeyLayout("up/")
    dated_bucket = Bucket(LeanDirectoryBucket(make_keys(dated, keys_per_day, days)), BUCKET, dated)
    flat_bucket = Bucket(LeanDirectoryBucket(make_keys(flat, keys_per_day, days)), BUCKET, flat)
    end = BASE + days * DAY
    cases: dict[str, Callable[[], object]] = {
        "1 day": lambda: sum(
            1 for _ in dated_bucket.list_window(BASE, BASE + DAY, max_workers=workers)
        ),
        "half the days": lambda: sum(
            1 for _ in dated_bucket.list_window(BASE, BASE + days // 2 * DAY, max_workers=workers)
        ),
        f"{days} days": lambda: sum(
            1 for _ in dated_bucket.list_window(BASE, end, max_workers=workers)
        ),
        "latest(20), day folders": lambda: sum(
            1 for _ in dated_bucket.latest(20, since=BASE, max_workers=workers)
        ),
        "latest(20), no folders": lambda: sum(
            1 for _ in flat_bucket.latest(20, since=BASE, max_workers=workers)
        ),
        "whole flat prefix": lambda: sum(
            1 for _ in flat_bucket.list_window(BASE, end, max_workers=workers)
        ),
    }
    results = {}
    for name, run in cases.items():
        size, count = peak(run)
        results[name] = (size, int(count))  # type: ignore[call-overload]
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keys-per-day", type=int, default=60_000)
    parser.add_argument("--days", type=int, default=8)
    parser.add_argument("--workers", type=int, default=8)
    args = parser.parse_args()
    for name, (size, count) in measure(args.keys_per_day, args.days, args.workers).items():
        print(f"{name:>24}: peak {size / 2**20:7.2f} MiB for {count:,} objects")


if __name__ == "__main__":
    main()
