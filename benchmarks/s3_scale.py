"""Window listings at scale, through boto3 over real HTTP: list_window split / not split, boto3's
paginator with StartAfter and a full listing, against a local ListObjectsV2 stand-in that adds
a fixed latency per request (so signing and parsing are paid as on AWS). Not a timed test.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/s3_scale.py [--keys 100000] [--quick] [--lean]
        [--latency 30 10]
"""

from __future__ import annotations

import argparse
import base64
import bisect
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlparse
from xml.sax.saxutils import escape

import boto3
from botocore.config import Config

from ulidkeys import base32
from ulidkeys.s3 import Bucket, KeyLayout

T0 = 1_715_904_000_000  # 2024-05-17T00:00:00Z
HOUR, DAY = 3_600_000, 86_400_000
SMALL = KeyLayout("small/")
OLD = T0 - 730 * DAY - 180 * DAY  # the first key of SMALL's 180 days
MAX_CONNECTIONS = 64  # the stand-in serves at most this many requests at once (bounded)


def make_keys(layout: KeyLayout, count: int, span: int) -> list[str]:
    """``count`` keys spread evenly over ``[T0, T0 + span)``."""
    return [
        layout.key_for(base32.encode_time(T0 + i * span // count) + base32.encode_random(i * 7919))
        for i in range(count)
    ]


class StandIn(BaseHTTPRequestHandler):
    """ListObjectsV2 only: StartAfter, ContinuationToken, Prefix, MaxKeys <= 1000."""

    keys: ClassVar[list[str]] = []
    latency: ClassVar[float] = 0.0
    # S3 keeps connections alive (botocore's pool reuses them): HTTP/1.0, the handler's
    # default, would close each one and make every request pay a new TCP connection
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:  # quiet
        return None

    def do_GET(self) -> None:
        time.sleep(self.latency)
        query = {k: v[0] for k, v in parse_qs(urlparse(self.path).query).items()}
        prefix = query.get("prefix", "")
        max_keys = min(1000, int(query.get("max-keys", "1000")))
        after = query.get("start-after", "")
        if "continuation-token" in query:
            after = base64.urlsafe_b64decode(query["continuation-token"]).decode()
        keys = self.keys
        i = bisect.bisect_right(keys, max(after, prefix[:-1] if prefix else ""))
        page = []
        while i < len(keys) and len(page) < max_keys and keys[i] <= after:
            i += 1
        while i < len(keys) and len(page) < max_keys:
            if not keys[i].startswith(prefix):
                if keys[i] > prefix:
                    break
            else:
                page.append(keys[i])
            i += 1
        truncated = i < len(keys) and keys[i].startswith(prefix) and len(page) == max_keys
        body = [
            '<?xml version="1.0" encoding="UTF-8"?>',
            '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
            f"<Name>b</Name><Prefix>{escape(prefix)}</Prefix><KeyCount>{len(page)}</KeyCount>",
            f"<MaxKeys>{max_keys}</MaxKeys><IsTruncated>{str(truncated).lower()}</IsTruncated>",
        ]
        if truncated:
            token = base64.urlsafe_b64encode(page[-1].encode()).decode()
            body.append(f"<NextContinuationToken>{token}</NextContinuationToken>")
        for key in page:
            # as S3 writes them: LastModified to the second, an ETag per object, checksums
            ms = base32.decode(key[-26:-16])
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(ms // 1000))
            body.append(
                f"<Contents><Key>{escape(key)}</Key><LastModified>{stamp}</LastModified>"
                f"<ETag>&quot;{hash(key) % 2**128:032x}&quot;</ETag><ChecksumAlgorithm>CRC64NVME"
                "</ChecksumAlgorithm><ChecksumType>FULL_OBJECT</ChecksumType><Size>0</Size>"
                "<StorageClass>STANDARD</StorageClass></Contents>"
            )
        body.append("</ListBucketResult>")
        data = "".join(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class BoundedServer(ThreadingHTTPServer):
    request_queue_size = MAX_CONNECTIONS
    daemon_threads = True


def serve(shards: int | None, count: int, span: int, latency_ms: float) -> None:
    """The stand-in, in its own process (so its CPU is not the client's): prints the port."""
    layout = KeyLayout("up/", shards=shards)
    # and the small prefix: 4,108 keys over 180 days, the newest two years old
    small = [
        SMALL.key_for(base32.encode_time(OLD + i * 180 * DAY // 4108) + base32.encode_random(i))
        for i in range(4108)
    ]
    StandIn.keys = sorted(make_keys(layout, count, span) + small)
    StandIn.latency = latency_ms / 1000
    server = BoundedServer(("127.0.0.1", 0), StandIn)  # loopback only
    print(server.server_address[1], flush=True)
    server.serve_forever()


def client(port: int) -> Any:
    return boto3.client(
        "s3",
        endpoint_url=f"http://127.0.0.1:{port}",
        region_name="us-east-1",
        aws_access_key_id="bench",
        aws_secret_access_key="bench",
        config=Config(max_pool_connections=32, s3={"addressing_style": "path"}),
    )


def by_paginator(s3: Any, bucket: Bucket, lo: int, hi: int) -> tuple[list[dict[str, Any]], int]:
    """The objects of the window ``[lo, hi)`` through boto3's paginator as a user writes it -
    one chain per planned call (per shard), from its StartAfter, stopping at its end - and
    the calls it made."""
    found: list[dict[str, Any]] = []
    calls = 0
    for call in bucket.plan_window(lo, hi).calls:
        pages = s3.get_paginator("list_objects_v2").paginate(
            Bucket="b", Prefix=call.prefix, StartAfter=call.start_after or ""
        )
        for page in pages:
            calls += 1
            done = False
            for obj in page.get("Contents", []):
                if call.stop_at is not None and obj["Key"] >= call.stop_at:
                    done = True
                    break
                found.append(obj)
            if done:
                break
    return found, calls


def measure(label: str, run: Any) -> tuple[str, float, int, int, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    calls, keys = run()
    return label, time.perf_counter() - wall, calls, keys, time.process_time() - cpu


def scenario(
    shards: int | None,
    count: int,
    latency: float,
    windows: list[tuple[str, int]],
    latest: bool = False,
    lean: bool = False,
    split_only: bool = False,
) -> None:
    child = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(shards or 0), str(count), str(latency)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        port = int(child.stdout.readline())
        layout = KeyLayout("up/", shards=shards)
        bucket = Bucket(client(port), "b", layout)
        # boto3 as users run it (botocore's parser), and list_window on such a client
        s3 = client(port)
        slow = Bucket(s3, "b", layout, fast_pages=False)

        def full(prefix: str = "up/") -> tuple[int, int]:
            calls = found = 0
            for page in s3.get_paginator("list_objects_v2").paginate(Bucket="b", Prefix=prefix):
                calls += 1
                found += len(page.get("Contents", []))
            return calls, found

        rows = [] if lean else [("all keys", *measure("full listing (paginator)", full))]
        for name, span in windows:
            lo, hi = T0, T0 + span  # the keys fill the first day

            def listing(
                split: bool, workers: int, lo: int = lo, hi: int = hi, on: Bucket = bucket
            ) -> tuple[int, int]:
                result = on.list_window(lo, hi, split=split, max_workers=workers)
                return sum(1 for _ in result), result.stats.calls

            def paginator(lo: int = lo, hi: int = hi) -> tuple[int, int]:
                found, calls = by_paginator(s3, bucket, lo, hi)
                return calls, len(found)

            for label, run in [
                ("list_window split (16)", lambda: listing(True, 16)[::-1]),
                ("  same, botocore parser", lambda: listing(True, 16, on=slow)[::-1]),
                ("list_window no split", lambda: listing(False, 8)[::-1]),
                ("boto3 paginator", paginator),
            ]:
                if lean and "botocore parser" in label:
                    continue  # --lean: as slow as the paginator, which is measured anyway
                if split_only and not label.startswith("list_window split"):
                    continue  # --split-only: the one figure a scale target is about
                rows.append((name, *measure(label, run)))
        if latest:
            # latest(20) when the newest key is fresh, when it is two years old, and on the
            # issue's small prefix (newest two years old)
            small = Bucket(bucket.client, "b", SMALL)
            for name, on, until in [
                ("fresh", bucket, T0 + DAY),
                ("2 y old", bucket, T0 + DAY + 730 * DAY),
                ("small/, 2 y old", small, T0 + DAY),
            ]:

                def newest(on: Bucket = on, until: int = until) -> tuple[int, int]:
                    result = on.latest(20, until=until)
                    found = sum(1 for _ in result)
                    return result.stats.calls, found

                rows.append((name, *measure("latest(20)", newest)))
            rows.append(("small/", *measure("full listing (paginator)", lambda: full("small/"))))
        title = f"{'flat' if not shards else f'{shards}-shard'}, {count:,} keys over 1 day"
        print(f"\n{title}, {latency:g} ms per request")
        print("| window | method | wall s | calls | keys | CPU s |\n|---|---|--:|--:|--:|--:|")
        for window, label, wall, calls, keys, cpu in rows:
            print(f"| {window} | {label} | {wall:.2f} | {calls} | {keys} | {cpu:.2f} |")
        by = {(w, label): (wall, calls) for w, label, wall, calls, _k, _c in rows}
        for name, _span in [] if split_only else windows:
            split, seq = by[(name, "list_window split (16)")], by[(name, "list_window no split")]
            pag = by[(name, "boto3 paginator")]
            print(
                f"{name}: split is {pag[0] / split[0]:.1f}x faster than the paginator, "
                f"{seq[0] / split[0]:.1f}x than no split; calls {split[1] / max(1, seq[1]):.2f}x"
            )
        if latest:
            compared = [("fresh", "all keys"), ("2 y old", "all keys")]
            for name, prefix in [*compared, ("small/, 2 y old", "small/")]:
                calls, whole = by[(name, "latest(20)")][1], by[(prefix, "full listing (paginator)")]
                print(f"latest(20) {name}: {calls} calls; a full listing: {whole[1]} calls")
    finally:
        child.terminate()
        child.wait()


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        shards = int(sys.argv[2]) or None
        serve(shards, int(sys.argv[3]), DAY, float(sys.argv[4]))
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="the 1-day window only")
    parser.add_argument(
        "--lean",
        action="store_true",
        help="no full listing, no botocore-parser split, no latest (for 1,000,000 keys)",
    )
    parser.add_argument(
        "--split-only", action="store_true", help="only list_window split, flat layout (--lean)"
    )
    parser.add_argument("--latency", type=float, nargs="+", default=[30, 10], help="ms")
    args = parser.parse_args()
    if args.split_only:
        for latency in args.latency:
            scenario(None, args.keys, latency, windows=[("1 day", DAY)], lean=True, split_only=True)
        return
    windows = (
        [("1 day", DAY)] if args.quick else [("1 h", HOUR), ("1 day", DAY), ("7 days", 7 * DAY)]
    )
    for latency in args.latency:
        scenario(None, args.keys, latency, windows, latest=not args.lean, lean=args.lean)
        scenario(4, args.keys, latency, windows, lean=args.lean)


if __name__ == "__main__":
    main()
