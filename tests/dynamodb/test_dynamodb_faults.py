"""DynamoDB writes under faults (issue 14): a PutItem whose reply is lost is retried by
botocore, fails its condition on its own item, and put_new must still report success - through
moto's HTTP server and in-process moto, for every client form."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from faults import lose_replies, moto_server
from moto import mock_aws
from test_dynamodb_support import create_table

from ulidkeys.dynamodb import Entity, Table
from ulidkeys.dynamodb.write import TOKEN_ATTRIBUTE
from ulidkeys.errors import InvalidKeyField, ItemAlreadyExists

TABLE = "faults"
POST = Entity(pk="Org#{org}", sk="Post#{id}")


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with moto_server() as url:
        yield url


@pytest.fixture(params=["server", "in-process"])
def where(request: pytest.FixtureRequest) -> Iterator[str | None]:
    if request.param == "server":
        # in-process moto shares the server's backends and resets them when a mock ends: make
        # the table in every test
        url = request.getfixturevalue("endpoint")
        client = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=url)
        if TABLE not in client.list_tables()["TableNames"]:
            create_table(client, TABLE)
        yield url
        return
    with mock_aws():
        create_table(boto3.client("dynamodb", region_name="us-east-1"), TABLE)
        yield None


def _table(endpoint: str | None, form: str) -> tuple[Table, Any]:
    resource = boto3.resource("dynamodb", region_name="us-east-1", endpoint_url=endpoint)
    if form == "table":
        table = resource.Table(TABLE)
        return Table(table, POST), table.meta.client
    client = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=endpoint)
    return Table(client, POST, table_name=TABLE), client


@pytest.mark.parametrize("form", ["table", "client"])
def test_put_new_survives_a_lost_reply(where: str | None, form: str) -> None:
    table, client = _table(where, form)
    org = uuid.uuid4().hex  # the server's table is shared by the tests of this module
    item = {**POST.keys(org=org), "title": "hello"}
    sent = lose_replies(client, "PutItem")
    written = table.put_new(item)
    assert len(sent) == 2  # the lost put and botocore's retry, which failed its condition
    stored = list(table.query_window(org=org))
    assert len(stored) == 1 and stored[0]["title"] == "hello"
    assert stored[0][TOKEN_ATTRIBUTE] == written[TOKEN_ATTRIBUTE]
    with pytest.raises(ItemAlreadyExists):  # a second call is a real conflict
        table.put_new(item)


def test_a_retried_put_over_another_writers_item_still_conflicts(where: str | None) -> None:
    table, client = _table(where, "client")
    org = uuid.uuid4().hex
    item = {**POST.keys(org=org), "title": "mine"}
    other, _ = _table(where, "table")

    def someone_else_first(**_: Any) -> None:
        if not taken:
            taken.append(other.put_new({**item, "title": "theirs"}))

    taken: list[Any] = []
    # handlers registered first run first: theirs is written before ours is sent
    client.meta.events.register_first("before-send.dynamodb.PutItem", someone_else_first)
    sent = lose_replies(client, "PutItem")
    with pytest.raises(ItemAlreadyExists):
        table.put_new(item)
    assert len(sent) == 2  # lost, then retried: the retry's failed condition is theirs
    assert [i["title"] for i in table.query_window(org=org)] == ["theirs"]


def test_put_new_refuses_an_item_that_sets_the_token() -> None:
    with pytest.raises(InvalidKeyField, match=TOKEN_ATTRIBUTE):
        from ulidkeys.dynamodb.write import put_new

        put_new(None, {TOKEN_ATTRIBUTE: "x"}, key_attrs=("PK", "SK"))  # type: ignore[arg-type]
