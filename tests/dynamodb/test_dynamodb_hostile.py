"""Hostile input to the DynamoDB adapter, against moto: values DynamoDB cannot store, items
whose index keys are missing, ``after=`` of another partition and bad batch-writer options are
refused with a ``ulidkeys.errors`` exception naming them, before anything is written; a
partition full of items that do not fit the template answers exactly what a scan says."""

from __future__ import annotations

import asyncio
import itertools
import random
import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import boto3
import pytest
from aiobotocore.session import get_session
from hypothesis import given, settings
from hypothesis import strategies as st
from moto import mock_aws
from profiles import examples
from test_dynamodb_support import create_table, put_items

from ulidkeys import base32
from ulidkeys.aio import AsyncTable
from ulidkeys.dynamodb import BatchWriter, Entity, Index, Table
from ulidkeys.dynamodb.clients import Target
from ulidkeys.errors import InvalidKeyField, InvalidQuery, InvalidType, InvalidValue, KeyMismatch
from ulidkeys.ulid import ULID

NAME = "hostile"
PARTITION = "hostile-partition"
T0 = 1_715_936_400_000
DAY = 86_400_000
MAX_MS = 2**48 - 1
POST = Entity(
    pk="Org#{org}",
    sk="Post#{id}",
    gsi={
        "GSI1": Index(pk="Feed#{org}", sk="Post#{id}"),
        "ByTag": Index(pk="Tag#{tag}", sk="Post#{id}", sparse=True),
    },
)


def ulid_at(ms: int, random_bits: int) -> str:
    return base32.encode_time(ms) + base32.encode_random(random_bits)


@pytest.fixture(scope="module")
def aws() -> Iterator[dict[str, Any]]:
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_table(client, NAME, {"GSI1": ("GSI1PK", "GSI1SK"), "ByTag": ("ByTagPK", "ByTagSK")})
        resource = boto3.resource("dynamodb", region_name="us-east-1").Table(NAME)
        yield {
            "client": client,
            "forms": {
                "client": Table(client, POST, table_name=NAME),
                "resource": Table(resource, POST),
                "resource client": Table(resource.meta.client, POST, table_name=NAME),
            },
        }


def stored(aws: dict[str, Any]) -> int:
    return int(aws["client"].scan(TableName=NAME, Select="COUNT")["Count"])


def clear(aws: dict[str, Any]) -> None:
    for item in aws["client"].scan(TableName=NAME)["Items"]:
        aws["client"].delete_item(TableName=NAME, Key={"PK": item["PK"], "SK": item["SK"]})


FORMS = ["client", "resource", "resource client"]


# --- values DynamoDB cannot store: refused by name, in every client form -----------------

BAD_VALUES = [
    (1.5, InvalidType),
    (float("nan"), InvalidType),
    (Decimal("NaN"), InvalidType),
    (Decimal("Infinity"), InvalidType),
    (Decimal("1." + "1" * 45), InvalidValue),
    (Decimal("1e200"), InvalidValue),
    (set(), InvalidValue),
    ({"nested": set()}, InvalidValue),
    ([1, {"deep": 0.5}], InvalidType),
    (object(), InvalidType),
]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(("value", "error"), BAD_VALUES, ids=[repr(v)[:20] for v, _ in BAD_VALUES])
def test_values_dynamodb_cannot_store_are_refused_by_attribute(
    aws: dict[str, Any], form: str, value: object, error: type[Exception]
) -> None:
    table = aws["forms"][form]
    before = stored(aws)
    with pytest.raises(error, match="attribute 'extra'"):
        table.put_new({**POST.keys(org="acme"), "extra": value})
    writer = table.batch_writer()
    with pytest.raises(error, match="attribute 'extra'"):
        writer.put({**POST.keys(org="acme"), "extra": value})
    writer.flush()
    assert writer.pending == [] and stored(aws) == before  # nothing queued, nothing written


@pytest.mark.parametrize("form", FORMS)
def test_storable_values_round_trip(aws: dict[str, Any], form: str) -> None:
    table = aws["forms"][form]
    item = {**POST.keys(org="rt"), "n": Decimal("1.25"), "tags": {"a"}, "b": b"\x00", "e": ""}
    table.put_new(item)
    (got,) = [i for i in table.query_window(org="rt") if i["SK"] == item["SK"]]
    assert {k: got[k] for k in item} == item


