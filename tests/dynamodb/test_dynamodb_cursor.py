"""Resume cursors against moto: stop anywhere, resume with ``cursor=`` alone, and the pieces
add up to the full answer (brute force) - plain, bucketed+sharded and ``Doc#{id}#{lang}``
entities, both directions. A cursor is refused by every other query, and when damaged."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from hypothesis import given
from hypothesis import strategies as st
from moto import mock_aws
from test_dynamodb_support import brute_force, create_table, delete_items, ulid_at

from ulidkeys.dynamodb import Entity, Index, Table
from ulidkeys.errors import InvalidCursor, InvalidType
from ulidkeys.ids import UUID7
from ulidkeys.planning.plans import Cursor
from ulidkeys.ulid import ULID

TABLE = "cursors"
HOUR = 3_600_000
T0 = 1_700_000_000_000 - 1_700_000_000_000 % HOUR  # on an hour boundary
ENTITIES = {
    "plain": Entity(
        pk="Org#{org}", sk="Post#{id}", gsi={"GSI1": Index(pk="Feed#{org}", sk="Post#{id}")}
    ),
    "hot": Entity(pk="Hot#{org}#{bucket}#{shard}", sk="Post#{id}", bucket="hour", shards=3),
    "doc": Entity(pk="Docs#{org}", sk="Doc#{id}#{lang}"),
}
LANGS = ("de", "en", "fr")
_orgs = itertools.count()


@pytest.fixture(scope="module")
def aws() -> Iterator[dict[str, Any]]:
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_table(client, TABLE, {"GSI1": ("GSI1PK", "GSI1SK")})
        table = boto3.resource("dynamodb", region_name="us-east-1").Table(TABLE)
        yield {
            "client": client,
            "table": table,
            "tables": {name: Table(table, entity) for name, entity in ENTITIES.items()},
        }


def store(
    aws: dict[str, Any], name: str, org: str, specs: list[tuple[int, str, int]]
) -> list[dict[str, Any]]:
    """Items of entity ``name`` at the given times; ``extra`` is the number of children
    (plain, hot) or of further languages (doc: one to three items share an id)."""
    entity, table = ENTITIES[name], aws["tables"][name]
    items: dict[str, dict[str, Any]] = {}
    with table.batch_writer() as writer:
        for number, (ms, kind, extra) in enumerate(specs):
            ulid = ulid_at(ms, kind)
            if name == "doc":
                for lang in LANGS[: extra + 1]:
                    item = {**entity.keys(org=org, id=ulid, lang=lang), "n": number}
                    items[item["SK"]] = item
                    writer.put(item)
                continue
            item = {**entity.keys(org=org, id=ulid), "n": number}
            items[item["SK"]] = item
            writer.put(item)
            for child in range(extra):  # children: read by DynamoDB, skipped by the query
                sk = f"{item['SK']}#Like#{child}"
                aws["table"].put_item(Item={"PK": item["PK"], "SK": sk})
                items[sk] = {"PK": item["PK"], "SK": sk}
    return list(items.values())


# times near hour boundaries (where buckets meet) and anywhere in a 3-hour span
moments = st.one_of(
    st.tuples(st.integers(0, 3), st.integers(-2, 2)).map(lambda p: T0 + p[0] * HOUR + p[1]),
    st.integers(T0, T0 + 3 * HOUR),
    st.integers(T0, T0 + 20),
).filter(lambda ms: ms >= T0)


@given(
    name=st.sampled_from(sorted(ENTITIES)),
    specs=st.lists(
        st.tuples(moments, st.sampled_from(["min", "max", "rand"]), st.integers(0, 2)),
        max_size=15,
    ),
    bounds=st.just((T0, T0 + 3 * HOUR + 3)) | st.tuples(moments, moments).map(sorted),
    newest_first=st.booleans(),
    stops=st.lists(st.tuples(st.integers(0, 4), st.booleans()), min_size=1, max_size=4),
    page_size=st.none() | st.integers(1, 3),
)
def test_resuming_from_cursors_loses_and_repeats_nothing(
    aws: dict[str, Any],
    name: str,
    specs: list[tuple[int, str, int]],
    bounds: list[int],
    newest_first: bool,
    stops: list[tuple[int, bool]],
    page_size: int | None,
) -> None:
    """Read k items (by ``limit=k``, or by stopping the iteration), resume from ``.cursor``
    with no window given; again and again, then read the rest."""
    org = f"o{next(_orgs)}"
    items = store(aws, name, org, specs)
    start, end = bounds
    table: Table = aws["tables"][name]
    expected = brute_force(ENTITIES[name], items, start, end, newest_first=newest_first, org=org)
    got: list[Any] = []
    cursor: str | None = None

    def query(limit: int | None = None) -> Any:
        window = (start, end) if cursor is None else (None, None)
        return table.query_window(
            *window,
            newest_first=newest_first,
            limit=limit,
            cursor=cursor,
            page_size=page_size,
            org=org,
        )

    for k, by_limit in stops:
        results = query(k if by_limit else None)
        assert results.cursor is None  # nothing yielded yet
        with results:
            got += [item["SK"] for item in itertools.islice(results, k)]
        if results.cursor is not None:
            position = results.position
            assert position is not None and position[1] == got[-1]
            cursor = results.cursor
    got += [item["SK"] for item in query()]
    assert got == expected
    delete_items(aws["table"], items)


def test_a_cursor_past_the_last_item_resumes_with_nothing(aws: dict[str, Any]) -> None:
    org = f"o{next(_orgs)}"
    store(aws, "doc", org, [(T0 + n, "rand", 2) for n in range(3)])
    docs = aws["tables"]["doc"]
    for newest_first in (False, True):
        results = docs.query_window(T0, T0 + 3, newest_first=newest_first, org=org)
        assert len(list(results)) == 9 and results.cursor is not None
        assert (
            list(docs.query_window(cursor=results.cursor, newest_first=newest_first, org=org)) == []
        )
        # the same window given explicitly is the cursor's own
        same = docs.query_window(
            T0, T0 + 3, cursor=results.cursor, newest_first=newest_first, org=org
        )
        assert list(same) == []


@pytest.fixture(scope="module")
def cursors(aws: dict[str, Any]) -> dict[str, Any]:
    """A few cursors of known queries over ``org="a"`` posts (and ``org="b"``)."""
    for org in ("a", "b"):
        store(aws, "plain", org, [(T0 + n, "rand", 0) for n in range(5)])
    posts = aws["tables"]["plain"]
    forward = posts.query_window(T0, T0 + 5, org="a")
    next(forward)
    backward = posts.query_window(T0, T0 + 5, newest_first=True, org="a")
    next(backward)
    indexed = posts.query_window(T0, T0 + 5, index="GSI1", org="a")
    next(indexed)
    assert None not in (forward.cursor, backward.cursor, indexed.cursor)
    return {
        "posts": posts,
        "forward": forward.cursor,
        "backward": backward.cursor,
        "indexed": indexed.cursor,
        "first": forward.position,
    }


def test_cursors_of_other_queries_are_refused(aws: dict[str, Any], cursors: dict[str, Any]) -> None:
    posts: Table = cursors["posts"]
    forward, backward, indexed = cursors["forward"], cursors["backward"], cursors["indexed"]
    plain = ENTITIES["plain"]
    refused: list[Any] = [
        # another entity (other templates), or the same templates of another id scheme
        lambda: aws["tables"]["doc"].query_window(cursor=forward, org="a"),
        lambda: aws["tables"]["hot"].query_window(cursor=forward, org="a"),
        lambda: Table(
            aws["table"], Entity(pk="Org#{org}", sk="Post#{id}", scheme=UUID7)
        ).query_window(cursor=forward, org="a"),
        lambda: Table(
            aws["table"], Entity(pk="Org#{org}", sk="Post#{id}", sk_attr="S")
        ).query_window(cursor=forward, org="a"),
        # other field values
        lambda: posts.query_window(cursor=forward, org="b"),
        # the index instead of the table, and the other way round
        lambda: posts.query_window(cursor=forward, index="GSI1", org="a"),
        lambda: posts.query_window(cursor=indexed, org="a"),
        # another window
        lambda: posts.query_window(T0, T0 + 6, cursor=forward, org="a"),
        lambda: posts.query_window(T0 + 1, T0 + 5, cursor=forward, org="a"),
        lambda: posts.query_window(T0, cursor=forward, org="a"),  # until: now
        lambda: posts.query_window(since=0, cursor=forward, org="a"),
        # the other direction
        lambda: posts.query_window(cursor=forward, newest_first=True, org="a"),
        lambda: posts.query_window(cursor=backward, org="a"),
        lambda: posts.latest(3, cursor=forward, org="a"),
        lambda: posts.plan_window(cursor=backward, org="a"),
    ]
    for attempt in refused:
        with pytest.raises(InvalidCursor):
            attempt()
    # the listing that made them takes them back
    assert len(list(posts.query_window(cursor=forward, org="a"))) == 4
    assert len(list(posts.query_window(T0, T0 + 5, cursor=forward, org="a"))) == 4
    assert len(list(posts.latest(10, cursor=backward, org="a"))) == 4
    assert len(list(posts.query_window(cursor=indexed, index="GSI1", org="a"))) == 4
    assert plain.scope(plain.table, {"org": "a"}) != plain.scope(plain.table, {"org": "b"})


def _damaged(cursor: str) -> list[str]:
    """Every way a stored cursor gets hurt: cut short, a character changed, text added."""
    alphabet = "AZaz09-_.=+/ é"
    cut = [cursor[:i] for i in range(len(cursor))]
    changed = [
        cursor[:i] + char + cursor[i + 1 :]
        for i in range(len(cursor))
        for char in alphabet
        if char != cursor[i]
    ]
    added = [cursor + tail for tail in ("=", "==", "A", ".", " ", "\n")]
    added += [cursor[:i] + char + cursor[i:] for i in range(0, len(cursor), 3) for char in "A=."]
    return ["", *cut, *changed, *added, "uk1.", "uk2." + cursor[4:], cursor.upper()]


def test_damaged_cursors_raise_invalid_cursor(cursors: dict[str, Any]) -> None:
    posts: Table = cursors["posts"]
    for cursor, newest_first in ((cursors["forward"], False), (cursors["backward"], True)):
        for bad in _damaged(cursor):
            assert bad != cursor
            with pytest.raises(InvalidCursor):
                posts.query_window(cursor=bad, newest_first=newest_first, org="a")
    with pytest.raises(InvalidCursor):
        posts.latest(3, cursor=cursors["forward"][:-1], org="a")
    with pytest.raises(InvalidType):
        posts.query_window(cursor=5, org="a")  # type: ignore[arg-type]


def test_well_formed_cursors_that_end_at_no_key_of_the_query_are_refused(
    cursors: dict[str, Any],
) -> None:
    """Cursors of the right scope, direction and window, made by hand: their last item must
    be a key the query can return, or the resume point would be anywhere."""
    posts: Table = cursors["posts"]
    entity = posts.entity
    scope = entity.scope(entity.table, {"org": "a"})
    start, end = T0, T0 + 5
    good = ulid_at(T0 + 2, "rand")
    for id_text, key in [
        ("garbage", f"Post#{good}"),
        (str(good).lower(), f"Post#{str(good).lower()}"),  # not canonical
        (str(ULID.from_int(good.int + 1)), f"Post#{good}"),  # the key holds another id
        (str(good), f"Posts#{good}"),  # does not fit the template
        (str(good), f"Post#{good}#Like#1"),  # a child: never returned
        (str(ulid_at(end, "min")), f"Post#{ulid_at(end, 'min')}"),  # outside the window
        (str(ulid_at(start - 1, "max")), f"Post#{ulid_at(start - 1, 'max')}"),
    ]:
        forged = Cursor(scope, False, start, end, (id_text, key)).encode()
        with pytest.raises(InvalidCursor, match="does not end at a key"):
            posts.query_window(cursor=forged, org="a")
    fine = Cursor(scope, False, start, end, (str(good), f"Post#{good}")).encode()
    assert posts.plan_window(cursor=fine, org="a").after == (str(good), f"Post#{good}")
    first = cursors["first"]
    assert Cursor.decode(cursors["forward"]).position == first
