"""Benchmark: listing a time window of a 100,000-key bucket on moto, three ways.

Compares ``Bucket.list_window`` with a naive full listing filtered on the client and with the
Prefix + Delimiter trick, for windows of 1 minute, 1 hour and 1 day, plus ``Bucket.latest``,
and checks its targets. Keys are written straight into moto's in-process backend
(:func:`fill_bucket`: ~7 s for 100,000 empty objects instead of ~5 min of ``put_object``
calls). Run:

    .venv/bin/python benchmarks/s3_window.py [--keys 100000] [--days 30]
"""

from __future__ import annotations

import argparse
import math
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import boto3
from charts import LOSSY, OTHERS, OURS, pyplot, save
from moto import mock_aws

from ulidkeys import TimeWindow, base32
from ulidkeys.cli.baselines import full_listing, prefix_delimiter
from ulidkeys.planning.listings import plan_listing
from ulidkeys.s3 import Bucket, KeyLayout, ListCall, Results

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
    they carry: what ``Stats.read`` counts. Chains run on threads: the counts take a lock."""

    def __init__(self, client: Any) -> None:
        self.client, self.calls, self.read = client, 0, 0
        self.lock = threading.Lock()

    def list_objects_v2(self, **kwargs: Any) -> Any:
        assert kwargs["MaxKeys"] <= 1000
        page = self.client.list_objects_v2(**kwargs)
        with self.lock:
            self.calls += 1
            self.read += len(page.get("Contents", [])) + len(page.get("CommonPrefixes", []))
        return page


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
    short = f"{layout.shards or 'no'} shards, {'day' if layout.period else 'no'} folders"
    began = time.perf_counter()
    full = full_listing(s3, bucket, layout.prefix)
    everything, naive_s = full.keys, time.perf_counter() - began
    naive_calls, naive_moved = full.calls, full.read
    print("| window | method | calls | keys read | keys returned | missed | wall s |")
    print("|---|---|---:|---:|---:|---:|---:|")
    start = BASE + days // 2 * DAY + 9 * 3_600_000 + 123
    for label, length in WINDOWS.items():
        window = TimeWindow.from_ms(start, start + length)
        expected = in_window(layout, everything, window)
        plan = plan_listing(layout, window.start_ms, window.end_ms)
        counter = Counting(s3)
        listing = Bucket(counter, bucket, layout).list_window(window.start_ms, window.end_ms)
        got, seconds = timed(lambda listing=listing: [o["Key"] for o in listing])
        assert sorted(got) == sorted(expected), "list_window must be exact"
        agrees(listing, counter, len(got))
        rows = [("list_window", counter.calls, counter.read, len(got), seconds)]
        rows.append(("naive full listing", naive_calls, naive_moved, len(expected), naive_s))
        began = time.perf_counter()
        trick = prefix_delimiter(s3, bucket, plan.calls)
        seconds = time.perf_counter() - began
        lossy = in_window(layout, trick.keys, window)
        rows.append(("Prefix+Delimiter", trick.calls, trick.read, len(lossy), seconds))
        for method, calls, moved, returned, secs in rows:
            print(
                f"| {label} | {method} | {calls:,} | {moved:,} | {returned:,} | "
                f"{len(expected) - returned:,} | {secs:.2f} |"
            )
            CHART.append((short, label, method, calls, moved, len(expected) - returned))
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
# layout, window, method, calls, keys read, keys missed
CHART: list[tuple[str, str, str, int, int, int]] = []


def chart() -> None:
    """docs/img/s3_window.png: calls and keys transferred per window size, three methods,
    one row of plots per layout."""
    plt = pyplot()
    if plt is None:
        return
    layouts = list(dict.fromkeys(row[0] for row in CHART))
    methods = {"list_window": OURS, "naive full listing": OTHERS, "Prefix+Delimiter": LOSSY}
    figure, grid = plt.subplots(len(layouts), 2, figsize=(11, 3.8 * len(layouts)), squeeze=False)
    for axes_row, layout in zip(grid, layouts, strict=True):
        rows = [row for row in CHART if row[0] == layout]
        windows = list(dict.fromkeys(row[1] for row in rows))
        for axes, column, what in ((axes_row[0], 3, "calls"), (axes_row[1], 4, "keys transferred")):
            width = 0.8 / len(methods)
            for n, (method, colour) in enumerate(methods.items()):
                found = [next(r for r in rows if r[1:3] == (w, method)) for w in windows]
                values = [row[column] for row in found]
                labels = [
                    f"{v:,}" + (f"\n{row[5]:,} missed" if row[5] and column == 4 else "")
                    for v, row in zip(values, found, strict=True)
                ]
                spots = [x + (n - 1) * width for x in range(len(windows))]
                bars = axes.bar(spots, values, width, color=colour, label=method)
                axes.bar_label(bars, labels=labels, fontsize=7, padding=1)
            axes.set_xticks(range(len(windows)), [f"{w} window" for w in windows])
            axes.set_yscale("symlog", linthresh=1)  # symlog: a window with 0 keys read shows
            axes.set_ylim(0, max(row[column] for row in rows) * 8)
            axes.set_ylabel(f"{what} (log)")
            axes.set_title(f"{what} per window: {layout}", fontsize=10)
            axes.legend(fontsize=7, loc="upper left", ncols=3)
    save(figure, "s3_window")


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
    chart()
    print("\nTargets:")
    for text, ok in TARGETS:
        print(f"- [{'x' if ok else ' '}] {text}")


if __name__ == "__main__":
    main()
