"""Sync threads vs asyncio tasks: the same window plans on both executors, 30 ms per request.

The service is a local HTTP stand-in for ListObjectsV2 (aiohttp, in a subprocess so it does
not share this process's GIL): it holds a bucket's keys in memory, answers the real protocol
(prefix, start-after, continuation-token, max-keys) and sleeps ``--latency`` ms before each
answer, as a distant S3 would. moto's server is not used here: with 100 windows in flight
its request handling, not the client, would be what is measured. Clients are boto3 (threads)
and aiobotocore (tasks) with pools big enough for every request in flight. Prints two tables:

1. one window over 16 shard chains (several pages each), wall time, sync vs async;
2. one event loop serving 100 concurrent window requests vs 100 threads (one per request).

    .venv/bin/python benchmarks/async_windows.py [--latency MS] [--keys N] [--repeat R]
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from xml.sax.saxutils import escape

import boto3
from aiobotocore.config import AioConfig
from aiobotocore.session import get_session
from botocore.config import Config

from ulidkeys import base32
from ulidkeys.aio import AsyncBucket
from ulidkeys.s3 import Bucket, KeyLayout

BUCKET = "bench"
LAYOUT = KeyLayout("b/", shards=16)
T0 = 1_735_689_600_000  # 2025-01-01T00:00:00Z
OPTIONS = {"region_name": "us-east-1", "aws_access_key_id": "x", "aws_secret_access_key": "x"}


# --- the stand-in service (runs in a subprocess) ------------------------------------------


def keys_of_bucket(count: int) -> list[str]:
    """``count`` keys, one a millisecond from T0, spread over the 16 shards by the layout."""
    return sorted(
        (
            LAYOUT.key_for(base32.encode_time(T0 + n) + base32.encode_random(n))
            for n in range(count)
        ),
        key=str.encode,
    )


def page_xml(keys: list[str], prefix: str, truncated: bool, max_keys: int) -> str:
    contents = "".join(
        f"<Contents><Key>{escape(k)}</Key><LastModified>2025-01-01T00:00:00.000Z"
        '</LastModified><ETag>"0"</ETag><Size>0</Size><StorageClass>STANDARD'
        "</StorageClass></Contents>"
        for k in keys
    )
    token = (
        f"<NextContinuationToken>{escape(keys[-1])}</NextContinuationToken>" if truncated else ""
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
        f"<Name>{BUCKET}</Name><Prefix>{escape(prefix)}</Prefix><KeyCount>{len(keys)}"
        f"</KeyCount><MaxKeys>{max_keys}</MaxKeys>"
        f"<IsTruncated>{'true' if truncated else 'false'}</IsTruncated>{contents}{token}"
        "</ListBucketResult>"
    )


def serve(port: int, count: int, latency_ms: float) -> None:
    from aiohttp import web

    keys = keys_of_bucket(count)
    encoded = [k.encode() for k in keys]

    async def list_objects(request: web.Request) -> web.Response:
        await asyncio.sleep(latency_ms / 1000)
        query = request.query
        prefix = query.get("prefix", "")
        after = query.get("continuation-token") or query.get("start-after") or ""
        max_keys = int(query.get("max-keys", "1000"))
        at = bisect.bisect_right(encoded, after.encode())
        chosen = []
        while at < len(keys) and len(chosen) <= max_keys:
            if not keys[at].startswith(prefix):
                if keys[at] > prefix:
                    break
            else:
                chosen.append(keys[at])
            at += 1
        truncated = len(chosen) > max_keys
        body = page_xml(chosen[:max_keys], prefix, truncated, max_keys)
        return web.Response(text=body, content_type="application/xml")

    app = web.Application()
    app.router.add_get(f"/{BUCKET}", list_objects)
    web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None)


# --- the two clients ------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(port: int) -> None:
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the stand-in service did not start")


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    began = time.perf_counter()
    value = fn()
    return time.perf_counter() - began, value


def window(n: int) -> tuple[int, int]:
    """The n-th of the 100 small windows (each ~1/100 of the keys, one page a chain)."""
    return T0 + n * 30, T0 + (n + 1) * 30


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency", type=float, default=30.0, help="ms before each answer")
    parser.add_argument("--keys", type=int, default=4800, help="keys in the bucket")
    parser.add_argument("--page", type=int, default=50, help="MaxKeys of each request")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.keys, args.latency)
        return
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(port), "--keys", str(args.keys),
         "--latency", str(args.latency)]
    )  # fmt: skip
    try:
        wait_for(port)
        run(f"http://127.0.0.1:{port}", args)
    finally:
        server.terminate()
        server.wait(10)


def run(endpoint: str, args: Any) -> None:
    sync_client = boto3.client(
        "s3", endpoint_url=endpoint, config=Config(max_pool_connections=1000), **OPTIONS
    )
    sync_bucket = Bucket(sync_client, BUCKET, LAYOUT)
    plan = sync_bucket.plan_window(T0, T0 + args.keys, max_keys=args.page)
    expected = [k for k in keys_of_bucket(args.keys)]
    expected.sort(key=lambda k: LAYOUT.parse(k).id)
    print(
        f"stand-in ListObjectsV2, {args.latency:g} ms a request, {args.keys} keys over 16 "
        f"shards, MaxKeys {args.page}; median of {args.repeat} runs\n"
    )

    async def async_part() -> list[tuple[str, ...]]:
        session = get_session()
        config = AioConfig(max_pool_connections=1000)
        rows: list[tuple[str, ...]] = []
        async with session.create_client(
            "s3", endpoint_url=endpoint, config=config, **OPTIONS
        ) as client:
            abucket = AsyncBucket(client, BUCKET, LAYOUT)
            await one_window(abucket, rows)
            await many_windows(abucket, rows)
        return rows

    async def one_window(abucket: AsyncBucket, rows: list[tuple[str, ...]]) -> None:
        for workers in (16, 4):
            sync_times, async_times = [], []
            calls = 0
            for _ in range(args.repeat):
                listing = sync_bucket.run(plan, max_workers=workers)
                took, got = timed(lambda listing=listing: [o["Key"] for o in listing])
                assert got == expected, "sync listing is not exact"
                sync_times.append(took)
                began = time.perf_counter()
                alisting = abucket.run(plan, max_workers=workers)
                agot = [o["Key"] async for o in alisting]
                async_times.append(time.perf_counter() - began)
                assert agot == expected, "async listing is not exact"
                calls = alisting.stats.calls
            s, a = statistics.median(sync_times), statistics.median(async_times)
            rows.append(("16 chains", str(workers), str(calls), f"{s * 1000:.0f}",
                         f"{a * 1000:.0f}", f"{s / a:.2f}"))  # fmt: skip

    async def many_windows(abucket: AsyncBucket, rows: list[tuple[str, ...]]) -> None:
        async def one(n: int) -> float:
            began = time.perf_counter()
            listing = abucket.list_window(*window(n), max_workers=8)
            async for _ in listing:
                pass
            return time.perf_counter() - began

        def one_sync(n: int) -> float:
            began = time.perf_counter()
            for _ in sync_bucket.list_window(*window(n), max_workers=8):
                pass
            return time.perf_counter() - began

        sync_walls, async_walls, sync_lat, async_lat = [], [], [], []
        threads = 0
        for _ in range(args.repeat):
            with ThreadPoolExecutor(100) as pool:
                before = threading.active_count()
                began = time.perf_counter()
                futures = [pool.submit(one_sync, n) for n in range(100)]
                time.sleep(0.01)
                threads = max(threads, threading.active_count() - before)
                sync_lat += [f.result() for f in futures]
                sync_walls.append(time.perf_counter() - began)
            began = time.perf_counter()
            async_lat += await asyncio.gather(*(one(n) for n in range(100)))
            async_walls.append(time.perf_counter() - began)
        s, a = statistics.median(sync_walls), statistics.median(async_walls)
        rows.append(("100 windows", "8 each", "1600", f"{s * 1000:.0f}", f"{a * 1000:.0f}",
                     f"{s / a:.2f}"))  # fmt: skip
        p95 = [statistics.quantiles(lat, n=20)[-1] * 1000 for lat in (sync_lat, async_lat)]
        rows.append(("  p95 a window", "", "", f"{p95[0]:.0f}", f"{p95[1]:.0f}", ""))
        rows.append(("  threads", "", "", f"~{threads}", "1", ""))

    rows = asyncio.run(async_part())
    header = ("listing", "max_workers", "calls", "sync ms", "async ms", "sync/async")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(str(cell).rjust(w) for cell, w in zip(row, widths, strict=True)))


if __name__ == "__main__":
    main()
