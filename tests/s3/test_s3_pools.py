"""The connection-pool warning: a run that would have more requests in flight than the client
keeps connections for says so once per client (each request past the pool pays a connection of
its own), and says nothing when the pool is big enough or fewer requests fly."""

from __future__ import annotations

import warnings
from types import SimpleNamespace
from typing import Any

import boto3
from botocore.config import Config
from s3support import FakeS3

from ulidkeys import ULID
from ulidkeys.dynamodb.clients import Target
from ulidkeys.dynamodb.table import QuerySource
from ulidkeys.engine.pools import DEFAULT_POOL, pool_size
from ulidkeys.errors import SmallConnectionPool
from ulidkeys.s3 import Bucket, KeyLayout

T0 = 1_715_904_000_000
HOUR = 3_600_000


class PooledFake(FakeS3):
    """FakeS3 with a botocore client's ``meta.config`` (its pool size is all that is read)."""

    def __init__(self, keys: list[str], config: Config) -> None:
        super().__init__(keys, page=100)
        self.meta = SimpleNamespace(config=config)


def keys_for(layout: KeyLayout, count: int) -> list[str]:
    return [
        layout.key_for(ULID.from_int(((T0 + i * HOUR // count) << 80) | i)) for i in range(count)
    ]


def listed(bucket: Bucket, **options: Any) -> tuple[int, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plan = bucket.plan_window(T0, T0 + HOUR, max_keys=100)
        count = sum(1 for _ in bucket.run(plan, **options))
    return count, [w for w in caught if issubclass(w.category, SmallConnectionPool)]


def test_pool_size_of_clients() -> None:
    default = boto3.client("s3", region_name="us-east-1")
    bigger = boto3.client("s3", region_name="us-east-1", config=Config(max_pool_connections=32))
    assert pool_size(default) == DEFAULT_POOL == 10
    assert pool_size(bigger) == 32
    assert pool_size(object()) is None and pool_size(None) is None


def test_more_workers_than_connections_warns_once_per_client() -> None:
    layout = KeyLayout("u/")
    keys = keys_for(layout, 4_000)  # 40 pages of 100: cut into 16 slices
    bucket = Bucket(PooledFake(keys, Config()), "b", layout)
    count, first = listed(bucket, max_workers=16)
    assert count == len(keys)
    assert len(first) == 1
    message = str(first[0].message)
    assert "keeps 10 connections" in message and "max_pool_connections=" in message
    _count, again = listed(bucket, max_workers=16)
    assert again == []  # once per client
    other = Bucket(PooledFake(keys, Config()), "b", layout)
    assert len(listed(other, max_workers=16)[1]) == 1


def test_no_warning_when_the_pool_is_big_enough_or_few_requests_fly() -> None:
    layout = KeyLayout("u/")
    keys = keys_for(layout, 4_000)
    roomy = Bucket(PooledFake(keys, Config(max_pool_connections=16)), "b", layout)
    assert listed(roomy, max_workers=16) == (len(keys), [])
    default = Bucket(PooledFake(keys, Config()), "b", layout)
    assert listed(default, max_workers=8) == (len(keys), [])
    small = Bucket(PooledFake(keys_for(layout, 150), Config()), "b", layout)
    assert listed(small, max_workers=16) == (150, [])  # two pages: never cut, one request


def test_unsplit_shard_chains_count_too() -> None:
    layout = KeyLayout("u/", shards=16)
    keys = keys_for(layout, 400)
    bucket = Bucket(PooledFake(keys, Config()), "b", layout)
    count, caught = listed(bucket, max_workers=16, split=False)  # 16 chains at once
    assert count == len(keys) and len(caught) == 1


def test_dynamodb_sources_name_their_client() -> None:
    client = boto3.client("dynamodb", region_name="us-east-1")
    assert QuerySource(Target(client, "t", plain=False)).client is client
