"""``ulidkeys.spark`` under hostile data, on a real ``local[2]`` SparkSession against moto's
HTTP server (the conftest's ``spark``): no number cut short, no attribute dropped or replaced
unsaid, errors where the docs say they are (at ``load()``, naming the option).

1. a number a given ``decimal(p,s)`` column would round fails naming the attribute;
2. an attribute seen only past the sample fails naming it (``others=fail``, the default of an
   inferred schema), lands in ``_others`` (``keep``), or is left out (``drop``);
3. an item attribute named ``id_time`` is never replaced by the id's time;
4. a number a given ``int``/``float`` column cannot hold fails naming the attribute;
5. ``bucket`` without ``prefix`` reads the whole bucket;
6. ``contents=lines`` drops a UTF-8 byte-order mark, as ``spark.read.text`` does;
7. a day alone as ``since`` is refused at ``load()`` naming the option (as everywhere in the
   library), with the time to write;
8. at ``load()``: the window, every option, the endpoint's form, the bucket or table's
   existence (one call from the driver); a stream's own rules when it starts.
"""

from __future__ import annotations

import json
import random
import socket
import time
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any

import boto3
import pytest

pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'ulidkeys[spark]')")

from pyspark.sql import SparkSession

from ulidkeys import ULID
from ulidkeys.dynamodb import Entity
from ulidkeys.errors import InvalidValue, ServiceError
from ulidkeys.s3 import KeyLayout
from ulidkeys.spark import read, read_stream

pytestmark = pytest.mark.slow  # a SparkSession for the module

T0 = 1_715_904_000_000  # 2024-05-17T00:00:00Z
POSTS = Entity(pk="Org#{org}", sk="Post#{id}")
#: The items of each partition of the table (``org``), stored one millisecond apart from T0.
PARTITIONS: dict[str, list[dict[str, Any]]] = {
    "decimal": [{"price": {"N": "19.99"}}, {"price": {"N": "19.999"}}],
    "sample": [{"n": {"N": "1"}}] * 3 + [{"n": {"N": "4"}, "note": {"S": "late"}}],
    "idtime": [{"n": {"N": "1"}}, {"n": {"N": "2"}, "id_time": {"S": "mine"}}],
    "int": [{"n": {"N": "7"}, "f": {"N": "0.5"}}, {"n": {"N": "3000000000"}, "f": {"N": "1e39"}}],
}


def client_of(endpoint: str, service: str) -> Any:
    return boto3.client(service, endpoint_url=endpoint, region_name="us-east-1")


@pytest.fixture(scope="module")
def endpoint(worker_endpoint: str) -> str:
    return worker_endpoint


@pytest.fixture(scope="module")
def table(endpoint: str) -> str:
    dynamodb = client_of(endpoint, "dynamodb")
    name = f"hostile-{uuid.uuid4().hex[:8]}"
    dynamodb.create_table(**POSTS.table_definition(name))
    for org, items in PARTITIONS.items():
        for index, extra in enumerate(items):
            keys = POSTS.keys(org=org, id=ULID.new(at=T0 + index))
            item = {attr: {"S": value} for attr, value in keys.items()} | extra
            dynamodb.put_item(TableName=name, Item=item)
    return name


def items_of(spark: SparkSession, endpoint: str, table: str, org: str, **more: str) -> Any:
    """The reader of one partition's items, over the window that holds them all."""
    options = {
        "table": table, "pk": "Org#{org}", "sk": "Post#{id}", "fields": json.dumps({"org": org}),
        "since": str(T0), "until": str(T0 + 100), "partitions": "1", "endpoint_url": endpoint,
        "region": "us-east-1", **more,
    }  # fmt: skip
    return spark.read.format("ulidkeys.dynamodb").options(**options)


# --- 1 and 4: a given column that cannot hold a value fails naming the attribute ---------------


def test_1_a_given_decimal_column_never_rounds(
    spark: SparkSession, endpoint: str, table: str
) -> None:
    # was: price decimal(10,2) read 19.999 as Decimal('20.00'), no error
    narrow = items_of(spark, endpoint, table, "decimal").schema("SK string, price decimal(10,2)")
    with pytest.raises(Exception, match=r"attribute price=Decimal\('19.999'\) .*decimal\(10,2\)"):
        narrow.load().collect()
    wide = items_of(spark, endpoint, table, "decimal").schema("SK string, price decimal(10,3)")
    prices = sorted(row["price"] for row in wide.load().collect())
    assert prices == [Decimal("19.990"), Decimal("19.999")]  # every digit, as stored


