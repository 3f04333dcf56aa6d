"""put_new never overwrites; the batch writer re-sends UnprocessedItems until none are left."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws
from test_dynamodb_support import create_table

from ulidkeys.dynamodb import BatchWriter, Entity, Table
from ulidkeys.dynamodb.clients import Target
from ulidkeys.dynamodb.write import TOKEN_ATTRIBUTE
from ulidkeys.errors import (
    ItemAlreadyExists,
    KeyMismatch,
    ServiceError,
    UnprocessedItemsLeft,
    UnsupportedClient,
    UploadConflict,
    WriteConflict,
)
from ulidkeys.ulid import ULID

TABLE = "writes"
POST = Entity(pk="Org#{org}", sk="Post#{id}")


@pytest.fixture
def aws() -> Iterator[dict[str, Any]]:
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_table(client, TABLE)
        table = boto3.resource("dynamodb", region_name="us-east-1").Table(TABLE)
        yield {"client": client, "table": table}


def bind(aws: dict[str, Any], via: str) -> Table:
    """POST bound to the table in one of its three forms."""
    if via == "table":
        return Table(aws["table"], POST)
    client = aws["client"] if via == "client" else aws["table"].meta.client
    return Table(client, POST, table_name=TABLE)


@pytest.mark.parametrize("via", ["client", "table", "resource_client"])
def test_put_new_keeps_the_existing_item(aws: dict[str, Any], via: str) -> None:
    posts = bind(aws, via)
    keys = POST.keys(org="acme")
    written = posts.put_new({**keys, "title": "first", "n": 1})
    assert isinstance(written.pop(TOKEN_ATTRIBUTE), str)  # the item as written, with its token
    assert written == {**keys, "title": "first", "n": 1}
    with pytest.raises(ItemAlreadyExists) as caught:
        posts.put_new({**keys, "title": "second"})
    assert caught.value.key == keys and "already exists" in str(caught.value)
    stored = aws["table"].get_item(Key=keys)["Item"]
    # put_new's own token (it tells a lost reply from a real conflict) is stored beside the item
    assert isinstance(stored.pop(TOKEN_ATTRIBUTE), str)
    assert stored == {**keys, "title": "first", "n": 1}  # written as plain values, every form


def test_write_errors_are_service_errors() -> None:
    assert issubclass(ItemAlreadyExists, WriteConflict) and issubclass(
        UploadConflict, WriteConflict
    )
    assert issubclass(WriteConflict, ServiceError) and issubclass(
        UnprocessedItemsLeft, ServiceError
    )
    assert issubclass(UnsupportedClient, TypeError)


@pytest.mark.parametrize("via", ["client", "table", "resource_client"])
def test_put_new_refuses_hand_built_keys(aws: dict[str, Any], via: str) -> None:
    posts = bind(aws, via)
    with pytest.raises(KeyMismatch):
        posts.put_new({"PK": "Org#acme", "SK": "post-1"})
    with pytest.raises(KeyMismatch), posts.batch_writer() as writer:
        writer.put({"PK": "Org#acme", "SK": "post-1"})
    assert aws["table"].scan()["Items"] == []


class Flaky:
    """A client whose BatchWriteItem processes only ``per_call`` requests per call (or none
    for the first ``stalls`` calls) and reports the rest as UnprocessedItems, like AWS under
    throttling."""

    def __init__(self, client: Any, per_call: int, stalls: int = 0) -> None:
        self.client, self.per_call, self.stalls = client, per_call, stalls
        self.meta = client.meta  # the wrapped client's form (a plain client's: typed values)
        self.sizes: list[int] = []

    def query(self, **args: Any) -> Any:
        return self.client.query(**args)

    def batch_write_item(self, RequestItems: dict[str, list[Any]]) -> dict[str, Any]:
        ((table, requests),) = RequestItems.items()
        self.sizes.append(len(requests))
        if self.stalls:
            self.stalls -= 1
            return {"UnprocessedItems": {table: requests}}
        done, left = requests[: self.per_call], requests[self.per_call :]
        self.client.batch_write_item(RequestItems={table: done})
        return {"UnprocessedItems": {table: left} if left else {}}


def test_batch_writer_retries_until_nothing_is_left(aws: dict[str, Any]) -> None:
    flaky = Flaky(aws["client"], per_call=7, stalls=2)
    delays: list[float] = []
    ids = [ULID.new(1_700_000_000_000 + n) for n in range(60)]
    with Table(flaky, POST, table_name=TABLE).batch_writer(sleep=delays.append) as writer:
        for n, ulid in enumerate(ids):
            writer.put({**POST.keys(org="acme", id=ulid), "n": n})
    stored = aws["table"].scan()["Items"]
    assert sorted(int(item["n"]) for item in stored) == list(range(60))
    assert max(flaky.sizes) == 25 and writer.retries == len(delays) > 0
    assert 0.05 <= delays[0] <= delays[1]  # backs off further while stalled
    assert all(0 < d <= 5.0 for d in delays)


@pytest.mark.parametrize("via", ["client", "resource_client"])
def test_batch_writer_gives_up_only_when_told_and_loses_nothing(
    aws: dict[str, Any], via: str
) -> None:
    client = aws["client"] if via == "client" else aws["table"].meta.client
    flaky = Flaky(client, per_call=0, stalls=10**6)
    posts = Table(flaky, POST, table_name=TABLE)
    writer = posts.batch_writer(sleep=lambda _: None, max_attempts=3)
    items = [{**POST.keys(org="acme"), "n": n} for n in range(5)]
    for item in items:
        writer.put(item)
    with pytest.raises(UnprocessedItemsLeft) as caught:
        writer.flush()
    assert [r["PutRequest"]["Item"] for r in caught.value.requests] == items


def test_batch_writer_flushes_before_a_repeated_key(aws: dict[str, Any]) -> None:
    flaky = Flaky(aws["client"], per_call=25)
    keys = POST.keys(org="acme")
    with Table(flaky, POST, table_name=TABLE).batch_writer() as writer:
        writer.put({**keys, "v": 1})
        writer.put({**POST.keys(org="acme"), "v": 0})
        writer.put({**keys, "v": 2})  # same key again: the first batch goes out first
        writer.delete(POST.keys(org="acme"))  # deleting a missing item is harmless
    assert flaky.sizes == [2, 2]
    assert aws["table"].get_item(Key=keys)["Item"]["v"] == 2


class Broken(Flaky):
    """A client whose first ``failures`` BatchWriteItem calls fail outright (network, auth)."""

    def __init__(self, client: Any, failures: int) -> None:
        super().__init__(client, per_call=25)
        self.failures = failures

    def batch_write_item(self, RequestItems: dict[str, list[Any]]) -> dict[str, Any]:
        if self.failures:
            self.failures -= 1
            raise ConnectionError("connection reset")
        return super().batch_write_item(RequestItems)


def test_batch_writer_keeps_a_failed_batch_valid_for_the_next_flush(aws: dict[str, Any]) -> None:
    """A failed flush keeps its requests; what is queued afterwards must still go out in
    batches of at most 25 distinct keys (AWS refuses more, or a key named twice)."""
    broken = Broken(aws["client"], failures=1)
    writer = Table(broken, POST, table_name=TABLE).batch_writer()
    keys = [POST.keys(org="acme") for _ in range(30)]
    with pytest.raises(ConnectionError):
        for n, key in enumerate(keys[:25]):
            writer.put({**key, "v": n})  # the 25th put flushes, and that call fails
    writer.put({**keys[0], "v": 100})  # a key already waiting: goes out after the first
    for n, key in enumerate(keys[25:], 25):
        writer.put({**key, "v": n})
    writer.flush()
    assert max(broken.sizes) <= 25
    stored = {item["SK"]: int(item["v"]) for item in aws["table"].scan()["Items"]}
    assert stored == {key["SK"]: 100 if n == 0 else n for n, key in enumerate(keys)}


def test_the_documented_example_runs() -> None:
    """docs/dynamodb.md's example is real code: run it (it brings its own moto mock)."""
    doc = Path(__file__).resolve().parents[2] / "docs" / "dynamodb.md"  # tests/dynamodb/..
    if not doc.exists():
        pytest.skip("docs/dynamodb.md was folded elsewhere")
    code = doc.read_text(encoding="utf-8").split("```python", 1)[1].split("```", 1)[0]
    exec(compile(code, str(doc), "exec"), {"__name__": "docs_example"})