# --- a whole item must hold its non-sparse index keys -----------------------------------


def test_put_new_refuses_an_item_missing_a_non_sparse_index(aws: dict[str, Any]) -> None:
    table = aws["forms"]["client"]
    key = POST.key(org="acme", id=POST.new_id())  # the table key only: GSI1 would miss it
    before = stored(aws)
    with pytest.raises(KeyMismatch, match="GSI1"):
        table.put_new(key)
    with pytest.raises(KeyMismatch, match="GSI1"), table.batch_writer() as writer:
        writer.put(key)
    assert writer.pending == [] and stored(aws) == before


def test_a_sparse_index_may_be_left_out_and_deletes_need_the_key_only(aws: dict[str, Any]) -> None:
    table = aws["forms"]["resource"]
    item = POST.keys(org="sparse")  # no tag: ByTag (sparse) is left out
    assert "ByTagPK" not in item
    table.put_new(item)
    assert [i["SK"] for i in table.query_window(org="sparse", index="GSI1")] == [item["SK"]]
    with table.batch_writer() as writer:
        writer.delete(POST.key(org="sparse", id=POST.parse(item)["id"]))
    assert list(table.query_window(org="sparse")) == []


def test_the_async_twin_refuses_an_item_missing_a_non_sparse_index() -> None:
    async def put() -> None:
        async with get_session().create_client(
            "dynamodb",
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        ) as client:  # nothing is sent: the item is refused first
            table = AsyncTable(client, POST, table_name=NAME)
            key = POST.key(org="acme", id=POST.new_id())
            with pytest.raises(KeyMismatch, match="GSI1"):
                await table.put_new(key)
            writer = table.batch_writer()
            with pytest.raises(KeyMismatch, match="GSI1"):
                await writer.put(key)
            assert writer.pending == []

    asyncio.run(put())


# --- after= of another partition ---------------------------------------------------------


@pytest.mark.parametrize("index", [None, "GSI1"])
def test_after_an_item_of_another_partition_is_refused(aws: dict[str, Any], index: Any) -> None:
    clear(aws)
    table = aws["forms"]["client"]
    ids = [ulid_at(T0 + i, i) for i in range(4)]
    for org in ("acme", "zeta"):
        for ulid in ids:
            table.put_new(POST.keys(org=org, id=ulid))
    theirs = POST.keys(org="zeta", id=ids[2])
    mine_sk = POST.key(org="acme", id=ids[1])["SK"]
    with pytest.raises(InvalidQuery, match="org='zeta'"):
        list(table.query_window(T0, T0 + 10, org="acme", index=index, after=theirs))
    with pytest.raises(InvalidQuery, match="org='zeta'"):
        list(table.query_window(T0, T0 + 10, org="acme", after=POST.key(org="zeta", id=ids[2])))
    for pk in (5, None, {"N": "5"}, "Org#acme#x", "Feed#acme"):  # no item of Post holds it
        with pytest.raises(InvalidQuery, match="no Post item holds"):
            list(table.query_window(T0, T0 + 10, org="acme", after={"PK": pk, "SK": mine_sk}))
    # its own item, its key or a bare id resume just past it
    mine = POST.keys(org="acme", id=ids[1])
    for after in (mine, POST.key(org="acme", id=ids[1]), ids[1]):
        listed = table.query_window(T0, T0 + 10, org="acme", index=index, after=after)
        assert [POST.parse(item)["id"] for item in listed] == ids[2:]


# --- batch writer options and requests ---------------------------------------------------


