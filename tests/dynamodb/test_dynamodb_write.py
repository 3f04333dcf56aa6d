"""put_new never overwrites; the batch writer re-sends UnprocessedItems until none are left."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws
from test_dynamodb_support import create_table

from ulidkeys.dynamodb import Entity
from ulidkeys.errors import ItemAlreadyExists, KeyMismatch, UnprocessedItemsLeft
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


@pytest.mark.parametrize("via", ["client", "table"])
def test_put_new_keeps_the_existing_item(aws: dict[str, Any], via: str) -> None:
    keys = POST.keys(org="acme")
    name = TABLE if via == "client" else None
    POST.put_new(aws[via], {**keys, "title": "first"}, table_name=name)
    with pytest.raises(ItemAlreadyExists) as caught:
        POST.put_new(aws[via], {**keys, "title": "second"}, table_name=name)
    assert caught.value.key == keys and "already exists" in str(caught.value)
    assert aws["table"].get_item(Key=keys)["Item"]["title"] == "first"


def test_put_new_refuses_hand_built_keys(aws: dict[str, Any]) -> None:
    with pytest.raises(KeyMismatch):
        POST.put_new(aws["table"], {"PK": "Org#acme", "SK": "post-1"})
    assert aws["table"].scan()["Items"] == []


class Flaky:
    """A client whose BatchWriteItem processes only ``per_call`` requests per call (or none
    for the first ``stalls`` calls) and reports the rest as UnprocessedItems, like AWS under
    throttling."""

    def __init__(self, client: Any, per_call: int, stalls: int = 0) -> None:
        self.client, self.per_call, self.stalls = client, per_call, stalls
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
    with POST.batch_writer(flaky, table_name=TABLE, sleep=delays.append) as writer:
        for n, ulid in enumerate(ids):
            writer.put({**POST.keys(org="acme", id=ulid), "n": n})
    stored = aws["table"].scan()["Items"]
    assert sorted(int(item["n"]) for item in stored) == list(range(60))
    assert max(flaky.sizes) == 25 and writer.retries == len(delays) > 0
    assert 0.05 <= delays[0] <= delays[1]  # backs off further while stalled
    assert all(0 < d <= 5.0 for d in delays)


def test_batch_writer_gives_up_only_when_told_and_loses_nothing(aws: dict[str, Any]) -> None:
    flaky = Flaky(aws["client"], per_call=0, stalls=10**6)
    writer = POST.batch_writer(flaky, table_name=TABLE, sleep=lambda _: None, max_attempts=3)
    items = [{**POST.keys(org="acme"), "n": n} for n in range(5)]
    for item in items:
        writer.put(item)
    with pytest.raises(UnprocessedItemsLeft) as caught:
        writer.flush()
    assert [r["PutRequest"]["Item"] for r in caught.value.requests] == items


def test_batch_writer_flushes_before_a_repeated_key(aws: dict[str, Any]) -> None:
    flaky = Flaky(aws["client"], per_call=25)
    keys = POST.keys(org="acme")
    with POST.batch_writer(flaky, table_name=TABLE) as writer:
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
    writer = POST.batch_writer(broken, table_name=TABLE)
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
    doc = Path(__file__).resolve().parent.parent / "docs" / "dynamodb.md"
    if not doc.exists():
        pytest.skip("docs/dynamodb.md was folded elsewhere")
    code = doc.read_text(encoding="utf-8").split("```python", 1)[1].split("```", 1)[0]
    exec(compile(code, str(doc), "exec"), {"__name__": "docs_example"})
