"""ulidkeys.cli.baselines on S3: the full listing and the Prefix + Delimiter trick count what they
cost, and the trick loses keys that list_window returns."""

from __future__ import annotations

import random
from collections.abc import Iterator

import boto3
import pytest
from moto import mock_aws
from s3support import fill_bucket

from ulidkeys import TimeWindow, base32
from ulidkeys.cli.baselines import full_listing, prefix_delimiter
from ulidkeys.planning.listings import plan_listing
from ulidkeys.s3 import Bucket, KeyLayout

T0 = 1_715_936_400_000  # 2024-05-17T09:00:00Z
LAYOUT = KeyLayout("up/", suffix=".jpg")


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        yield


def _ids(count: int, span_ms: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [
        base32.encode_time(T0 + rng.randrange(span_ms)) + base32.encode_random(rng.getrandbits(80))
        for _ in range(count)
    ]


def test_s3_baselines_count_calls_and_keys_and_the_delimiter_trick_loses_keys(aws: None) -> None:
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket="baseline")
    keys = sorted(LAYOUT.key_for(i) for i in _ids(2_300, 6 * 3_600_000, 1))
    fill_bucket("baseline", keys)
    s3.put_object(Bucket="baseline", Key="other/x", Body=b"")  # outside the prefix: never read
    everything = full_listing(s3, "baseline", "up/")
    assert everything.keys == keys and everything.read == len(keys) and everything.calls == 3

    window = TimeWindow.from_ms(T0 + 3_600_000 + 17, T0 + 2 * 3_600_000)
    inside = [k for k in keys if LAYOUT.parse(k).ms in window]
    ours = Bucket(s3, "baseline", LAYOUT).list_window(window.start_ms, window.end_ms)
    assert [o["Key"] for o in ours] == inside
    plan = plan_listing(LAYOUT, window.start_ms, window.end_ms)
    lossy = prefix_delimiter(s3, "baseline", plan.calls)
    found = [k for k in lossy.keys if LAYOUT.parse(k).ms in window]
    assert set(found) < set(inside)  # a strict subset: keys were folded away
    assert lossy.read > len(lossy.keys)  # the folded keys come back as CommonPrefixes
    assert lossy.calls == 1