@pytest.mark.parametrize("via", ["client", "table", "resource_client"])
def test_batch_writer_on_a_target_writes_plain_items_from_every_form(
    aws: dict[str, Any], via: str
) -> None:
    """BatchWriter takes a Target; every client form stores the same plain item (the
    resource's client used to be sent typed values it then serialized again)."""
    table_or_client = {
        "client": aws["client"],
        "table": aws["table"],
        "resource_client": aws["table"].meta.client,
    }[via]
    target = Target.resolve(table_or_client, None if via == "table" else TABLE)
    assert target.plain == (via != "client") and target.table_name == TABLE
    keys = POST.keys(org="acme")
    with BatchWriter(target, key_attrs=POST.key_attrs(), check=POST.parse) as writer:
        writer.put({**keys, "n": 7, "tags": ["a"]})
        with pytest.raises(KeyMismatch):
            writer.put({"PK": "Org#acme", "SK": "post-1"})
    assert writer.calls == 1
    assert aws["table"].get_item(Key=keys)["Item"] == {**keys, "n": 7, "tags": ["a"]}
    with BatchWriter(target, key_attrs=POST.key_attrs()) as writer:
        writer.delete(keys)
    assert "Item" not in aws["table"].get_item(Key=keys)


def test_objects_that_are_no_client_are_refused() -> None:
    for thing in (object(), "posts", {"query": None}):
        with pytest.raises(UnsupportedClient):
            Table(thing, POST, table_name=TABLE)
        with pytest.raises(UnsupportedClient):
            Target.resolve(thing, TABLE)

    class QueryOnly:  # has a query method, but no boto3 client to ask about values
        def query(self, **args: Any) -> Any:
            raise AssertionError("never called")

    with pytest.raises(UnsupportedClient):
        Table(QueryOnly(), POST, table_name=TABLE)
