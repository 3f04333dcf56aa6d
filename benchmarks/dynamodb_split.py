"""One partition's window as one Query chain vs time-split (``query_window(split=True)``),
against an in-memory ``Query`` stand-in that sleeps a fixed latency per request (as a distant
DynamoDB makes the client wait; the sleep releases the GIL like a socket read). moto is not
used: its in-process Query reads the whole table on every call (~0.5 s of CPU at 20,000
items), so it would measure moto. Not a timed test.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/dynamodb_split.py [--items 20000]
        [--page 250] [--latency 30]
"""

from __future__ import annotations

import argparse
import bisect
import time
from typing import Any

import boto3

from ulidkeys.dynamodb import Entity, Table
from ulidkeys.ulid import ULID

T0 = 1_715_904_000_000  # 2024-05-17T00:00:00Z
DAY = 86_400_000
POST = Entity(pk="Org#{org}", sk="Post#{id}")


class QueryStandIn:
    """``query`` of a low-level DynamoDB client over one table held sorted in memory: the
    ``#pk = :pk AND #sk BETWEEN :lo AND :hi`` conditions ulidkeys sends, ``Limit``,
    ``ExclusiveStartKey`` and ``LastEvaluatedKey`` as AWS gives them (also on a last page cut
    by ``Limit``), ascending or descending."""

    def __init__(self, items: list[tuple[str, str]], latency_ms: float) -> None:
        self.rows = sorted(items)
        self.latency = latency_ms / 1000
        # a low-level client's meta: ulidkeys asks it how values are sent (typed maps)
        self.meta = boto3.client(
            "dynamodb", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x"
        ).meta

    def query(self, **args: Any) -> dict[str, Any]:
        time.sleep(self.latency)
        values = args["ExpressionAttributeValues"]
        pk, lo, hi = values[":pk"]["S"], values[":lo"]["S"], values[":hi"]["S"]
        start = bisect.bisect_left(self.rows, (pk, lo))
        stop = bisect.bisect_right(self.rows, (pk, hi))
        after = args.get("ExclusiveStartKey")
        forward = args.get("ScanIndexForward", True)
        if after is not None:
            key = (after["PK"]["S"], after["SK"]["S"])
            if forward:
                start = bisect.bisect_right(self.rows, key)
            else:
                stop = bisect.bisect_left(self.rows, key)
        chosen = self.rows[start:stop] if forward else self.rows[start:stop][::-1]
        limit = args.get("Limit")
        page = chosen if limit is None else chosen[:limit]
        answer: dict[str, Any] = {
            "Items": [{"PK": {"S": p}, "SK": {"S": s}} for p, s in page],
            "Count": len(page),
            "ScannedCount": len(page),
        }
        if limit is not None and len(page) == limit:
            answer["LastEvaluatedKey"] = {"PK": {"S": page[-1][0]}, "SK": {"S": page[-1][1]}}
        return answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--page", type=int, default=1000, help="Limit of each Query")
    parser.add_argument("--latency", type=float, default=30.0, help="ms added per Query")
    args = parser.parse_args()
    keys = [
        POST.keys(org="acme", id=ULID.new(T0 + i * DAY // args.items)) for i in range(args.items)
    ]
    client = QueryStandIn([(k["PK"], k["SK"]) for k in keys], args.latency)
    table = Table(client, POST, table_name="bench")  # type: ignore[arg-type]
    print(
        f"{args.items:,} items of one partition over a day, Limit {args.page}, "
        f"{args.latency:g} ms a Query\n"
    )
    rows = []
    for label, split, workers in [
        ("one chain", False, 8),
        ("split, 4 workers", True, 4),
        ("split, 16 workers", True, 16),
    ]:
        began, cpu = time.perf_counter(), time.process_time()
        listing = table.query_window(
            T0, T0 + DAY, page_size=args.page, split=split, max_workers=workers, org="acme"
        )
        got = [item["SK"] for item in listing]
        wall, used = time.perf_counter() - began, time.process_time() - cpu
        assert got == [k["SK"] for k in keys], label
        stats = listing.stats
        rows.append((label, wall, stats.calls, stats.read, used))
    base = rows[0][1]
    print("| method | wall s | x faster | calls | items read | CPU s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for label, wall, calls, read, used in rows:
        print(f"| {label} | {wall:.2f} | {base / wall:.1f} | {calls} | {read:,} | {used:.2f} |")


if __name__ == "__main__":
    main()
