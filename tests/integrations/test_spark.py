"""``ulidkeys.spark`` on a real ``local[2]`` SparkSession (one for the module) against moto's
HTTP server: batch windows of S3 (flat and sharded day layouts) and DynamoDB (both directions)
equal brute force with no object twice for several partition counts, the window's bounds, an
empty window, errors before any task, and a stream that delivers every object uploaded between
micro-batches exactly once across a stopped, restarted and replayed query."""

from __future__ import annotations

import random
import time
import uuid
from pathlib import Path
from typing import Any

import boto3
import pytest

pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'ulidkeys[spark]')")

from pyspark.sql import SparkSession

from ulidkeys import ULID
from ulidkeys.dynamodb import Entity
from ulidkeys.errors import InvalidValue, InvalidWindow
from ulidkeys.s3 import KeyLayout
from ulidkeys.spark import read, window_urls
from ulidkeys.spark.options import OBJECT_SCHEMA
from ulidkeys.timeinput import now_ms

T0 = 1_715_904_000_000  # 2024-05-17T00:00:00Z
HOUR = 3_600_000
DAY = 24 * HOUR

pytestmark = pytest.mark.slow  # a SparkSession (the conftest's spark) for the module


@pytest.fixture(scope="module")
def endpoint(worker_endpoint: str) -> str:
    return worker_endpoint


def client_of(endpoint: str, service: str) -> Any:
    return boto3.client(service, endpoint_url=endpoint, region_name="us-east-1")


def ulid_at(ms: int, rng: random.Random) -> ULID:
    return ULID.from_int((ms << 80) | rng.getrandbits(80))


LAYOUTS = {
    "flat": {"prefix": "flat/", "period": "day"},
    "sharded": {"prefix": "sharded/", "period": "day", "shards": "4", "suffix": ".json"},
}


@pytest.fixture(scope="module")
def bucket(endpoint: str) -> tuple[str, dict[str, list[tuple[str, int]]]]:
    """A bucket with 300 objects over three days in each layout, some exactly at T0 + DAY."""
    s3 = client_of(endpoint, "s3")
    name = f"spark-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    rng = random.Random(7)
    keys: dict[str, list[tuple[str, int]]] = {}
    for label, settings in LAYOUTS.items():
        shards = int(settings.get("shards", "0")) or None
        layout = KeyLayout(settings["prefix"], shards=shards, period="day", suffix=".json")
        times = [T0 + rng.randrange(3 * DAY) for _ in range(290)]
        times += [T0 + DAY, T0 + DAY - 1, T0 + 2 * DAY, T0 + 2 * DAY - 1, T0 + DAY + 1] * 2
        keys[label] = []
        for ms in times:
            key = layout.key_for(ulid_at(ms, rng))
            s3.put_object(Bucket=name, Key=key, Body=f'{{"ms": {ms}}}\nsecond\n'.encode())
            keys[label].append((key, ms))
    return name, keys


def s3_options(endpoint: str, name: str, label: str, **more: str) -> dict[str, str]:
    return {
        "bucket": name,
        "endpoint_url": endpoint,
        "region": "us-east-1",
        **LAYOUTS[label],
        **more,
    }


@pytest.mark.parametrize("label", ["flat", "sharded"])
@pytest.mark.parametrize("partitions", [1, 5])
def test_an_s3_window_is_exactly_its_objects(
    spark: SparkSession, endpoint: str, bucket: Any, label: str, partitions: int
) -> None:
    name, keys = bucket
    start, end = T0 + DAY, T0 + 2 * DAY  # objects sit exactly on both bounds
    options = s3_options(
        endpoint, name, label, since=str(start), until=str(end), partitions=str(partitions)
    )
    frame = spark.read.format("ulidkeys.s3").options(**options).load()
    assert frame.rdd.getNumPartitions() == partitions  # one Spark partition per time slice
    rows = frame.collect()
    got = [row["key"] for row in rows]
    expected = sorted(key for key, ms in keys[label] if start <= ms < end)
    assert sorted(got) == expected
    assert len(got) == len(set(got))  # no object twice
    times = {key: ms for key, ms in keys[label]}
    for row in rows:
        assert round(row["id_time"].timestamp() * 1000) == times[row["key"]]
        assert row["size"] > 0 and row["etag"] and row["last_modified"] is not None