@pytest.mark.parametrize(
    ("options", "error", "name"),
    [
        ({"max_attempts": 0}, InvalidValue, "max_attempts"),
        ({"max_attempts": 1.5}, InvalidType, "max_attempts"),
        ({"base_delay": -1}, InvalidValue, "base_delay"),
        ({"base_delay": float("nan")}, InvalidValue, "base_delay"),
        ({"max_delay": float("inf")}, InvalidValue, "max_delay"),
        ({"max_delay": "1"}, InvalidType, "max_delay"),
        ({"key_attrs": ()}, InvalidValue, "key_attrs"),
        ({"key_attrs": ("PK", "PK")}, InvalidValue, "key_attrs"),
        ({"key_attrs": ("PK", "SK", "X")}, InvalidValue, "key_attrs"),
        ({"key_attrs": "PK"}, InvalidValue, "key_attrs"),
        ({"key_attrs": ("PK", 5)}, InvalidValue, "key_attrs"),
        ({"key_attrs": ("PK", [])}, InvalidValue, "key_attrs"),
    ],
)
def test_batch_writer_options_out_of_range_are_refused(
    aws: dict[str, Any], options: dict[str, Any], error: type[Exception], name: str
) -> None:
    target = Target.resolve(aws["client"], NAME)
    with pytest.raises(error, match=f"{name}="):
        BatchWriter(target, **{"key_attrs": ("PK", "SK"), **options})


@pytest.mark.parametrize("verb", ["put", "delete"])
@pytest.mark.parametrize(
    ("request_", "error"),
    [({"PK": "a"}, InvalidKeyField), ({"SK": "b"}, InvalidKeyField), ("PK", InvalidType)],
)
def test_batch_requests_without_the_table_key_are_refused_before_queueing(
    aws: dict[str, Any], verb: str, request_: Any, error: type[Exception]
) -> None:
    writer = BatchWriter(Target.resolve(aws["client"], NAME), key_attrs=("PK", "SK"))
    with pytest.raises(error):
        getattr(writer, verb)(request_)
    assert writer.pending == []


