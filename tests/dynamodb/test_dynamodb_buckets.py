"""Bucketed and sharded partitions against moto: the fan-out over every bucket and shard a
window touches, merged in order both ways, with limits, equals brute force."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import boto3
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from moto import mock_aws
from test_dynamodb_support import (
    PageRecorder,
    brute_force,
    create_table,
    leading_ulid,
    ulid_at,
)

from ulidkeys.dynamodb import Entity, QueryStats
from ulidkeys.ulid import ULID

TABLE = "hot"
HOUR = 3_600_000
T0 = 1_700_000_000_000 - 1_700_000_000_000 % HOUR  # on an hour boundary
HOT = Entity(pk="Org#{org}#{bucket}#{shard}", sk="Post#{id}", bucket="hour", shards=3)
_orgs = itertools.count()


@pytest.fixture(scope="module")
def aws() -> Iterator[dict[str, Any]]:
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_table(client, TABLE)
        table = boto3.resource("dynamodb", region_name="us-east-1").Table(TABLE)
        recorder = PageRecorder().attach(client).attach(table.meta.client)
        yield {"client": client, "table": table, "rec": recorder}


def store(client: Any, org: str, times: list[tuple[int, str, bool]]) -> list[dict[str, Any]]:
    items = {}
    with HOT.batch_writer(client, table_name=TABLE) as writer:
        for number, (ms, kind, child) in enumerate(times):
            ulid = ulid_at(ms, kind)
            item = {**HOT.keys(org=org, id=ulid), "n": number}
            writer.put(item)
            items[item["SK"]] = item
            if child:
                sk = item["SK"] + "#Like#" + str(ULID.new(ms))
                client.put_item(TableName=TABLE, Item={"PK": {"S": item["PK"]}, "SK": {"S": sk}})
                items[sk] = {"PK": item["PK"], "SK": sk}
    return list(items.values())


# times near hour boundaries (where buckets meet) and anywhere in a 5-hour span
moments = st.one_of(
    st.tuples(st.integers(0, 5), st.integers(-2, 2)).map(lambda p: T0 + p[0] * HOUR + p[1]),
    st.integers(T0, T0 + 5 * HOUR),
).filter(lambda ms: ms >= T0)


@settings(max_examples=25)
@given(
    times=st.lists(
        st.tuples(moments, st.sampled_from(["min", "max", "rand"]), st.booleans()), max_size=25
    ),
    bounds=st.tuples(moments, moments).map(sorted),
    newest_first=st.booleans(),
    limit=st.none() | st.integers(0, 10),
    via=st.sampled_from(["client", "table"]),
)
def test_fan_out_equals_brute_force(
    aws: dict[str, Any],
    times: list[tuple[int, str, bool]],
    bounds: list[int],
    newest_first: bool,
    limit: int | None,
    via: str,
) -> None:
    org = f"o{next(_orgs)}"
    items = store(aws["client"], org, times)
    start, end = bounds
    recorder = aws["rec"]
    recorder.clear()
    stats = QueryStats()
    got = list(
        HOT.query_window(
            aws[via],
            start,
            end,
            newest_first=newest_first,
            limit=limit,
            table_name=TABLE if via == "client" else None,
            stats=stats,
            max_workers=4,
            org=org,
        )
    )
    expected = brute_force(HOT, items, start, end, newest_first=newest_first, org=org)
    assert [item["SK"] for item in got] == expected[:limit]
    for page in recorder.pages:
        assert page.scanned == page.count
        for sk in page.sort_keys:
            assert start <= leading_ulid(sk, "Post#").timestamp_ms < end
    assert len(recorder.pages) == stats.calls  # every response seen was accounted for
    if got and limit is not None:
        rest = list(
            HOT.query_window(
                aws["client"],
                start,
                end,
                newest_first=newest_first,
                after=got[-1],
                table_name=TABLE,
                org=org,
            )
        )
        assert [item["SK"] for item in got + rest] == expected


def test_window_over_many_buckets_newest_first_with_limit(aws: dict[str, Any]) -> None:
    org = f"o{next(_orgs)}"
    times = [(T0 + hour * HOUR + 17 * n, "rand", False) for hour in range(30) for n in range(4)]
    items = store(aws["client"], org, times)
    stats = QueryStats()
    window = (T0, T0 + 30 * HOUR)
    got = list(
        HOT.query_window(aws["table"], *window, newest_first=True, limit=6, stats=stats, org=org)
    )
    expected = brute_force(HOT, items, *window, newest_first=True, org=org)
    assert [item["SK"] for item in got] == expected[:6]
    # with a limit, buckets are visited one at a time: only the newest two were needed
    assert {page.call.partition.split("#")[2] for page in stats.pages} == {
        HOT.bucketing.label(T0 + hour * HOUR)  # type: ignore[union-attr]
        for hour in (28, 29)
    }
    every = list(HOT.query_window(aws["client"], *window, table_name=TABLE, org=org))
    assert [item["SK"] for item in every] == sorted(i["SK"] for i in items)
    assert len(HOT.plan(*window, org=org).calls) == 90  # 30 buckets x 3 shards


def test_latest_walks_back_from_now(aws: dict[str, Any]) -> None:
    org = f"o{next(_orgs)}"
    now = ULID.new().timestamp_ms
    items = store(
        aws["client"],
        org,
        [(now - minutes * 60_000, "rand", True) for minutes in range(0, 300, 20)],
    )
    latest = HOT.latest(aws["client"], 4, since=timedelta(hours=6), table_name=TABLE, org=org)
    expected = brute_force(HOT, items, now - 6 * HOUR, now + 1, newest_first=True, org=org)
    assert [item["SK"] for item in latest] == expected[:4]


class SlowClient:
    """A client whose every Query takes 50 ms and returns nothing; it records overlap."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.active = self.peak = 0
        self.partitions: list[str] = []

    def query(self, **args: Any) -> dict[str, Any]:
        with self.lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
            self.partitions.append(args["ExpressionAttributeValues"][":pk"]["S"])
        time.sleep(0.05)
        with self.lock:
            self.active -= 1
        return {"Items": [], "Count": 0, "ScannedCount": 0}


def test_shards_and_buckets_are_queried_concurrently() -> None:
    client = SlowClient()
    window = (T0, T0 + 3 * HOUR)
    assert list(HOT.query_window(client, *window, table_name=TABLE, org="acme")) == []
    planned = [call.partition for call in HOT.plan(*window, org="acme").calls]
    assert sorted(client.partitions) == sorted(planned) and len(planned) == 9
    assert client.peak > 3  # the shards of a bucket and, with no limit, later buckets too
    limited = SlowClient()
    assert list(HOT.query_window(limited, *window, limit=5, table_name=TABLE, org="acme")) == []
    assert len(limited.partitions) == 9 and 2 <= limited.peak <= 3  # one bucket at a time
    buckets = [p.split("#")[2] for p in limited.partitions]
    assert buckets == sorted(buckets)  # in result order
