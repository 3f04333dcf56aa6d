"""Where a window listing's client CPU goes, per key: one 1-day window of 100,000 keys listed
with ``list_window`` (split, 16 workers; with ``--columns``, as pages of the columns key and
size) over real HTTP against the local ListObjectsV2 stand-in of ``s3_scale.py`` (30 ms a
request), profiled in every thread (cProfile on each thread's own
CPU clock) and split into the page read, object construction, locate, merge, slicing
bookkeeping and botocore's request path. Then, side by side in one run, repeated: client CPU
per key (``time.process_time``) of ``list_window``'s items and pages of columns against
boto3's paginator on a client with the library's page reader (the read itself), and against
boto3's own paginator. Not a timed test.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/s3_breakdown.py [--keys 100000] [--repeat 5]
        [--latency 30] [--columns] [--baseline /path/to/other/checkout]

The profiler slows Python calls more than C work: the table scales the profile's shares to the
CPU per key measured without it, so the rows are estimates; the totals and ratios below it are
measured. ``--baseline`` also measures another checkout of the library (its ``list_window`` and
paginator, in a process of its own, alternating with this one's): before/after in one run.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from s3_scale import DAY, T0, client  # benchmarks/ is on the path of a script run from it

from ulidkeys.s3 import Bucket, KeyLayout, Results
from ulidkeys.s3.bucket import ListingSource
from ulidkeys.s3.pages import install_fast_pages

HERE = Path(__file__).resolve().parent
LAYOUT = KeyLayout("up/")
COLUMNS = ("key", "size")

# Categories of the breakdown, by where a profiled function lives (first match wins).
# ``cumulative``: functions whose whole time (callees too) is the category's; ``own``: files
# whose functions' own time is.
CUMULATIVE = [
    ("object construction", "pages.py", "build"),  # the dicts of a run of records
    ("page read", "pages.py", "read"),  # the rest of the page reader (regexes, checks)
    ("locate (the plan's verdict on each key)", "plans.py", "judge"),  # calls the locator
    ("locate (the plan's verdict on each key)", "layout.py", "locate"),
    ("locate (the plan's verdict on each key)", "layout.py", "locate_plain"),
    ("object construction", "bucket.py", "page"),  # (key, object) pairs of a page
]
BY_NAME = [
    ("handing over (Results, the caller's loop)", "threads.py", "__next__"),
    ("handing over (Results, the caller's loop)", "threads.py", "_column_pages"),
    ("handing over (Results, the caller's loop)", "columns.py", "shape"),
    ("handing over (Results, the caller's loop)", "s3_breakdown.py", "<genexpr>"),
]
OWN = [
    ("slicing bookkeeping", ("plans.py", "chains.py", "slicing.py")),
    ("merge", ("heapq.py", "scheduling.py", "threads.py")),
    ("botocore request path", ("botocore", "urllib3", "http", "socket", "ssl", "email", "hmac")),
]


class _Threads:
    """One cProfile per thread, on that thread's own CPU clock (not wall time: the caller's
    thread waits for pages, and a wait costs no CPU)."""

    def __init__(self) -> None:
        self.profiles: dict[int, cProfile.Profile] = {}
        self.lock = threading.Lock()

    def mine(self) -> cProfile.Profile:
        ident = threading.get_ident()
        with self.lock:
            if ident not in self.profiles:
                self.profiles[ident] = cProfile.Profile(time.thread_time)
            return self.profiles[ident]

    def wrap(self, fetch: Any) -> Any:
        def profiled(*args: Any) -> Any:
            profile = self.mine()
            profile.enable()
            try:
                return fetch(*args)
            finally:
                profile.disable()

        return profiled


def _listing(bucket: Bucket, columns: bool = False) -> int:
    result = bucket.list_window(T0, T0 + DAY, split=True, max_workers=16)
    if columns:
        return sum(len(page["key"]) for page in result.pages(columns=COLUMNS))
    return sum(1 for _ in result)


def _paginator(s3: Any) -> int:
    found = 0
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket="b", Prefix="up/"):
        for obj in page.get("Contents", []):
            found += obj["Size"] + 1
    return found


def profile(port: int, columns: bool) -> tuple[dict[str, float], int, int]:
    """Seconds of profiled CPU per category, keys listed, calls made (of the items, or of
    the pages of columns)."""
    bucket = Bucket(client(port), "b", LAYOUT)
    _listing(bucket, columns)  # warm: connections, regex caches, templates
    threads = _Threads()
    fetch = ListingSource.fetch  # the class's: a listing of columns runs a copy of the source
    ListingSource.fetch = threads.wrap(fetch)  # type: ignore[method-assign]
    try:
        main = threads.mine()
        main.enable()
        result = bucket.list_window(T0, T0 + DAY, split=True, max_workers=16)
        if columns:
            keys = sum(len(page["key"]) for page in result.pages(columns=COLUMNS))
        else:
            keys = sum(1 for _ in result)
        main.disable()
    finally:
        ListingSource.fetch = fetch  # type: ignore[method-assign]
    merged = pstats.Stats(*threads.profiles.values())
    return categorise(merged.stats), keys, result.stats.calls  # type: ignore[attr-defined]


def categorise(stats: dict[Any, Any]) -> dict[str, float]:
    """Profiled seconds per category: a cumulative rule takes a function's callees with it
    (and they are not counted again); the rest is counted by own time."""
    out: dict[str, float] = {}
    taken: set[Any] = set()
    callees: dict[Any, set[Any]] = {}
    for func, (_cc, _nc, _tt, _ct, callers) in stats.items():
        for caller in callers:
            callees.setdefault(caller, set()).add(func)

    def below(func: Any) -> set[Any]:
        seen, todo = {func}, [func]
        while todo:
            for callee in callees.get(todo.pop(), ()):
                if callee not in seen:
                    seen.add(callee)
                    todo.append(callee)
        return seen

    for category, file_part, name in CUMULATIVE:
        for func in stats:
            if func[0].endswith(file_part) and func[2] == name and func not in taken:
                group = below(func) - taken
                out[category] = out.get(category, 0.0) + sum(stats[f][2] for f in group)
                taken |= group
    for func, row in stats.items():
        if func in taken:
            continue
        category = "other (threads, builtins)"
        for name, file_part, function in BY_NAME:
            if func[0].endswith(file_part) and func[2] == function:
                category = name
                break
        for name, parts in [] if category != "other (threads, builtins)" else OWN:
            if any(part in func[0] for part in parts):
                category = name
                break
        out[category] = out.get(category, 0.0) + row[2]
    return out


def measure(port: int, repeat: int, count: int, with_boto3: bool) -> dict[str, list[float]]:
    """CPU seconds per key of each method, ``repeat`` times, interleaved."""
    bucket = Bucket(client(port), "b", LAYOUT)
    fast = client(port)
    assert install_fast_pages(fast)
    slow = client(port)
    methods: list[tuple[str, Any]] = [
        ("list_window split (16)", lambda: _listing(bucket)),
        ("paginator + library reader", lambda: _paginator(fast)),
    ]
    if hasattr(Results, "pages"):  # not in a --baseline checkout from before it
        methods.insert(1, ("columns (key, size) split (16)", lambda: _listing(bucket, True)))
    if with_boto3:
        methods.append(("boto3 paginator", lambda: _paginator(slow)))
    for _, run in methods:
        run()  # warm
    out: dict[str, list[float]] = {name: [] for name, _ in methods}
    for _ in range(repeat):
        for name, run in methods:
            cpu = time.process_time()
            keys = run()
            out[name].append((time.process_time() - cpu) / count)
            assert keys == count, (name, keys)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--latency", type=float, default=30)
    parser.add_argument("--baseline", help="another checkout: measure its list_window too")
    parser.add_argument(
        "--columns", action="store_true", help="profile the pages of columns (key, size)"
    )
    parser.add_argument("--measure-only", type=int, help=argparse.SUPPRESS)  # a port
    args = parser.parse_args()
    if args.measure_only is not None:  # a child measuring the checkout on its PYTHONPATH
        print(json.dumps(measure(args.measure_only, 1, args.keys, False)), flush=True)
        return
    child = subprocess.Popen(
        [
            sys.executable,
            str(HERE / "s3_scale.py"),
            "--serve",
            "0",
            str(args.keys),
            str(args.latency),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        port = int(child.stdout.readline())
        seconds, keys, calls = profile(port, args.columns)
        assert keys == args.keys, keys
        per_key = measure(port, args.repeat, args.keys, True)
        baseline: dict[str, list[float]] = {}
        if args.baseline:
            env_path = f"{args.baseline}"
            for _ in range(args.repeat):  # alternating with this checkout, one run each
                for label, path in [("before", env_path), ("after", str(HERE.parent))]:
                    answer = subprocess.run(
                        [
                            sys.executable,
                            __file__,
                            "--keys",
                            str(args.keys),
                            "--measure-only",
                            str(port),
                        ],
                        capture_output=True,
                        text=True,
                        check=True,
                        cwd=HERE,
                        env={"PYTHONPATH": path, "PATH": "/usr/bin:/bin"},
                    )
                    for name, values in json.loads(answer.stdout).items():
                        baseline.setdefault(f"{label}: {name}", []).extend(values)
    finally:
        child.terminate()
        child.wait()
    profiled = "columns (key, size) split (16)" if args.columns else "list_window split (16)"
    window = statistics.median(per_key[profiled])
    total = sum(seconds.values())
    print(
        f"{keys:,} keys in one 1-day window, {calls} calls at {args.latency:g} ms, {profiled} "
        f"over HTTP: where its client CPU goes (cProfile in every thread, its shares "
        f"scaled to the {window * 1e6:.2f} µs per key measured without the profiler)"
    )
    print("\n| part | share | µs per key | per call (µs) |\n|---|--:|--:|--:|")
    for name, value in sorted(seconds.items(), key=lambda kv: -kv[1]):
        share = value / total
        print(
            f"| {name} | {share:.0%} | {share * window * 1e6:.2f} "
            f"| {share * window * keys / calls * 1e6:,.0f} |"
        )
    print(
        f"\nclient CPU per key (time.process_time), median of {args.repeat} interleaved runs "
        "in one process"
    )
    print("\n| method | µs per key (median) | runs (µs) |\n|---|--:|---|")
    for name, values in per_key.items():
        runs = ", ".join(f"{v * 1e6:.2f}" for v in values)
        print(f"| {name} | {statistics.median(values) * 1e6:.2f} | {runs} |")
    reader = statistics.median(per_key["paginator + library reader"])
    boto = statistics.median(per_key["boto3 paginator"])
    columns = statistics.median(per_key["columns (key, size) split (16)"])
    print(
        f"\ncolumns (key, size): {columns / reader:.2f}x the paginator with the library's reader "
        f"per key; the items: {statistics.median(per_key['list_window split (16)']) / reader:.2f}x"
    )
    print(
        f"\n{profiled}: {window / reader:.2f}x the paginator with the library's reader per key "
        f"(the library's own work: {(window - reader) / reader:.2f}x the read's); "
        f"boto3's paginator costs {boto / window:.1f}x list_window's client CPU"
    )
    if baseline:
        print(f"\nbefore ({args.baseline}) / after (this checkout), each run in a fresh process")
        print("\n| method | µs per key (median) | runs (µs) |\n|---|--:|---|")
        for name, values in baseline.items():
            runs = ", ".join(f"{v * 1e6:.2f}" for v in values)
            print(f"| {name} | {statistics.median(values) * 1e6:.2f} | {runs} |")


if __name__ == "__main__":
    main()
