"""What a BatchWriter holds after it raises (issue 14 item 4): a put that raises after its
item was checked has queued it, with every request not known to be written, in ``pending``;
flush() sends them. A put refused for its item queued nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws
from test_dynamodb_support import create_table

from ulidkeys.dynamodb import Entity, Table
from ulidkeys.errors import KeyMismatch, UnprocessedItemsLeft

TABLE = "batches"
POST = Entity(pk="Org#{org}", sk="Post#{id}")


class Faulty:
    """A DynamoDB client whose next ``failures`` BatchWriteItem calls fail (network), or,
    with ``stall``, answer with everything unprocessed."""

    def __init__(self, client: Any) -> None:
        self.client, self.failures, self.stall, self.sizes = client, 0, False, []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)

    def batch_write_item(self, RequestItems: dict[str, list[Any]]) -> dict[str, Any]:
        ((table, requests),) = RequestItems.items()
        self.sizes.append(len(requests))
        assert len(requests) <= 25 and len({str(r) for r in requests}) == len(requests)
        if self.failures:
            self.failures -= 1
            raise ConnectionError("connection reset")
        if self.stall:
            return {"UnprocessedItems": {table: requests}}
        return self.client.batch_write_item(RequestItems=RequestItems)  # type: ignore[no-any-return]


@pytest.fixture
def faulty() -> Iterator[Faulty]:
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_table(client, TABLE)
        yield Faulty(client)


def stored(faulty: Faulty) -> dict[str, int]:
    table = Table(faulty.client, POST, table_name=TABLE)
    return {item["SK"]: int(item["v"]) for item in table.query_window(org="acme")}


def test_a_put_whose_repeated_key_flush_fails_is_queued(faulty: Faulty) -> None:
    writer = Table(faulty, POST, table_name=TABLE).batch_writer()
    first = POST.keys(org="acme")
    writer.put({**first, "v": 1})
    faulty.failures = 1
    with pytest.raises(ConnectionError):
        writer.put({**first, "v": 2})  # the same key: flushes v=1 first, which fails
    assert [r["PutRequest"]["Item"]["v"] for r in writer.pending] == [1, 2]
    writer.flush()
    assert writer.pending == [] and list(stored(faulty).values()) == [2]
    assert faulty.sizes == [1, 1, 1]  # the failed call, then one key per call, in order


def test_a_put_whose_full_batch_flush_fails_is_queued(faulty: Faulty) -> None:
    writer = Table(faulty, POST, table_name=TABLE).batch_writer()
    items = [{**POST.keys(org="acme"), "v": n} for n in range(25)]
    for item in items[:24]:
        writer.put(item)
    faulty.failures = 1
    with pytest.raises(ConnectionError):
        writer.put(items[24])  # the 25th put flushes, and that call fails
    assert [r["PutRequest"]["Item"]["v"] for r in writer.pending] == list(range(25))
    writer.flush()
    assert sorted(stored(faulty).values()) == list(range(25))


def test_a_put_refused_for_its_item_queues_nothing(faulty: Faulty) -> None:
    writer = Table(faulty, POST, table_name=TABLE).batch_writer()
    with pytest.raises(KeyMismatch):
        writer.put({"PK": "Org#acme", "SK": "post-1"})
    assert writer.pending == [] and faulty.sizes == []


def test_unprocessed_items_left_stay_queued(faulty: Faulty) -> None:
    writer = Table(faulty, POST, table_name=TABLE).batch_writer(
        sleep=lambda _: None, max_attempts=2
    )
    items = [{**POST.keys(org="acme"), "v": n} for n in range(3)]
    for item in items:
        writer.put(item)
    faulty.stall = True
    with pytest.raises(UnprocessedItemsLeft) as caught:
        writer.flush()
    assert [r["PutRequest"]["Item"] for r in caught.value.requests] == items
    assert writer.pending == caught.value.requests
    faulty.stall = False
    writer.flush()
    assert sorted(stored(faulty).values()) == [0, 1, 2]
    writer.put(items[0])
    writer.clear()  # taken elsewhere: nothing is sent
    writer.flush()
    assert writer.pending == []
