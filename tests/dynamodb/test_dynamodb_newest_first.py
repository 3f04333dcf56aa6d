"""Newest-first sort keys on moto: ``Entity(newest_first_keys=True)`` stores inverted ids, an
ascending Query returns the newest first, windows in either order are exact against brute
force (buckets and shards too), cursors resume, and ``parse`` gives the original id back."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from idsupport import SORTABLE, id_at
from moto import mock_aws
from profiles import examples

from ulidkeys.dynamodb import Entity, Table
from ulidkeys.ids import (
    ULID_SCHEME,
    IdScheme,
)

T0 = 1_715_936_400_000  # 2024-05-17T09:00:00Z
HOUR = 3_600_000
SPAN = 3 * HOUR
SCHEMES = SORTABLE
_names = itertools.count()


@pytest.fixture(scope="module")
def dynamodb() -> Iterator[Any]:
    with mock_aws():
        yield boto3.resource("dynamodb", region_name="us-east-1")


def filled(dynamodb: Any, entity: Entity, ids: list[str]) -> Table:
    table = dynamodb.create_table(**entity.table_definition(f"newest-{next(_names)}"))
    with table.batch_writer() as batch:
        for id_text in ids:
            batch.put_item(Item={**entity.keys(org="acme", id=id_text), "id": id_text})
    return Table(table, entity)


def brute_force(entity: Entity, ids: list[str], start: int, end: int, newest: bool) -> list[str]:
    """Ids in the window in the order their keys hold them: ascending keys are newest first
    (ids of one time unit in key order), and oldest first is that order exactly reversed, so
    ties come in reverse key order (a descending Query; nothing is buffered to re-sort them)."""
    chosen = {i for i in ids if start <= entity.scheme.timestamp_ms(i) < end}
    ordered = sorted(chosen, key=entity.to_key_id)
    return ordered if newest else ordered[::-1]


@pytest.mark.parametrize("scheme", SCHEMES, ids=lambda s: s.name)
# No shrinking: every example fills a moto table, so shrinking takes minutes.
@settings(max_examples=examples(8), deadline=None, phases=[Phase.explicit, Phase.generate])
@given(data=st.data())
def test_windows_are_exact_in_both_orders(dynamodb: Any, scheme: IdScheme, data: Any) -> None:
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    bucket = data.draw(st.sampled_from([None, "hour"]))
    shards = data.draw(st.sampled_from([None, 2]))
    pk = "Org#{org}" + ("#{bucket}" if bucket else "") + ("#{shard}" if shards else "")
    entity = Entity(
        pk=pk, sk="Post#{id}", scheme=scheme, bucket=bucket, shards=shards, newest_first_keys=True
    )
    count = data.draw(st.integers(0, 30))
    ids = [id_at(scheme, T0 + rng.randrange(SPAN), rng) for _ in range(count)]
    table = filled(dynamodb, entity, ids)
    start = T0 + data.draw(st.integers(-HOUR, SPAN))
    end = start + data.draw(st.integers(0, SPAN))
    for newest in (True, False):
        items = table.query_window(start, end, newest_first=newest, org="acme")
        got = [item["id"] for item in items]
        assert got == brute_force(entity, ids, start, end, newest), newest
    n = data.draw(st.integers(0, 4))
    latest = [item["id"] for item in table.latest(n, since=start, until=end, org="acme")]
    assert latest == brute_force(entity, ids, start, end, True)[:n]


@pytest.mark.parametrize("scheme", SCHEMES, ids=lambda s: s.name)
@pytest.mark.parametrize("shards", [None, 2])
def test_ids_of_one_time_unit_come_in_key_order_both_ways_and_resume_inside_a_tie(
    dynamodb: Any, scheme: IdScheme, shards: int | None
) -> None:
    """Ties (six ids of one millisecond, or of one ObjectId/KSUID second) in both orders, with
    a limit that cuts the tie and a cursor that resumes inside it: the rule is the key order
    newest first and exactly its reverse oldest first. Random windows rarely hold a tie, which
    is how an oracle that sorted ties the other way survived until one did."""
    rng = random.Random(11)
    ids = [id_at(scheme, T0 + 500, rng) for _ in range(6)]
    ids += [id_at(scheme, T0 + 5_000, rng) for _ in range(3)]
    pk = "Org#{org}" + ("#{shard}" if shards else "")
    entity = Entity(pk=pk, sk="Post#{id}", scheme=scheme, shards=shards, newest_first_keys=True)
    table = filled(dynamodb, entity, ids)
    end = T0 + 10_000
    for newest in (True, False):
        expected = brute_force(entity, ids, T0, end, newest)
        assert len(expected) == len(set(ids)) == 9
        got = [i["id"] for i in table.query_window(T0, end, newest_first=newest, org="acme")]
        assert got == expected, newest
        first = table.query_window(T0, end, newest_first=newest, limit=4, org="acme")
        head = [i["id"] for i in first]
        rest = table.query_window(cursor=first.cursor, newest_first=newest, org="acme")
        assert head + [i["id"] for i in rest] == expected, newest


def test_keys_hold_inverted_ids_and_parse_gives_the_original(dynamodb: Any) -> None:
    rng = random.Random(5)
    entity = Entity(pk="Org#{org}", sk="Post#{id}", newest_first_keys=True)
    ids = [id_at(ULID_SCHEME, T0 + i * 1000, rng) for i in range(30)]
    key = entity.key(org="acme", id=ids[0])
    assert key["SK"] != "Post#" + ids[0] and len(key["SK"]) == len("Post#" + ids[0])
    assert entity.parse(key)["id"] == ids[0] and entity.id_of(key) == ids[0]
    table = filled(dynamodb, entity, ids)
    first = table.latest(10, since=T0, until=T0 + 60_000, org="acme")
    got = [item["id"] for item in first]
    assert got == sorted(ids, reverse=True)[:10]
    assert first.stats.calls == 1
    cursor = first.cursor
    assert cursor is not None
    rest = [item["id"] for item in table.latest(100, cursor=cursor, org="acme")]
    assert got + rest == sorted(ids, reverse=True)
    after = [i["id"] for i in table.query_window(T0, T0 + 60_000, after=ids[10], org="acme")]
    assert after == sorted(ids)[11:]
    # The query arguments of a window: newest first is a plain ascending Query.
    args = table.query_args(T0 + 5_000, T0 + 10_000, newest_first=True, org="acme")
    assert args.get("ScanIndexForward", True) is True
    items = dynamodb.Table(table.name).query(**args)["Items"]
    assert [item["id"] for item in items] == sorted(ids[5:10], reverse=True)
    args = table.query_args(T0 + 5_000, T0 + 10_000, org="acme")  # oldest first: descending
    assert args["ScanIndexForward"] is False
    assert "newest-first keys" in repr(entity)
