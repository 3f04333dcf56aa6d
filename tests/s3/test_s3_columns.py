"""Pages of columns (``Results.pages(columns=...)``) against the items of the same listing: the
same rows, values, order, stats and cursors over shards, period folders, keys that do not fit,
directory buckets, time slices, split listings and resumed cursors - with pages answered as
dicts (a stub client) and as S3's XML through botocore and the page reader (which then reads
the columns with no dict per object); the reader's columns against botocore's dicts on
generated pages; the asked columns checked."""

from __future__ import annotations

import itertools
import zlib
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit
from xml.sax.saxutils import escape

import boto3
import pytest
from botocore.awsrequest import AWSResponse
from botocore.config import Config
from columnsupport import assert_same_listing, page_rows
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from profiles import examples
from s3support import (
    T0,
    FakeDirectoryBucket,
    FakeS3,
    brute_force,
    moto_client,
    new_bucket,
    ulid_at,
)
from test_s3_pages import botocore_reads, reader
from test_s3_pages import pages as generated_pages
from test_s3_split import dense_scenarios

from ulidkeys.errors import InvalidType, InvalidValue
from ulidkeys.planning.listings import plan_listing
from ulidkeys.s3 import Bucket, KeyLayout
from ulidkeys.s3.columns import OFFERED
from ulidkeys.s3.pages import COLUMNS

HOUR = 3_600_000
#: The member of an object's dict each column is (``id_ms``: the layout's reading of the key).
MEMBERS = {name: member for name, member in OFFERED.items() if member is not None}
column_names = st.lists(st.sampled_from(list(OFFERED)), min_size=1, unique=True)


# --- S3's XML through botocore, answered from an in-memory bucket ----------------------------


class _Body:
    def __init__(self, body: bytes) -> None:
        self.body = body

    def stream(self, **_: Any) -> Iterator[bytes]:
        yield self.body


def _values(key: str) -> tuple[int, str, str]:
    """Size, LastModified and ETag of an object, made from its key (both paths read the same)."""
    crc = zlib.crc32(key.encode())
    stamp = datetime.fromtimestamp(T0 // 1000 + crc % 100_000, timezone.utc)
    return crc % 1_000_000, stamp.strftime("%Y-%m-%dT%H:%M:%S.000Z"), f"{crc:032x}"


def render(answer: dict[str, Any], encoded: bool) -> bytes:
    """A stub's answer as S3 writes the page (keys url-encoded when the request asks)."""

    def text(value: str) -> str:
        return escape(quote(value, safe="/") if encoded else value)

    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name>'
        f"<KeyCount>{answer.get('KeyCount', 0)}</KeyCount><MaxKeys>1000</MaxKeys>"
    ]
    if encoded:
        parts.append("<EncodingType>url</EncodingType>")
    parts.append(f"<IsTruncated>{str(answer['IsTruncated']).lower()}</IsTruncated>")
    if answer.get("NextContinuationToken"):
        parts.append(
            f"<NextContinuationToken>{escape(answer['NextContinuationToken'])}"
            "</NextContinuationToken>"
        )
    for obj in answer.get("Contents") or []:
        size, stamp, etag = _values(obj["Key"])
        parts.append(
            f"<Contents><Key>{text(obj['Key'])}</Key><LastModified>{stamp}</LastModified>"
            f"<ETag>&quot;{etag}&quot;</ETag><Size>{size}</Size>"
            "<StorageClass>STANDARD</StorageClass></Contents>"
        )
    for folder in answer.get("CommonPrefixes") or []:
        parts.append(f"<CommonPrefixes><Prefix>{text(folder['Prefix'])}</Prefix></CommonPrefixes>")
    parts.append("</ListBucketResult>")
    return "".join(parts).encode()


_QUERY = {
    "prefix": "Prefix",
    "start-after": "StartAfter",
    "continuation-token": "ContinuationToken",
    "delimiter": "Delimiter",
}


def xml_client(stub: Any) -> Any:
    """A boto3 client whose ListObjectsV2 pages are ``stub``'s answers as S3's XML: parsed by
    botocore or read by the page reader, url-decoded by botocore's own handlers."""
    client = boto3.client(
        "s3",
        endpoint_url="http://127.0.0.1:9",
        region_name="us-east-1",
        aws_access_key_id="k",
        aws_secret_access_key="s",
        config=Config(s3={"addressing_style": "path"}, max_pool_connections=16),
    )

    def send(request: Any, **_: Any) -> AWSResponse:
        query = dict(parse_qsl(urlsplit(request.url).query, keep_blank_values=True))
        kwargs: dict[str, Any] = {"Bucket": "b", "MaxKeys": int(query["max-keys"])}
        kwargs.update({name: query[arg] for arg, name in _QUERY.items() if arg in query})
        body = render(stub.list_objects_v2(**kwargs), query.get("encoding-type") == "url")
        return AWSResponse(request.url, 200, {"x-amz-request-id": "R"}, _Body(body))

    client.meta.events.register("before-send.s3.ListObjectsV2", send)
    return client


