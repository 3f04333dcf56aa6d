"""The DynamoDB layer through moto's HTTP server (``endpoint_url``), as user code runs it:
real HTTP, real (de)serialization, concurrent fan-out from threads."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from faults import moto_server
from test_dynamodb_support import create_table

from ulidkeys.dynamodb import Entity, Index, Table
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


@pytest.fixture(scope="module")
def aws() -> Iterator[dict[str, Any]]:
    with moto_server() as endpoint:
        client = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=endpoint)
        create_table(client, TABLE, {"GSI1": ("GSI1PK", "GSI1SK")})
        resource = boto3.resource("dynamodb", region_name="us-east-1", endpoint_url=endpoint)
        yield {"client": client, "table": resource.Table(TABLE)}


def test_write_and_query_over_http(aws: dict[str, Any]) -> None:
    client, table = aws["client"], aws["table"]
    posts_by_client = Table(client, POST, table_name=TABLE)
    posts = Table(table, POST)
    ids = [ULID.new(T0 + 10 * n) for n in range(40)]
    with posts_by_client.batch_writer() as writer:
        for n, ulid in enumerate(ids):
            writer.put({**POST.keys(org="acme", author="bob", id=ulid), "n": n})
    comments = Table(client, COMMENT, table_name=TABLE)
    with comments.batch_writer() as writer:  # children, skipped below
        for n, ulid in enumerate(ids):
            writer.put({**COMMENT.keys(org="acme", post=ulid, id=ULID.new(T0 + n)), "n": -n})
    window = (T0 + 100, T0 + 300)  # posts 10..29
    by_client = list(posts_by_client.query_window(*window, page_size=3, org="acme"))
    by_table = list(posts.query_window(*window, newest_first=True, org="acme"))
    by_index = list(posts.query_window(*window, index="GSI1", limit=5, author="bob"))
    assert [int(i["n"]) for i in by_client] == list(range(10, 30))
    assert [int(i["n"]) for i in by_table] == list(range(29, 9, -1))
    assert [int(i["n"]) for i in by_index] == list(range(10, 15))
    assert by_client[0] == table.get_item(Key=POST.key(org="acme", id=ids[10]))["Item"]
    assert [int(i["n"]) for i in posts_by_client.latest(2, org="acme")] == [39, 38]
    found = list(Table(table, COMMENT).query_window(T0, T0 + 40, org="acme", post=ids[7]))
    assert [int(i["n"]) for i in found] == [-7]
    assert COMMENT.parse(found[0])["post"] == str(ids[7])

    with pytest.raises(ItemAlreadyExists):
        posts.put_new({**POST.keys(org="acme", author="eve", id=ids[0]), "n": -1})
    assert table.get_item(Key=POST.key(org="acme", id=ids[0]))["Item"]["n"] == 0


def test_sharded_buckets_fan_out_concurrently_over_http(aws: dict[str, Any]) -> None:
    hot = Table(aws["client"], HOT, table_name=TABLE)
    ids = sorted(ULID.new(T0 + n * 599_999) for n in range(60))  # 10 hours, 6 per hour
    with hot.batch_writer() as writer:
        for ulid in ids:
            writer.put({**HOT.keys(org="acme", id=ulid)})
    results = hot.query_window(T0, T0 + 10 * HOUR, newest_first=True, org="acme")
    got = list(results)
    assert [ULID.parse(item["SK"][5:]) for item in got] == ids[::-1]
    stats = results.stats
    assert stats.calls == 40 and stats.read == stats.returned == 60  # 10 buckets x 4 shards
    limited = hot.query_window(T0, T0 + 10 * HOUR, limit=7, org="acme")
    assert [ULID.parse(item["SK"][5:]) for item in limited] == ids[:7]
    rest = hot.query_window(cursor=limited.cursor, org="acme")
    assert [ULID.parse(item["SK"][5:]) for item in rest] == ids[7:]
