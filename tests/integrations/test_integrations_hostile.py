"""The integrations against hostile data, through the real libraries (pydantic, PynamoDB on moto,
Polars' own S3 reader on moto's server, pyspark's own row checks): an id object of another width
is refused, not zero-padded into a plausible id; a wrong type is a TypeError of ours, not a
library's IndexError or AttributeError; a frame's rows come in the objects' order and an added
column never renames or replaces one of the data's; and a DynamoDB item Spark cannot hold as
inferred is our error naming it, never a number cut short."""

from __future__ import annotations

import io
import json
import os
import uuid
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import boto3
import bson
import polars as pl
import pydantic
import pytest
from faults import moto_server, s3_client
from moto import mock_aws
from pynamodb.attributes import UnicodeAttribute
from pynamodb.models import Model
from ulid import ULID as PythonULID

from ulidkeys import ULID, config
from ulidkeys.dynamodb import Entity, Table
from ulidkeys.errors import InvalidId, InvalidType, InvalidValue
from ulidkeys.polars import scan_window
from ulidkeys.pydantic import EntityId, IdStr, KSUIDStr, LayoutId, ULIDStr, dynamodb_keys, s3_key
from ulidkeys.pynamodb import IdAttribute, query_window
from ulidkeys.s3 import Bucket, KeyLayout

T0 = 1_715_904_000_000  # 2024-05-17T00:00:00Z
HOUR = 3_600_000
MADE = ULID.new(at=T0)
OBJECT_ID = bson.ObjectId("507f1f77bcf86cd799439011")


# --- id objects of another width (ulidkeys.ids.interop, behind pydantic and PynamoDB) --------


class Ids(pydantic.BaseModel):
    ulid: ULIDStr | None = None
    typeid: IdStr("typeid:user") | None = None  # type: ignore[valid-type]
    ksuid: KSUIDStr | None = None


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("ulid", OBJECT_ID),  # 12 bytes: was ULID 0000000TR7... (a time in 1970)
        ("typeid", OBJECT_ID),
        ("ksuid", MADE),  # 16 bytes: was a KSUID zero-padded to 20
        ("ksuid", PythonULID.from_str(str(MADE))),
        ("ksuid", uuid.UUID(int=MADE.int)),
    ],
    ids=lambda v: type(v).__name__,
)
def test_an_id_object_of_another_width_is_refused(field: str, value: object) -> None:
    with pytest.raises(pydantic.ValidationError, match=r"holds \d+ bytes; a [a-z:]+ id is \d+"):
        Ids.model_validate({field: value})
    ids = Ids(ulid=PythonULID.from_str(str(MADE)), typeid=uuid.UUID(int=MADE.int))  # 16 bytes
    assert ids.ulid == str(MADE) and ids.typeid == f"user_{str(MADE).lower()}"


# --- pydantic: IdStr's scheme, and optional id fields of models that give their keys ---------


@pytest.mark.parametrize("scheme", [None, 5, b"ulid"])
def test_idstr_of_no_scheme_is_refused_when_made(scheme: object) -> None:
    """Was accepted, and every validation then failed on ``None.parse``."""
    with pytest.raises(InvalidType, match="scheme="):
        IdStr(scheme)  # type: ignore[arg-type]


PHOTOS = KeyLayout("uploads/", suffix=".jpg")
POSTS = Entity(pk="Org#{org}", sk="Post#{id}")


class Photo(pydantic.BaseModel):
    id: LayoutId(PHOTOS) | None = None  # type: ignore[valid-type]


class Post(pydantic.BaseModel):
    org: str = "acme"
    id: EntityId(POSTS) | None = None  # type: ignore[valid-type]


def test_an_optional_id_field_gives_the_key() -> None:
    """Was "Photo has no field annotated LayoutId(layout)": the union hid the annotation."""
    assert s3_key(Photo(id=str(MADE))) == PHOTOS.key_for(MADE)
    assert dynamodb_keys(Post(id=str(MADE))) == POSTS.keys(org="acme", id=MADE)