class Answers:
    """A client's answers kept (whether the page reader gave columns or botocore dicts)."""

    def __init__(self, client: Any) -> None:
        self.client, self.answers = client, []

    def list_objects_v2(self, **kwargs: Any) -> Any:
        answer = self.client.list_objects_v2(**kwargs)
        self.answers.append(answer)
        return answer


# --- the two paths side by side ---------------------------------------------------------------


def item_rows(items: list[dict[str, Any]], names: list[str], layout: KeyLayout) -> list[tuple]:
    """The rows the items give for ``names`` (None where an object lacks the member)."""
    return [
        tuple(
            layout.parse(obj["Key"]).ms if name == "id_ms" else obj.get(MEMBERS[name])
            for name in names
        )
        for obj in items
    ]


def make_stub(kind: str, keys: list[str], page: int, seed: int = 0) -> Any:
    return FakeS3(keys, page=page) if kind == "general" else FakeDirectoryBucket(keys, seed, page)


def bucket_on(transport: str, stub: Any, layout: KeyLayout, directory: bool) -> Bucket:
    client = stub if transport == "dicts" else xml_client(stub)
    return Bucket(client, "b", layout, directory=directory)


def side_by_side(
    transport: str,
    kind: str,
    keys: list[str],
    layout: KeyLayout,
    page: int,
    names: list[str],
    listing: Any,
) -> tuple[Any, Any, list[dict[str, Any]], list[dict[str, list[Any]]]]:
    """The items and the pages of one listing (``listing(bucket)`` makes it), each on a stub
    of its own: (item results, page results, items, pages)."""
    directory = kind == "directory"
    by_items = listing(bucket_on(transport, make_stub(kind, keys, page), layout, directory))
    items = list(by_items)
    by_pages = listing(bucket_on(transport, make_stub(kind, keys, page), layout, directory))
    pages = list(by_pages.pages(columns=names))
    return by_items, by_pages, items, pages


def assert_same(
    by_items: Any,
    by_pages: Any,
    items: list[Any],
    pages: list[Any],
    names: list[str],
    layout: KeyLayout,
    exact: bool = True,
) -> None:
    """The same rows, position and cursor (and stats where ``exact``: see
    :func:`~columnsupport.assert_same_listing`)."""
    rows = item_rows(items, names, layout)
    assert_same_listing(by_items, by_pages, rows, pages, names, exact)


TRANSPORTS = ["dicts", "xml"]


@pytest.mark.parametrize("transport", TRANSPORTS)
@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    scenario=dense_scenarios(),
    page=st.integers(1, 4),
    workers=st.sampled_from([1, 3, 8]),
    split=st.booleans(),
    names=column_names,
)
def test_pages_of_columns_are_the_items_of_a_window(
    transport: str,
    scenario: tuple[KeyLayout, list[str], int, int],
    page: int,
    workers: int,
    split: bool,
    names: list[str],
) -> None:
    layout, keys, start, end = scenario
    plan = plan_listing(layout, start, end, max_keys=page)
    by_items, by_pages, items, pages = side_by_side(
        transport,
        "general",
        keys,
        layout,
        page,
        names,
        lambda bucket: bucket.run(plan, max_workers=workers, split=split),
    )
    assert_same(by_items, by_pages, items, pages, names, layout, exact=not split or workers == 1)
    assert [obj["Key"] for obj in items] == brute_force(layout, keys, start, end)


