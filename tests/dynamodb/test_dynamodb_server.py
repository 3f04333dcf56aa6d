"""The DynamoDB layer through moto's HTTP server (``endpoint_url``), as user code runs it:
real HTTP, real (de)serialization, concurrent fan-out from threads."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto.server import ThreadedMotoServer
from test_dynamodb_support import create_table

from ulidkeys.dynamodb import Entity, Index, QueryStats
from ulidkeys.errors import ItemAlreadyExists
from ulidkeys.ulid import ULID

TABLE = "server"
HOUR = 3_600_000
T0 = 1_700_000_000_000 - 1_700_000_000_000 % HOUR
POST = Entity(
    pk="Org#{org}", sk="Post#{id}", gsi={"GSI1": Index(pk="User#{author}", sk="Post#{id}")}
)
COMMENT = Entity(pk="Org#{org}", sk="Post#{post}#Comment#{id}")
HOT = Entity(pk="Hot#{org}#{bucket}#{shard}", sk="Post#{id}", bucket="hour", shards=4)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def aws() -> Iterator[dict[str, Any]]:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=free_port(), verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        client = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=endpoint)
        create_table(client, TABLE, {"GSI1": ("GSI1PK", "GSI1SK")})
        resource = boto3.resource("dynamodb", region_name="us-east-1", endpoint_url=endpoint)
        yield {"client": client, "table": resource.Table(TABLE)}
    finally:
        server.stop()


def test_write_and_query_over_http(aws: dict[str, Any]) -> None:
    client, table = aws["client"], aws["table"]
    ids = [ULID.new(T0 + 10 * n) for n in range(40)]
    with POST.batch_writer(client, table_name=TABLE) as writer:
        for n, ulid in enumerate(ids):
            writer.put({**POST.keys(org="acme", author="bob", id=ulid), "n": n})
    with COMMENT.batch_writer(client, table_name=TABLE) as writer:  # children, skipped below
        for n, ulid in enumerate(ids):
            writer.put({**COMMENT.keys(org="acme", post=ulid, id=ULID.new(T0 + n)), "n": -n})
    window = (T0 + 100, T0 + 300)  # posts 10..29
    by_client = list(POST.query_window(client, *window, table_name=TABLE, page_size=3, org="acme"))
    by_table = list(POST.query_window(table, *window, newest_first=True, org="acme"))
    by_index = list(POST.query_window(table, *window, index="GSI1", limit=5, author="bob"))
    assert [int(i["n"]) for i in by_client] == list(range(10, 30))
    assert [int(i["n"]) for i in by_table] == list(range(29, 9, -1))
    assert [int(i["n"]) for i in by_index] == list(range(10, 15))
    assert by_client[0] == table.get_item(Key=POST.key(org="acme", id=ids[10]))["Item"]
    assert [int(i["n"]) for i in POST.latest(client, 2, table_name=TABLE, org="acme")] == [39, 38]
    comments = list(COMMENT.query_window(table, T0, T0 + 40, org="acme", post=ids[7]))
    assert [int(i["n"]) for i in comments] == [-7]
    assert COMMENT.parse(comments[0])["post"] == str(ids[7])

    with pytest.raises(ItemAlreadyExists):
        POST.put_new(table, {**POST.keys(org="acme", author="eve", id=ids[0]), "n": -1})
    assert table.get_item(Key=POST.key(org="acme", id=ids[0]))["Item"]["n"] == 0


def test_sharded_buckets_fan_out_concurrently_over_http(aws: dict[str, Any]) -> None:
    client = aws["client"]
    ids = sorted(ULID.new(T0 + n * 599_999) for n in range(60))  # 10 hours, 6 per hour
    with HOT.batch_writer(client, table_name=TABLE) as writer:
        for ulid in ids:
            writer.put({**HOT.keys(org="acme", id=ulid)})
    stats = QueryStats()
    got = list(
        HOT.query_window(
            client, T0, T0 + 10 * HOUR, newest_first=True, table_name=TABLE, stats=stats, org="acme"
        )
    )
    assert [ULID.parse(item["SK"][5:]) for item in got] == ids[::-1]
    assert stats.calls == 40 and stats.scanned == stats.returned == 60  # 10 buckets x 4 shards
    limited = list(
        HOT.query_window(client, T0, T0 + 10 * HOUR, limit=7, table_name=TABLE, org="acme")
    )
    assert [ULID.parse(item["SK"][5:]) for item in limited] == ids[:7]
