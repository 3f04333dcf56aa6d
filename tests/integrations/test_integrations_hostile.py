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
import re
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


def spark_rows(
    items: list[dict[str, Any]], sample: int, given: Any = None, **more: str
) -> tuple[Any, list[dict[str, Any]]]:
    """``items`` stored at increasing times in a moto table, read by ``ulidkeys.dynamodb``'s
    reader with the schema inferred from the first ``sample`` (or ``given``, as Spark hands a
    source a schema given with ``.schema(...)``: without asking it for one), ``more`` options
    added; each row checked by pyspark."""
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
                   "sample": str(sample), "region": "us-east-1", **more}  # fmt: skip
        source = source_module.DynamoDBSource(options)
        schema = source.schema() if given is None else given
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


def given_schema(**columns: str) -> Any:
    """A schema as ``.schema("SK string, price decimal(10,2)")`` hands it to the source."""
    types = pytest.importorskip("pyspark.sql.types")
    made = {
        "string": types.StringType(), "bigint": types.LongType(), "int": types.IntegerType(),
        "smallint": types.ShortType(), "tinyint": types.ByteType(), "float": types.FloatType(),
        "double": types.DoubleType(), "timestamp": types.TimestampType(),
        "array": types.ArrayType(types.StringType()),
    }  # fmt: skip
    fields = []
    for name, kind in columns.items():
        found = re.fullmatch(r"decimal\((\d+),(\d+)\)", kind)
        data_type = types.DecimalType(*map(int, found.groups())) if found else made[kind]
        fields.append(types.StructField(name, data_type, True))
    return types.StructType(fields)


@pytest.mark.parametrize(
    ("kind", "value", "cell"),
    [
        ("decimal(10,2)", "19.999", None),  # was Decimal('20.00'), no error
        ("decimal(10,2)", "19.99", Decimal("19.99")),
        ("decimal(10,2)", "12345678.5", Decimal("12345678.50")),
        ("decimal(10,2)", "123456789.5", None),  # 9 whole digits: decimal(10,2) holds 8
        ("decimal(38,0)", "1E+40", None),
        ("int", "3000000000", None),  # was pyarrow's ArrowInvalid, naming no attribute
        ("int", "2147483647", 2**31 - 1),
        ("int", "-2147483648", -(2**31)),
        ("int", "2147483648", None),
        ("smallint", "32768", None),
        ("tinyint", "-128", -128),
        ("tinyint", "128", None),
        ("bigint", str(2**63), None),
        ("float", "0.5", 0.5),
        ("float", "0.1", 0.1),  # the float32 nearest 0.1 reads back as 0.1
        ("float", "0.1000000001", None),  # a float32 keeps about 7 digits
        ("float", "1e39", None),  # past a float32's range
        ("double", "0.1", 0.1),
        ("double", "0.12345678901234567890123", None),
    ],
)
def test_a_given_column_never_rounds_nor_overflows(kind: str, value: str, cell: object) -> None:
    items = [{"n": Decimal(value)}]
    schema = given_schema(SK="string", n=kind)
    if cell is None:
        shown = r"attribute n=Decimal\('.*'\) of item PK='Org#a', SK='Post#.*' does not fit .*"
        with pytest.raises(InvalidValue, match=shown + r"given with \.schema"):
            spark_rows(items, 1, schema)
        return
    _schema, [row] = spark_rows(items, 1, schema)
    assert row["n"] == cell and type(row["n"]) is type(cell)


LATE = [{"n": Decimal(1)}, {"n": Decimal(2)}, {"n": Decimal(3), "note": "late", "m": {1, 2}}]


def test_an_attribute_past_the_sample_fails_naming_it_by_default() -> None:
    with pytest.raises(InvalidValue, match=r"has attribute\(s\) 'm', 'note' outside the sch"):
        spark_rows(LATE, 2)  # was: no note or m column, and no error
    schema, rows = spark_rows(LATE, 3)  # a sample that sees them makes their columns
    assert {"note", "m"} <= set(schema.fieldNames()) and rows[2]["note"] == "late"