@pytest.mark.parametrize("transport", TRANSPORTS)
@settings(max_examples=examples(12), deadline=None)
@given(
    layout=st.sampled_from(
        [KeyLayout("up/"), KeyLayout("up/", shards=3, period="hour"), KeyLayout(period="day")]
    ),
    seed=st.integers(0, 1000),
    times=st.lists(st.integers(T0 - 2 * HOUR, T0 + 30 * HOUR), max_size=60),
    start=st.integers(T0 - HOUR, T0 + 26 * HOUR),
    length=st.sampled_from([1, 60_000, HOUR, 7 * HOUR, 49 * HOUR]),
    page=st.integers(1, 9),
    names=column_names,
)
def test_pages_of_columns_of_a_directory_bucket(
    transport: str,
    layout: KeyLayout,
    seed: int,
    times: list[int],
    start: int,
    length: int,
    page: int,
    names: list[str],
) -> None:
    keys = [layout.key_for(ulid_at(t, (seed * 7919 + i) % (1 << 80))) for i, t in enumerate(times)]
    keys += [layout.key_for(ulid_at(start, 0)), layout.prefix + "zz/top", layout.prefix + "odd"]
    by_items, by_pages, items, pages = side_by_side(
        transport,
        "directory",
        keys,
        layout,
        page,
        names,
        lambda bucket: bucket.list_window(start, start + length, max_workers=4),
    )
    assert_same(by_items, by_pages, items, pages, names, layout)
    assert [obj["Key"] for obj in items] == brute_force(layout, keys, start, start + length)


@pytest.mark.parametrize("transport", TRANSPORTS)
@settings(max_examples=examples(8), deadline=None)
@given(scenario=dense_scenarios(), page=st.integers(1, 4), n=st.integers(1, 5), names=column_names)
def test_pages_of_columns_of_each_slice(
    transport: str,
    scenario: tuple[KeyLayout, list[str], int, int],
    page: int,
    n: int,
    names: list[str],
) -> None:
    layout, keys, start, end = scenario
    pieces = Bucket(FakeS3(keys), "b", layout).plan_window(start, end).slices(n)
    listed: list[str] = []
    for piece in pieces:
        by_items, by_pages, items, pages = side_by_side(
            transport,
            "general",
            keys,
            layout,
            page,
            names,
            lambda b, p=piece: b.list_slice(p, max_workers=1),
        )
        assert_same(by_items, by_pages, items, pages, names, layout)
        listed += [obj["Key"] for obj in items]
    assert listed == brute_force(layout, keys, start, end)


@pytest.mark.parametrize("transport", TRANSPORTS)
@settings(max_examples=examples(10), deadline=None)
@given(
    scenario=dense_scenarios(),
    page=st.integers(1, 3),
    stops=st.lists(st.integers(0, 4), max_size=4),
    names=column_names.map(lambda names: names if "key" in names else [*names, "key"]),
)
def test_a_cursor_after_pages_of_columns_resumes_exactly(
    transport: str,
    scenario: tuple[KeyLayout, list[str], int, int],
    page: int,
    stops: list[int],
    names: list[str],
) -> None:
    """Take a few pages, stop, resume from the cursor (by pages or by items): together the
    window, no row twice; the cursor is the one the items give after as many rows."""
    layout, keys, start, end = scenario
    expected = brute_force(layout, keys, start, end)
    got: list[str] = []
    cursor: str | None = None
    for k in stops:
        bucket = bucket_on(transport, FakeS3(keys, page=page), layout, False)
        listing = bucket.list_window(start, end, cursor=cursor, max_workers=4)
        taken = list(itertools.islice(listing.pages(columns=names), k))
        listing.close()
        rows = page_rows(taken, names)
        got += [row[names.index("key")] for row in rows]
        if rows:
            same = bucket_on(transport, FakeS3(keys, page=page), layout, False)
            items = same.list_window(start, end, cursor=cursor, max_workers=4)
            with items:
                list(itertools.islice(items, len(rows)))
            assert listing.cursor == items.cursor
        cursor = listing.cursor or cursor
    rest = Bucket(FakeS3(keys, page=page), "b", layout).list_window(start, end, cursor=cursor)
    got += [obj["Key"] for obj in rest]
    assert got == expected


# --- the page reader's columns -------------------------------------------------------------------


@settings(max_examples=examples(100))
@given(
    page=generated_pages(), members=st.lists(st.sampled_from(list(MEMBERS.values())), unique=True)
)
def test_the_reader_reads_the_same_values_as_columns(
    page: tuple[bytes, bool], members: list[str]
) -> None:
    body, _usual = page
    wanted = tuple(member for member in members if member != "Key")
    read = reader().read(body, wanted)
    if read is None:
        return  # botocore's to read: the dicts path gives the rows then
    expected = botocore_reads(body)
    objects = expected.pop("Contents", [])
    columns = read.pop(COLUMNS)
    assert read == expected  # every other member as botocore reads it
    assert list(columns) == ["Key", *wanted]
    for member, column in columns.items():
        assert column == [obj.get(member) for obj in objects], member
        assert [type(v) for v in column] == [type(obj.get(member)) for obj in objects]


def test_an_object_without_a_key_is_left_to_botocore() -> None:
    body = (
        b'<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><IsTruncated>false'
        b"</IsTruncated><Contents><Size>1</Size></Contents></ListBucketResult>"
    )
    assert reader().read(body) is not None  # the dicts: botocore's too
    assert reader().read(body, ("Size",)) is None


