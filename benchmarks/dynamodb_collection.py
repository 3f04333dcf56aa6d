"""A collection of three kinds (posts, comments, likes of one org) against the same reads done
by hand, one Query per kind: ``latest(20)`` (calls, items read, round trips) and a 1-hour window
(wall time at a fixed latency a Query), through a real boto3 client whose ``Query`` requests are
answered from one table held sorted in memory after sleeping the latency (the stand-in of
``dynamodb_split.py``: botocore's whole stack runs; moto would measure moto). Both sort key
designs: a prefix per kind (``Post#{id}``) and the id first (``{id}#Post``). Not a timed test.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/dynamodb_collection.py [--items 30000]
        [--latency 30] [--page 1000]
"""

from __future__ import annotations

import argparse
import gc
import heapq
import re
import time
from typing import Any

import boto3
from botocore.config import Config
from dynamodb_parse import item as six_attributes
from dynamodb_split import QueryServer

from ulidkeys.dynamodb import Collection, Entity, Table
from ulidkeys.ulid import ULID

T0 = 1_715_904_000_000  # 2024-05-17T00:00:00Z
HOUR = 3_600_000
KINDS = ("Post", "Comment", "Like")
DESIGNS = {
    "a prefix per kind": [Entity(pk="Org#{org}", sk=f"{kind}#{{id}}", name=kind) for kind in KINDS],
    "the id first": [Entity(pk="Org#{org}", sk=f"{{id}}#{kind}", name=kind) for kind in KINDS],
}


Rows = list[tuple[str, str, int, int, float]]


class CountingServer(QueryServer):
    """The stand-in, counting the Query calls and the items they return (the library's own
    ``stats`` are not used: the hand-made queries are several listings)."""

    calls = 0
    items = 0

    def answer(self, args: dict[str, Any]) -> bytes:
        body = super().answer(args)
        count = int(re.search(rb'"Count": (\d+)', body)[1])  # type: ignore[index]
        with self._lock:  # answered on the client's threads, several at once
            self.calls += 1
            self.items += count
        return body


def client_of(server: CountingServer) -> Any:
    client = boto3.client(
        "dynamodb",
        region_name="us-east-1",
        aws_access_key_id="x",
        aws_secret_access_key="x",
        config=Config(max_pool_connections=16),
    )
    client.meta.events.register("before-send.dynamodb.Query", server.send)
    return client


def measure(server: CountingServer, run: Any) -> tuple[float, int, int, Any]:
    server.calls = server.items = 0
    began = time.perf_counter()
    got = run()
    return time.perf_counter() - began, server.calls, server.items, got


def bench(design: str, entities: list[Entity], args: argparse.Namespace) -> tuple[Rows, Rows]:
    """The latest(20) rows and the window rows of one sort key design."""
    latest_rows: Rows = []
    window_rows: Rows = []
    rows = []
    for i in range(args.items):
        kind = entities[i % 3]
        keys = kind.key(org="acme", id=ULID.new(T0 + i * HOUR // args.items))
        attributes = six_attributes(i)
        attributes["PK"], attributes["SK"] = {"S": keys["PK"]}, {"S": keys["SK"]}
        rows.append((keys["PK"], keys["SK"], attributes))
    expected = [sk for _pk, sk, _attributes in rows]
    server = CountingServer(rows, args.latency)
    del rows
    gc.collect()
    client = client_of(server)
    activity = Collection(*entities, name="activity")
    collection = Table(client, activity, table_name="bench")
    tables = [Table(client, kind, table_name="bench") for kind in entities]

    def by_hand_latest() -> list[str]:
        # 20 of each kind, one Query each, in sequence, merged by id
        runs = [
            [(t.entity.parse(item)["id"], item["SK"]) for item in t.latest(20, org="acme")]
            for t in tables
        ]
        return [sk for _id, sk in heapq.merge(*runs, reverse=True)][:20]

    wall, calls, read, got = measure(
        server, lambda: [g.item["SK"] for g in collection.latest(20, org="acme")]
    )
    newest = [sk for sk in reversed(_ordered(expected, activity))][:20]
    assert got == newest, design
    latest_rows.append((design, "collection.latest(20)", calls, read, wall))
    wall, calls, read, got = measure(server, by_hand_latest)
    assert got == newest, design
    latest_rows.append((design, "latest(20) of each kind, merged by hand", calls, read, wall))

    def by_hand_window() -> list[str]:
        parts = [
            [item["SK"] for item in t.query_window(T0, T0 + HOUR, page_size=args.page, org="acme")]
            for t in tables
        ]
        return _ordered([sk for part in parts for sk in part], activity)

    everything = _ordered(expected, activity)
    for label, split in (("collection.query_window", False), ("collection, split=True", True)):
        wall, calls, read, got = measure(
            server,
            lambda split=split: [
                g.item["SK"]
                for g in collection.query_window(
                    T0, T0 + HOUR, page_size=args.page, split=split, max_workers=16, org="acme"
                )
            ],
        )
        assert got == everything, (design, label)
        window_rows.append((design, label, calls, read, wall))
    wall, calls, read, got = measure(server, by_hand_window)
    assert got == everything, design
    window_rows.append((design, "one query per kind in sequence, merged", calls, read, wall))
    return latest_rows, window_rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=30_000, help="items of the hour, all kinds")
    parser.add_argument("--latency", type=float, default=30.0, help="ms added per Query")
    parser.add_argument("--page", type=int, default=1000, help="Limit of each Query")
    args = parser.parse_args()
    print(
        f"{args.items:,} items of one partition over an hour, three kinds in turn, "
        f"{args.latency:g} ms a Query, Limit {args.page} a page, boto3 client\n"
    )
    latest_rows: Rows = []
    window_rows: Rows = []
    for design, entities in DESIGNS.items():
        latest, window = bench(design, entities, args)
        latest_rows += latest
        window_rows += window
    print("latest(20) of the three kinds:\n")
    print("| design | method | Query calls | items read | wall s |")
    print("| --- | --- | ---: | ---: | ---: |")
    for design, label, calls, read, wall in latest_rows:
        print(f"| {design} | {label} | {calls} | {read:,} | {wall:.3f} |")
    print("\nThe whole hour, in id-time order:\n")
    print("| design | method | Query calls | items read | wall s | x faster |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for design, label, calls, read, wall in window_rows:
        base = next(r[4] for r in window_rows if r[0] == design and "in sequence" in r[1])
        print(f"| {design} | {label} | {calls} | {read:,} | {wall:.2f} | {base / wall:.1f} |")


def _ordered(keys: list[str], collection: Collection) -> list[str]:
    """Sort keys in a collection's result order: by id, then by sort key."""

    def position(key: str) -> tuple[str, str]:
        entity = collection.entity_of({"SK": key})
        return entity.parse({"PK": "Org#acme", "SK": key})["id"], key

    return sorted(keys, key=position)


if __name__ == "__main__":
    main()
