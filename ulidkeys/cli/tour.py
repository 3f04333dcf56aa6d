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

from ulidkeys.cli.baselines import filter_expression
from ulidkeys.dynamodb import Entity, Table
from ulidkeys.planning.prefixcover import human_span
from ulidkeys.planning.timewindow import TimeWindow
from ulidkeys.s3 import Bucket, KeyLayout
from ulidkeys.timeinput import format_ms, to_ms
from ulidkeys.ulid import ULID
from ulidkeys.ulid.generation import batch

DAY_MS = 86_400_000
START = to_ms("2024-05-15T00:00:00Z")
HOUR = ("2024-05-16T09:00:00Z", "2024-05-16T10:00:00Z")
_BUDGETS = (1, 4, 16, 32)  # prefix budgets shown next to the exact cover


def _section(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 74 - len(title)))


def _ids_over(days: int, count: int, seed: int) -> list[ULID]:
    """``count`` ULIDs at random times over ``days`` days from START (random parts: CSPRNG)."""
    rng = random.Random(seed)  # reproducible times only; ids still get os.urandom bits
    return [ULID.new(at=START + rng.randrange(days * DAY_MS)) for _ in range(count)]


def _tour_ulids() -> None:
    _section("1. Fresh ULIDs: 48-bit ms time + 80 random bits, sortable as text")
    ids = batch(3)
    for text in ids:
        print(" ", text)
    for name, value in ULID.parse(ids[0]).as_dict().items():
        print(f"    {name:<13} {value}")
    print("  a monotonic run (+1 within a millisecond):", *batch(3, monotonic=True))

    _section("2. A time window -> exact key bounds and prefix covers (pure, no AWS)")
    window = TimeWindow(*HOUR)
    lo, hi = window.bounds("uploads/")
    print(f"  window {window}\n  {lo} <= key < {hi}")
    cover = window.prefix_cover()
    print(f"  exact prefix cover: {len(cover)} prefixes ({cover[0]} ... {cover[-1]})")
    print("  budgeted covers, prefix_cover(max_prefixes=k): fewer prefixes list more time")
    print(f"    {'k':>4}  {'used':>4}  {'prefixes':<36}  extra time listed")
    for k in (*_BUDGETS, len(cover)):
        budget = window.prefix_cover(max_prefixes=k)
        shown = " ".join(budget[:3]) + (" ..." if len(budget) > 3 else "")
        extra = f"+{human_span(budget.extra_ms)} ({budget.ratio:.0%})" if budget.extra_ms else "0"
        print(f"    {k:>4}  {len(budget):>4}  {shown:<36}  {extra}")


@contextmanager
def _moto() -> Iterator[None]:
    from moto import mock_aws

    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        os.environ.setdefault(name, "demo")
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        yield


def _fill_bucket(bucket: str, keys: Iterator[str]) -> int:
    """Write empty objects straight into moto's in-process backend: ~1 ms a key faster than
    put_object through boto3, which signs, serializes and emulates HTTP for each."""
    from moto.s3.models import s3_backends

    backend = s3_backends["123456789012"]["global"]
    count = 0
    for key in keys:
        backend.put_object(bucket, key, b"", disable_notification=True)
        count += 1
    return count


def _tour_s3(boto3: Any) -> None:
    _section("3. S3: a key layout for uploads (shard + day folder + ULID + suffix)")
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket="demo-uploads")
    layout = KeyLayout(prefix="uploads/", shards=4, period="day", suffix=".jpg")
    bucket = Bucket(s3, "demo-uploads", layout)
    print(f"  {layout}")
    key = bucket.put_new(b"hello")  # IfNoneMatch="*": never overwrites
    print(f"  put_new -> {key}")
    print(f"  parse   -> {layout.parse(key)}")
    count = _fill_bucket("demo-uploads", (layout.key_for(u) for u in _ids_over(3, 30_000, 1)))
    print(f"  (filled the bucket with {count:,} keys over 3 days)")

    _section("4. S3: exactly the uploads of one hour, with the fewest ListObjectsV2 calls")
    plan = bucket.plan_window(*HOUR)
    print("  " + plan.explain().replace("\n", "\n  "))
    listing = bucket.list_window(*HOUR)
    keys = [obj["Key"] for obj in listing]
    window = TimeWindow(*HOUR)
    assert all(layout.parse(k).ms in window for k in keys)
    stats = listing.stats
    print(
        f"  list_window: {stats.returned} objects, {stats.calls} calls, "
        f"{stats.read} keys transferred"
    )
    # counted, not run: on moto each page sorts and serializes the bucket (~40 s for 31 pages)
    naive_calls = -(-(count + 1) // 1000)
    print(
        f"  a full listing filtered on the client: {naive_calls} calls, {count + 1:,} keys "
        f"transferred ({naive_calls / stats.calls:.0f}x the calls)"
    )
    newest = list(bucket.latest(3, until=HOUR[1]))
    print("  latest(3) before 10:00 ->", *(o["Key"].rsplit("/", 1)[-1] for o in newest))


def _tour_dynamodb(boto3: Any) -> None:
    _section("5. DynamoDB: PK = Org#acme, SK = Post#<ULID>, declared once")
    post = Entity(pk="Org#{org}", sk="Post#{id}")
    dynamodb = boto3.resource("dynamodb", region_name="us-east-1")
    table = Table(dynamodb.create_table(**post.table_definition("demo-app")), post)
    print("  keys(org='acme') ->", post.keys(org="acme"))
    with table.batch_writer() as writer:
        for n, u in enumerate(_ids_over(3, 5_000, 2)):
            # ts: only for the FilterExpression baseline below; the key already holds the time
            writer.put({**post.keys(org="acme", id=u), "title": f"post {n}", "ts": u.timestamp_ms})
    print("  (wrote 5,000 posts over 3 days with the retrying batch writer)")

    _section("6. DynamoDB: the posts of one hour - nothing read and thrown away")
    print("  " + table.plan_window(*HOUR, org="acme").explain().replace("\n", "\n  "))
    result = table.query_window(*HOUR, org="acme")
    items = list(result)
    stats = result.stats
    print(
        "  why that end: BETWEEN includes its end, so it is the largest sort key below "
        "Post#<first ULID of 10:00>"
    )
    print(
        f"  query_window: {len(items)} posts, {stats.calls} call(s), "
        f"ScannedCount {stats.read} -> {stats.read_per_item:.1f} read per post returned"
    )
    window = TimeWindow(*HOUR)
    baseline = filter_expression(
        boto3.client("dynamodb", region_name="us-east-1"),
        "demo-app",
        ("PK", "Org#acme"),
        "ts",
        window.start_ms,
        window.end_ms,
    )
    assert baseline.keys == [item["SK"] for item in items]
    print(
        f"  baseline, a ts attribute + FilterExpression: {len(baseline.keys)} posts, "
        f"{baseline.calls} call(s), ScannedCount {baseline.read:,} -> "
        f"{baseline.read / max(len(baseline.keys), 1):.1f} read (and billed) per post returned"
    )
    for item in table.latest(3, org="acme"):
        u = ULID.parse(post.parse(item)["id"])
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
