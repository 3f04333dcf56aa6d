"""``Bucket.latest(n, suffix=...)``: the n newest objects of that exact suffix, however many
newer objects carry another one (listed past from the cursor, counted in ``stats.filtered``),
against brute force on moto."""

from __future__ import annotations

import random

import boto3
from hypothesis import given, settings
from hypothesis import strategies as st
from moto import mock_aws
from profiles import examples
from s3support import T0, ulid_at

from ulidkeys.s3 import Bucket, KeyLayout

LAYOUT = KeyLayout("up/", shards=2, suffix=".jpg")


@settings(max_examples=examples(15))
@given(
    kinds=st.lists(st.sampled_from([".jpg", ".png", ".tar.jpg"]), min_size=0, max_size=40),
    n=st.integers(0, 12),
    seed=st.integers(0, 2**32),
)
def test_latest_with_a_suffix_is_the_newest_of_that_suffix(
    kinds: list[str], n: int, seed: int
) -> None:
    rng = random.Random(seed)
    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="suffixes")
        keys = []
        for i, kind in enumerate(kinds):
            key = LAYOUT.key_for(ulid_at(T0 + i * 1000, rng.getrandbits(80)), ext=kind)
            keys.append(key)
            s3.put_object(Bucket="suffixes", Key=key, Body=b"")
        bucket = Bucket(s3, "suffixes", LAYOUT)
        found = bucket.latest(n, until=T0 + 10**9, suffix=".jpg")
        got = [obj["Key"] for obj in found]
        newest_first = [k for k in reversed(keys) if LAYOUT.split(k)[1] == ".jpg"]
        assert got == newest_first[:n]
        others = sum(1 for k in keys if LAYOUT.split(k)[1] != ".jpg")
        assert found.stats.filtered <= others
        if len(got) < n:  # fewer than n such objects: every other one was read past
            assert found.stats.filtered == others
        assert found.stats.returned == len(got)
        assert found.stats.outside >= 0