@pytest.mark.parametrize(("model", "give"), [(Photo(), s3_key), (Post(), dynamodb_keys)])
def test_an_optional_id_field_left_none_is_named(model: pydantic.BaseModel, give: Any) -> None:
    with pytest.raises(InvalidValue, match=r"\.id is None"):
        give(model)


# --- PynamoDB on moto ----------------------------------------------------------------------


class Item(Model):
    class Meta:
        table_name = "hostile-items"
        region = "us-east-1"

    pk = UnicodeAttribute(hash_key=True)
    sk = IdAttribute(template="Post#{id}", range_key=True)
    ref = IdAttribute(scheme="ksuid", null=True)


@pytest.fixture
def items() -> Iterator[None]:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        os.environ.setdefault(name, "testing")
    with mock_aws():
        Item.create_table(billing_mode="PAY_PER_REQUEST", wait=True)
        for index in range(4):
            Item("p", ULID.new(at=T0 + index)).save()
        yield


@pytest.mark.parametrize(
    ("sk", "ref"), [(OBJECT_ID, None), (MADE, MADE), (MADE, uuid.UUID(int=MADE.int))]
)
def test_an_attribute_refuses_an_id_object_of_another_width(
    items: None, sk: object, ref: object
) -> None:
    with pytest.raises(InvalidId, match="bytes"):
        Item("q", sk, ref=ref).save()
    assert [item.sk for item in Item.query("q")] == []  # nothing stored
    Item("q", MADE, ref=None).save()  # None: no attribute
    assert Item.get("q", MADE).ref is None


def test_newest_first_must_be_a_bool(items: None) -> None:
    """``newest_first="false"`` was true: the items came newest first."""
    oldest_first = [str(item.sk) for item in query_window(Item, "p", T0, T0 + 10)]
    assert oldest_first == sorted(oldest_first) and len(oldest_first) == 4
    for flag in ("false", None, 0):
        with pytest.raises(InvalidType, match="newest_first"):
            query_window(Item, "p", T0, T0 + 10, newest_first=flag)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: query_window(Item, None, T0, T0 + 10), "hash_key=None"),  # was IndexError
        (lambda: query_window("Item", "p", T0, T0 + 10), "Model class"),  # type: ignore[arg-type]
        (lambda: IdAttribute(template=None), "template=None"),  # type: ignore[arg-type]
        (lambda: IdAttribute(template=5), "template=5"),  # type: ignore[arg-type]
    ],
)
def test_wrong_types_are_our_type_errors(items: None, call: Any, words: str) -> None:
    """They were PynamoDB's IndexError (hash_key None), an AttributeError (a model's name) and
    InvalidKeyTemplate, a ValueError (a template of another type)."""
    with pytest.raises(InvalidType, match=words):
        call()


# --- Polars on moto's server ---------------------------------------------------------------


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with moto_server() as url:
        yield url


def parquet(frame: pl.DataFrame) -> bytes:
    out = io.BytesIO()
    frame.write_parquet(out)
    return out.getvalue()


def bucket_of(endpoint: str, frames: list[pl.DataFrame]) -> Bucket:
    """A bucket of one object per frame, at increasing times."""
    client = s3_client(endpoint)
    name = f"hostile-{uuid.uuid4().hex[:12]}"
    client.create_bucket(Bucket=name)
    layout = KeyLayout("data/", suffix=".parquet")
    for index, frame in enumerate(frames):
        key = layout.key_for(ULID.new(at=T0 + index * 1000))
        client.put_object(Bucket=name, Key=key, Body=parquet(frame))
    return Bucket(client, name, layout)


def test_the_rows_come_in_the_objects_order(endpoint: str) -> None:
    """Polars' join gave the rows of objects of 1,000 rows each in another order every run."""
    rows = 1000
    frames = [pl.DataFrame({"n": range(i * rows, (i + 1) * rows)}) for i in range(4)]
    bucket = bucket_of(endpoint, frames)
    for _ in range(3):
        frame = scan_window(bucket, T0, T0 + HOUR).collect()
        assert frame["n"].to_list() == list(range(4 * rows))
        assert frame["_key"].is_sorted()  # the objects oldest first, as list_window gives


