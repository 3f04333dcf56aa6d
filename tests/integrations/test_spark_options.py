"""The Spark sources' options and cells, without a session: every option mistake is an error
naming ``option("name")`` raised when the source is made (Spark makes it at ``load()``, on the
driver), the one call from the driver names the bucket or table it could not find, and a cell
of a given ``decimal(p,s)`` or ``float`` column is the number exactly or refused (hypothesis,
against a brute-force answer from fractions and numpy's own float32)."""

from __future__ import annotations

import socket
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import boto3
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'ulidkeys[spark]')")
pytest.importorskip("numpy")  # pyspark's own dependency: float32's shortest text

import numpy
from pyspark.sql.types import DecimalType

from ulidkeys.dynamodb import Collection, Entity
from ulidkeys.errors import InvalidValue, InvalidWindow, ServiceError
from ulidkeys.spark import read_stream
from ulidkeys.spark.cells import decimal_cell, is_float
from ulidkeys.spark.dynamodb import DynamoDBSource
from ulidkeys.spark.options import SourceOptions, entity_of
from ulidkeys.spark.s3 import S3Source

T0 = 1_715_904_000_000  # 2024-05-17T00:00:00Z
BUCKET = "options-events"
S3 = {"bucket": BUCKET, "prefix": "raw/", "since": str(T0), "until": str(T0 + 1000),
      "region": "us-east-1"}  # fmt: skip
TABLE = {"table": "app", "pk": "Org#{org}", "sk": "Post#{id}", "fields": '{"org": "acme"}',
         "since": str(T0), "until": str(T0 + 1000), "region": "us-east-1"}  # fmt: skip


@pytest.fixture
def made(aws: None) -> None:
    """The bucket and the table the options name, in in-process moto."""
    boto3.client("s3").create_bucket(Bucket=BUCKET)
    table = Entity(pk="Org#{org}", sk="Post#{id}").table_definition("app")
    boto3.client("dynamodb").create_table(**table)


# --- each mistake when the source is made, naming the option ----------------------------------


@pytest.mark.parametrize(
    ("more", "error", "shown"),
    [
        ({"since": "1h", "until": "now"}, InvalidWindow, r'needs a fixed option\("since"\)'),
        ({"until": "now"}, InvalidWindow, r'needs a fixed option\("until"\)'),
        (
            {"since": str(T0 + 5), "until": str(T0)},
            InvalidWindow,
            r'option\("since"\)=\'1715904000005\' \(2024-05-17T00:00:00.005Z\) is after '
            r'option\("until"\)',
        ),
        ({"since": "2024-05-17"}, InvalidValue, r'option\("since"\)=\'2024-05-17\' is a day'),
        ({"since": None}, InvalidValue, r'option\("since"\) is required'),
        ({"endpoint_url": "not a url"}, InvalidValue, r'option\("endpoint_url"\)=\'not a url\''),
        ({"endpoint_url": "ftp://127.0.0.1"}, InvalidValue, r'option\("endpoint_url"\)'),
        ({"endpoint_url": "http://"}, InvalidValue, r'option\("endpoint_url"\)'),
        ({"endpoint_url": "http://a b.example"}, InvalidValue, r'option\("endpoint_url"\)'),
        ({"region": "us east 1"}, InvalidValue, r'option\("region"\)=\'us east 1\''),
        ({"settle": "-1"}, InvalidValue, r'option\("settle"\)=-1 is out of range'),
        ({"overlap": "soon"}, InvalidValue, r'option\("overlap"\)=\'soon\' must be a whole'),
        ({"contents": "rows"}, InvalidValue, r'option\("contents"\)=\'rows\' must be one of'),
        ({"period": "weekly"}, InvalidValue, r'option\("period"\)=\'weekly\': '),
        ({"shards": "2000"}, InvalidValue, r'option\("shards"\)=\'2000\': '),
        ({"bucket": "Events_Old"}, InvalidValue, r'option\("bucket"\)=\'Events_Old\': '),
        ({"location": f"s3://{BUCKET}/raw/"}, InvalidValue, r"takes no option\(\"bucket\"\)"),
        ({"verify": "maybe"}, InvalidValue, r'option\("verify"\)=\'maybe\' must be true or'),
    ],
)
def test_an_s3_mistake_is_refused_when_the_source_is_made(
    made: None, more: dict[str, str | None], error: type[Exception], shown: str
) -> None:
    options = {name: value for name, value in {**S3, **more}.items() if value is not None}
    with pytest.raises(error, match=shown):
        S3Source(options)


