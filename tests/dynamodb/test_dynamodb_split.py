"""Time-split Query windows on one partition (``query_window(split=True)``) against moto: the
answer is the brute-force one with slice edges everywhere (tiny pages, items of one
millisecond on both sides of an edge, children that are skipped), resumes from cursors taken
mid-split, and reads past a cut at most what the page in flight there held.
"""

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
from test_dynamodb_support import (
    RecordingClient,
    brute_force,
    create_table,
    delete_items,
    plain,
    put_items,
    ulid_at,
)

from ulidkeys.dynamodb import Entity, Table
from ulidkeys.ulid import ULID

TABLE = "split"
HOUR = 3_600_000
T0 = 1_700_000_000_000 - 1_700_000_000_000 % HOUR
POST = Entity(pk="Org#{org}", sk="Post#{id}")
_orgs = itertools.count()


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with mock_aws():
        made = boto3.client("dynamodb", region_name="us-east-1")
        create_table(made, TABLE)
        yield made


def put_all(client: Any, items: list[dict[str, Any]]) -> None:
    """Straight into the table (children too: an entity's writer refuses them)."""
    put_items(client, items, TABLE)


@st.composite
def bunched(draw: st.DrawFn) -> tuple[list[dict[str, Any]], int, int, str]:
    """Items bunched on few milliseconds (several per ms, children among them) and a window
    whose edges sit on those milliseconds."""
    org = f"o{next(_orgs)}"
    spots = draw(st.lists(st.integers(0, 2 * HOUR), min_size=1, max_size=12))
    start = T0 + draw(st.sampled_from(spots)) + draw(st.sampled_from([-1, 0, 1]))
    end = start + draw(st.sampled_from([1, 2, 1000, HOUR, 2 * HOUR]))
    items = {}
    for spot in [*spots, start - T0, end - T0 - 1, end - T0]:
        for kind in draw(st.lists(st.sampled_from(["min", "max", "rand"]), min_size=1, max_size=5)):
            item = POST.keys(org=org, id=ulid_at(T0 + spot, kind))
            items[item["SK"]] = item
            if draw(st.booleans()):  # a child: in the BETWEEN range, skipped
                child = {**item, "SK": item["SK"] + "#Comment#1"}
                items[child["SK"]] = child
    return list(items.values()), start, end, org


@settings(max_examples=examples(30))
@given(bunched(), st.integers(1, 4), st.sampled_from([2, 3, 8]))
def test_split_queries_are_exact(
    client: Any, case: tuple[list[dict[str, Any]], int, int, str], page: int, workers: int
) -> None:
    items, start, end, org = case
    put_all(client, items)
    recording = RecordingClient(client)
    table = Table(recording, POST, table_name=TABLE)
    got = table.query_window(start, end, page_size=page, max_workers=workers, split=True, org=org)
    sort_keys = [item["SK"] for item in got]
    assert sort_keys == brute_force(POST, items, start, end, org=org)
    stats = got.stats
    assert stats.calls == len(recording.exchanges)
    read = recording.sort_keys()
    assert stats.read == len(read) == stats.returned + stats.skipped + stats.outside
    # slices do not overlap: only a page in flight when its slice was cut reads past the
    # cut (the next slice's first keys), and that is counted as read and not returned
    assert len(read) - len(set(read)) <= stats.outside
    delete_items(client, items, TABLE)


@settings(max_examples=examples(20))
@given(bunched(), st.integers(1, 3), st.lists(st.integers(0, 20), max_size=3))
def test_resume_from_a_cursor_taken_mid_split(
    client: Any, case: tuple[list[dict[str, Any]], int, int, str], page: int, stops: list[int]
) -> None:
    items, start, end, org = case
    put_all(client, items)
    table = Table(client, POST, table_name=TABLE)
    got: list[str] = []
    cursor: str | None = None
    for k in [*stops, None]:
        window = (start, end) if cursor is None else (None, None)
        with table.query_window(
            *window, cursor=cursor, page_size=page, max_workers=4, split=True, org=org
        ) as listing:
            got += [item["SK"] for item in itertools.islice(listing, k)]
            cursor = listing.cursor or cursor
    assert got == brute_force(POST, items, start, end, org=org)
    delete_items(client, items, TABLE)


def test_a_window_of_many_pages_is_cut_into_between_ranges(client: Any) -> None:
    """600 items of one partition in pages of 20: cut into BETWEEN sub-ranges; the cut chains'
    next pages end at the cut (trimmed), so only a page in flight at a cut reads past it."""
    org = f"o{next(_orgs)}"
    items = [POST.keys(org=org, id=ULID.new(T0 + i * 6000)) for i in range(600)]
    put_all(client, items)
    recording = RecordingClient(client)
    table = Table(recording, POST, table_name=TABLE)
    got = table.query_window(T0, T0 + HOUR, page_size=20, max_workers=6, split=True, org=org)
    assert [item["SK"] for item in got] == [item["SK"] for item in items]
    ranges = {
        (plain(e.args["ExpressionAttributeValues"][":lo"]), "ExclusiveStartKey" in e.args)
        for e in recording.exchanges
    }
    first_pages = [lo for lo, resumed in ranges if not resumed]
    assert len(first_pages) >= 6  # every worker got a slice
    read = recording.sort_keys()
    assert len(read) == got.stats.read
    cuts = len(first_pages) - 1
    assert len(read) - len(set(read)) <= got.stats.outside <= cuts * 20
    assert got.stats.calls <= 31 + len(first_pages)  # a partial page more per slice

    recording.clear()
    whole = table.query_window(T0, T0 + HOUR, page_size=20, org=org)  # split is off by default
    assert [item["SK"] for item in whole] == [item["SK"] for item in items]
    assert whole.stats.calls in (30, 31)  # AWS ends with an empty page, moto does not
    assert whole.stats.read == whole.stats.returned == 600
    delete_items(client, items, TABLE)


def test_newest_first_and_limits_are_not_split(client: Any) -> None:
    org = f"o{next(_orgs)}"
    items = [POST.keys(org=org, id=ULID.new(T0 + i * 6000)) for i in range(100)]
    put_all(client, items)
    recording = RecordingClient(client)
    table = Table(recording, POST, table_name=TABLE)
    for options in ({"newest_first": True}, {"limit": 70}):
        recording.clear()
        got = list(
            table.query_window(
                T0, T0 + HOUR, page_size=10, max_workers=8, split=True, org=org, **options
            )
        )
        expected = [item["SK"] for item in items]
        if options.get("newest_first"):
            expected.reverse()
        assert [item["SK"] for item in got] == expected[: options.get("limit", 100)]
        assert all(  # one chain: every request after the first continues it
            "ExclusiveStartKey" in e.args for e in recording.exchanges[1:]
        )
    delete_items(client, items, TABLE)
