"""``ulidkeys.dask``'s partitions computed in this process (Dask's synchronous scheduler, moto
in-process): what a worker hands the bag is each object's dict whole, as botocore reads it, in
window order. ``window_bag`` lists items, not pages of columns (``Results.pages``): the columns
offered do not hold every member of a dict (``ChecksumAlgorithm``, ``ChecksumType``,
``Owner``...), so a bag of rows rebuilt from them would drop members without a word. The
cluster runs are tests/integrations/test_dask.py (slow)."""

from __future__ import annotations

import random
from typing import Any

import boto3
import pytest

pytest.importorskip("dask", reason="dask is not installed (pip install 'ulidkeys[dask]')")

from ulidkeys import ULID
from ulidkeys.dask import window_bag
from ulidkeys.s3 import Bucket, KeyLayout

T0 = 1_715_904_000_000  # 2024-05-17T00:00:00Z
HOUR = 3_600_000
LAYOUT = KeyLayout("in/", shards=2, period="hour", suffix=".json")


def test_a_partition_gives_each_objects_dict_whole_in_window_order(aws: None) -> None:
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket="bag-objects")
    rng = random.Random(11)
    for _ in range(90):
        key = LAYOUT.key_for(ULID.new(at=T0 + rng.randrange(6 * HOUR)))
        s3.put_object(Bucket="bag-objects", Key=key, Body=b"{}", ChecksumAlgorithm="SHA256")
    start, end = T0 + HOUR, T0 + 5 * HOUR
    got = window_bag(Bucket(s3, "bag-objects", LAYOUT), start, end, partitions=3).compute(
        scheduler="sync"
    )
    plain = boto3.client("s3", region_name="us-east-1")  # botocore's own parser: the reference
    listed = plain.get_paginator("list_objects_v2").paginate(Bucket="bag-objects")
    expected = [
        obj
        for page in listed
        for obj in page.get("Contents", [])
        if start <= LAYOUT.parse(obj["Key"]).ms < end
    ]

    def order(obj: dict[str, Any]) -> tuple[str, str]:  # the window's order: id, then key
        return str(LAYOUT.parse(obj["Key"]).id), obj["Key"]

    assert expected and got == sorted(expected, key=order)
    # a member the columns of Results.pages do not offer: rows of columns would lose it
    assert all(obj["ChecksumAlgorithm"] == ["SHA256"] for obj in got)
