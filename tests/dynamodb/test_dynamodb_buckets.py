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
from profiles import examples
from test_dynamodb_support import (
    PageRecorder,
    RecordingClient,
    brute_force,
    create_table,
    delete_items,
    leading_ulid,
    ulid_at,
)

from ulidkeys.dynamodb import Entity, Table
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
        yield {
            "client": client,
            "table": table,
            "rec": recorder,
            "forms": {
                "client": Table(client, HOT, table_name=TABLE),
                "table": Table(table, HOT),
                "resource_client": Table(table.meta.client, HOT, table_name=TABLE),
            },
        }


def store(
    aws: dict[str, Any], org: str, times: list[tuple[int, str, bool]]
) -> list[dict[str, Any]]:
    items = {}
    client = aws["client"]
    with aws["forms"]["client"].batch_writer() as writer:
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


@settings(max_examples=examples(25))
@given(
    times=st.lists(
        st.tuples(moments, st.sampled_from(["min", "max", "rand"]), st.booleans()), max_size=25
    ),
    bounds=st.tuples(moments, moments).map(sorted),
    newest_first=st.booleans(),
    limit=st.none() | st.integers(0, 10),
    via=st.sampled_from(["client", "table", "resource_client"]),
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
    items = store(aws, org, times)
    start, end = bounds
    recorder = aws["rec"]
    recorder.clear()
    results = aws["forms"][via].query_window(
        start, end, newest_first=newest_first, limit=limit, max_workers=4, org=org
    )
    got = list(results)
    expected = brute_force(HOT, items, start, end, newest_first=newest_first, org=org)
    assert [item["SK"] for item in got] == expected[:limit]
    for page in recorder.pages:
        assert page.scanned == page.count
        for sk in page.sort_keys:
            assert start <= leading_ulid(sk, "Post#").timestamp_ms < end
    assert len(recorder.pages) == results.stats.calls  # every response seen was accounted for
    assert results.stats.read == sum(page.scanned for page in recorder.pages)
    if got and limit is not None:
        for resume in ({"after": got[-1]}, {"cursor": results.cursor}):
            window = (start, end) if "after" in resume else (None, None)
            rest = list(
                aws["forms"]["client"].query_window(
                    *window, newest_first=newest_first, org=org, **resume
                )
            )
            assert [item["SK"] for item in got + rest] == expected
    delete_items(aws["client"], items, TABLE)


def test_window_over_many_buckets_newest_first_with_limit(aws: dict[str, Any]) -> None:
    org = f"o{next(_orgs)}"
    times = [(T0 + hour * HOUR + 17 * n, "rand", False) for hour in range(30) for n in range(4)]
    items = store(aws, org, times)
    window = (T0, T0 + 30 * HOUR)
    recording = RecordingClient(aws["table"].meta.client)
    hot = Table(recording, HOT, table_name=TABLE)
    got = list(hot.query_window(*window, newest_first=True, limit=6, org=org))
    expected = brute_force(HOT, items, *window, newest_first=True, org=org)
    assert [item["SK"] for item in got] == expected[:6]
    # with a limit, buckets are visited one at a time: only the newest two were needed
    assert {e.partition.split("#")[2] for e in recording.exchanges} == {
        HOT.period.label(T0 + hour * HOUR)  # type: ignore[union-attr]
        for hour in (28, 29)
    }
    every = list(aws["forms"]["client"].query_window(*window, org=org))
    assert [item["SK"] for item in every] == sorted(i["SK"] for i in items)
    assert len(HOT.plan_window(*window, org=org).calls) == 90  # 30 buckets x 3


def test_latest_walks_back_from_now(aws: dict[str, Any]) -> None:
    org = f"o{next(_orgs)}"
    now = ULID.new().timestamp_ms
    items = store(
        aws,
        org,
        [(now - minutes * 60_000, "rand", True) for minutes in range(0, 300, 20)],
    )
    latest = aws["forms"]["client"].latest(4, since=timedelta(hours=6), org=org)
    expected = brute_force(HOT, items, now - 6 * HOUR, now + 1, newest_first=True, org=org)
    assert [item["SK"] for item in latest] == expected[:4]
    older = aws["forms"]["table"].latest(20, cursor=latest.cursor, org=org)
    assert [item["SK"] for item in older] == expected[4:]


class SlowClient:
    """A client whose every Query takes 50 ms and returns nothing; it records overlap.

    ``meta`` is a real (never called) client's, so the library sees a plain client."""

    def __init__(self) -> None:
        self.meta = boto3.client("dynamodb", region_name="us-east-1").meta
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
    assert list(Table(client, HOT, table_name=TABLE).query_window(*window, org="acme")) == []
    planned = [call.partition for call in HOT.plan_window(*window, org="acme").calls]
    assert sorted(client.partitions) == sorted(planned) and len(planned) == 9
    assert client.peak > 3  # the shards of a bucket and, with no limit, later buckets too
    limited = SlowClient()
    hot = Table(limited, HOT, table_name=TABLE)
    assert list(hot.query_window(*window, limit=5, org="acme")) == []
    assert len(limited.partitions) == 9 and 2 <= limited.peak <= 3  # one bucket at a time
    buckets = [p.split("#")[2] for p in limited.partitions]
    assert buckets == sorted(buckets)  # in result order
    one = SlowClient()
    assert (
        list(Table(one, HOT, table_name=TABLE).query_window(*window, max_workers=1, org="a")) == []
    )
    assert len(one.partitions) == 9 and one.peak == 1
