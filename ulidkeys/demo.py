"""``ulidkeys demo`` / ``make demo``: the whole product on an embedded moto, printed step by step.

Everything runs in-process against moto (``mock_aws``): no AWS account, no network. The S3 and
DynamoDB parts need the ``demo`` extra (boto3 + moto); without it the tour stops after the
pure parts and says how to install it.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import ulidkeys
from ulidkeys.cli import describe_ulid
from ulidkeys.timeinput import format_ms, to_ms
from ulidkeys.timewindow import TimeWindow
from ulidkeys.ulid import ULID

DAY_MS = 86_400_000
START = to_ms("2024-05-15T00:00:00Z")
HOUR = ("2024-05-16T09:00:00Z", "2024-05-16T10:00:00Z")


def _section(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 74 - len(title)))


def _ids_over(days: int, count: int, seed: int) -> list[ULID]:
    """``count`` ULIDs at random times over ``days`` days from START (random parts: CSPRNG)."""
    rng = random.Random(seed)  # reproducible times only; ids still get os.urandom bits
    return [ULID.new(at=START + rng.randrange(days * DAY_MS)) for _ in range(count)]


def _tour_ulids() -> None:
    _section("1. Fresh ULIDs: 48-bit ms time + 80 random bits, sortable as text")
    ids = ulidkeys.batch(3)
    for text in ids:
        print(" ", text)
    for name, value in describe_ulid(ids[0]).items():
        print(f"    {name:<13} {value}")
    print("  a monotonic run (+1 within a millisecond):", *ulidkeys.batch(3, monotonic=True))

    _section("2. A time window -> exact key bounds and prefix covers (pure, no AWS)")
    window = TimeWindow(*HOUR)
    lo, hi = window.bounds("uploads/")
    print(f"  window {window}\n  {lo} <= key < {hi}")
    cover = window.prefix_cover()
    print(f"  exact prefix cover: {len(cover)} prefixes ({cover[0]} ... {cover[-1]})")
    budget = window.prefix_cover(max_prefixes=3)
    print(f"  3-prefix cover: {list(budget)}, {budget.ratio:.0%} extra time")


@contextmanager
def _moto() -> Iterator[None]:
    from moto import mock_aws

    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        os.environ.setdefault(name, "demo")
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        yield


def _tour_s3(boto3: Any) -> None:
    from ulidkeys.s3 import KeyLayout
    from ulidkeys.s3.mocking import fill_bucket

    _section("3. S3: a key layout for uploads (shard + day folder + ULID + suffix)")
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket="demo-uploads")
    layout = KeyLayout(prefix="uploads/", shards=4, period="day", suffix=".jpg")
    print(f"  {layout}")
    key = layout.put_new(s3, "demo-uploads", b"hello")  # IfNoneMatch="*": never overwrites
    print(f"  put_new -> {key}")
    print(f"  parse   -> {layout.parse(key)}")
    count = fill_bucket("demo-uploads", (layout.key_for(u) for u in _ids_over(3, 30_000, 1)))
    print(f"  (filled the bucket with {count:,} keys over 3 days)")

    _section("4. S3: exactly the uploads of one hour, with the fewest ListObjectsV2 calls")
    plan = layout.plan_window(*HOUR)
    print("  " + plan.describe().replace("\n", "\n  "))
    listing = layout.list_window(s3, "demo-uploads", *HOUR)
    keys = [obj["Key"] for obj in listing]
    window = TimeWindow(*HOUR)
    assert all(layout.parse(k).ulid.timestamp_ms in window for k in keys)
    stats = listing.stats
    print(
        f"  list_window: {stats.returned} objects, {stats.calls} calls, "
        f"{stats.transferred} keys transferred"
    )
    naive_calls = -(-(count + 1) // 1000)
    print(f"  a full listing filtered on the client: {naive_calls} calls, {count + 1:,} keys")
    newest = list(layout.latest(s3, "demo-uploads", 3, before=HOUR[1]))
    print("  latest(3) before 10:00 ->", *(o["Key"].rsplit("/", 1)[-1] for o in newest))


def _tour_dynamodb(boto3: Any) -> None:
    from ulidkeys.dynamodb import Entity, QueryStats

    _section("5. DynamoDB: PK = Org#acme, SK = Post#<ULID>, declared once")
    post = Entity(pk="Org#{org}", sk="Post#{id}")
    dynamodb = boto3.resource("dynamodb", region_name="us-east-1")
    table = dynamodb.create_table(**post.table_definition("demo-app"))
    print("  keys(org='acme') ->", post.keys(org="acme"))
    with post.batch_writer(table) as writer:
        for n, u in enumerate(_ids_over(3, 5_000, 2)):
            writer.put({**post.keys(org="acme", id=u), "title": f"post {n}"})
    print("  (wrote 5,000 posts over 3 days with the retrying batch writer)")

    _section("6. DynamoDB: the posts of one hour - nothing read and thrown away")
    print("  " + str(post.plan(*HOUR, org="acme")).replace("\n", "\n  "))
    stats = QueryStats()
    items = list(post.query_window(table, *HOUR, org="acme", stats=stats))
    print(
        f"  query_window: {len(items)} posts, {stats.calls} call(s), "
        f"ScannedCount {stats.scanned} -> {stats.read_per_item:.1f} read per post returned"
    )
    for item in post.latest(table, 3, org="acme"):
        u = post.parse(item)["id"]
        print(f"  latest: {item['SK']}  {format_ms(u.timestamp_ms)}  {item['title']}")


def run_demo() -> int:
    _tour_ulids()
    try:
        import boto3
        import moto  # noqa: F401
    except ImportError:
        print(
            "\n(install the demo extra - pip install 'ulidkeys[demo]' - for the S3/DynamoDB part)"
        )
        return 0
    with _moto():
        _tour_s3(boto3)
        _tour_dynamodb(boto3)
    print()
    return 0
