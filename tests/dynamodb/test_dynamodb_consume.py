"""Incremental consumers on DynamoDB (moto, simulated time): every item exactly once despite
clock skew and slow writes, checkpoints in an item with conditional commits (one racer wins),
damaged checkpoint items refused."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from consumesim import MINUTE, Clock, Schedule, Write, writes
from moto import mock_aws

from ulidkeys.dynamodb import DynamoCheckpointStore, Entity, Table
from ulidkeys.engine.consuming import LateArrival, MemoryStore
from ulidkeys.errors import CheckpointConflict, InvalidCheckpoint

T0 = 1_715_936_400_000  # 2024-05-17T09:00:00Z
SINCE = T0 - 10_000
POST = Entity(pk="Org#{org}#{bucket}", sk="Post#{id}", bucket="hour")
CHECKPOINT_KEY = {"PK": "Consumer#feed", "SK": "Checkpoint"}


@pytest.fixture
def table() -> Iterator[Any]:
    with mock_aws():
        resource = boto3.resource("dynamodb", region_name="us-east-1")
        resource.meta.client.create_table(**POST.table_definition("app"))
        yield resource.Table("app")


def setup(resource: Any, made: list[Write]) -> tuple[Table, Schedule]:
    table = Table(resource, POST)

    def arrive(due: list[Write]) -> None:
        with table.batch_writer() as writer:
            for write in due:
                writer.put(POST.keys(org="acme", id=write.id))

    return table, Schedule(made, arrive, Clock(T0))


def test_every_item_exactly_once_with_skew_slow_writes_and_late_ones(table: Any) -> None:
    made = writes(11, T0, T0 + 12 * MINUTE, 1_000, late_share=0.2, late_delay_ms=85_000)
    posts, schedule = setup(table, made)
    store = DynamoCheckpointStore(table, CHECKPOINT_KEY)
    late: list[LateArrival] = []

    def run() -> list[str]:
        consumption = posts.consume(
            store, since=SINCE, now=schedule.clock, on_late=late.append, org="acme"
        )
        ids = [POST.id_of(item) for item in consumption]
        consumption.commit()
        return ids

    delivered = schedule.run_every(T0 + MINUTE, T0 + 16 * MINUTE, run)
    assert sorted(delivered) == sorted(w.id for w in made)  # none lost, none twice
    assert all(items == sorted(items) for items in schedule.runs)
    assert late and all(event.depth_ms <= event.overlap_ms for event in late)


@pytest.mark.parametrize("form", ["resource client", "plain client"])
def test_racing_consumers_on_a_dynamodb_checkpoint_one_wins(table: Any, form: str) -> None:
    posts, schedule = setup(table, writes(12, T0, T0 + 4 * MINUTE, 200))
    client = (
        table.meta.client
        if form == "resource client"
        else boto3.client("dynamodb", region_name="us-east-1")
    )
    store = DynamoCheckpointStore(client, CHECKPOINT_KEY, table_name="app")
    for minutes in (2, 5):  # the first commit (item absent), then a later one
        schedule.advance_to(T0 + minutes * MINUTE)
        a = posts.consume(store, since=SINCE, now=schedule.clock, org="acme")
        b = posts.consume(store, since=SINCE, now=schedule.clock, org="acme")
        got_a, got_b = list(a), list(b)
        assert got_a == got_b and got_a
        a.commit()
        with pytest.raises(CheckpointConflict, match="another consumer"):
            b.commit()
        assert list(posts.consume(store, now=schedule.clock, org="acme")) == []


def test_a_crash_before_commit_redelivers_exactly_the_uncommitted(table: Any) -> None:
    posts, schedule = setup(table, writes(13, T0, T0 + 4 * MINUTE, 300))
    store = MemoryStore()
    schedule.advance_to(T0 + 2 * MINUTE)
    first = posts.consume(store, since=SINCE, now=schedule.clock, org="acme")
    committed = {POST.id_of(item) for item in first}
    first.commit()
    schedule.advance_to(T0 + 5 * MINUTE)
    crashed = [POST.id_of(i) for i in posts.consume(store, now=schedule.clock, org="acme")]
    again = [POST.id_of(i) for i in posts.consume(store, now=schedule.clock, org="acme")]
    assert crashed == again and crashed and not committed & set(crashed)


def test_damaged_or_foreign_checkpoint_items_are_refused(table: Any) -> None:
    posts, schedule = setup(table, writes(14, T0, T0 + MINUTE, 20))
    schedule.advance_to(T0 + 2 * MINUTE)
    store = DynamoCheckpointStore(table, CHECKPOINT_KEY)
    run = posts.consume(store, since=SINCE, now=schedule.clock, org="acme")
    list(run)
    run.commit()
    good = table.get_item(Key=CHECKPOINT_KEY)["Item"]
    # another org is another listing: its consumer must not take this checkpoint
    with pytest.raises(InvalidCheckpoint, match="another listing"):
        posts.consume(store, now=schedule.clock, org="other")
    body = json.loads(good["checkpoint"])
    for damage in (
        {"checkpoint": "{"},
        {"checkpoint": json.dumps({**body, "ulidkeys_checkpoint": 99})},
        {"checkpoint": 5},
        {"sequence": 7},
    ):
        table.put_item(Item={**good, **damage})
        with pytest.raises(InvalidCheckpoint):
            posts.consume(store, now=schedule.clock, org="acme")
