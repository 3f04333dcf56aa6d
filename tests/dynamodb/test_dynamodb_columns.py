"""Pages of columns of a table's queries (``Results.pages(columns=...)``) against the items of
the same query, on moto: the same rows, values, order, stats and cursors over shards, time
buckets, ids inverted in the keys, an index, items that do not fit the template (children,
lookalikes, neighbours), time slices, split windows, limits, newest first, resumed cursors,
and every client form with and without the fast page reader; the id time column against the
time each item was written with; the asked columns checked."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import boto3
import pytest
from columnsupport import assert_same_listing, page_rows
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from moto import mock_aws
from profiles import examples
from test_dynamodb_support import create_table, put_items

from ulidkeys import base32
from ulidkeys.dynamodb import Collection, Entity, Index, Table
from ulidkeys.errors import InvalidType, InvalidValue

NAME = "columns"
#: The module's moto table is shared by every example (it is read, never written).
FIXTURE = [HealthCheck.function_scoped_fixture]
T0 = 1_715_936_400_000
HOUR = 3_600_000
DAY = 24 * HOUR
POST = Entity(pk="Org#{org}", sk="Post#{id}", gsi={"GSI1": Index(pk="Feed#{org}", sk="Post#{id}")})
SHARDED = Entity(pk="Shard#{org}#{shard}", sk="Post#{id}", shards=3, name="Sharded")
BUCKETED = Entity(pk="Day#{org}#{bucket}", sk="Post#{id}", bucket="day", name="Bucketed")
INVERTED = Entity(pk="Inv#{org}", sk="Post#{id}", newest_first_keys=True, name="Inverted")
ENTITIES = {"post": POST, "sharded": SHARDED, "bucketed": BUCKETED, "inverted": INVERTED}
#: Attributes every stored item may hold (``tags`` on some only), a key attribute of the
#: index, the id time, and an attribute no item holds.
COLUMNS = ["PK", "SK", "author", "score", "tags", "ms", "GSI1SK", "id_ms", "nope"]
column_names = st.lists(st.sampled_from(COLUMNS), min_size=1, max_size=5, unique=True)
EDGES = [T0 - DAY, T0 - 1, T0, T0 + 1, T0 + HOUR, T0 + DAY - 1, T0 + DAY, T0 + 2 * DAY]


def ulid_at(ms: int, random_bits: int) -> str:
    return base32.encode_time(ms) + base32.encode_random(random_bits)


#: The posts written, by entity: (id, time, table sort key) - the brute-force answers' source.
WRITTEN: dict[str, list[tuple[str, int, str]]] = {name: [] for name in ENTITIES}


def stored_items() -> list[dict[str, Any]]:
    """Posts of every entity over two days (``ms``: the time of the id they were written
    with), and beside the plain posts the lookalikes a single table holds."""
    rng = random.Random(5)
    items: list[dict[str, Any]] = []
    for name, entity in ENTITIES.items():
        WRITTEN[name].clear()
        for n in range(24):
            ms = T0 - HOUR + rng.randrange(2 * DAY + 2 * HOUR)
            id_text = ulid_at(ms, rng.randrange(1 << 80))
            item = entity.keys(org="acme", id=id_text)
            item.update(author=f"{name}-{n % 7}", score=Decimal(n * 37 % 101), ms=ms)
            if n % 3 == 0:
                item["tags"] = {"a", f"t{n % 4}"}
            items.append(item)
            WRITTEN[name].append((id_text, ms, item["SK"]))
        WRITTEN[name].sort()
    for n in range(8):  # children, other kinds, lowercase ids, neighbours of org acme
        ulid = ulid_at(T0 + n * 5 * HOUR, n)
        for sk in ("Post#" + ulid + "#Comment#1", "Post#" + ulid.lower(), "Posts#" + ulid):
            items.append({"PK": "Org#acme", "SK": sk, "author": "lookalike"})
        items.append({"PK": "Org#acme2", "SK": "Post#" + ulid, "author": "neighbour"})
    return items


@pytest.fixture(scope="module")
def clients() -> Iterator[dict[str, Any]]:
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_table(client, NAME, {"GSI1": ("GSI1PK", "GSI1SK")})
        put_items(client, stored_items(), NAME)
        resource = boto3.resource("dynamodb", region_name="us-east-1").Table(NAME)
        yield {"client": client, "resource": resource}


FORMS = ["client", "resource", "client, botocore parses"]


def table_of(clients: dict[str, Any], form: str, entity: Entity) -> Table:
    if form == "resource":
        return Table(clients["resource"], entity)
    return Table(clients["client"], entity, table_name=NAME, fast_pages=form == "client")


def item_rows(items: list[dict[str, Any]], names: list[str]) -> list[tuple]:
    """The rows the items give: each attribute (None where an item lacks it), and for
    ``id_ms`` the time of the id each item was written with (its ``ms``)."""
    return [tuple(item["ms"] if n == "id_ms" else item.get(n) for n in names) for item in items]


def brute_force(entity: str, start: int, end: int) -> list[str]:
    """The table sort keys of the entity's posts written with a time in the window, in id
    order (no lookalike was written as a post)."""
    return [sk for _id, ms, sk in WRITTEN[entity] if start <= ms < end]


@settings(
    max_examples=examples(30),
    deadline=None,
    suppress_health_check=FIXTURE,
)
@given(
    entity=st.sampled_from(list(ENTITIES)),
    form=st.sampled_from(FORMS),
    edges=st.lists(st.sampled_from(EDGES), min_size=2, max_size=2),
    page_size=st.sampled_from([None, 1, 3, 7]),
    workers=st.sampled_from([1, 3]),
    split=st.booleans(),
    newest_first=st.booleans(),
    limit=st.sampled_from([None, 0, 1, 5, 50]),
    names=column_names,
)
def test_pages_of_columns_are_the_items_of_a_window(
    clients: dict[str, Any],
    entity: str,
    form: str,
    edges: list[int],
    page_size: int | None,
    workers: int,
    split: bool,
    newest_first: bool,
    limit: int | None,
    names: list[str],
) -> None:
    bound = ENTITIES[entity]
    start, end = min(edges), max(edges)
    if split:
        newest_first, limit = False, None  # a split window is oldest first, with no limit
    options = {"newest_first": newest_first, "limit": limit, "page_size": page_size}
    options.update(max_workers=workers, split=split, org="acme")

    def listing() -> Any:
        return table_of(clients, form, bound).query_window(start, end, **options)

    by_items = listing()
    items = list(by_items)
    by_pages = listing()
    pages = list(by_pages.pages(columns=names))
    rows = item_rows(items, names)
    assert_same_listing(by_items, by_pages, rows, pages, names, exact=not split or workers == 1)
    expected = brute_force(entity, start, end)
    expected = expected[::-1] if newest_first else expected
    assert [item["SK"] for item in items] == expected[:limit]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("entity", list(ENTITIES))
def test_every_column_of_every_entity(clients: dict[str, Any], entity: str, form: str) -> None:
    """Every column at once, oldest and newest first, in pages of 4: the id times are the
    ones the items were written with, also where the keys hold the ids inverted."""
    bound = ENTITIES[entity]
    for newest_first in (False, True):
        options = {"org": "acme", "page_size": 4, "newest_first": newest_first}
        by_items = table_of(clients, form, bound).query_window(T0 - DAY, T0 + DAY, **options)
        by_pages = table_of(clients, form, bound).query_window(T0 - DAY, T0 + DAY, **options)
        items = list(by_items)
        assert len(items) > 10
        pages = list(by_pages.pages(COLUMNS))
        assert_same_listing(by_items, by_pages, item_rows(items, COLUMNS), pages, COLUMNS)


@pytest.mark.parametrize("form", FORMS)
def test_pages_of_columns_of_an_index_and_of_latest(clients: dict[str, Any], form: str) -> None:
    table = table_of(clients, form, POST)
    names = ["GSI1SK", "id_ms", "author"]
    for make in (
        lambda: table.query_window(T0, T0 + DAY, org="acme", index="GSI1", page_size=4),
        lambda: table.latest(9, since=T0 - DAY, until=T0 + DAY, org="acme", index="GSI1"),
        lambda: table.latest(9, since=T0 - DAY, until=T0 + DAY, org="acme"),
    ):
        by_items, by_pages = make(), make()
        items = list(by_items)
        assert items
        pages = list(by_pages.pages(names))
        assert_same_listing(by_items, by_pages, item_rows(items, names), pages, names)


@settings(
    max_examples=examples(12),
    deadline=None,
    suppress_health_check=FIXTURE,
)
@given(
    entity=st.sampled_from(["post", "sharded", "bucketed"]),
    n=st.integers(1, 5),
    page_size=st.sampled_from([None, 2, 5]),
    names=column_names,
)
def test_pages_of_columns_of_each_slice(
    clients: dict[str, Any], entity: str, n: int, page_size: int | None, names: list[str]
) -> None:
    bound = ENTITIES[entity]
    table = table_of(clients, "client", bound)
    pieces = table.plan_window(T0, T0 + DAY, org="acme").slices(n)
    listed: list[str] = []
    for piece in pieces:
        options = {"page_size": page_size, "org": "acme", "max_workers": 1}
        by_items = table.query_slice(piece, **options)
        by_pages = table.query_slice(piece, **options)
        items = list(by_items)
        pages = list(by_pages.pages(names))
        assert_same_listing(by_items, by_pages, item_rows(items, names), pages, names)
        listed += [item["SK"] for item in items]
    assert listed == brute_force(entity, T0, T0 + DAY)


@settings(
    max_examples=examples(20),
    deadline=None,
    suppress_health_check=FIXTURE,
)
@given(
    entity=st.sampled_from(list(ENTITIES)),
    page_size=st.sampled_from([1, 2, 5]),
    stops=st.lists(st.integers(0, 4), max_size=4),
    newest_first=st.booleans(),
    names=column_names.map(lambda names: names if "SK" in names else [*names, "SK"]),
)
def test_a_cursor_after_pages_of_columns_resumes_exactly(
    clients: dict[str, Any],
    entity: str,
    page_size: int,
    stops: list[int],
    newest_first: bool,
    names: list[str],
) -> None:
    """Take a few pages, stop, resume from the cursor: together the window, no row twice;
    the cursor is the one the items give after as many rows."""
    bound = ENTITIES[entity]
    table = table_of(clients, "client", bound)
    expected = brute_force(entity, T0 - DAY, T0 + DAY)
    expected = expected[::-1] if newest_first else expected
    options = {"newest_first": newest_first, "page_size": page_size, "org": "acme"}
    got: list[str] = []
    cursor: str | None = None
    for k in stops:
        listing = table.query_window(T0 - DAY, T0 + DAY, cursor=cursor, **options)
        taken = list(itertools.islice(listing.pages(columns=names), k))
        listing.close()
        rows = page_rows(taken, names)
        got += [row[names.index("SK")] for row in rows]
        if rows:
            items = table.query_window(T0 - DAY, T0 + DAY, cursor=cursor, **options)
            with items:
                list(itertools.islice(items, len(rows)))
            assert listing.cursor == items.cursor
        cursor = listing.cursor or cursor
    rest = table.query_window(T0 - DAY, T0 + DAY, cursor=cursor, **options)
    got += [item["SK"] for item in rest]
    assert got == expected


# --- what may be asked -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("columns", "error", "message"),
    [
        ([], InvalidValue, r"names no column"),
        (["SK", "SK"], InvalidValue, r"'SK' twice"),
        (["SK", ""], InvalidValue, r"columns holds '': a column name is an attribute's name"),
        ("SK", InvalidType, r"columns='SK' must be a sequence of column names"),
        ([b"SK"], InvalidType, r"a column name is a str"),
        (["SK", 3], InvalidType, r"columns holds 3: a column name is a str"),
    ],
)
def test_columns_are_checked(
    clients: dict[str, Any], columns: Any, error: type[Exception], message: str
) -> None:
    table = table_of(clients, "client", POST)
    with pytest.raises(error, match=message):
        table.query_window(T0, T0 + HOUR, org="acme").pages(columns=columns)


def test_items_or_pages_not_both_and_collections_give_items(clients: dict[str, Any]) -> None:
    table = table_of(clients, "client", POST)
    listing = table.query_window(T0, T0 + DAY, org="acme")
    assert next(listing)["SK"].startswith("Post#")
    with pytest.raises(InvalidValue, match=r"before the first item"):
        listing.pages(["SK"])
    feed = Collection(POST, Entity(pk="Org#{org}", sk="Comment#{id}", name="Comment"))
    kinds = Table(clients["client"], feed, table_name=NAME)
    with pytest.raises(InvalidValue, match=r"bound to an Entity; a collection's pages hold"):
        kinds.query_window(T0, T0 + DAY, org="acme").pages(["SK"])
    empty = table.query_window(T0 - 3 * DAY, T0 - 2 * DAY, org="acme")
    assert list(empty.pages(["SK", "id_ms"])) == []


def test_stopping_early_closes_the_query(clients: dict[str, Any]) -> None:
    table = table_of(clients, "client", POST)
    listing = table.query_window(T0 - DAY, T0 + DAY, org="acme", page_size=5, split=False)
    pages = listing.pages(["SK"])
    first = next(pages)
    pages.close()
    assert 1 <= len(first["SK"]) <= 5  # a page of 5, lookalikes left out
    assert listing.cursor == listing.cursor_at(
        POST.position_of({"SK": first["SK"][-1], "PK": "Org#acme"}, POST.table)
    )
    assert list(listing) == []  # closed: nothing more
