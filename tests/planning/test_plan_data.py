"""Plans are plain data: made twice from the same inputs they compare equal, they print without
a closure in sight, and a pickled plan (shipped to a worker) reads keys, slices and re-plans
exactly like the original - for S3 windows, S3 folder listings and DynamoDB queries."""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Callable
from typing import Any

import pytest

from ulidkeys.dynamodb import Entity, Index
from ulidkeys.errors import InvalidSlice, InvalidType, InvalidValue
from ulidkeys.ids import KSUID, TWITTER_SNOWFLAKE, UUID7
from ulidkeys.planning.listings import plan_folders, plan_listing
from ulidkeys.planning.periods import Period
from ulidkeys.planning.plans import Plan
from ulidkeys.planning.queries import QueryWindow, plan_query
from ulidkeys.s3 import KeyLayout
from ulidkeys.ulid import ULID

HOUR = 3_600_000
T0 = 1_715_936_400_000  # 2024-05-17T09:00:00Z

PLANNERS: dict[str, Callable[[], Plan[Any]]] = {
    "s3-flat": lambda: plan_listing(KeyLayout(prefix="up/", suffix=".jpg"), T0, T0 + HOUR),
    "s3-shards-hours": lambda: plan_listing(
        KeyLayout(prefix="up/", shards=4, period="hour"), T0, T0 + 3 * HOUR, expected_keys=50
    ),
    "s3-directory": lambda: plan_listing(
        KeyLayout(prefix="d/", period="hour"), T0, T0 + HOUR, directory_bucket=True
    ),
    "s3-ksuid-newest-first": lambda: plan_listing(
        KeyLayout(prefix="k/", scheme=KSUID, newest_first=True), T0, T0 + HOUR
    ),
    "s3-folders": lambda: plan_folders(
        KeyLayout(prefix="f/", shards=2, period="hour"), T0, T0 + HOUR, Period("day")
    ),
    "dynamodb-buckets-shards": lambda: plan_query(
        Entity(pk="Org#{org}#{bucket}#{shard}", sk="Post#{id}", bucket="hour", shards=3),
        QueryWindow(T0, T0 + 2 * HOUR, fields={"org": "acme"}),
    ),
    "dynamodb-gsi-newest-first": lambda: plan_query(
        Entity(
            pk="Org#{org}",
            sk="Post#{id}",
            scheme=UUID7,
            gsi={"GSI1": Index(pk="User#{user}", sk="Post#{id}")},
        ),
        QueryWindow(T0, T0 + HOUR, index="GSI1", newest_first=True, fields={"user": "u1"}),
    ),
    "dynamodb-number-sk": lambda: plan_query(
        Entity(pk="Org#{org}", sk="{id}", scheme=TWITTER_SNOWFLAKE, numeric_sk=True),
        QueryWindow(T0, T0 + HOUR, fields={"org": "acme"}),
    ),
}


@pytest.fixture(params=sorted(PLANNERS))
def make(request: pytest.FixtureRequest) -> Callable[[], Plan[Any]]:
    return PLANNERS[request.param]


def test_plans_made_twice_compare_equal(make: Callable[[], Plan[Any]]) -> None:
    assert make() == make()
    assert repr(make()) == repr(make())


def test_a_plan_holds_no_callable(make: Callable[[], Plan[Any]]) -> None:
    plan = make()
    for item in dataclasses.fields(plan):
        if item.compare:  # the compared fields are the plan; _locate is a cache of strategy's
            assert not callable(getattr(plan, item.name)), item.name
    strategy_fields = dataclasses.fields(plan.strategy)
    assert all(not callable(getattr(plan.strategy, f.name)) for f in strategy_fields if f.compare)
    assert "<function" not in repr(plan) and "<lambda" not in repr(plan)


def test_a_pickled_plan_is_the_same_plan(make: Callable[[], Plan[Any]]) -> None:
    plan = make()
    shipped = pickle.loads(pickle.dumps(plan))
    assert shipped == plan
    assert shipped.explain() == plan.explain()
    # it reads keys as the original does (its cached locate is made again on arrival)
    for call in plan.calls:
        for key in (getattr(call, "prefix", None), getattr(call, "stop_at", None)):
            if isinstance(key, str):
                assert shipped.judge(key) == plan.judge(key)


def test_a_pickled_plan_slices_and_replans_like_the_original() -> None:
    for name in ("s3-flat", "s3-shards-hours", "dynamodb-buckets-shards"):
        plan = PLANNERS[name]()
        shipped = pickle.loads(pickle.dumps(plan))
        pieces = plan.slices(4)
        assert shipped.slices(4) == pieces
        for piece in pieces:
            assert shipped.slice_plan(piece) == plan.slice_plan(piece)
        call = plan.calls[0]
        if plan.strategy.splittable:
            cut = shipped.strategy.slice_call(call, T0 + 60_000, T0 + 120_000)
            assert cut == plan.strategy.slice_call(call, T0 + 60_000, T0 + 120_000)


def test_keys_read_the_same_through_a_shipped_s3_plan() -> None:
    layout = KeyLayout(prefix="up/", shards=4, period="hour", suffix=".jpg")
    plan = plan_listing(layout, T0, T0 + HOUR)
    shipped = pickle.loads(pickle.dumps(plan))
    verdicts = []
    for ms in (T0 - 1, T0, T0 + HOUR - 1, T0 + HOUR):
        key = layout.key_for(ULID.min_for(ms))
        assert shipped.judge(key) == plan.judge(key)
        verdicts.append(plan.judge(key))
    assert verdicts[0] == verdicts[3] == "outside" and all(
        isinstance(v, tuple) for v in verdicts[1:3]
    )
    assert shipped.judge("up/junk.txt") == plan.judge("up/junk.txt") == "skip"


def test_entities_and_schemes_are_values() -> None:
    def declare() -> Entity:
        return Entity(pk="Org#{org}#{bucket}", sk="Post#{id}", bucket="day", scheme=KSUID)

    assert declare() == declare() and hash(declare()) == hash(declare())
    assert declare() != Entity(pk="Org#{org}#{bucket}", sk="Post#{id}", bucket="hour")
    assert pickle.loads(pickle.dumps(KSUID)) == KSUID
    assert KSUID != UUID7


def test_plan_slice_is_one_workers_share() -> None:
    for name in ("s3-shards-hours", "dynamodb-buckets-shards"):
        plan = PLANNERS[name]()
        pieces = plan.slices(5)
        assert [plan.slice(i, 5) for i in range(5)] == [plan.slice_plan(p) for p in pieces]
        for bad in (-1, 5):
            with pytest.raises(InvalidValue, match=r"index=-?\d .* must be 0 \.\. 4"):
                plan.slice(bad, 5)
        for wrong in (True, "1"):
            with pytest.raises(InvalidType):
                plan.slice(wrong, 5)  # type: ignore[arg-type]
        with pytest.raises(InvalidValue):
            plan.slice(0, 0)
        with pytest.raises(InvalidSlice):  # a plan resumed at a cursor is no whole window
            plan_listing(KeyLayout(), T0, T0 + HOUR, limit=3).slice(0, 2)
