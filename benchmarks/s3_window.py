"""Benchmark: listing a time window of a 100,000-key bucket on moto, three ways.

Compares ``Bucket.list_window`` with a naive full listing filtered on the client and with the
Prefix + Delimiter trick, for windows of 1 minute, 1 hour and 1 day, plus ``Bucket.latest``,
and checks the targets of issue 4. Keys are written straight into moto's in-process backend
(:func:`fill_bucket`: ~7 s for 100,000 empty objects instead of ~5 min of ``put_object``
calls). Run:

    .venv/bin/python benchmarks/s3_window.py [--keys 100000] [--days 30]
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import boto3
from moto import mock_aws

from ulidkeys import TimeWindow, base32
from ulidkeys.s3 import Bucket, KeyLayout, ListCall, Results, plan_window

DAY = 86_400_000
BASE = 1_714_521_600_000  # 2024-05-01T00:00:00Z
WINDOWS = {"1 min": 60_000, "1 h": 3_600_000, "1 day": DAY}
MOTO_ACCOUNT = "123456789012"


def fill_bucket(bucket: str, keys: Iterable[str]) -> int:
    """Create empty objects straight in moto's in-process backend (inside ``mock_aws`` only)."""
    from moto.s3.models import s3_backends

    backend = s3_backends[MOTO_ACCOUNT]["global"]
    count = 0
    for key in keys:
        backend.put_object(bucket, key, b"", disable_notification=True)
        count += 1
    return count


class Counting:
    """A boto3 client wrapper that counts ListObjectsV2 calls and the keys (and common prefixes)
    they carry: what ``Stats.read`` counts."""

    def __init__(self, client: Any) -> None:
        self.client, self.calls, self.read = client, 0, 0

    def list_objects_v2(self, **kwargs: Any) -> Any:
        assert kwargs["MaxKeys"] <= 1000
        page = self.client.list_objects_v2(**kwargs)
        self.calls += 1
        self.read += len(page.get("Contents", [])) + len(page.get("CommonPrefixes", []))
        return page


def naive(client: Counting, bucket: str, layout: KeyLayout) -> list[str]:
    """Every key under the prefix, page by page (the window is applied by the caller)."""
    keys, token = [], None
    while True:
        kwargs: dict[str, Any] = {"Bucket": bucket, "Prefix": layout.prefix, "MaxKeys": 1000}
        if token:
            kwargs["ContinuationToken"] = token
        page = client.list_objects_v2(**kwargs)
        keys += [o["Key"] for o in page.get("Contents", [])]
        if not page.get("IsTruncated"):
            return keys
        token = page["NextContinuationToken"]


def with_delimiter(client: Counting, bucket: str, call: ListCall) -> list[str]:
    """The blog-post trick: the plan's Prefix/StartAfter plus Delimiter = the upper bound's
    next character, hoping S3 folds everything past the bound into one CommonPrefix."""
    assert call.stop_at is not None
    keys, token = [], None
    while True:
        kwargs = call.request(bucket, token)
        kwargs["Delimiter"] = call.stop_at[len(call.prefix)]
        page = client.list_objects_v2(**kwargs)
        keys += [o["Key"] for o in page.get("Contents", [])]
        if not page.get("IsTruncated"):
            return keys
        token = page["NextContinuationToken"]


def timed(run: Callable[[], list[str]]) -> tuple[list[str], float]:
    began = time.perf_counter()
    result = run()
    return result, time.perf_counter() - began


def in_window(layout: KeyLayout, keys: list[str], window: TimeWindow) -> list[str]:
    return [k for k in keys if layout.fits(k) and layout.parse(k).ms in window]


def agrees(results: Results[Any], counter: Counting, returned: int) -> None:
    """The library's own stats must match what the counting client saw."""
    stats = results.stats
    assert (stats.calls, stats.read, stats.returned) == (
        counter.calls,
        counter.read,
        returned,
    ), (stats, counter.calls, counter.read, returned)