def test_4_a_given_int_or_float_column_a_value_does_not_fit_is_named(
    spark: SparkSession, endpoint: str, table: str
) -> None:
    # was: pyarrow's "ArrowInvalid: Could not convert Decimal('3000000000')", naming no attribute
    for schema, shown in [
        ("SK string, n int", r"attribute n=Decimal\('3000000000'\) .* type int"),
        ("SK string, f float", r"attribute f=Decimal\('1E\+39'\) .* type float"),
    ]:
        frame = items_of(spark, endpoint, table, "int").schema(schema)
        with pytest.raises(Exception, match=shown):
            frame.load().collect()
    fits = items_of(spark, endpoint, table, "int").schema("SK string, n bigint, f double")
    rows = sorted((row["n"], row["f"]) for row in fits.load().collect())
    assert rows == [(7, 0.5), (3_000_000_000, 1e39)]


# --- 2: what the sample decides, and an attribute outside it ----------------------------------


def test_2_an_attribute_seen_only_past_the_sample_is_never_dropped_unsaid(
    spark: SparkSession, endpoint: str, table: str
) -> None:
    # was: with sample=3 and only the fourth item holding note, no note column and no error
    sampled = items_of(spark, endpoint, table, "sample", sample="3").load()
    assert "note" not in sampled.columns  # the first 3 items decide the columns
    with pytest.raises(Exception, match=r"has attribute\(s\) 'note' outside the schema"):
        sampled.collect()
    kept = items_of(spark, endpoint, table, "sample", sample="3", others="keep").load()
    assert kept.columns == ["PK", "SK", "n", "id_time", "_others"]
    rows = sorted(kept.collect(), key=lambda row: row["SK"])
    assert [row["_others"] for row in rows] == [None, None, None, '{"note": "late"}']
    assert [row["n"] for row in rows] == [1, 1, 1, 4]
    dropped = items_of(spark, endpoint, table, "sample", sample="3", others="drop").load()
    assert dropped.count() == 4 and "note" not in dropped.columns  # asked for
    whole = items_of(spark, endpoint, table, "sample").load()  # the default sample sees all
    assert "note" in whole.columns and whole.count() == 4


# --- 3: an attribute named id_time ------------------------------------------------------------


def test_3_an_attribute_named_id_time_is_never_replaced(
    spark: SparkSession, endpoint: str, table: str
) -> None:
    # was: the item's id_time 'mine' was replaced by the id's time, without a word
    with pytest.raises(Exception, match=r"attribute 'id_time'.*option\(\"id_time_column\""):
        items_of(spark, endpoint, table, "idtime").load()  # seen in the sample: at load()
    past = items_of(spark, endpoint, table, "idtime", sample="1").load()
    with pytest.raises(Exception, match=r"attribute 'id_time'.*would replace it"):
        past.collect()
    given = items_of(spark, endpoint, table, "idtime").schema("SK string, id_time timestamp")
    with pytest.raises(Exception, match=r"attribute 'id_time'.*would replace it"):
        given.load().collect()
    renamed = items_of(spark, endpoint, table, "idtime", id_time_column="made").load()
    rows = sorted(renamed.collect(), key=lambda row: row["SK"])
    assert [row["id_time"] for row in rows] == [None, "mine"]  # the attribute, as stored
    assert [round(row["made"].timestamp() * 1000) for row in rows] == [T0, T0 + 1]
    kept = items_of(spark, endpoint, table, "idtime", sample="1", others="keep").load()
    rows = sorted(kept.collect(), key=lambda row: row["SK"])
    assert [row["_others"] for row in rows] == [None, '{"id_time": "mine"}']


# --- 5 and 6: S3 ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bucket(endpoint: str) -> tuple[str, list[str]]:
    """A bucket whose objects sit at its top (no prefix), day folders, JSON lines written by a
    Windows tool (a byte-order mark first, CRLF line ends)."""
    s3 = client_of(endpoint, "s3")
    name = f"hostile-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=name)
    layout = KeyLayout("", period="day")
    rng = random.Random(3)
    keys = []
    for index in range(5):
        key = layout.key_for(ULID.from_int(((T0 + index * 1000) << 80) | rng.getrandbits(80)))
        body = f'{{"n": {index}}}\r\n{{"n": {index + 10}}}\r\n'.encode()
        s3.put_object(Bucket=name, Key=key, Body=b"\xef\xbb\xbf" + body)
        keys.append(key)
    return name, keys


def s3_options(endpoint: str, **more: str) -> dict[str, str]:
    return {"period": "day", "since": str(T0), "until": str(T0 + 60_000), "partitions": "2",
            "endpoint_url": endpoint, "region": "us-east-1", **more}  # fmt: skip


def test_5_a_bucket_without_a_prefix_is_read_whole(
    spark: SparkSession, endpoint: str, bucket: Any
) -> None:
    # was: option("prefix")='' must be a non-empty string, for every bucket without prefix
    name, keys = bucket
    frame = spark.read.format("ulidkeys.s3").options(**s3_options(endpoint, bucket=name)).load()
    assert sorted(row["key"] for row in frame.collect()) == sorted(keys)


