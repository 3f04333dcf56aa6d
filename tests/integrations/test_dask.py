"""``ulidkeys.dask`` on a real ``distributed.LocalCluster`` of worker processes against moto's
HTTP server: the partitions of ``window_bag`` (and ``query_bag``) together are exactly the
window, no object twice, with 1, 4 and 16 partitions and when a worker dies mid-partition; only
slices and settings travel."""

from __future__ import annotations

import os
import random
import uuid
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from distributed import Client, LocalCluster

from ulidkeys import ULID
from ulidkeys.clients import ClientSettings
from ulidkeys.dask import query_bag, window_bag
from ulidkeys.dynamodb import Entity, Table
from ulidkeys.errors import InvalidType, InvalidWindow
from ulidkeys.s3 import Bucket, KeyLayout

#: A Dask LocalCluster of worker processes: left out of `make test`, run by `make test-all` and CI.
pytestmark = pytest.mark.slow

T0 = 1_715_904_000_000  # 2024-05-17T00:00:00Z
HOUR = 3_600_000


@pytest.fixture(scope="module")
def endpoint(worker_endpoint: str) -> str:
    return worker_endpoint


@pytest.fixture(scope="module")
def cluster(endpoint: str) -> Iterator[Client]:
    with (
        LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
        ) as made,
        Client(made) as client,
    ):
        yield client


def client_of(endpoint: str, service: str) -> Any:
    return boto3.client(service, endpoint_url=endpoint, region_name="us-east-1")


@pytest.fixture(scope="module")
def bucket(endpoint: str) -> tuple[Bucket, list[tuple[str, int]]]:
    s3 = client_of(endpoint, "s3")
    name = f"bags-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    layout = KeyLayout("in/", shards=4, period="hour", suffix=".json")
    rng = random.Random(3)
    keys = []
    for index in range(600):
        ms = T0 + (rng.randrange(12) * HOUR if index % 5 == 0 else rng.randrange(12 * HOUR))
        key = layout.key_for(ULID.from_int((ms << 80) | rng.getrandbits(80)))
        s3.put_object(Bucket=name, Key=key, Body=b"{}")
        keys.append((key, ms))
    return Bucket(s3, name, layout), keys


@pytest.mark.parametrize("partitions", [1, 4, 16])
def test_the_partitions_are_exactly_the_window(
    cluster: Client, bucket: tuple[Bucket, list[tuple[str, int]]], partitions: int
) -> None:
    listed, keys = bucket
    start, end = T0 + 2 * HOUR, T0 + 9 * HOUR
    bag = window_bag(listed, start, end, partitions=partitions)
    assert bag.npartitions == partitions
    got = bag.map(lambda obj: obj["Key"]).compute()
    assert sorted(got) == sorted(key for key, ms in keys if start <= ms < end)
    assert len(got) == len(set(got))  # no object twice


def _die_once(objects: list[Any], marker: str) -> list[Any]:
    """Kill this worker process the first time any partition gets here (after its listing ran),
    as a lost machine would; every later run of a partition passes its objects through."""
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return objects
    os._exit(1)


def test_a_worker_killed_mid_partition_loses_and_repeats_nothing(
    cluster: Client, bucket: tuple[Bucket, list[tuple[str, int]]], tmp_path: Any
) -> None:
    listed, keys = bucket
    start, end = T0 + HOUR, T0 + 11 * HOUR
    marker = str(tmp_path / "died")
    bag = window_bag(listed, start, end, partitions=4).map_partitions(_die_once, marker)
    got = bag.map(lambda obj: obj["Key"]).compute()
    assert os.path.exists(marker)  # a worker did die with a listed partition in hand
    assert sorted(got) == sorted(key for key, ms in keys if start <= ms < end)
    assert len(got) == len(set(got))


def test_the_dynamodb_twin(cluster: Client, endpoint: str) -> None:
    dynamodb = client_of(endpoint, "dynamodb")
    entity = Entity(pk="Org#{org}", sk="Post#{id}")
    name = f"bags-{uuid.uuid4().hex[:8]}"
    dynamodb.create_table(**entity.table_definition(name))
    table = Table(dynamodb, entity, table_name=name)
    rng = random.Random(4)
    times = []
    with table.batch_writer() as writer:
        for _ in range(300):
            ms = T0 + rng.randrange(6 * HOUR)
            writer.put(entity.keys(org="acme", id=ULID.from_int((ms << 80) | rng.getrandbits(80))))
            times.append(ms)
    start, end = T0 + HOUR, T0 + 5 * HOUR
    items = query_bag(table, start, end, partitions=4, org="acme").compute()
    assert len(items) == sum(start <= ms < end for ms in times)
    assert len({item["SK"] for item in items}) == len(items)


def test_only_settings_travel_and_windows_must_be_fixed(
    bucket: tuple[Bucket, list[tuple[str, int]]], endpoint: str
) -> None:
    listed, _keys = bucket
    settings = ClientSettings.of(listed.client)
    assert settings == ClientSettings("us-east-1", endpoint)
    with pytest.raises(InvalidWindow, match="fixed"):
        window_bag(listed, "1h", "now")
    with pytest.raises(InvalidType):
        window_bag("not a bucket", T0, T0 + HOUR)  # type: ignore[arg-type]
