"""Window queries against moto: results == brute force, in order, and DynamoDB reads exactly
the items whose leading ULID is in the window (ScannedCount == Count on every page)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from hypothesis import given, settings
from hypothesis import strategies as st
from moto import mock_aws
from test_dynamodb_support import (
    PageRecorder,
    brute_force,
    create_table,
    leading_ulid,
    ulid_at,
)

from ulidkeys.dynamodb import BatchWriter, Entity, Index, QueryStats
from ulidkeys.errors import InvalidQuery, InvalidWindow
from ulidkeys.ulid import ULID

TABLE = "posts"
T0 = 1_700_000_000_000
POST = Entity(
    pk="Org#{org}",
    sk="Post#{id}",
    gsi={"GSI1": Index(pk="Feed#{org}", sk="Post#{id}")},
)
_orgs = itertools.count()


@pytest.fixture(scope="module")
def aws() -> Iterator[dict[str, Any]]:
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_table(client, TABLE, {"GSI1": ("GSI1PK", "GSI1SK")})
        table = boto3.resource("dynamodb", region_name="us-east-1").Table(TABLE)
        recorder = PageRecorder()
        recorder.attach(client)
        recorder.attach(table.meta.client)
        index_recorder = PageRecorder(sk_attr="GSI1SK")
        index_recorder.attach(client)
        index_recorder.attach(table.meta.client)
        yield {"client": client, "table": table, "rec": recorder, "irec": index_recorder}


def store(client: Any, org: str, specs: list[tuple[int, str, int]]) -> list[dict[str, Any]]:
    """Posts at ``T0 + offset`` (min/max/random ULID of that ms), each with ``n`` children
    (``Post#<ULID>#Comment#<ULID>``), plus items of other types that share the partition."""
    items: dict[str, dict[str, Any]] = {}
    for number, (offset, kind, children) in enumerate(specs):
        post_id = ulid_at(T0 + offset, kind)
        post = {**POST.keys(org=org, id=post_id), "n": number}
        items[post["SK"]] = post
        for child in range(children):
            sk = f"{post['SK']}#Comment#{ULID.new(T0 + offset * child)}"
            items[sk] = {"PK": post["PK"], "SK": sk, "GSI1PK": post["GSI1PK"], "GSI1SK": sk}
    for sk in ("Profile", "Post#", "Post#/", "Post#" + str(ULID.new(T0)).lower(), "Postx#1"):
        items[sk] = {"PK": f"Org#{org}", "SK": sk, "GSI1PK": f"Feed#{org}", "GSI1SK": sk}
    with BatchWriter(client, table_name=TABLE, key_attrs=("PK", "SK")) as writer:
        for item in items.values():
            writer.put(item)
    return list(items.values())


def in_window_keys(items: list[dict[str, Any]], start: int, end: int) -> list[str]:
    """Every sort key (posts and children) whose leading ULID is in the window."""
    keys = []
    for item in items:
        try:
            ms = leading_ulid(item["SK"], "Post#").timestamp_ms
        except Exception:
            continue
        if start <= ms < end:
            keys.append(item["SK"])
    return sorted(keys)


def check_pages(recorder: PageRecorder, start: int, end: int) -> None:
    for page in recorder.pages:
        assert page.scanned == page.count
        for sk in page.sort_keys:
            assert start <= leading_ulid(sk, "Post#").timestamp_ms < end, sk


specs = st.lists(
    st.tuples(st.integers(0, 40), st.sampled_from(["min", "max", "rand"]), st.integers(0, 2)),
    max_size=20,
)


@settings(max_examples=30)
@given(
    specs=specs,
    bounds=st.tuples(st.integers(0, 42), st.integers(0, 42)).map(sorted),
    newest_first=st.booleans(),
    limit=st.none() | st.integers(0, 8),
    page_size=st.none() | st.integers(1, 4),
    via=st.sampled_from(["client", "table"]),
    index=st.sampled_from([None, "GSI1"]),
    after_form=st.sampled_from(["item", "key", "ulid", "text"]),
)
def test_window_equals_brute_force(
    aws: dict[str, Any],
    specs: list[tuple[int, str, int]],
    bounds: list[int],
    newest_first: bool,
    limit: int | None,
    page_size: int | None,
    via: str,
    index: str | None,
    after_form: str,
) -> None:
    org = f"o{next(_orgs)}"
    items = store(aws["client"], org, specs)
    start, end = T0 + bounds[0], T0 + bounds[1]
    recorder = aws["irec"] if index else aws["rec"]
    recorder.clear()
    target = aws[via]
    table_name = TABLE if via == "client" else None

    def query(**extra: Any) -> list[dict[str, Any]]:
        return list(
            POST.query_window(
                target,
                start,
                end,
                newest_first=newest_first,
                index=index,
                page_size=page_size,
                table_name=table_name,
                org=org,
                **extra,
            )
        )

    got = query(limit=limit)
    expected = brute_force(POST, items, start, end, newest_first=newest_first, org=org)
    assert [item["SK"] for item in got] == expected[:limit]
    assert all(isinstance(item["n"], Decimal) for item in got)  # plain values either way
    check_pages(recorder, start, end)
    if limit is None:  # DynamoDB read exactly the window: posts and their children, no more
        assert sorted(recorder.read_keys()) == in_window_keys(items, start, end)
    if end == start:
        assert recorder.pages == []  # an empty window makes no call

    if got and limit is not None:  # resume after the last item seen: nothing lost or repeated
        last = got[-1]
        after: object = {
            "item": last,
            "key": {"PK": last["PK"], "SK": last["SK"], "GSI1SK": last["GSI1SK"]},
            "ulid": ULID.parse(last["SK"][5:]),
            "text": last["SK"][5:].lower(),
        }[after_form]
        recorder.clear()
        rest = query(after=after)
        assert [item["SK"] for item in got + rest] == expected
        check_pages(recorder, start, end)


def test_bounds_exact_at_the_edges(aws: dict[str, Any]) -> None:
    """Items at end_ms (min randomness, with children) are out; at end_ms - 1 (max
    randomness, with children) and at start_ms (min) are in; children are read, not returned."""
    org = f"o{next(_orgs)}"
    specs = [(10, "min", 2), (9, "max", 2), (20, "min", 2), (19, "max", 2), (9, "min", 1)]
    items = store(aws["client"], org, specs)
    recorder = aws["rec"]
    recorder.clear()
    got = list(POST.query_window(aws["table"], T0 + 10, T0 + 20, org=org))
    assert [ULID.parse(g["SK"][5:]) for g in got] == [ULID.min_for(T0 + 10), ULID.max_for(T0 + 19)]
    read = recorder.read_keys()
    assert len(read) == 6  # the two posts and their two children each; nothing else
    assert read == in_window_keys(items, T0 + 10, T0 + 20)
    check_pages(recorder, T0 + 10, T0 + 20)


def test_more_than_one_megabyte_in_one_window(aws: dict[str, Any]) -> None:
    org = f"o{next(_orgs)}"
    big = "x" * 4000
    with POST.batch_writer(aws["client"], table_name=TABLE) as writer:
        for number in range(300):
            writer.put({**POST.keys(org=org, id=ULID.new(T0 + number)), "n": number, "pad": big})
    recorder = aws["rec"]
    recorder.clear()
    stats = QueryStats()
    got = list(POST.query_window(aws["table"], T0, T0 + 300, org=org, stats=stats))
    assert [g["n"] for g in got] == list(range(300))
    assert len(recorder.pages) >= 2 and recorder.pages[0].more  # cut at 1 MB, followed
    assert stats.calls == len(recorder.pages) and stats.scanned == stats.returned == 300


def test_limit_ends_mid_page_and_after_resumes(aws: dict[str, Any]) -> None:
    """With children the page Limit is scaled up, so the limit ends inside a page; the
    items past it were read but not returned, and after= picks up exactly there."""
    org = f"o{next(_orgs)}"
    store(aws["client"], org, [(n, "rand", 2 if n < 3 else 0) for n in range(12)])
    stats = QueryStats()
    first = list(POST.query_window(aws["table"], T0, T0 + 12, org=org, limit=6, stats=stats))
    assert [g["n"] for g in first] == [0, 1, 2, 3, 4, 5]
    assert [(page.scanned, page.kept) for page in stats.pages] == [(6, 2), (10, 8)]
    assert stats.returned == 6 < sum(page.kept for page in stats.pages)  # ended mid-page
    rest = list(POST.query_window(aws["table"], T0, T0 + 12, org=org, after=first[-1]))
    assert [g["n"] for g in rest] == list(range(6, 12))


def test_latest(aws: dict[str, Any]) -> None:
    org = f"o{next(_orgs)}"
    store(aws["client"], org, [(n, "rand", 1) for n in range(10)])
    latest = POST.latest(aws["client"], 3, table_name=TABLE, org=org)
    assert [g["n"] for g in latest] == [9, 8, 7]
    assert POST.latest(aws["table"], 3, index="GSI1", org=org) == latest
    assert POST.latest(aws["table"], 0, org=org) == []


def test_key_condition_and_query_args_select_the_same_items(aws: dict[str, Any]) -> None:
    org = f"o{next(_orgs)}"
    items = store(aws["client"], org, [(n, "min", 1) for n in range(10)])
    condition = POST.key_condition(T0 + 3, T0 + 7, org=org)
    by_resource = aws["table"].query(KeyConditionExpression=condition)["Items"]
    args = POST.query_args(T0 + 3, T0 + 7, org=org)
    by_client = aws["client"].query(TableName=TABLE, **args)["Items"]
    expected = in_window_keys(items, T0 + 3, T0 + 7)
    assert [i["SK"] for i in by_resource] == expected
    assert [i["SK"]["S"] for i in by_client] == expected
    assert set(args) >= {
        "KeyConditionExpression",
        "ExpressionAttributeNames",
        "ExpressionAttributeValues",
    }
    assert all(set(v) == {"S"} for v in args["ExpressionAttributeValues"].values())


def stubbed() -> tuple[Any, Stubber]:
    client = boto3.client("dynamodb", region_name="us-east-1")
    return client, Stubber(client)


def typed_post(ms: int, n: int) -> dict[str, Any]:
    keys = POST.key(org="acme", id=ULID.min_for(ms))
    return {"PK": {"S": keys["PK"]}, "SK": {"S": keys["SK"]}, "n": {"N": str(n)}}


def test_final_empty_page_after_last_evaluated_key() -> None:
    """AWS ends a Query with an empty page when Limit was hit exactly; moto never does."""
    client, stub = stubbed()
    first, second = typed_post(T0 + 1, 1), typed_post(T0 + 2, 2)
    base = POST.query_args(T0, T0 + 10, org="acme")
    stub.add_response(
        "query",
        {"Items": [first, second], "Count": 2, "ScannedCount": 2, "LastEvaluatedKey": second},
        {"TableName": TABLE, **base, "Limit": 2},
    )
    stub.add_response(
        "query",
        {"Items": [], "Count": 0, "ScannedCount": 0},
        {"TableName": TABLE, **base, "Limit": 2, "ExclusiveStartKey": second},
    )
    with stub:
        got = list(
            POST.query_window(client, T0, T0 + 10, table_name=TABLE, page_size=2, org="acme")
        )
        stub.assert_no_pending_responses()
    assert [g["n"] for g in got] == [1, 2]


def test_empty_page_with_more_to_come() -> None:
    client, stub = stubbed()
    later, position = typed_post(T0 + 3, 3), typed_post(T0, 0)
    base = {"TableName": TABLE, **POST.query_args(T0, T0 + 10, org="acme"), "Limit": 1}
    stub.add_response(
        "query",
        {"Items": [], "Count": 0, "ScannedCount": 0, "LastEvaluatedKey": position},
        base,
    )
    stub.add_response(
        "query",
        {"Items": [later], "Count": 1, "ScannedCount": 1},
        {**base, "ExclusiveStartKey": position},
    )
    with stub:
        got = list(POST.query_window(client, T0, T0 + 10, table_name=TABLE, limit=1, org="acme"))
        stub.assert_no_pending_responses()
    assert [g["n"] for g in got] == [3]


def test_empty_window_and_exhausted_after_make_no_call() -> None:
    client, stub = stubbed()  # no responses queued: any call would raise
    with stub:
        assert list(POST.query_window(client, T0, T0, table_name=TABLE, org="acme")) == []
        past_end = ULID.min_for(T0 + 10)
        assert (
            list(POST.query_window(client, T0, T0 + 10, after=past_end, table_name=TABLE, org="a"))
            == []
        )
        assert (
            list(POST.query_window(client, T0, T0 + 10, limit=0, table_name=TABLE, org="a")) == []
        )
        with pytest.raises(InvalidWindow):
            POST.query_window(client, T0 + 1, T0, table_name=TABLE, org="acme")
        with pytest.raises(InvalidWindow):
            POST.key_condition(T0, T0, org="acme")
        stub.assert_no_pending_responses()


def test_client_needs_table_name() -> None:
    client, _ = stubbed()
    with pytest.raises(InvalidQuery, match="table_name"):
        POST.query_window(client, T0, T0 + 1, org="acme")
    with pytest.raises(InvalidQuery, match="org"):
        POST.query_window(client, T0, T0 + 1, table_name=TABLE)
    with pytest.raises(InvalidQuery, match="GSI9"):
        POST.query_window(client, T0, T0 + 1, table_name=TABLE, index="GSI9", org="a")


def test_multibyte_prefix_custom_names_and_separator(aws: dict[str, Any]) -> None:
    """UTF-8 byte order and the 1,024-byte limit with a non-ASCII prefix, lowercase attribute
    names and another separator."""
    create_table(aws["client"], "events", keys=("pk", "sk"))
    event = Entity(
        pk="Tenant|{t}", sk="Évènement€|{kind}|{id}", pk_attr="pk", sk_attr="sk", separator="|"
    )
    table = boto3.resource("dynamodb", region_name="us-east-1").Table("events")
    stored = []
    for offset, kind in itertools.product((4, 5, 9, 10), ("min", "max")):
        keys = event.keys(t="🦉", kind="a", id=ulid_at(T0 + offset, kind))
        event.put_new(table, {**keys, "offset": offset})
        table.put_item(Item={"pk": keys["pk"], "sk": keys["sk"] + "|child|€" * 40})
        stored.append(keys["sk"])
    recorder = PageRecorder(sk_attr="sk").attach(table.meta.client)
    got = list(event.query_window(table, T0 + 5, T0 + 10, t="🦉", kind="a"))
    read = recorder.read_keys()
    assert len(read) == 8  # four events and their children, nothing at offsets 4 or 10
    for sk in read:
        assert T0 + 5 <= leading_ulid(sk, "Évènement€|a|").timestamp_ms < T0 + 10
    assert [g["sk"] for g in got] == sorted(stored)[2:6]
    assert [int(g["offset"]) for g in got] == [5, 5, 9, 9]
    with pytest.raises(InvalidQuery, match="kind"):
        event.query_window(table, T0, T0 + 1, t="🦉")


@pytest.mark.parametrize("newest_first", [False, True])
def test_after_an_item_keeps_its_ulid_siblings(aws: dict[str, Any], newest_first: bool) -> None:
    """With fields after the ULID (``Doc#{id}#{lang}``) several items share one ULID; resuming
    after one of them must return the siblings not yet seen, not skip the whole ULID."""
    create_table(aws["client"], f"docs{int(newest_first)}", keys=("PK", "SK"))
    table = boto3.resource("dynamodb", region_name="us-east-1").Table(f"docs{int(newest_first)}")
    doc = Entity(pk="Org#{org}", sk="Doc#{id}#{lang}")
    ids = [ulid_at(T0 + n, "rand") for n in range(3)]
    for ulid, lang in itertools.product(ids, ("de", "en", "fr")):
        doc.put_new(table, doc.keys(org="acme", id=ulid, lang=lang))
    every = [
        i["SK"] for i in doc.query_window(table, T0, T0 + 3, org="acme", newest_first=newest_first)
    ]
    assert len(every) == 9
    seen: list[str] = []
    after: Any = None
    while len(seen) < len(every):
        page = list(
            doc.query_window(
                table, T0, T0 + 3, org="acme", newest_first=newest_first, limit=2, after=after
            )
        )
        assert page, f"resuming after {after} ended before {every[len(seen)]}"
        seen += [i["SK"] for i in page]
        after = page[-1]
    assert seen == every


def test_after_an_item_with_a_full_length_sort_key_stays_a_legal_bound() -> None:
    """The bound just past a 1,024-byte sort key must itself be a legal (<= 1,024-byte) key:
    AWS refuses longer key condition values (moto does not check)."""
    doc = Entity(pk="Org#{org}", sk="Doc#{id}#{name}")
    ulid = ulid_at(T0, "rand")
    name = "n" * (1024 - len(f"Doc#{ulid}#"))
    cursor = doc.keys(org="acme", id=ulid, name=name)
    assert len(cursor["SK"].encode()) == 1024
    sibling = doc.keys(org="acme", id=ulid, name=name[:-1] + "o")["SK"]
    (call,) = doc.plan(T0, T0 + 1, org="acme", after=cursor).calls
    assert len(call.lo.encode()) <= 1024
    assert cursor["SK"] < call.lo <= sibling  # past the cursor, not past its next sibling
