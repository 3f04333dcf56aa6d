"""The three forms a table can be given in - a ``Table`` resource, the resource's client
(``table.meta.client``) and a plain ``boto3.client("dynamodb")`` - give the same plain items,
in-process (moto) and over HTTP (moto's server).

Regression: the resource's client (which boto3 hooks to serialize plain values) was sent
typed values, serialized them a second time and matched nothing - every query answered empty.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import boto3
import pytest
from faults import moto_server
from moto import mock_aws

from ulidkeys.dynamodb import Entity, Index, Table
from ulidkeys.dynamodb.clients import Target, speaks_plain_values
from ulidkeys.dynamodb.write import TOKEN_ATTRIBUTE
from ulidkeys.errors import ItemAlreadyExists, UnsupportedClient
from ulidkeys.ulid import ULID

TABLE = "forms"
T0 = 1_700_000_000_000
POST = Entity(
    pk="Org#{org}", sk="Post#{id}", gsi={"GSI1": Index(pk="User#{author}", sk="Post#{id}")}
)
HOT = Entity(pk="Hot#{org}#{bucket}#{shard}", sk="Post#{id}", bucket="hour", shards=2)
FORMS = ("table", "resource_client", "client")


@pytest.fixture(scope="module", params=["in_process", "http"])
def aws(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """The three forms of one table, in-process or through moto's HTTP server."""

    def forms(endpoint: str | None) -> dict[str, Any]:
        resource = boto3.resource("dynamodb", region_name="us-east-1", endpoint_url=endpoint)
        table = resource.create_table(**POST.table_definition(TABLE))
        client = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=endpoint)
        return {"table": table, "resource_client": table.meta.client, "client": client}

    if request.param == "in_process":
        with mock_aws():
            yield forms(None)
    else:
        with moto_server() as endpoint:
            yield forms(endpoint)


def bind(aws: dict[str, Any], form: str, entity: Entity = POST) -> Table:
    if form == "table":
        return Table(aws["table"], entity)
    return Table(aws[form], entity, table_name=TABLE)


def test_each_form_is_recognised(aws: dict[str, Any]) -> None:
    assert speaks_plain_values(aws["resource_client"]) is True
    assert speaks_plain_values(aws["client"]) is False
    for form, plain in (("table", True), ("resource_client", True), ("client", False)):
        target = bind(aws, form).target
        assert (target.plain, target.table_name) == (plain, TABLE)
    assert Target.resolve(aws["table"]).client is aws["resource_client"]


@pytest.mark.parametrize("writer", FORMS)
def test_every_form_returns_the_same_plain_items(aws: dict[str, Any], writer: str) -> None:
    org = f"org-{writer}"
    ids = [ULID.new(T0 + n) for n in range(12)]
    with bind(aws, writer).batch_writer() as batch:
        for n, ulid in enumerate(ids):
            batch.put(
                {
                    **POST.keys(org=org, author=f"a-{writer}", id=ulid),
                    "n": n,
                    "price": Decimal("1.25"),
                    "tags": {"x", "y"},
                    "meta": {"depth": [1, "two", None, True]},
                }
            )
    answers = {}
    for form in FORMS:
        posts = bind(aws, form)
        answers[form] = {
            "window": list(posts.query_window(T0 + 2, T0 + 9, org=org)),
            "newest": list(posts.query_window(T0, T0 + 12, newest_first=True, limit=4, org=org)),
            "paged": list(posts.query_window(T0, T0 + 12, page_size=5, org=org)),
            "index": list(posts.query_window(T0, T0 + 12, index="GSI1", author=f"a-{writer}")),
            "latest": list(posts.latest(3, org=org)),
        }
    window = answers["table"]["window"]
    assert [item["n"] for item in window] == list(range(2, 9))  # not empty: the regression
    assert all(type(item["n"]) is Decimal and item["price"] == Decimal("1.25") for item in window)
    assert window[0]["tags"] == {"x", "y"} and window[0]["meta"] == {
        "depth": [Decimal(1), "two", None, True]
    }
    assert [i["n"] for i in answers["table"]["newest"]] == [11, 10, 9, 8]
    assert [i["n"] for i in answers["table"]["paged"]] == list(range(12))
    assert answers["table"]["index"] == answers["table"]["paged"]
    assert [i["n"] for i in answers["table"]["latest"]] == [11, 10, 9]
    assert answers["resource_client"] == answers["client"] == answers["table"]


def test_every_form_resumes_and_fans_out_alike(aws: dict[str, Any]) -> None:
    hour = 3_600_000
    ids = sorted(ULID.new(T0 + n * 1_000_003) for n in range(20))  # over ~6 hours
    with bind(aws, "client", HOT).batch_writer() as batch:
        for ulid in ids:
            batch.put({**HOT.keys(org="hot", id=ulid), "v": 1})
    expected = [f"Post#{ulid}" for ulid in ids]
    for form in FORMS:
        hot = bind(aws, form, HOT)
        first = hot.query_window(T0, T0 + 6 * hour, limit=7, org="hot")
        keys = [item["SK"] for item in first]
        for resumer in FORMS:  # a cursor does not depend on the form that made it
            rest = bind(aws, resumer, HOT).query_window(cursor=first.cursor, org="hot")
            assert keys + [item["SK"] for item in rest] == expected, (form, resumer)


@pytest.mark.parametrize("form", FORMS)
def test_every_form_keeps_existing_items(aws: dict[str, Any], form: str) -> None:
    posts = bind(aws, form)
    keys = POST.keys(org=f"keep-{form}", author="bob")
    posts.put_new({**keys, "n": 1})
    with pytest.raises(ItemAlreadyExists):
        posts.put_new({**keys, "n": 2})
    for reader in FORMS:
        (item,) = bind(aws, reader).query_window(0, "now", org=f"keep-{form}")
        assert isinstance(item.pop(TOKEN_ATTRIBUTE), str)  # put_new's token, beside the item
        assert item == {**keys, "n": Decimal(1)}


def test_query_args_fit_each_form(aws: dict[str, Any]) -> None:
    org = "args"
    with bind(aws, "table").batch_writer() as batch:
        for n in range(5):
            batch.put({**POST.keys(org=org, author="z", id=ULID.new(T0 + n)), "n": n})
    for form in FORMS:
        args = bind(aws, form).query_args(T0 + 1, T0 + 4, org=org)
        client = aws["client"] if form == "client" else aws["resource_client"]
        items = client.query(**args)["Items"]
        numbers = [int(i["n"]["N"]) if form == "client" else int(i["n"]) for i in items]
        assert numbers == [1, 2, 3], form


def test_objects_that_are_no_client_are_refused(aws: dict[str, Any]) -> None:
    for thing in (object(), None, "forms", 42, aws["table"].meta):
        with pytest.raises(UnsupportedClient):
            Table(thing, POST, table_name=TABLE)
    with pytest.raises(UnsupportedClient):  # a client of another service cannot be asked
        Table(boto3.client("s3", region_name="us-east-1"), POST, table_name=TABLE)