def bench_layout(s3: Any, layout: KeyLayout, n_keys: int, days: int, rng: random.Random) -> None:
    bucket = f"bench-{rng.randrange(10**9)}"
    s3.create_bucket(Bucket=bucket)
    keys = [
        layout.key_for(
            base32.encode_time(BASE + rng.randrange(days * DAY))
            + base32.encode_random(rng.getrandbits(80))
        )
        for _ in range(n_keys)
    ]
    began = time.perf_counter()
    fill_bucket(bucket, keys)
    print(
        f"\n### {layout}: {n_keys:,} keys over {days} days "
        f"(filled in moto's backend in {time.perf_counter() - began:.1f} s)\n"
    )
    counter = Counting(s3)
    everything, naive_s = timed(lambda: naive(counter, bucket, layout))
    naive_calls, naive_moved = counter.calls, counter.read
    print("| window | method | calls | keys read | keys returned | missed | wall s |")
    print("|---|---|---:|---:|---:|---:|---:|")
    start = BASE + days // 2 * DAY + 9 * 3_600_000 + 123
    for label, length in WINDOWS.items():
        window = TimeWindow.from_ms(start, start + length)
        expected = in_window(layout, everything, window)
        plan = plan_window(layout, window.start_ms, window.end_ms)
        counter = Counting(s3)
        listing = Bucket(counter, bucket, layout).list_window(window.start_ms, window.end_ms)
        got, seconds = timed(lambda listing=listing: [o["Key"] for o in listing])
        assert sorted(got) == sorted(expected), "list_window must be exact"
        agrees(listing, counter, len(got))
        rows = [("list_window", counter.calls, counter.read, len(got), seconds)]
        rows.append(("naive full listing", naive_calls, naive_moved, len(expected), naive_s))
        counter = Counting(s3)
        lossy, seconds = timed(
            lambda plan=plan, counter=counter: [
                k for call in plan.calls for k in with_delimiter(counter, bucket, call)
            ]
        )
        lossy = in_window(layout, lossy, window)
        rows.append(("Prefix+Delimiter", counter.calls, counter.read, len(lossy), seconds))
        for method, calls, moved, returned, secs in rows:
            print(
                f"| {label} | {method} | {calls:,} | {moved:,} | {returned:,} | "
                f"{len(expected) - returned:,} | {secs:.2f} |"
            )
        check_targets(layout, label, plan.calls, got, rows[0][1], rows[0][2], naive_calls)
    newest_first = sorted(everything, key=lambda k: (layout.parse(k).id, k))[::-1]
    # just after the newest key (a bucket in use), and "now": years after this synthetic data
    for label, until in (("end of data", BASE + days * DAY), ("now", None)):
        counter = Counting(s3)
        listing = Bucket(counter, bucket, layout).latest(20, until=until)
        newest, seconds = timed(lambda listing=listing: [o["Key"] for o in listing])
        assert newest == newest_first[:20]
        agrees(listing, counter, 20)
        print(
            f"| newest 20 before {label} | latest | {counter.calls:,} | "
            f"{counter.read:,} | 20 | 0 | {seconds:.2f} |"
        )


def check_targets(
    layout: KeyLayout,
    label: str,
    calls: tuple[ListCall, ...],
    got: list[str],
    made: int,
    moved: int,
    naive_calls: int,
) -> None:
    per_chain = Counter(layout.parse(k).shard for k in got)
    limit = sum(math.ceil(per_chain[s] / 1000) + 1 for s in layout.shard_numbers())
    outside = moved - len(got)
    checks = [
        (f"calls {made} <= sum(ceil(n/1000)+1) = {limit}", made <= limit),
        (
            f"out-of-window keys {outside} <= 1000 x {len(calls)} chains",
            outside <= 1000 * len(calls),
        ),
    ]
    if label == "1 h":
        checks.append(
            (
                f"naive/list_window calls = {naive_calls / made:.0f}x >= 100x",
                naive_calls >= 100 * made,
            )
        )
    TARGETS.extend((f"{layout} {label}: {text}", ok) for text, ok in checks)


TARGETS: list[tuple[str, bool]] = []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--days", type=int, default=30)
    args = parser.parse_args()
    rng = random.Random(20240517)
    with mock_aws():
        s3 = boto3.client(
            "s3",
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )
        for layout in (
            KeyLayout("uploads/", suffix=".jpg"),
            KeyLayout("uploads/", shards=4, period="day", suffix=".jpg"),
        ):
            bench_layout(s3, layout, args.keys, args.days, rng)
    print("\nTargets (issue 4):")
    for text, ok in TARGETS:
        print(f"- [{'x' if ok else ' '}] {text}")


if __name__ == "__main__":
    main()