# --- on moto, through the page reader ------------------------------------------------------------


@pytest.fixture(scope="module")
def s3() -> Iterator[Any]:
    with moto_client() as client:
        yield client


@pytest.mark.parametrize("names", [["key"], ["key", "size"], list(OFFERED), ["etag", "id_ms"]])
def test_on_moto_the_reader_gives_columns_and_the_same_rows(s3: Any, names: list[str]) -> None:
    layout = KeyLayout("é ü+/", shards=2, period="hour")
    name = new_bucket(s3)
    keys = [layout.key_for(ulid_at(T0 + i * 61_111, i)) for i in range(60)]
    for i, key in enumerate(keys):
        s3.put_object(Bucket=name, Key=key, Body=b"x" * i)
    s3.put_object(Bucket=name, Key=layout.prefix + "not-a-key", Body=b"")
    items = Bucket(s3, name, layout).list_window(T0, T0 + HOUR)
    answers = Answers(s3)
    by_pages = Bucket(answers, name, layout).list_window(T0, T0 + HOUR, max_workers=3)
    pages = list(by_pages.pages(columns=names))
    assert_same(items, by_pages, list(items), pages, names, layout, exact=False)
    assert answers.answers and all(
        COLUMNS in answer and "Contents" not in answer for answer in answers.answers
    )  # read as columns, no dict per object
    assert answers.answers[0]["EncodingType"] == "url"  # keys decoded as botocore decodes them


def test_without_the_reader_the_dicts_give_the_rows(s3: Any) -> None:
    layout = KeyLayout("up/")
    name = new_bucket(s3)
    keys = [layout.key_for(ulid_at(T0 + i, i)) for i in range(30)]
    for key in keys:
        s3.put_object(Bucket=name, Key=key, Body=b"ab")
    plain = boto3.client(  # a client of its own: no page reader installed on it
        "s3", region_name="us-east-1", aws_access_key_id="k", aws_secret_access_key="s"
    )
    answers = Answers(plain)
    listing = Bucket(answers, name, layout, fast_pages=False).list_window(T0, T0 + HOUR)
    pages = list(listing.pages(columns=["key", "size"]))
    assert page_rows(pages, ["key", "size"]) == [(key, 2) for key in keys]
    assert all(COLUMNS not in answer for answer in answers.answers)


# --- what may be asked -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("columns", "error", "message"),
    [
        (["key", "owner"], InvalidValue, r"'owner'.*choose from key, id_ms, size"),
        ([], InvalidValue, r"names no column"),
        (["size", "size"], InvalidValue, r"'size' twice"),
        ("key", InvalidType, r"columns='key' must be a sequence of column names"),
        ([b"key"], InvalidType, r"a column name is a str"),
    ],
)
def test_columns_are_checked(columns: Any, error: type[Exception], message: str) -> None:
    bucket = Bucket(FakeS3([]), "b", KeyLayout("up/"))
    with pytest.raises(error, match=message):
        bucket.list_window(T0, T0 + HOUR).pages(columns=columns)


def test_items_or_pages_not_both() -> None:
    layout = KeyLayout("up/")
    keys = [layout.key_for(ulid_at(T0 + i, i)) for i in range(5)]
    listing = Bucket(FakeS3(keys), "b", layout).list_window(T0, T0 + HOUR)
    assert next(listing)["Key"] == keys[0]
    with pytest.raises(InvalidValue, match=r"before the first item"):
        listing.pages()
    latest = Bucket(FakeS3(keys), "b", layout).latest(2)
    with pytest.raises(InvalidValue, match=r"gives items only.*not latest\(\)"):
        latest.pages()
    empty = list(Bucket(FakeS3(keys), "b", layout).list_window(T0 - HOUR, T0).pages(["key"]))
    assert empty == []


def test_stopping_early_closes_the_listing() -> None:
    layout = KeyLayout("up/")
    keys = [layout.key_for(ulid_at(T0 + i, i)) for i in range(50)]
    stub = FakeS3(keys, page=5)
    listing = Bucket(stub, "b", layout).list_window(T0, T0 + HOUR, split=False)
    pages = listing.pages(["key"])
    first = next(pages)
    pages.close()
    sent = len(stub.requests)
    assert first["key"] == keys[:5]
    assert listing.cursor == listing.cursor_at((keys[4][3:], keys[4]))
    assert list(listing) == []  # closed: nothing more, and no request more
    assert len(stub.requests) == sent
