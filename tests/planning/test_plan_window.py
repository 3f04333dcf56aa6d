"""One ``plan_window`` for both services: the pure ``KeyLayout`` and ``Entity`` make a window's
plan from the time inputs everything else takes, without a client, and the bound ``Bucket`` and
``Table`` hand back exactly that plan (the same parameters, the bucket's kind added)."""

from __future__ import annotations

import inspect
from datetime import datetime, timedelta, timezone

import boto3
import pytest

import ulidkeys.dynamodb
import ulidkeys.s3
from ulidkeys import ULID
from ulidkeys.dynamodb import Entity, Index, Table
from ulidkeys.errors import InvalidCursor, InvalidWindow
from ulidkeys.planning.listings import plan_listing
from ulidkeys.planning.queries import QueryWindow, plan_query
from ulidkeys.s3 import Bucket, KeyLayout

HOUR = 3_600_000
T0 = 1_715_936_400_000  # 2024-05-17T09:00:00Z
SINCE, UNTIL = "2024-05-17T09:00:00Z", "2024-05-17T10:00:00Z"
LAYOUT = KeyLayout("uploads/", shards=4, period="hour", suffix=".jpg")
POST = Entity(
    pk="Org#{org}#{bucket}",
    sk="Post#{id}",
    bucket="hour",
    gsi={"GSI1": Index(pk="User#{author}", sk="Post#{id}")},
)


def s3_client() -> object:
    return boto3.client("s3", region_name="us-east-1")  # made without a request


def test_a_layout_plans_from_every_time_input() -> None:
    expected = plan_listing(LAYOUT, T0, T0 + HOUR)
    at = datetime(2024, 5, 17, 9, tzinfo=timezone.utc)
    assert LAYOUT.plan_window(SINCE, UNTIL) == expected
    assert LAYOUT.plan_window(T0, T0 + HOUR) == expected
    assert LAYOUT.plan_window(at, at + timedelta(hours=1)) == expected
    assert len(expected.calls) == 4  # one chain per shard
    directory = LAYOUT.plan_window(SINCE, UNTIL, directory_bucket=True, max_keys=10)
    assert directory == plan_listing(LAYOUT, T0, T0 + HOUR, directory_bucket=True, max_keys=10)
    with pytest.raises(InvalidWindow):
        LAYOUT.plan_window(UNTIL, SINCE)


def test_a_bucket_hands_back_its_layouts_plan() -> None:
    general = Bucket(s3_client(), "photos", LAYOUT)
    assert general.plan_window(SINCE, UNTIL) == LAYOUT.plan_window(SINCE, UNTIL)
    key = LAYOUT.key_for(ULID.new(at=T0 + 5))
    assert general.plan_window(SINCE, UNTIL, after=key, max_keys=100) == LAYOUT.plan_window(
        SINCE, UNTIL, after=key, max_keys=100
    )
    express = Bucket(s3_client(), "photos--usw2-az1--x-s3", LAYOUT)
    assert express.plan_window(SINCE, UNTIL) == LAYOUT.plan_window(
        SINCE, UNTIL, directory_bucket=True
    )
    assert express.plan_window(SINCE, UNTIL) != general.plan_window(SINCE, UNTIL)


def test_an_entity_plans_from_every_time_input_and_a_table_hands_it_back() -> None:
    expected = plan_query(POST, QueryWindow(T0, T0 + 2 * HOUR, fields={"org": "acme"}))
    assert POST.plan_window(SINCE, "2024-05-17T11:00:00Z", org="acme") == expected
    assert POST.plan_window(T0, T0 + 2 * HOUR, org="acme") == expected
    assert len(expected.calls) == 2  # one partition per hour bucket
    client = boto3.client("dynamodb", region_name="us-east-1")
    posts = Table(client, POST, table_name="app")
    options = {"newest_first": True, "limit": 5, "index": "GSI1", "author": "bob"}
    assert posts.plan_window(SINCE, UNTIL, **options) == POST.plan_window(SINCE, UNTIL, **options)
    assert posts.plan_window(SINCE, UNTIL, org="acme") == POST.plan_window(SINCE, UNTIL, org="acme")


def test_a_cursor_alone_resumes_its_window() -> None:
    key = LAYOUT.key_for(ULID.new(at=T0 + 5))
    listing = LAYOUT.plan_window(SINCE, UNTIL)
    cursor = listing.cursor((LAYOUT.parse(key).id, key))
    resumed = LAYOUT.plan_window(cursor=cursor)
    assert (resumed.start_ms, resumed.end_ms) == (T0, T0 + HOUR)
    assert resumed == LAYOUT.plan_window(SINCE, UNTIL, after=key)
    with pytest.raises(InvalidCursor):
        KeyLayout("other/").plan_window(cursor=cursor)  # another layout's listing
    item = POST.keys(org="acme", author="bob", id=ULID.new(at=T0 + 5))
    query = POST.plan_window(SINCE, UNTIL, org="acme")
    position = (POST.id_of(item), item["SK"])
    again = POST.plan_window(cursor=query.cursor(position), org="acme")
    assert (again.start_ms, again.end_ms) == (T0, T0 + HOUR)
    assert again == POST.plan_window(SINCE, UNTIL, after=item, org="acme")


def parameters(function: object) -> list[tuple[str, object, object]]:
    return [
        (p.name, p.kind, p.default)
        for p in inspect.signature(function).parameters.values()  # type: ignore[arg-type]
        if p.name != "self"
    ]


def test_the_bound_objects_take_the_pure_objects_parameters() -> None:
    layout = parameters(KeyLayout.plan_window)
    assert parameters(Bucket.plan_window) == [p for p in layout if p[0] != "directory_bucket"]
    assert parameters(Table.plan_window) == parameters(Entity.plan_window)
    assert [p[0] for p in layout[:2]] == [p[0] for p in parameters(Entity.plan_window)[:2]]


def test_no_module_level_planner_is_exported() -> None:
    # the plans are the objects' (KeyLayout, Entity, Bucket, Table): no second spelling
    assert not hasattr(ulidkeys.s3, "plan_window")
    assert not hasattr(ulidkeys.dynamodb, "plan_window")