def test_the_bucket_is_looked_for_with_one_call_from_the_driver(
    made: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    session = boto3.Session()  # the clients' default session, watched
    session.events.register("before-call.s3", lambda model, **_: calls.append(model.name))
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", session)
    S3Source(S3)
    assert calls == ["ListObjectsV2"]  # one call, of at most one key under the prefix
    with pytest.raises(ServiceError, match=r'option\("bucket"\)=\'absent\': no such bucket'):
        S3Source({**S3, "bucket": "absent"})
    location = {name: value for name, value in S3.items() if name not in ("bucket", "prefix")}
    with pytest.raises(ServiceError, match=r"location.*absent/raw/' \(bucket 'absent'\)"):
        S3Source({**location, "location": "s3://absent/raw/"})
    calls.clear()
    S3Source({**S3, "bucket": "absent", "verify": "false"})  # the call skipped, as asked
    assert calls == []


def test_an_unreachable_endpoint_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")  # one try: the test need not wait for retries
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed once the block ends: nothing listens there
    unreachable = {**S3, "endpoint_url": f"http://127.0.0.1:{port}"}
    with pytest.raises(ServiceError, match=r'option\("endpoint_url"\)=.* could not be reached'):
        S3Source(unreachable)


def test_the_table_is_looked_for_with_the_sample_query(made: None) -> None:
    assert DynamoDBSource(TABLE).schema().fieldNames() == ["PK", "SK", "id_time"]
    with pytest.raises(ServiceError, match=r'option\("table"\)=\'absent\': no such table'):
        DynamoDBSource({**TABLE, "table": "absent"})
    DynamoDBSource({**TABLE, "table": "absent", "verify": "false"})  # no call: no error


@pytest.mark.parametrize(
    ("more", "shown"),
    [
        ({"since": "2024-05-17", "until": "2024-05-18"}, r'option\("since"\)=\'2024-05-17\''),
        ({"others": "sometimes"}, r'option\("others"\)=\'sometimes\' must be one of'),
        ({"pk": "Org#{org"}, r'option\("pk"\)=\'Org#\{org\''),
        ({"fields": "{}"}, r'option\("fields"\)=\'\{\}\''),
    ],
)
def test_a_dynamodb_mistake_is_refused_when_the_source_is_made(
    made: None, more: dict[str, str], shown: str
) -> None:
    with pytest.raises(InvalidValue, match=shown):
        DynamoDBSource({**TABLE, **more})


def test_a_stream_mistake_is_refused_before_the_query_starts(made: None) -> None:
    stream = {name: value for name, value in S3.items() if name != "until"}
    source = S3Source(stream)  # a stream's options: no until
    assert source.streamReader(source.schema()).since_ms == T0
    for more, shown in [
        ({"until": str(T0 + 5)}, r'option\("until"\) ends a window: a stream has none'),
        ({"contents": "lines"}, r'option\("contents"\)="lines" is for batch reads only'),
    ]:
        with pytest.raises(InvalidValue, match=shown):
            S3Source({**stream, **more}).streamReader(source.schema())  # at start()
        with pytest.raises(InvalidValue, match=shown):
            read_stream(None, **stream, **more)  # refused before the session is used
    with pytest.raises(InvalidWindow, match=r'needs option\("until"\): a batch reads'):
        source.reader(source.schema())  # a batch without until: when it is planned


# --- a given column's cell is the number exactly, or refused ----------------------------------


def decimal_fits(value: Decimal, precision: int, scale: int) -> bool:
    """Brute force: ``value`` times 10**scale is a whole number of at most ``precision``
    digits."""
    scaled = Fraction(value) * 10**scale
    return scaled.denominator == 1 and abs(scaled.numerator) < 10**precision


NUMBERS = st.decimals(allow_nan=False, allow_infinity=False, places=None).filter(
    lambda value: abs(value.adjusted()) < 60  # DynamoDB's numbers: 38 digits, 1E-130..1E+126
) | st.builds(Decimal, st.integers(-(10**40), 10**40)).map(lambda value: value.scaleb(-5))


#: ``decimal(p, s)``: a precision of 1..38 (Spark's), a scale of 0..p.
DECIMALS = st.integers(1, 38).flatmap(lambda p: st.tuples(st.just(p), st.integers(0, p)))


@given(NUMBERS, DECIMALS)
@example(Decimal("19.999"), (10, 2))  # was Decimal('20.00')
@example(Decimal("123456789.5"), (10, 2))  # 9 whole digits: decimal(10,2) holds 8
@example(Decimal("-0.00"), (1, 0))
def test_a_decimal_cell_is_exact_or_refused(value: Decimal, kind: tuple[int, int]) -> None:
    precision, scale = kind
    cell = decimal_cell(value, DecimalType(precision, scale))
    assert (cell is not None) == decimal_fits(value, precision, scale)
    if cell is not None:
        assert cell == value and cell.as_tuple().exponent == -scale


FLOATS = st.floats(width=32, allow_nan=False, allow_infinity=False).map(
    lambda number: Decimal(str(numpy.float32(number)))
)


@given(NUMBERS | FLOATS)
@example(Decimal("0.1"))
@example(Decimal("0.1000000001"))
@example(Decimal("3.4028235E+38"))  # the largest float32
@example(Decimal("3.5E+38"))
def test_a_float_cell_is_a_float32_that_reads_back_as_the_number(value: Decimal) -> None:
    """Brute force: numpy's float32 of the double Spark is handed, in its shortest text."""
    with numpy.errstate(over="ignore"):
        single = numpy.float32(float(value))
    expected = bool(numpy.isfinite(single)) and Decimal(str(single)) == value
    assert is_float(value) == expected


def test_the_driver_s_set_up_and_a_refused_call_are_named(
    made: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ServiceError, match=r'option\("table"\)=\'app\': Query was refused \(Val'):
        DynamoDBSource({**TABLE, "pk_attr": "pk"})  # the table's key attribute is PK
    monkeypatch.delenv("AWS_DEFAULT_REGION")
    without_region = {name: value for name, value in TABLE.items() if name != "region"}
    with pytest.raises(InvalidValue, match=r'no AWS region is set on the driver; pass option\("'):
        DynamoDBSource(without_region)
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(name)
    for name in ("AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"):
        monkeypatch.setenv(name, "/nonexistent")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)  # none kept from before
    with pytest.raises(ServiceError, match=r"no AWS credentials found on the driver"):
        S3Source(S3)


def test_a_collection_named_as_the_entity_is_its_collection(tmp_path: Path) -> None:
    """option("entity") names an entity or a collection of the config file; a collection
    reads its kinds together (tests/integrations/test_spark.py reads one)."""
    path = tmp_path / "ulidkeys.toml"
    path.write_text(
        '[entities.posts]\ntable = "app"\npk = "Org#{org}"\nsk = "Post#{id}"\n'
        '[entities.likes]\ntable = "app"\npk = "Org#{org}"\nsk = "Like#{id}"\n'
        '[collections.activity]\nentities = ["posts", "likes"]\n'
    )
    table, found = entity_of(SourceOptions({"entity": "activity", "config": str(path)}))
    assert table == "app" and isinstance(found, Collection)
    assert found.kinds == ("posts", "likes")