def test_an_empty_window_is_an_empty_frame_with_the_schema(
    spark: SparkSession, endpoint: str, bucket: Any
) -> None:
    name, _keys = bucket
    options = s3_options(endpoint, name, "sharded", since=str(T0 - DAY), until=str(T0))
    frame = spark.read.format("ulidkeys.s3").options(**options).load()
    assert frame.schema == OBJECT_SCHEMA
    assert frame.collect() == []
    same = s3_options(endpoint, name, "flat", since=str(T0), until=str(T0))  # zero width
    assert spark.read.format("ulidkeys.s3").options(**same).load().count() == 0


def test_urls_and_lines_of_a_window(spark: SparkSession, endpoint: str, bucket: Any) -> None:
    name, keys = bucket
    start, end = T0 + DAY, T0 + DAY + 6 * HOUR
    options = s3_options(endpoint, name, "flat", since=str(start), until=str(end))
    urls = window_urls(spark, **options)
    inside = sorted(((ms, key) for key, ms in keys["flat"] if start <= ms < end))
    assert urls == [f"s3a://{name}/{key}" for _ms, key in inside]
    lines = read(spark, "ulidkeys.s3", contents="lines", **options).collect()
    assert sorted((row["key"], row["line_number"], row["line"]) for row in lines) == sorted(
        [(key, 1, f'{{"ms": {ms}}}') for ms, key in inside]
        + [(key, 2, "second") for _ms, key in inside]
    )


@pytest.fixture(scope="module")
def table(endpoint: str) -> tuple[str, list[int]]:
    dynamodb = client_of(endpoint, "dynamodb")
    entity = Entity(pk="Org#{org}", sk="Post#{id}")
    name = f"spark-{uuid.uuid4().hex[:8]}"
    dynamodb.create_table(**entity.table_definition(name))
    rng = random.Random(5)
    times = [T0 + rng.randrange(6 * HOUR) for _ in range(150)] + [T0 + HOUR, T0 + 5 * HOUR] * 2
    for n, ms in enumerate(times):
        keys = entity.keys(org="acme", id=ulid_at(ms, rng))
        item = {name: {"S": value} for name, value in keys.items()}
        item |= {"n": {"N": str(n)}, "score": {"N": f"{n}.5"}, "tags": {"SS": ["a", "b"]}}
        dynamodb.put_item(TableName=name, Item=item)
    other = entity.keys(org="other", id=ulid_at(T0 + 2 * HOUR, rng))  # another partition
    dynamodb.put_item(TableName=name, Item={k: {"S": v} for k, v in other.items()})
    return name, times


@pytest.mark.parametrize("newest_first", ["false", "true"])
@pytest.mark.parametrize("partitions", [1, 4])
def test_a_dynamodb_window_is_exactly_its_items(
    spark: SparkSession, endpoint: str, table: Any, newest_first: str, partitions: int
) -> None:
    name, times = table
    start, end = T0 + HOUR, T0 + 5 * HOUR  # items sit exactly on both bounds
    frame = (
        spark.read.format("ulidkeys.dynamodb")
        .option("table", name)
        .option("pk", "Org#{org}")
        .option("sk", "Post#{id}")
        .option("fields", '{"org": "acme"}')
        .option("since", str(start))
        .option("until", str(end))
        .option("newest_first", newest_first)
        .option("partitions", str(partitions))
        .option("endpoint_url", endpoint)
        .option("region", "us-east-1")
        .load()
    )
    assert frame.rdd.getNumPartitions() == partitions
    kinds = {field.name: field.dataType.simpleString() for field in frame.schema.fields}
    assert kinds == {
        "PK": "string", "SK": "string", "n": "bigint", "score": "double", "tags": "string",
        "id_time": "timestamp",
    }  # fmt: skip
    rows = frame.collect()
    got = sorted(round(row["id_time"].timestamp() * 1000) for row in rows)
    assert got == sorted(ms for ms in times if start <= ms < end)
    assert len({row["SK"] for row in rows}) == len(rows)  # no item twice
    assert all(row["PK"] == "Org#acme" and row["tags"] == '["a", "b"]' for row in rows)
    assert all(row["score"] == row["n"] + 0.5 for row in rows)


