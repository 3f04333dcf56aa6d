"""Slices of a Query window (``plan.slices(n)``, ``Table.query_slice``) against moto: over hour
buckets and shards, both directions, each slice is its part of the brute-force answer and the
slices together are the window, nothing twice."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from moto import mock_aws
from profiles import examples
from test_dynamodb_support import brute_force, create_table, delete_items, ulid_at

from ulidkeys.dynamodb import Entity, Table
from ulidkeys.errors import InvalidSlice
from ulidkeys.planning.plans import Slice

TABLE = "sliced"
HOUR = 3_600_000
T0 = 1_700_000_000_000 - 1_700_000_000_000 % HOUR
HOT = Entity(pk="Org#{org}#{bucket}#{shard}", sk="Post#{id}", bucket="hour", shards=3)
_orgs = itertools.count()


@pytest.fixture(scope="module")
def table() -> Iterator[Table]:
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_table(client, TABLE)
        yield Table(client, HOT, table_name=TABLE)


@settings(max_examples=examples(8))
@given(
    offset=st.integers(0, 2 * HOUR),
    width=st.integers(0, 2 * HOUR),
    n=st.integers(1, 4),
    newest_first=st.booleans(),
    data=st.data(),
)
def test_slices_of_a_query_window_cover_it_exactly(
    table: Table, offset: int, width: int, n: int, newest_first: bool, data: Any
) -> None:
    org = f"o{next(_orgs)}"
    start, end = T0 + offset, T0 + offset + width
    pieces = HOT.plan_window(start, end, newest_first=newest_first, org=org).slices(n)
    cuts = [pieces[0].start_ms] + [piece.end_ms for piece in pieces]
    near = st.sampled_from([c + d for c in cuts for d in (-1, 0)])
    times = data.draw(st.lists(st.one_of(near, st.integers(T0, T0 + 5 * HOUR)), max_size=12))
    stored = {}
    with table.batch_writer() as writer:
        for ms, kind in itertools.product(set(times), ("min", "max")):
            item = HOT.keys(org=org, id=ulid_at(ms, kind))
            writer.put(item)
            stored[item["SK"]] = item
    items = list(stored.values())
    union = []
    for piece in pieces:
        got = table.query_slice(
            Slice.from_json(piece.to_json()), newest_first=newest_first, org=org
        )
        sort_keys = [item["SK"] for item in got]
        assert sort_keys == brute_force(
            HOT, items, piece.start_ms, piece.end_ms, newest_first=newest_first, org=org
        )
        union += sort_keys
    assert len(union) == len(set(union))
    assert sorted(union) == sorted(brute_force(HOT, items, start, end, org=org))
    delete_items(table.target.client, items, TABLE)


def test_a_slice_of_one_org_is_refused_by_another(table: Table) -> None:
    piece = HOT.plan_window(T0, T0 + HOUR, org="a").slices(2)[0]
    with pytest.raises(InvalidSlice, match="another listing"):
        table.query_slice(piece, org="b")