def test_an_attribute_past_the_sample_is_kept_or_dropped_as_asked() -> None:
    schema, rows = spark_rows(LATE, 2, others="keep")
    assert schema.fieldNames() == ["PK", "SK", "n", "id_time", "_others"]
    assert [row["_others"] for row in rows] == [None, None, '{"m": [1, 2], "note": "late"}']
    schema, rows = spark_rows(LATE, 2, others="keep", others_column="rest")
    assert schema.fieldNames()[-1] == "rest" and rows[2]["rest"].startswith('{"m"')
    schema, rows = spark_rows(LATE, 2, others="drop")
    assert "note" not in schema.fieldNames() and [row["n"] for row in rows] == [1, 2, 3]


def test_a_given_schema_leaves_out_what_it_lacks_unless_asked_otherwise() -> None:
    """A schema given with .schema(...) chooses the columns, as Spark's JSON reader's does."""
    schema = given_schema(SK="string", n="bigint")
    _schema, rows = spark_rows(LATE, 1, schema)
    assert [row["n"] for row in rows] == [1, 2, 3]
    with pytest.raises(InvalidValue, match=r"has attribute\(s\) 'PK' outside .*given with"):
        spark_rows(LATE, 1, schema, others="fail")
    with pytest.raises(InvalidValue, match=r"column '_others': add it to \.schema"):
        spark_rows(LATE, 1, schema, others="keep")  # refused before any row is read
    kept = given_schema(SK="string", n="bigint", _others="string")
    _schema, rows = spark_rows(LATE, 1, kept, others="keep")
    assert json.loads(rows[2]["_others"]) == {"PK": "Org#a", "m": [1, 2], "note": "late"}


def test_an_attribute_named_as_the_id_time_column_is_never_replaced() -> None:
    items = [{"n": Decimal(1)}, {"id_time": "mine"}]
    with pytest.raises(InvalidValue, match=r"attribute 'id_time', the name of the id time col"):
        spark_rows(items, 2)  # in the sample: refused when the schema is inferred
    with pytest.raises(InvalidValue, match=r"option\(\"id_time_column\", \.\.\.\)"):
        spark_rows(items, 1)  # past the sample: refused when its row is made
    with pytest.raises(InvalidValue, match="would replace it"):
        spark_rows(items, 1, given_schema(SK="string", id_time="timestamp"))
    schema, rows = spark_rows(items, 2, id_time_column="made")
    assert schema.fieldNames() == ["PK", "SK", "n", "id_time", "made"]
    assert [row["id_time"] for row in rows] == [None, "mine"]
    assert [row["made"].timestamp() * 1000 for row in rows] == [T0, T0 + 1]
    _schema, rows = spark_rows(items, 1, others="keep")
    assert [row["_others"] for row in rows] == [None, '{"id_time": "mine"}']
    _schema, rows = spark_rows(items, 1, given_schema(SK="string"))  # no id time column
    assert [row["SK"][:5] for row in rows] == ["Post#", "Post#"]


@pytest.mark.parametrize(
    ("columns", "more", "shown"),
    [
        ({"id_time": "string"}, {}, "the id time's column is a timestamp"),
        ({"made": "timestamp"}, {}, "column 'made' of .schema.* is timestamp"),
        ({"tags": "array"}, {}, "column 'tags' of .schema.* is array<string>"),
        ({"n": "bigint"}, {"others": "sometimes"}, r'option\("others"\)=\'sometimes\''),
        ({"n": "bigint"}, {"others_column": "id_time"}, "give them two names"),
    ],
)
def test_a_given_schema_the_source_cannot_fill_is_refused_before_any_row(
    columns: dict[str, str], more: dict[str, str], shown: str
) -> None:
    with pytest.raises(InvalidValue, match=shown):
        spark_rows([{"n": Decimal(1)}], 1, given_schema(SK="string", **columns), **more)