@pytest.mark.parametrize("partitions", [1, 3])
def test_a_collection_reads_every_kind_with_a_kind_column(
    spark: SparkSession, endpoint: str, tmp_path: Path, partitions: int
) -> None:
    """option("entity") names a collection of ulidkeys.toml: every kind of the window, each
    row's kind in the kind column, an undeclared kind between them left out."""
    dynamodb = client_of(endpoint, "dynamodb")
    post, like = Entity(pk="Org#{org}", sk="Post#{id}"), Entity(pk="Org#{org}", sk="Like#{id}")
    name = f"spark-{uuid.uuid4().hex[:8]}"
    dynamodb.create_table(**post.table_definition(name))
    rng = random.Random(11)
    made = []
    for n in range(60):
        kind = (post, like, Entity(pk="Org#{org}", sk="Event#{id}"))[n % 3]
        keys = kind.keys(org="acme", id=ulid_at(T0 + rng.randrange(HOUR), rng))
        item = {key: {"S": value} for key, value in keys.items()} | {"n": {"N": str(n)}}
        dynamodb.put_item(TableName=name, Item=item)
        made.append((kind.name, keys["SK"]))
    path = tmp_path / "ulidkeys.toml"
    path.write_text(
        f'[entities.posts]\ntable = "{name}"\npk = "Org#{{org}}"\nsk = "Post#{{id}}"\n'
        f'[entities.likes]\ntable = "{name}"\npk = "Org#{{org}}"\nsk = "Like#{{id}}"\n'
        '[collections.activity]\nentities = ["posts", "likes"]\n'
    )
    frame = read(
        spark,
        "ulidkeys.dynamodb",
        entity="activity",
        config=str(path),
        fields='{"org": "acme"}',
        since=str(T0),
        until=str(T0 + HOUR),
        partitions=str(partitions),
        endpoint_url=endpoint,
        region="us-east-1",
    )
    assert [field.name for field in frame.schema.fields][:3] == ["PK", "SK", "kind"]
    rows = frame.collect()
    expected = {
        ("posts" if kind == "Post" else "likes", sk) for kind, sk in made if kind != "Event"
    }
    assert {(row["kind"], row["SK"]) for row in rows} == expected
    assert len(rows) == len(expected)


def test_a_given_schema_and_an_empty_dynamodb_window(
    spark: SparkSession, endpoint: str, table: Any
) -> None:
    name, times = table
    options = {
        "table": name, "pk": "Org#{org}", "sk": "Post#{id}", "fields": '{"org": "acme"}',
        "endpoint_url": endpoint, "region": "us-east-1",
    }  # fmt: skip
    empty = read(spark, "ulidkeys.dynamodb", since=str(T0 - DAY), until=str(T0), **options)
    assert empty.collect() == []
    assert empty.schema.fieldNames() == ["PK", "SK", "id_time"]
    given = (
        spark.read.format("ulidkeys.dynamodb")
        .schema("SK string, n long")
        .options(since=str(T0), until=str(T0 + 6 * HOUR), partitions="3", **options)
        .load()
    )
    assert sorted(row["n"] for row in given.collect()) == list(range(len(times)))


