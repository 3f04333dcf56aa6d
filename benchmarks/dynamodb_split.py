"""One partition's window as one Query chain vs time-split (``query_window(split=True)``),
with and without the fast page reader (``fast_pages``), through a real boto3 client whose
``Query`` requests are answered from one table held sorted in memory, after sleeping a fixed
latency (as a distant DynamoDB makes the client wait; the sleep releases the GIL like a socket
read). So botocore's whole stack runs (serializing, signing, parsing the JSON answer), as it
does against AWS. moto is not used: its in-process Query reads the whole table on every call
(~0.5 s of CPU at 20,000 items), so it would measure moto. Not a timed test.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/dynamodb_split.py [--items 100000]
        [--page 1000] [--latency 30] [--fast-pages both|on|off]
"""

from __future__ import annotations

import argparse
import bisect
import gc
import json
import threading
import time
from typing import Any

import boto3
from botocore.awsrequest import AWSResponse
from botocore.config import Config
from dynamodb_parse import _Raw
from dynamodb_parse import item as six_attributes

from ulidkeys.dynamodb import Entity, Table
from ulidkeys.ulid import ULID

T0 = 1_715_904_000_000  # 2024-05-17T00:00:00Z
DAY = 86_400_000
POST = Entity(pk="Org#{org}", sk="Post#{id}")


class QueryServer:
    """Answers a client's ``Query`` requests (``before-send``) from one table held sorted in
    memory: the ``#pk = :pk AND #sk BETWEEN :lo AND :hi`` conditions ulidkeys sends,
    ``Limit``, ``ExclusiveStartKey`` and ``LastEvaluatedKey`` as AWS gives them (also on a last
    page cut by ``Limit``), ascending or descending. Each item's JSON is written once up front;
    :attr:`cpu` is the CPU the answers cost (on the client's cores: a real server's is not)."""

    def __init__(self, items: list[tuple[str, str, dict[str, Any]]], latency_ms: float) -> None:
        rows = sorted(items, key=lambda row: row[:2])
        self.keys = [row[:2] for row in rows]
        self.json = [json.dumps(row[2]) for row in rows]
        self.latency = latency_ms / 1000
        self.cpu = 0.0
        self._lock = threading.Lock()

    def send(self, request: Any, **_: Any) -> AWSResponse:
        began = time.thread_time()
        body = self.answer(json.loads(request.body))
        used = time.thread_time() - began
        with self._lock:
            self.cpu += used
        time.sleep(self.latency)
        return AWSResponse(request.url, 200, {"x-amzn-requestid": "R"}, _Raw(body))

    def answer(self, args: dict[str, Any]) -> bytes:
        values = args["ExpressionAttributeValues"]
        pk, lo, hi = values[":pk"]["S"], values[":lo"]["S"], values[":hi"]["S"]
        start = bisect.bisect_left(self.keys, (pk, lo))
        stop = bisect.bisect_right(self.keys, (pk, hi))
        after = args.get("ExclusiveStartKey")
        forward = args.get("ScanIndexForward", True)
        if after is not None:
            key = (after["PK"]["S"], after["SK"]["S"])
            if forward:
                start = bisect.bisect_right(self.keys, key)
            else:
                stop = bisect.bisect_left(self.keys, key)
        chosen = list(range(start, stop)) if forward else list(range(stop - 1, start - 1, -1))
        limit = args.get("Limit")
        page = chosen if limit is None else chosen[:limit]
        last = ""
        if limit is not None and len(page) == limit:
            pk_last, sk_last = self.keys[page[-1]]
            key = {"PK": {"S": pk_last}, "SK": {"S": sk_last}}
            last = f', "LastEvaluatedKey": {json.dumps(key)}'
        items = ", ".join(self.json[i] for i in page)
        count = len(page)
        text = f'{{"Items": [{items}], "Count": {count}, "ScannedCount": {count}{last}}}'
        return text.encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--page", type=int, default=1000, help="Limit of each Query")
    parser.add_argument("--latency", type=float, default=30.0, help="ms added per Query")
    parser.add_argument("--fast-pages", choices=["both", "on", "off"], default="both")
    args = parser.parse_args()
    rows_in = []
    for i in range(args.items):
        keys = POST.keys(org="acme", id=ULID.new(T0 + i * DAY // args.items))
        attributes = six_attributes(i)  # six attributes, ~215 bytes of JSON
        attributes["PK"], attributes["SK"] = {"S": keys["PK"]}, {"S": keys["SK"]}
        rows_in.append((keys["PK"], keys["SK"], attributes))
    expected = sorted(row[1] for row in rows_in)
    server = QueryServer(rows_in, args.latency)
    # The stand-in's table lives on the client's heap, where a real server's does not: left
    # there, every full pass of Python's cyclic collector would walk its ~800,000 containers
    # (with the reader, one run each: one chain 4.26 s left there, 3.90 s frozen; the 16-worker
    # split 1.35 s and 1.06 s). Dropped and frozen, the collector sees what a client holds.
    del rows_in
    gc.collect()
    gc.freeze()
    print(
        f"{args.items:,} items (six attributes) of one partition over a day, Limit {args.page}, "
        f"{args.latency:g} ms a Query, boto3 client (botocore's whole stack)\n"
    )
    speeds = {"both": [False, True], "on": [True], "off": [False]}[args.fast_pages]
    rows = []
    for fast in speeds:
        client = boto3.client(
            "dynamodb",
            region_name="us-east-1",
            aws_access_key_id="x",
            aws_secret_access_key="x",
            config=Config(max_pool_connections=16),  # as for 16 workers against AWS
        )
        client.meta.events.register("before-send.dynamodb.Query", server.send)
        table = Table(client, POST, table_name="bench", fast_pages=fast)
        for label, split, workers in [
            ("one chain", False, 8),
            ("split, 4 workers", True, 4),
            ("split, 16 workers", True, 16),
        ]:
            server.cpu = 0.0
            began, cpu = time.perf_counter(), time.process_time()
            listing = table.query_window(
                T0, T0 + DAY, page_size=args.page, split=split, max_workers=workers, org="acme"
            )
            got = [item["SK"] for item in listing]
            wall, used = time.perf_counter() - began, time.process_time() - cpu
            assert got == expected, label
            stats = listing.stats
            name = f"{label}, fast_pages={fast}"
            rows.append((name, wall, stats.calls, stats.read, used, server.cpu))
    base = rows[0][1]
    print(
        "| method | wall s | x faster | calls | items read | CPU s (all) | of which the "
        "stand-in's |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for label, wall, calls, read, used, stand_in in rows:
        print(
            f"| {label} | {wall:.2f} | {base / wall:.1f} | {calls} | {read:,} | {used:.2f} "
            f"| {stand_in:.2f} |"
        )


if __name__ == "__main__":
    main()
