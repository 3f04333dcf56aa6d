"""What list_window adds per returned key on top of the client: an in-memory ListObjectsV2
stand-in (a fake client answering with ready dicts, no HTTP, no parsing) so only the
library's own work is timed, against a bare loop over the same pages. Not a timed test.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/s3_overhead.py [--keys 100000] [--profile]
"""

from __future__ import annotations

import argparse
import bisect
import cProfile
import pstats
from typing import Any

from s3_parse import best  # benchmarks/ is on the path of a script run from it

from ulidkeys import base32
from ulidkeys.s3 import Bucket, KeyLayout

T0 = 1_715_904_000_000  # 2024-05-17T00:00:00Z
DAY = 86_400_000


class MemoryS3:
    """ListObjectsV2 over a sorted key list: Prefix, StartAfter, ContinuationToken, MaxKeys."""

    def __init__(self, keys: list[str]) -> None:
        self.keys = sorted(keys)
        self.objects = {key: {"Key": key, "Size": 0, "ETag": '"0"'} for key in self.keys}
        self.calls = 0

    def list_objects_v2(self, **kwargs: Any) -> dict[str, Any]:
        self.calls += 1
        prefix = kwargs.get("Prefix", "")
        after = kwargs.get("ContinuationToken") or kwargs.get("StartAfter", "")
        size = kwargs.get("MaxKeys", 1000)
        keys = self.keys
        i = bisect.bisect_right(keys, max(after, prefix))
        j = bisect.bisect_left(keys, prefix + "\U0010ffff")
        page = keys[i : min(j, i + size)]
        truncated = i + size < j
        answer: dict[str, Any] = {
            "IsTruncated": truncated,
            "Contents": [self.objects[key] for key in page],
            "KeyCount": len(page),
        }
        if truncated:
            answer["NextContinuationToken"] = page[-1]
        return answer


def bare(client: MemoryS3, prefix: str) -> int:
    """The floor: page through the prefix and touch every object."""
    count, token = 0, None
    while True:
        kwargs: dict[str, Any] = {"Prefix": prefix, "MaxKeys": 1000}
        if token:
            kwargs["ContinuationToken"] = token
        page = client.list_objects_v2(**kwargs)
        for obj in page["Contents"]:
            count += obj["Size"] + 1
        if not page["IsTruncated"]:
            return count
        token = page["NextContinuationToken"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    n = args.keys
    print(f"{n:,} keys in one day, in memory; µs per returned key (best of 5)")
    print(f"{'layout':10} {'method':30} {'µs/key':>8} {'over bare':>10}")
    for shards in (None, 4):
        layout = KeyLayout("up/", shards=shards)
        keys = [
            layout.key_for(base32.encode_time(T0 + i * DAY // n) + base32.encode_random(i * 7919))
            for i in range(n)
        ]
        client = MemoryS3(keys)
        bucket = Bucket(client, "b", layout)  # type: ignore[arg-type]
        floor = best(lambda c=client: bare(c, "up/"), 5) / n
        name = "flat" if shards is None else f"{shards}-shard"
        print(f"{name:10} {'bare loop over the pages':30} {floor * 1e6:8.2f} {'':>10}")
        for label, split, workers in [
            ("list_window (1 worker)", False, 1),
            ("list_window (no split, 8)", False, 8),
            ("list_window (split, 16)", True, 16),
        ]:

            def listing(b: Bucket = bucket, s: bool = split, w: int = workers) -> None:
                count = sum(1 for _ in b.list_window(T0, T0 + DAY, split=s, max_workers=w))
                assert count == n

            per_key = best(listing, 5) / n
            print(f"{name:10} {label:30} {per_key * 1e6:8.2f} {(per_key - floor) * 1e6:9.2f}")
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            sum(1 for _ in bucket.list_window(T0, T0 + DAY, split=False, max_workers=1))
            profiler.disable()
            pstats.Stats(profiler).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
