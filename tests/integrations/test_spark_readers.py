"""The Spark sources' readers run in this process, as an executor runs them, against moto:
``partitions()`` then ``read(partition)`` of every partition give exactly the window (no
object or item twice) for S3 objects, S3 lines and DynamoDB items both ways, and the stream
reader's offsets deliver every object once over micro-batches and a replay. The JVM and the
planner are exercised by tests/integrations/test_spark.py; here the executors' own code runs
where the suite can see it (coverage cannot follow Spark's Python worker processes)."""

from __future__ import annotations

import json
import random
import re
from decimal import Decimal
from typing import Any

import boto3
import pytest

pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'ulidkeys[spark]')")

from ulidkeys import ULID
from ulidkeys.dynamodb import Entity
from ulidkeys.planning.plans import Slice
from ulidkeys.s3 import Bucket, KeyLayout
from ulidkeys.s3.bucket import ListingSource
from ulidkeys.spark.dynamodb import DynamoDBSource
from ulidkeys.spark.s3 import S3Source, _Listing, _object_row

T0 = 1_715_904_000_000  # 2024-05-17T00:00:00Z
HOUR = 3_600_000
LAYOUT = KeyLayout("events/", shards=2, period="hour", suffix=".json")


def objects(count: int, seed: int) -> list[tuple[str, int]]:
    rng = random.Random(seed)
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket="window-events")
    made = []
    for _ in range(count):
        ms = T0 + rng.randrange(6 * HOUR)
        key = LAYOUT.key_for(ULID.new(at=ms))
        s3.put_object(Bucket="window-events", Key=key, Body=b'{"a": 1}\nsecond\n')
        made.append((key, ms))
    return made


OPTIONS = {"bucket": "window-events", "prefix": "events/", "shards": "2", "period": "hour",
           "suffix": ".json", "region": "us-east-1"}  # fmt: skip


def read_all(reader: Any, *partitions_args: Any) -> list[tuple[Any, ...]]:
    return [row for piece in reader.partitions(*partitions_args) for row in reader.read(piece)]


@pytest.mark.parametrize("partitions", [1, 4])
def test_batch_readers_read_exactly_the_window(aws: None, partitions: int) -> None:
    made = objects(80, seed=partitions)
    start, end = T0 + HOUR, T0 + 4 * HOUR
    options = {**OPTIONS, "since": str(start), "until": str(end), "partitions": str(partitions)}
    source = S3Source(options)
    rows = read_all(source.reader(source.schema()))
    keys = [row[0] for row in rows]
    assert sorted(keys) == sorted(k for k, ms in made if start <= ms < end)
    assert len(keys) == len(set(keys))
    lines = S3Source({**options, "contents": "lines"})
    line_rows = read_all(lines.reader(lines.schema()))
    assert len(line_rows) == 2 * len(keys)