@pytest.mark.parametrize(
    ("columns", "kwargs", "words"),
    [
        ({"_key": ["mine"]}, {}, "column '_key' already"),  # was renamed _key_right
        ({"_id_time": [1]}, {}, "column '_id_time' already"),
        ({"n": [1]}, {"key_column": "n"}, "column 'n' already; pass key_column="),
        ({"n": [1]}, {"key_column": "t", "time_column": "t"}, "both 't'"),  # was one column
        ({"n": [1]}, {"include_file_paths": "p"}, "include_file_paths cannot"),  # TypeError
        ({"n": [1]}, {"storage_options": {}}, "storage_options cannot"),
    ],
)
def test_an_added_column_never_renames_or_replaces_the_datas(
    endpoint: str, columns: dict[str, list[Any]], kwargs: dict[str, Any], words: str
) -> None:
    bucket = bucket_of(endpoint, [pl.DataFrame(columns)])
    with pytest.raises(InvalidValue, match=words):
        scan_window(bucket, T0, T0 + HOUR, **kwargs).collect()


def test_a_data_column_named_url_is_kept(endpoint: str) -> None:
    """The frame's own ``_url`` column was a Polars DuplicateError at collect."""
    bucket = bucket_of(endpoint, [pl.DataFrame({"_url": ["mine"]})])
    frame = scan_window(bucket, T0, T0 + HOUR).collect()
    assert frame.columns == ["_url", "_key", "_id_time"] and frame["_url"].to_list() == ["mine"]


@pytest.mark.parametrize(
    "kwargs", [{"format": None}, {"key_column": None}, {"time_column": 5}], ids=str
)
def test_wrong_argument_types_are_type_errors(endpoint: str, kwargs: dict[str, Any]) -> None:
    """They were InvalidValue (a ValueError)."""
    bucket = bucket_of(endpoint, [])
    with pytest.raises(InvalidType):
        scan_window(bucket, T0, T0 + HOUR, **kwargs)


# --- the config loader ---------------------------------------------------------------------


@pytest.mark.parametrize("name", [None, 5, ["photos"], b"photos"])
def test_a_name_of_another_type_is_a_type_error(name: object) -> None:
    """Was a bare TypeError from ``re`` (or "unhashable type")."""
    declared = config.parse(
        "[layouts.photos]\nlocation = 's3://photos/u/'\n"
        "[entities.posts]\ntable = 'app'\npk = 'Org#{org}'\nsk = 'Post#{id}'\n",
        Path("ulidkeys.toml"),
    )
    with pytest.raises(InvalidType, match="name="):
        declared.layout(name)  # type: ignore[arg-type]
    with pytest.raises(InvalidType, match="name="):
        declared.entity(name)  # type: ignore[arg-type]


@pytest.mark.parametrize("path", [5, b"ulidkeys.toml"])
def test_load_of_a_path_of_another_type_is_a_type_error(path: object) -> None:
    with pytest.raises(InvalidType, match="path="):
        config.load(path)  # type: ignore[arg-type]


# --- Spark's rows of DynamoDB items: the source's reader as an executor runs it, each row checked
# by pyspark's own verifier (no JVM needed) -------------------------------------------------

#: One attribute of every DynamoDB type (a number of 31 digits: DynamoDB keeps up to 38).
VALUES: dict[str, Any] = {
    "binary": b"\x00\x01",
    "binary_set": {b"x", b"y"},
    "list": [b"z", None, True, Decimal("1.5")],
    "huge": Decimal(2**100),
    "long": Decimal(-(2**63)),
    "text": "hi",
}


