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
from profiles import examples
from test_dynamodb_support import (
    PageRecorder,
    RecordingClient,
    brute_force,
    create_table,
    delete_items,
    leading_ulid,
    put_items,
    ulid_at,
)

from ulidkeys.dynamodb import Entity, Index, Table, key_condition
from ulidkeys.errors import InvalidQuery, InvalidWindow, UnexpectedResponse
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
        yield {
            "client": client,
            "table": table,
            "rec": recorder,
            "irec": index_recorder,
            # the three forms a table can be given in: the same answers from each
            "forms": {
                "client": Table(client, POST, table_name=TABLE),
                "table": Table(table, POST),
                "resource_client": Table(table.meta.client, POST, table_name=TABLE),
            },
        }


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
    put_items(client, items.values(), TABLE)
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


@settings(max_examples=examples(30))
@given(
    specs=specs,
    bounds=st.tuples(st.integers(0, 42), st.integers(0, 42)).map(sorted),
    newest_first=st.booleans(),
    limit=st.none() | st.integers(0, 8),
    page_size=st.none() | st.integers(1, 4),
    via=st.sampled_from(["client", "table", "resource_client"]),
    index=st.sampled_from([None, "GSI1"]),
    after_form=st.sampled_from(["item", "key", "ulid", "text", "cursor"]),
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
    table: Table = aws["forms"][via]

    def query(**extra: Any) -> Any:
        window = (start, end) if "cursor" not in extra else (None, None)
        return table.query_window(
            *window,
            newest_first=newest_first,
            index=index,
            page_size=page_size,
            org=org,
            **extra,
        )

    results = query(limit=limit)
    got = list(results)
    expected = brute_force(POST, items, start, end, newest_first=newest_first, org=org)
    assert [item["SK"] for item in got] == expected[:limit]
    assert all(isinstance(item["n"], Decimal) for item in got)  # plain values either way
    check_pages(recorder, start, end)
    stats = results.stats
    assert stats.calls == len(recorder.pages)  # every response seen was accounted for
    assert stats.read == sum(page.scanned for page in recorder.pages)
    assert stats.returned == len(got)
    if limit is None:  # DynamoDB read exactly the window: posts and their children, no more
        assert sorted(recorder.read_keys()) == in_window_keys(items, start, end)
        assert stats.skipped == stats.read - stats.returned  # the children, and nothing else
    if end == start:
        assert recorder.pages == []  # an empty window makes no call

    if got and limit is not None:  # resume after the last item seen: nothing lost or repeated
        last = got[-1]
        after: object = {
            "item": last,
            "key": {"PK": last["PK"], "SK": last["SK"], "GSI1SK": last["GSI1SK"]},
            "ulid": ULID.parse(last["SK"][5:]),
            "text": last["SK"][5:].lower(),
            "cursor": None,
        }[after_form]
        recorder.clear()
        rest = query(cursor=results.cursor) if after is None else query(after=after)
        assert [item["SK"] for item in got + list(rest)] == expected
        check_pages(recorder, start, end)
    delete_items(aws["client"], items, TABLE)


def test_bounds_exact_at_the_edges(aws: dict[str, Any]) -> None:
    """Items at end_ms (min randomness, with children) are out; at end_ms - 1 (max
    randomness, with children) and at start_ms (min) are in; children are read, not returned."""
    org = f"o{next(_orgs)}"
    specs = [(10, "min", 2), (9, "max", 2), (20, "min", 2), (19, "max", 2), (9, "min", 1)]
    items = store(aws["client"], org, specs)
    recorder = aws["rec"]
    recorder.clear()
    results = aws["forms"]["table"].query_window(T0 + 10, T0 + 20, org=org)
    got = list(results)
    assert [ULID.parse(g["SK"][5:]) for g in got] == [ULID.min_for(T0 + 10), ULID.max_for(T0 + 19)]
    read = recorder.read_keys()
    assert len(read) == 6  # the two posts and their two children each; nothing else
    assert read == in_window_keys(items, T0 + 10, T0 + 20)
    check_pages(recorder, T0 + 10, T0 + 20)
    assert (results.stats.read, results.stats.returned, results.stats.skipped) == (6, 2, 4)
    assert results.stats.read_per_item == 3.0


def test_more_than_one_megabyte_in_one_window(aws: dict[str, Any]) -> None:
    org = f"o{next(_orgs)}"
    big = "x" * 4000
    with aws["forms"]["client"].batch_writer() as writer:
        for number in range(300):
            writer.put({**POST.keys(org=org, id=ULID.new(T0 + number)), "n": number, "pad": big})
    recorder = aws["rec"]
    recorder.clear()
    results = aws["forms"]["table"].query_window(T0, T0 + 300, org=org)
    got = list(results)
    assert [g["n"] for g in got] == list(range(300))
    assert len(recorder.pages) >= 2 and recorder.pages[0].more  # cut at 1 MB, followed
    stats = results.stats
    assert stats.calls == len(recorder.pages) and stats.read == stats.returned == 300
    assert stats.read_per_item == 1.0
    delete_items(aws["table"], got)


def test_limit_ends_mid_page_and_after_resumes(aws: dict[str, Any]) -> None:
    """With children the page Limit is scaled up, so the limit ends inside a page; the
    items past it were read but not returned, and after= picks up exactly there."""
    org = f"o{next(_orgs)}"
    store(aws["client"], org, [(n, "rand", 2 if n < 3 else 0) for n in range(12)])
    recording = RecordingClient(aws["table"].meta.client)
    table = Table(recording, POST, table_name=TABLE)
    results = table.query_window(T0, T0 + 12, org=org, limit=6)
    first = list(results)
    assert [g["n"] for g in first] == [0, 1, 2, 3, 4, 5]
    assert [e.args["Limit"] for e in recording.exchanges] == [6, 10]  # scaled by 6 read / 2 kept
    scanned = [e.response["ScannedCount"] for e in recording.exchanges]
    kept = [
        sum(POST.table.sk.match(item["SK"]) is not None for item in e.response["Items"])
        for e in recording.exchanges
    ]
    assert list(zip(scanned, kept, strict=True)) == [(6, 2), (10, 8)]
    stats = results.stats
    assert (stats.calls, stats.read, stats.skipped) == (2, 16, 6)
    assert stats.returned == 6 < sum(kept)  # ended mid-page
    for resume in ({"after": first[-1]}, {"cursor": results.cursor}):
        window = (T0, T0 + 12) if "after" in resume else (None, None)
        rest = list(table.query_window(*window, org=org, **resume))
        assert [g["n"] for g in rest] == list(range(6, 12))


def test_latest(aws: dict[str, Any]) -> None:
    org = f"o{next(_orgs)}"
    store(aws["client"], org, [(n, "rand", 1) for n in range(10)])
    forms = aws["forms"]
    latest = list(forms["client"].latest(3, org=org))
    assert [g["n"] for g in latest] == [9, 8, 7]
    assert list(forms["table"].latest(3, index="GSI1", org=org)) == latest
    assert list(forms["resource_client"].latest(3, org=org)) == latest
    assert list(forms["table"].latest(0, org=org)) == []
    results = forms["table"].latest(2, org=org)
    assert [g["n"] for g in results] == [9, 8]
    more = forms["table"].latest(4, cursor=results.cursor, org=org)  # the next ones, older
    assert [g["n"] for g in more] == [7, 6, 5, 4]
    assert [g["n"] for g in forms["table"].latest(3, until=T0 + 5, org=org)] == [4, 3, 2]
    assert [g["n"] for g in forms["table"].latest(9, since=T0 + 8, org=org)] == [9, 8]


def test_key_condition_and_query_args_select_the_same_items(aws: dict[str, Any]) -> None:
    org = f"o{next(_orgs)}"
    items = store(aws["client"], org, [(n, "min", 1) for n in range(10)])
    condition = key_condition(POST, T0 + 3, T0 + 7, org=org)
    by_resource = aws["table"].query(KeyConditionExpression=condition)["Items"]
    args = aws["forms"]["client"].query_args(T0 + 3, T0 + 7, org=org)
    by_client = aws["client"].query(**args)["Items"]
    plain_args = aws["forms"]["table"].query_args(T0 + 3, T0 + 7, org=org)
    by_resource_client = aws["table"].meta.client.query(**plain_args)["Items"]
    expected = in_window_keys(items, T0 + 3, T0 + 7)
    assert [i["SK"] for i in by_resource] == expected
    assert [i["SK"]["S"] for i in by_client] == expected
    assert [i["SK"] for i in by_resource_client] == expected
    assert set(args) >= {
        "TableName",
        "KeyConditionExpression",
        "ExpressionAttributeNames",
        "ExpressionAttributeValues",
    }
    assert all(set(v) == {"S"} for v in args["ExpressionAttributeValues"].values())
    assert all(isinstance(v, str) for v in plain_args["ExpressionAttributeValues"].values())
    assert aws["forms"]["resource_client"].query_args(T0 + 3, T0 + 7, org=org) == plain_args


def stubbed() -> tuple[Any, Stubber]:
    client = boto3.client("dynamodb", region_name="us-east-1")
    return client, Stubber(client)


def typed_post(ms: int, n: int) -> dict[str, Any]:
    keys = POST.key(org="acme", id=ULID.min_for(ms))
    return {"PK": {"S": keys["PK"]}, "SK": {"S": keys["SK"]}, "n": {"N": str(n)}}


def test_final_empty_page_after_last_evaluated_key() -> None:
    """AWS ends a Query with an empty page when Limit was hit exactly; moto never does."""
    client, stub = stubbed()
    table = Table(client, POST, table_name=TABLE)
    first, second = typed_post(T0 + 1, 1), typed_post(T0 + 2, 2)
    base = table.query_args(T0, T0 + 10, org="acme")
    stub.add_response(
        "query",
        {"Items": [first, second], "Count": 2, "ScannedCount": 2, "LastEvaluatedKey": second},
        {**base, "Limit": 2},
    )
    stub.add_response(
        "query",
        {"Items": [], "Count": 0, "ScannedCount": 0},
        {**base, "Limit": 2, "ExclusiveStartKey": second},
    )
    with stub:
        results = table.query_window(T0, T0 + 10, page_size=2, org="acme")
        got = list(results)
        stub.assert_no_pending_responses()
    assert [g["n"] for g in got] == [1, 2]
    assert (results.stats.calls, results.stats.read, results.stats.returned) == (2, 2, 2)


def test_empty_page_with_more_to_come() -> None:
    client, stub = stubbed()
    table = Table(client, POST, table_name=TABLE)
    later, position = typed_post(T0 + 3, 3), typed_post(T0, 0)
    base = {**table.query_args(T0, T0 + 10, org="acme"), "Limit": 1}
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
        got = list(table.query_window(T0, T0 + 10, limit=1, org="acme"))
        stub.assert_no_pending_responses()
    assert [g["n"] for g in got] == [3]


def test_a_page_without_items_is_refused_loudly() -> None:
    client, stub = stubbed()
    table = Table(client, POST, table_name=TABLE)
    stub.add_response("query", {"Count": 0, "ScannedCount": 0})
    with stub, pytest.raises(UnexpectedResponse, match="Items"):
        list(table.query_window(T0, T0 + 10, org="acme"))


def test_empty_window_and_exhausted_after_make_no_call() -> None:
    client, stub = stubbed()  # no responses queued: any call would raise
    table = Table(client, POST, table_name=TABLE)
    with stub:
        assert list(table.query_window(T0, T0, org="acme")) == []
        past_end = ULID.min_for(T0 + 10)
        assert list(table.query_window(T0, T0 + 10, after=past_end, org="a")) == []
        before_start = ULID.max_for(T0 - 1)
        assert (
            list(table.query_window(T0, T0 + 10, newest_first=True, after=before_start, org="a"))
            == []
        )
        assert list(table.query_window(T0, T0 + 10, limit=0, org="a")) == []
        assert list(table.latest(0, org="a")) == []
        with pytest.raises(InvalidWindow):
            table.query_window(T0 + 1, T0, org="acme")
        with pytest.raises(InvalidWindow):
            key_condition(POST, T0, T0, org="acme")
        with pytest.raises(InvalidWindow):
            table.query_args(T0, T0, org="acme")
        stub.assert_no_pending_responses()


def test_client_needs_table_name() -> None:
    client, _ = stubbed()
    with pytest.raises(InvalidQuery, match="table_name"):
        Table(client, POST)
    table = Table(client, POST, table_name=TABLE)
    with pytest.raises(InvalidQuery, match="org"):
        table.query_window(T0, T0 + 1)
    with pytest.raises(InvalidQuery, match="GSI9"):
        table.query_window(T0, T0 + 1, index="GSI9", org="a")
    with pytest.raises(InvalidQuery, match="after= or cursor="):
        table.query_window(T0, T0 + 1, after=ULID.min_for(T0), cursor="uk1.x", org="a")


def test_multibyte_prefix_custom_names_and_separator(aws: dict[str, Any]) -> None:
    """UTF-8 byte order and the 1,024-byte limit with a non-ASCII prefix, lowercase attribute
    names and another separator."""
    create_table(aws["client"], "events", keys=("pk", "sk"))
    event = Entity(
        pk="Tenant|{t}", sk="Évènement€|{kind}|{id}", pk_attr="pk", sk_attr="sk", separator="|"
    )
    table = boto3.resource("dynamodb", region_name="us-east-1").Table("events")
    events = Table(table, event)
    stored = []
    for offset, kind in itertools.product((4, 5, 9, 10), ("min", "max")):
        keys = event.keys(t="🦉", kind="a", id=ulid_at(T0 + offset, kind))
        events.put_new({**keys, "offset": offset})
        table.put_item(Item={"pk": keys["pk"], "sk": keys["sk"] + "|child|€" * 40})
        stored.append(keys["sk"])
    recorder = PageRecorder(sk_attr="sk").attach(table.meta.client)
    got = list(events.query_window(T0 + 5, T0 + 10, t="🦉", kind="a"))
    read = recorder.read_keys()
    assert len(read) == 8  # four events and their children, nothing at offsets 4 or 10
    for sk in read:
        assert T0 + 5 <= leading_ulid(sk, "Évènement€|a|").timestamp_ms < T0 + 10
    assert [g["sk"] for g in got] == sorted(stored)[2:6]
    assert [int(g["offset"]) for g in got] == [5, 5, 9, 9]
    with pytest.raises(InvalidQuery, match="kind"):
        events.query_window(T0, T0 + 1, t="🦉")


@pytest.mark.parametrize("resume", ["after", "cursor"])
@pytest.mark.parametrize("newest_first", [False, True])
def test_after_an_item_keeps_its_ulid_siblings(
    aws: dict[str, Any], newest_first: bool, resume: str
) -> None:
    """With fields after the ULID (``Doc#{id}#{lang}``) several items share one ULID; resuming
    after one of them must return the siblings not yet seen, not skip the whole ULID."""
    name = f"docs{int(newest_first)}{resume}"
    create_table(aws["client"], name, keys=("PK", "SK"))
    doc = Entity(pk="Org#{org}", sk="Doc#{id}#{lang}")
    table = Table(boto3.resource("dynamodb", region_name="us-east-1").Table(name), doc)
    ids = [ulid_at(T0 + n, "rand") for n in range(3)]
    for ulid, lang in itertools.product(ids, ("de", "en", "fr")):
        table.put_new(doc.keys(org="acme", id=ulid, lang=lang))
    every = [i["SK"] for i in table.query_window(T0, T0 + 3, org="acme", newest_first=newest_first)]
    assert len(every) == 9
    assert every == sorted(every, reverse=newest_first)
    seen: list[str] = []
    after: Any = None
    cursor: str | None = None
    while len(seen) < len(every):
        if resume == "after":
            results = table.query_window(
                T0, T0 + 3, org="acme", newest_first=newest_first, limit=2, after=after
            )
        else:
            window = (T0, T0 + 3) if cursor is None else (None, None)
            results = table.query_window(
                *window, org="acme", newest_first=newest_first, limit=2, cursor=cursor
            )
        page = list(results)
        assert page, f"resuming after {after or cursor} ended before {every[len(seen)]}"
        seen += [i["SK"] for i in page]
        after, cursor = page[-1], results.cursor
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
    (call,) = doc.plan_window(T0, T0 + 1, after=cursor, org="acme").calls
    assert len(call.lo.encode()) <= 1024
    assert cursor["SK"] < call.lo <= sibling  # past the cursor, not past its next sibling


class EmptyPages:
    """Answers as AWS may give them and moto never does, driven by a list of flags (one per
    request, then none): a page that ends exactly at ``Limit`` still carries a
    ``LastEvaluatedKey`` (the next, last page is empty), and a continuation may come back
    empty with a ``LastEvaluatedKey`` to go on from."""

    def __init__(self, flags: list[bool], key_attrs: tuple[str, ...]) -> None:
        self.flags = list(flags)
        self.key_attrs = key_attrs

    def __call__(self, client: Any, args: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        flag = self.flags.pop(0) if self.flags else False
        start_key = args.get("ExclusiveStartKey")
        if flag and start_key is not None:
            return {"Items": [], "Count": 0, "ScannedCount": 0, "LastEvaluatedKey": start_key}, True
        response = dict(client.query(**args))
        items = response["Items"]
        if flag and items and "LastEvaluatedKey" not in response:
            last = items[-1]
            response["LastEvaluatedKey"] = {a: last[a] for a in self.key_attrs if a in last}
            return response, True
        return response, False


@settings(max_examples=examples(30))
@given(
    specs=specs,
    bounds=st.just([0, 42]) | st.tuples(st.integers(0, 42), st.integers(0, 42)).map(sorted),
    newest_first=st.booleans(),
    limit=st.none() | st.integers(0, 8),
    page_size=st.integers(1, 4),  # pages to cut: continuations to answer empty
    via=st.sampled_from(["client", "resource_client"]),
    index=st.sampled_from([None, "GSI1"]),
    flags=st.lists(st.booleans(), max_size=12),
)
def test_empty_pages_with_a_last_evaluated_key_are_followed(
    aws: dict[str, Any],
    specs: list[tuple[int, str, int]],
    bounds: list[int],
    newest_first: bool,
    limit: int | None,
    page_size: int | None,
    via: str,
    index: str | None,
    flags: list[bool],
) -> None:
    """Whatever pages the answer is cut into, empty ones included, nothing is lost."""
    org = f"o{next(_orgs)}"
    items = store(aws["client"], org, specs)
    start, end = T0 + bounds[0], T0 + bounds[1]
    client = aws["client"] if via == "client" else aws["table"].meta.client
    key_attrs = ("PK", "SK", "GSI1PK", "GSI1SK") if index else ("PK", "SK")
    recording = RecordingClient(client, EmptyPages(flags, key_attrs))
    table = Table(recording, POST, table_name=TABLE)
    results = table.query_window(
        start,
        end,
        newest_first=newest_first,
        limit=limit,
        page_size=page_size,
        index=index,
        org=org,
    )
    got = [item["SK"] for item in results]
    expected = brute_force(POST, items, start, end, newest_first=newest_first, org=org)
    assert got == expected[:limit]
    stats = results.stats
    assert stats.calls == len(recording.exchanges)
    assert stats.read == sum(e.response["ScannedCount"] for e in recording.exchanges)
    for exchange in recording.exchanges:  # a continuation goes on from the key it was given
        assert exchange.response["Count"] == len(exchange.response["Items"])
    continued = [e.args.get("ExclusiveStartKey") for e in recording.exchanges]
    given_keys = [e.response.get("LastEvaluatedKey") for e in recording.exchanges]
    assert all(key is None or key in given_keys for key in continued)
    delete_items(aws["client"], items, TABLE)


def test_an_injected_empty_page_costs_one_call_and_loses_nothing(aws: dict[str, Any]) -> None:
    org = f"o{next(_orgs)}"
    items = store(aws["client"], org, [(n, "rand", 0) for n in range(6)])
    # every other request: real pages of 2, each continuation first answered empty
    recording = RecordingClient(aws["client"], EmptyPages([False, True] * 10, ("PK", "SK")))
    results = Table(recording, POST, table_name=TABLE).query_window(
        T0, T0 + 6, page_size=2, org=org
    )
    got = [item["SK"] for item in results]
    assert got == brute_force(POST, items, T0, T0 + 6, org=org)
    sizes = [len(e.response["Items"]) for e in recording.exchanges]
    assert sizes[:5] == [2, 0, 2, 0, 2] and sum(sizes) == 6
    assert all(e.injected == (n % 2 == 1) for n, e in enumerate(recording.exchanges[:5]))
    assert results.stats.calls == len(recording.exchanges)
    assert results.stats.read == results.stats.returned == 6