def test_a_table_with_a_partition_key_only_still_batches(aws: dict[str, Any]) -> None:
    client = aws["client"]
    client.create_table(
        TableName="hash-only",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    with BatchWriter(Target.resolve(client, "hash-only"), key_attrs=["id"]) as writer:
        writer.put({"id": "a", "n": 1})
        writer.delete({"id": "a"})
        writer.put({"id": "b"})
    assert client.scan(TableName="hash-only")["Count"] == 1


@pytest.mark.parametrize(
    "call",
    [
        lambda c: Table(c, POST, table_name=NAME, fast_pages="no"),
        lambda c: Table(c, POST, table_name=NAME).query_window(org="a", split="no"),
    ],
)
def test_flags_given_as_text_are_refused(aws: dict[str, Any], call: Any) -> None:
    with pytest.raises(InvalidType, match="must be a bool"):
        call(aws["client"])


# --- a partition full of items that do not fit: every answer is the brute-force one ------

ULID_RE = re.compile(r"Post#([0-7][0-9A-HJKMNP-TV-Z]{25})")


def hostile_items() -> list[dict[str, str]]:
    """Posts at the edges of time and of the test windows, and beside each the lookalikes a
    single table collects: children, other entities, lowercase or overflowing ids, a longer
    name that starts with the template's, neighbouring partitions."""
    items = []
    for ms in (0, 1, T0 - 1, T0, T0 + 1, T0 + DAY - 1, T0 + DAY, MAX_MS - 1, MAX_MS):
        for random_bits in (0, 2**80 - 1):
            ulid = ulid_at(ms, random_bits)
            sks = ["Post#" + ulid, "Post#" + ulid.lower(), "Post#8" + ulid[1:]]
            sks += ["Post#" + ulid + "#Comment#" + ulid, "Post#" + ulid + "#", "Posts#" + ulid]
            sks += ["Post#" + ulid[:25], "Post#" + ulid + "Z", "Comment#" + ulid, "Post##" + ulid]
            for pk, sk in [("Org#acme", sk) for sk in sks] + [("Org#acme2", "Post#" + ulid)]:
                items.append({"PK": pk, "SK": sk, "GSI1PK": "Feed#" + pk[4:], "GSI1SK": sk})
    return [*items, {"PK": "Org#acme", "SK": "Post"}, {"PK": "Org#acme", "SK": "Post#\U0010ffff"}]


def sks(
    table: Table, start: int, end: int, index: str | None, attr: str, **options: Any
) -> list[str]:
    """The sort keys (``attr``) ``query_window`` lists for org acme."""
    listed = table.query_window(start, end, org="acme", index=index, **options)
    return [item[attr] for item in listed]


# ~430 Query calls on moto, whose index queries sort the table each time; the same edges drawn at
# random in the loop: test_random_hostile_partitions_query_the_brute_force_answer
@pytest.mark.slow
def test_windows_of_a_hostile_partition_are_the_brute_force_answer() -> None:
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_table(client, PARTITION, {"GSI1": ("GSI1PK", "GSI1SK")})
        put_items(client, hostile_items(), PARTITION)
        scanned = Table(client, POST, table_name=PARTITION).target
        every = [scanned.to_plain(i) for i in client.scan(TableName=PARTITION)["Items"]]
        table = Table(client, POST, table_name=PARTITION)

        def brute(start: int, end: int, attr: str) -> list[str]:
            pk_attr, pk = ("PK", "Org#acme") if attr == "SK" else ("GSI1PK", "Feed#acme")
            fits = [i[attr] for i in every if i.get(pk_attr) == pk and i.get(attr)]
            fits = [sk for sk in fits if ULID_RE.fullmatch(sk)]
            return sorted(sk for sk in fits if start <= ULID(sk[5:]).timestamp_ms < end)

        assert len(brute(0, MAX_MS + 1, "SK")) == len(brute(0, MAX_MS + 1, "GSI1SK")) == 18
        windows = [(0, MAX_MS + 1), (T0, T0 + 1), (T0, T0 + DAY), (T0 - 1, T0 + DAY + 1)]
        for start, end in [*windows, (MAX_MS, MAX_MS + 1), (T0 + 1, T0 + 1)]:
            for index, attr in ((None, "SK"), ("GSI1", "GSI1SK")):
                expected = brute(start, end, attr)

                window = (table, start, end, index, attr)
                assert sks(*window) == sks(*window, split=True) == expected
                assert sks(*window, page_size=2) == expected
                assert sks(*window, newest_first=True, page_size=3) == expected[::-1]
                assert sks(*window, limit=2, newest_first=True) == expected[::-1][:2]
                newest = table.latest(3, since=start, until=end, org="acme", index=index)
                assert [item[attr] for item in newest] == expected[::-1][:3]


_tables = itertools.count()


@settings(max_examples=examples(8), deadline=None)
@given(
    seed=st.integers(0, 2**32),
    share=st.floats(0.05, 1.0),
    edges=st.lists(st.sampled_from([0, 1, T0 - 1, T0, T0 + 1, T0 + DAY, MAX_MS]), min_size=2),
    n=st.integers(0, 5),
    newest_first=st.booleans(),
)
def test_random_hostile_partitions_query_the_brute_force_answer(
    seed: int, share: float, edges: list[int], n: int, newest_first: bool
) -> None:
    rng = random.Random(seed)
    chosen = [item for item in hostile_items() if rng.random() < share]
    start, end = min(edges), max(edges)
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        name = f"hostile-{next(_tables)}"
        create_table(client, name, {"GSI1": ("GSI1PK", "GSI1SK")})
        put_items(client, chosen, name)
        table = Table(client, POST, table_name=name)
        every = [table.target.to_plain(i) for i in client.scan(TableName=name)["Items"]]
        expected = sorted(
            i["SK"]
            for i in every
            if i["PK"] == "Org#acme"
            and ULID_RE.fullmatch(i["SK"])
            and start <= ULID(i["SK"][5:]).timestamp_ms < end
        )
        got = sks(table, start, end, None, "SK", newest_first=newest_first, page_size=3)
        assert got == (expected[::-1] if newest_first else expected)
        newest = table.latest(n, since=start, until=end, org="acme")
        assert [item["SK"] for item in newest] == expected[::-1][:n]


@pytest.mark.parametrize("piece", ["x", None, {"index": 0}])
def test_query_slice_refuses_what_is_not_a_slice(aws: dict[str, Any], piece: object) -> None:
    with pytest.raises(InvalidType, match="piece="):
        aws["forms"]["client"].query_slice(piece, org="acme")