def test_6_lines_drop_a_byte_order_mark(spark: SparkSession, endpoint: str, bucket: Any) -> None:
    # was: line 1 began with '\ufeff', and json.loads failed on it
    name, keys = bucket
    options = s3_options(endpoint, location=f"s3://{name}/", contents="lines")
    rows = spark.read.format("ulidkeys.s3").options(**options).load().collect()
    assert len(rows) == 2 * len(keys)
    assert all(not row["line"].startswith("\ufeff") for row in rows)
    numbers = sorted(json.loads(row["line"])["n"] for row in rows)
    assert numbers == [*range(5), *range(10, 15)]


# --- 7: a day alone ---------------------------------------------------------------------------


def test_7_a_day_alone_is_refused_at_load_naming_the_option(
    spark: SparkSession, endpoint: str, table: str
) -> None:
    # The library reads no day as a time (the API and the CLI alike: which timezone's
    # midnight?); the Spark page's example now writes the time (tests/integrations/
    # test_spark_docs.py runs it). Was: "since='2024-05-17' is a day", naming no option.
    day = items_of(spark, endpoint, table, "decimal", since="2024-05-17", until="2024-05-18")
    with pytest.raises(Exception, match=r'option\("since"\)=\'2024-05-17\' is a day, not a time'):
        day.load()
    midnight = items_of(spark, endpoint, table, "decimal", since="2024-05-17T00:00:00Z",
                        until="2024-05-18T00:00:00Z")  # fmt: skip
    assert midnight.load().count() == 2


# --- 8: errors at load(), naming the option ---------------------------------------------------


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_8_batch_mistakes_fail_at_load_naming_the_option(
    spark: SparkSession, endpoint: str, bucket: Any, table: str
) -> None:
    name, _keys = bucket
    cases = [  # (options, what the error says): each raised by load() itself, no action
        (s3_options(endpoint, bucket=name, since="1h", until="now"),
         r'InvalidWindow: .*needs a fixed option\("since"\)'),  # was: at the first action
        (s3_options(endpoint, bucket=name, since=str(T0 + 5), until=str(T0)),
         r'option\("since"\)=.* is after option\("until"\)'),  # was: at the first action
        (s3_options(endpoint, bucket=f"missing-{name}"),
         r'option\("bucket"\)=\'missing-.*\': no such bucket'),  # was: an executor's traceback
        (s3_options("not a url", bucket=name),
         r'option\("endpoint_url"\)=\'not a url\' is not a URL'),  # was: an executor's traceback
        (s3_options(f"http://127.0.0.1:{closed_port()}", bucket=name),
         r'option\("endpoint_url"\)=\'http://127.0.0.1:\d+\' could not be reached'),
        (s3_options(endpoint, bucket=name, shards="x"),
         r'option\("shards"\)=\'x\' must be a whole number'),
        (s3_options(endpoint, bucket=name, period="weekly"), r'option\("period"\)=\'weekly\''),
    ]  # fmt: skip
    for options, shown in cases:
        with pytest.raises(Exception, match=shown):  # a reader keeps its options: one each
            spark.read.format("ulidkeys.s3").options(**options).load()
    missing = items_of(spark, endpoint, f"missing-{table}", "decimal")
    with pytest.raises(Exception, match=r'option\("table"\)=\'missing-.*\': no such table'):
        missing.load()
    with pytest.raises(ServiceError, match=r'option\("bucket"\)=\'missing-.*\': no such bucket'):
        read(spark, "ulidkeys.s3", **s3_options(endpoint, bucket=f"missing-{name}"))


def test_8_stream_mistakes_fail_at_load_or_when_checked_in_process(
    spark: SparkSession, endpoint: str, bucket: Any, tmp_path: Path
) -> None:
    name, _keys = bucket
    stream = {"bucket": name, "period": "day", "since": "1h", "endpoint_url": endpoint,
              "region": "us-east-1"}  # fmt: skip
    for options, shown in [  # was: a StreamingQueryException after start(), for each
        ({**stream, "settle": "-1"}, r'option\("settle"\)=-1 is out of range'),
        ({k: v for k, v in stream.items() if k != "since"}, r'option\("since"\) is required'),
    ]:
        with pytest.raises(Exception, match=shown):
            spark.readStream.format("ulidkeys.s3").options(**options).load()
    # Spark does not tell a source at load() whether it is a stream: read_stream checks a
    # stream's own rules in this process; through spark.readStream they fail at start().
    with pytest.raises(InvalidValue, match=r'option\("until"\) ends a window: a stream has none'):
        read_stream(spark, **stream, until=str(T0))
    given = {**stream, "since": str(T0), "until": str(T0 + 1000)}
    frame = spark.readStream.format("ulidkeys.s3").options(**given).load()
    query = (
        frame.writeStream.format("noop")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .start()
    )
    deadline = time.monotonic() + 120
    while query.isActive and time.monotonic() < deadline:
        time.sleep(0.2)
    assert query.exception() is not None
    assert 'option("until") ends a window' in str(query.exception())
    assert read_stream(spark, **stream).isStreaming