def test_mistakes_fail_on_the_driver_before_any_task(
    spark: SparkSession, endpoint: str, bucket: Any
) -> None:
    name, _keys = bucket
    relative = s3_options(endpoint, name, "flat", since="1h", until="now")
    with pytest.raises(InvalidWindow, match=r'fixed option\("since"\)'):
        read(spark, "ulidkeys.s3", **relative)  # the library's own error, in this process
    with pytest.raises(Exception, match=r'InvalidWindow: .*fixed option\("since"\)'):
        spark.read.format("ulidkeys.s3").options(**relative).load().collect()
    with pytest.raises(InvalidValue, match='option\\("partitions"\\)'):
        read(spark, "ulidkeys.s3", **s3_options(endpoint, name, "flat", partitions="0"))
    with pytest.raises(InvalidValue, match="unknown option"):
        read(spark, "ulidkeys.s3", bucket=name, sinse=str(T0))
    with pytest.raises(InvalidValue, match='option\\("table"\\) is required'):
        read(spark, "ulidkeys.dynamodb", since=str(T0), until=str(T0 + 1))


def test_the_stream_delivers_each_new_object_once_across_restarts(
    spark: SparkSession, endpoint: str, tmp_path: Path
) -> None:
    s3 = client_of(endpoint, "s3")
    name = f"stream-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=name)
    layout = KeyLayout("events/", shards=2, period="hour")
    rng = random.Random(11)
    started = now_ms()
    batches: list[tuple[int, list[str]]] = []

    def upload(count: int) -> set[str]:
        made = set()
        for _ in range(count):
            key = layout.key_for(ulid_at(now_ms() - rng.randrange(2000), rng))
            s3.put_object(Bucket=name, Key=key, Body=b"x")
            made.add(key)
        return made

    def collect(frame: Any, batch_id: int) -> None:
        batches.append((batch_id, [row["key"] for row in frame.collect()]))

    options = {
        "bucket": name, "prefix": "events/", "shards": "2", "period": "hour",
        "since": str(started - 60_000), "settle": "0", "partitions": "3",
        "endpoint_url": endpoint, "region": "us-east-1",
    }  # fmt: skip
    where = str(tmp_path / "checkpoint")

    def start(**trigger: Any) -> Any:
        frame = spark.readStream.format("ulidkeys.s3").options(**options).load()
        writer = frame.writeStream.foreachBatch(collect).option("checkpointLocation", where)
        return writer.trigger(**trigger).start()

    def delivered() -> list[str]:
        """What an idempotent sink holds: a batch Spark runs again (its offsets were logged but
        its commit was not when a query stopped) replaces itself, and must be the same."""
        sink: dict[int, list[str]] = {}
        for batch, keys in batches:
            assert sorted(sink.setdefault(batch, keys)) == sorted(keys), "a replay differs"
        return [key for keys in sink.values() for key in keys]

    def wait_for(keys: set[str]) -> None:
        deadline = time.monotonic() + 60
        while not keys <= set(delivered()):
            assert time.monotonic() < deadline, "the stream did not deliver the new objects"
            time.sleep(0.2)

    first = upload(20)
    query = start(processingTime="500 milliseconds")
    wait_for(first)
    second = upload(15)  # between micro-batches of the running query
    wait_for(second)
    query.stop()
    query.awaitTermination(60)
    while spark.streams.active:  # the stopped query's thread is gone before the next starts
        time.sleep(0.1)
    third = upload(10)  # while no query runs
    start(availableNow=True).awaitTermination(120)
    expected = first | second | third
    assert sorted(delivered()) == sorted(expected)  # every object, none twice

    # A batch whose offsets were logged but not committed is replayed with the same objects.
    last_batch, last_keys = batches[-1]
    runs = len(batches)
    commits = Path(where) / "commits"
    for file in (str(last_batch), f".{last_batch}.crc"):  # as if the query died before its commit
        (commits / file).unlink(missing_ok=True)
    fourth = upload(5)  # new objects must not join the replayed batch, but follow it
    start(availableNow=True).awaitTermination(120)
    replayed = [keys for batch, keys in batches[runs:] if batch == last_batch]
    assert len(replayed) == 1 and sorted(replayed[0]) == sorted(last_keys)
    assert sorted(delivered()) == sorted(expected | fourth)