def spark_rows(items: list[dict[str, Any]], sample: int) -> tuple[Any, list[dict[str, Any]]]:
    """``items`` stored at increasing times in a moto table, read by ``ulidkeys.dynamodb``'s
    reader with the schema inferred from the first ``sample``; each row checked by pyspark."""
    source_module = pytest.importorskip("ulidkeys.spark.dynamodb")
    types = pytest.importorskip("pyspark.sql.types")
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        os.environ.setdefault(name, "testing")
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        entity = Entity(pk="Org#{org}", sk="Post#{id}")
        client.create_table(**entity.table_definition("hostile"))
        table = Table(client, entity, table_name="hostile")
        with table.batch_writer() as writer:
            for index, item in enumerate(items):
                writer.put(entity.keys(org="a", id=ULID.new(at=T0 + index)) | item)
        options = {"table": "hostile", "pk": "Org#{org}", "sk": "Post#{id}", "since": str(T0),
                   "until": str(T0 + 100), "fields": '{"org": "a"}', "partitions": "1",
                   "sample": str(sample), "region": "us-east-1"}  # fmt: skip
        source = source_module.DynamoDBSource(options)
        schema = source.schema()
        reader = source.reader(schema)
        verify = types._make_type_verifier(schema)
        rows = []
        for piece in reader.partitions():
            for row in reader.read(piece):
                verify(row)
                rows.append(dict(zip(schema.fieldNames(), row, strict=True)))
    return schema, rows


def test_every_dynamodb_type_is_a_row_spark_takes() -> None:
    """A binary attribute (boto3's ``Binary``) was "Binary is not JSON", a binary set "__str__
    returned non-string", a whole number past a bigint Spark's VALUE_OUT_OF_BOUNDS."""
    schema, rows = spark_rows([VALUES] * 3, sample=3)
    kinds = {field.name: field.dataType.simpleString() for field in schema.fields}
    assert kinds["binary"] == "binary" and kinds["huge"] == "string" and kinds["long"] == "bigint"
    assert len(rows) == 3
    row = rows[0]
    assert row["binary"] == b"\x00\x01" and row["huge"] == str(2**100)  # every digit
    assert row["binary_set"] == '["78", "79"]' and row["list"] == '["7a", null, true, 1.5]'
    assert row["long"] == -(2**63) and row["text"] == "hi"


@pytest.mark.parametrize(
    ("sampled", "later"),
    [
        (Decimal(7), Decimal("1.5")),  # int(Decimal("1.5")) was 1
        (Decimal(7), True),  # int(True) was 1
        (Decimal(7), "12"),  # int("12") was 12
        (Decimal("0.5"), "0.25"),  # float("0.25")
        (True, Decimal(1)),  # passed on as a number into a boolean column
    ],
    ids=str,
)
def test_an_item_past_the_sample_that_does_not_fit_is_named(sampled: object, later: object) -> None:
    items = [{"n": sampled}, {"n": later}, {"n": later}]
    with pytest.raises(InvalidValue, match=r'attribute n=.* does not fit .*option\("sample"'):
        spark_rows(items, sample=1)


PRECISE = Decimal("0.12345678901234567890123")  # 23 significant digits: a double keeps 17


def test_numbers_a_double_would_round_keep_their_digits() -> None:
    """A fraction of more digits than a double keeps, or a bigint past 2**53 in a column with
    fractions, was a double column: the digits past the 17th were lost without a word. Such a
    column is text of every digit now; numbers inside lists and maps keep theirs in the JSON."""
    items = [
        {"precise": PRECISE, "mixed": Decimal(2**60 + 1), "plain": Decimal("0.1"),
         "nested": [PRECISE, Decimal("0.5"), Decimal(2**70)]},
        {"precise": PRECISE, "mixed": Decimal("0.5"), "plain": Decimal("2.5"),
         "nested": {"x": PRECISE}},
    ]  # fmt: skip
    schema, rows = spark_rows(items, sample=2)
    kinds = {field.name: field.dataType.simpleString() for field in schema.fields}
    assert (kinds["precise"], kinds["mixed"], kinds["plain"]) == ("string", "string", "double")
    assert [row["precise"] for row in rows] == [str(PRECISE)] * 2
    assert [row["mixed"] for row in rows] == [str(2**60 + 1), "0.5"]
    assert [row["plain"] for row in rows] == [0.1, 2.5]
    nested = [json.loads(row["nested"], parse_float=Decimal) for row in rows]
    assert nested == [[PRECISE, Decimal("0.5"), 2**70], {"x": PRECISE}]


def test_a_number_past_the_sample_a_double_would_round_is_named() -> None:
    items = [{"n": Decimal("0.5")}, {"n": PRECISE}]
    with pytest.raises(InvalidValue, match=r"attribute n=.* does not fit its column's type double"):
        spark_rows(items, sample=1)