def test_the_batch_readers_read_pages_of_columns_giving_the_items_rows(
    aws: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The batch readers (objects and lines) list each partition as pages of columns
    (``Results.pages``): every ``ListObjectsV2`` they send is read into the columns of their
    rows, none into the objects' dicts; and their rows are exactly the rows the item path makes
    of the same slice's objects (``_object_row`` of each dict; each object's lines, in the
    objects' order): the same values of the same types, in the same order, partition by
    partition."""
    made = objects(120, seed=7)
    start, end = T0 + HOUR, T0 + 5 * HOUR
    options = {**OPTIONS, "since": str(start), "until": str(end), "partitions": "3"}
    source = S3Source(options)
    reader = source.reader(source.schema())
    lines = S3Source({**options, "contents": "lines"})
    line_reader = lines.reader(lines.schema())
    sent: list[tuple[str, ...] | None] = []  # per call: the members read as columns, or None
    fetch = ListingSource.fetch

    def recording(self: ListingSource, call: Any, token: Any, limit: int | None) -> Any:
        sent.append(None if self.spec is None else self.spec.members)
        return fetch(self, call, token, limit)

    monkeypatch.setattr(ListingSource, "fetch", recording)
    total = 0
    for partition in reader.partitions():
        sent.clear()
        rows = list(reader.read(partition))
        assert sent and set(sent) == {("Size", "LastModified", "ETag")}  # columns, no dicts
        sent.clear()
        piece = Slice.from_json(partition.piece)
        items = [_object_row(LAYOUT, obj) for _key, obj in source.listing.objects(piece)]
        assert sent and set(sent) == {None}  # the item path: the objects' dicts
        assert rows == items
        assert [tuple(map(type, row)) for row in rows] == [tuple(map(type, r)) for r in items]
        total += len(rows)
        sent.clear()
        line_rows = list(line_reader.read(partition))
        assert sent and set(sent) == {()}  # columns of the key alone (and the id time it gives)
        body = ['{"a": 1}', "second"]  # what objects() put in each
        assert line_rows == [
            (key, at, number, line)
            for key, _size, _modified, _etag, at in items
            for number, line in enumerate(body, 1)
        ]
    assert total == sum(start <= ms < end for _key, ms in made) > 0


def test_an_object_without_a_size_is_a_size_of_zero_in_the_columns_rows_too(
    aws: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A listed object without ``<Size>``: the item path's row has size 0 (``_object_row``'s
    default) and so does the row made from pages of columns, where the page reader gives None
    for the member the object lacks (Spark's ``size`` is not nullable)."""
    made = objects(30, seed=9)
    start, end = T0, T0 + 6 * HOUR

    def sizeless(response_dict: dict[str, Any], **_: Any) -> None:
        body = response_dict.get("body")
        if isinstance(body, bytes) and b"<ListBucketResult" in body:
            response_dict["body"] = re.sub(rb"<Size>[0-9]+</Size>", b"", body)

    def opened(self: Any) -> Bucket:
        client = self.settings.s3()
        # the reader's own event (before-parse.*.*), first: the reader reads the changed page
        client.meta.events.register_first("before-parse.*.*", sizeless)
        return Bucket(client, self.bucket, self.layout)

    monkeypatch.setattr(_Listing, "open", opened)
    options = {**OPTIONS, "since": str(start), "until": str(end), "partitions": "1"}
    source = S3Source(options)
    (partition,) = source.reader(source.schema()).partitions()
    rows = list(source.reader(source.schema()).read(partition))
    piece = Slice.from_json(partition.piece)
    items = [_object_row(LAYOUT, obj) for _key, obj in source.listing.objects(piece)]
    assert rows == items and len(rows) == len(made)
    assert {row[1] for row in rows} == {0}


def test_the_stream_reader_delivers_each_object_once(aws: None) -> None:
    made = objects(40, seed=7)
    source = S3Source({**OPTIONS, "since": str(T0), "settle": "0", "partitions": "3"})
    stream = source.streamReader(source.schema())
    start = stream.initialOffset()
    end = stream.latestOffset(start, None)
    first = [row[0] for row in read_all(stream, start, end)]
    again = [row[0] for row in read_all(stream, start, end)]  # a replayed batch
    assert sorted(first) == sorted(again) == sorted(k for k, _ in made)
    stream.commit(end)
    later = objects_more(10)
    following = stream.latestOffset(end, None)
    second = [row[0] for row in read_all(stream, end, following)]
    assert sorted(second) == sorted(later) and not set(second) & set(first)
    json.dumps(following)  # an offset is JSON, as Spark stores it


def objects_more(count: int) -> list[str]:
    s3 = boto3.client("s3", region_name="us-east-1")
    keys = []
    for _ in range(count):
        key = LAYOUT.key_for(ULID.new())
        s3.put_object(Bucket="window-events", Key=key, Body=b"{}")
        keys.append(key)
    return keys


@pytest.mark.parametrize("newest_first", ["false", "true"])
def test_the_dynamodb_reader_reads_exactly_the_window(aws: None, newest_first: str) -> None:
    entity = Entity(pk="Org#{org}", sk="Post#{id}")
    client = boto3.client("dynamodb", region_name="us-east-1")
    client.create_table(**entity.table_definition("posts"))
    table = boto3.resource("dynamodb", region_name="us-east-1").Table("posts")
    rng = random.Random(3)
    made = []
    for n in range(60):
        ms = T0 + rng.randrange(6 * HOUR)
        keys = entity.keys(org="acme", id=str(ULID.new(at=ms)))
        table.put_item(Item={**keys, "n": n, "score": Decimal("1.5"), "tags": ["a"]})
        made.append((keys["SK"], ms))
    start, end = T0 + HOUR, T0 + 5 * HOUR
    source = DynamoDBSource(
        {
            "table": "posts",
            "pk": "Org#{org}",
            "sk": "Post#{id}",
            "fields": '{"org": "acme"}',
            "since": str(start),
            "until": str(end),
            "newest_first": newest_first,
            "partitions": "3",
            "region": "us-east-1",
        }
    )
    schema = source.schema()
    assert {"PK", "SK", "n", "score", "tags", "id_time"} <= set(schema.fieldNames())
    rows = read_all(source.reader(schema))
    sk_at = schema.fieldNames().index("SK")
    got = [row[sk_at] for row in rows]
    assert sorted(got) == sorted(k for k, ms in made if start <= ms < end)
    assert len(got) == len(set(got))


def test_a_bucket_without_a_prefix_and_lines_without_a_byte_order_mark(aws: None) -> None:
    """``bucket`` alone (no ``prefix``) is the whole bucket (it was refused: "option("prefix")=''
    must be a non-empty string"); a UTF-8 byte-order mark is not part of line 1 (it was kept,
    and ``json.loads`` failed on the line)."""
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket="top-events")
    layout = KeyLayout("", period="day")
    keys = [layout.key_for(ULID.new(at=T0 + n)) for n in range(3)]
    for n, key in enumerate(keys):
        s3.put_object(
            Bucket="top-events", Key=key, Body=f'\ufeff{{"n": {n}}}\r\n\ufeffx\n'.encode()
        )
    options = {"bucket": "top-events", "period": "day", "since": str(T0), "until": str(T0 + 3),
               "region": "us-east-1"}  # fmt: skip
    source = S3Source(options)
    assert sorted(row[0] for row in read_all(source.reader(source.schema()))) == sorted(keys)
    lines = S3Source({**options, "contents": "lines"})
    rows = read_all(lines.reader(lines.schema()))
    assert sorted(json.loads(line)["n"] for _key, _at, number, line in rows if number == 1) == [
        0, 1, 2
    ]  # fmt: skip
    assert {line for _key, _at, number, line in rows if number == 2} == {"\ufeffx"}  # not first
