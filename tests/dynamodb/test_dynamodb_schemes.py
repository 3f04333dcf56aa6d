"""Every id scheme works as DynamoDB keys: random ids at random times (the scheme's whole
range; 1970 .. 9999 when bucketed), string sort keys ``Post#{id}`` (plain, and bucketed +
sharded) and, for numeric schemes, Number sort keys (``numeric_sk=True``); ordered UUIDv1,
TypeIDs and tagged ULIDs as plain string sort keys. Random windows
give exactly the brute-force answer, in order, and DynamoDB reads only what is returned."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from idsupport import SORTABLE
from moto import mock_aws
from profiles import examples
from test_dynamodb_support import PageRecorder, brute_force, create_table

from ulidkeys.dynamodb import Entity, Table
from ulidkeys.engine import threads
from ulidkeys.engine.chains import Page
from ulidkeys.ids import (
    INSTAGRAM_ID,
    KSUID,
    OBJECT_ID,
    TWITTER_SNOWFLAKE,
    ULID_SCHEME,
    UUID6,
    UUID7,
    IdScheme,
)
from ulidkeys.ids.discord import DISCORD_SNOWFLAKE
from ulidkeys.planning.periods import PARTITION_LIMIT_MS
from ulidkeys.planning.queries import QueryWindow, plan_query
from ulidkeys.timeinput import to_ms

STRINGS, NUMBERS = "scheme_strings", "scheme_numbers"
YEAR = 365 * 86_400_000
_orgs = itertools.count()


def entity_for(scheme: IdScheme, variant: str) -> Entity:
    name = scheme.name
    if variant == "string":
        return Entity(pk=f"{name}#{{org}}", sk="Post#{id}", scheme=scheme)
    if variant == "hot":
        return Entity(
            pk=f"{name}#{{org}}#{{bucket}}#{{shard}}",
            sk="Post#{id}",
            scheme=scheme,
            bucket="year",
            shards=3,
        )
    return Entity(pk=f"{name}#{{org}}", sk="{id}", scheme=scheme, numeric_sk=True)


#: The schemes run with every variant (string, hot partitions, number): one of each text form.
#: (the registry's SCHEMES holds more: the rest run as MORE_SCHEMES.)
FULL: tuple[IdScheme, ...] = (
    ULID_SCHEME,
    UUID7,
    UUID6,
    KSUID,
    OBJECT_ID,
    TWITTER_SNOWFLAKE,
    DISCORD_SNOWFLAKE,
    INSTAGRAM_ID,
)
#: Every other registered sortable scheme (issue 10; a new scheme file joins them): plain
#: string sort keys only, to bound time.
MORE_SCHEMES: tuple[IdScheme, ...] = tuple(s for s in SORTABLE if s not in FULL)
CASES = [
    (scheme, variant)
    for scheme in FULL
    for variant in ("string", "hot", *(("number",) if scheme.numeric else ()))
] + [(scheme, "string") for scheme in MORE_SCHEMES]


@pytest.fixture(scope="module")
def aws() -> Iterator[dict[str, Any]]:
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_table(client, STRINGS)
        create_table(client, NUMBERS, numbers=["SK"])
        resource = boto3.resource("dynamodb", region_name="us-east-1")
        recorder = PageRecorder()
        recorder.attach(client)
        tables = {STRINGS: resource.Table(STRINGS), NUMBERS: resource.Table(NUMBERS)}
        recorder.attach(tables[STRINGS].meta.client)
        yield {"client": client, "tables": tables, "rec": recorder}


def random_id(scheme: IdScheme, ms: int, kind: str, bits: int) -> str:
    """The smallest or largest id of ``ms`` (floored to the scheme's resolution), or one with
    random bits wherever the smallest and the largest differ."""
    ms -= (ms - scheme.min_ms) % scheme.resolution_ms
    low, high = scheme.to_int(scheme.min_for(ms)), scheme.to_int(scheme.max_for(ms))
    number = {"min": low, "max": high, "rand": low | (bits & (low ^ high))}[kind]
    return scheme.from_int(number)


def test_every_scheme_is_covered() -> None:
    names = {scheme.name for scheme in FULL}
    assert {"ulid", "uuid7", "uuid6", "ksuid", "objectid"} <= names
    assert {"twitter-snowflake", "discord-snowflake", "instagram-id"} <= names
    assert len([case for case in CASES if case[1] == "number"]) == 3


CASE_IDS = [f"{s.name}-{v}" for s, v in CASES]


class InMemoryQueries:
    """``Query`` over items held in memory, as DynamoDB answers the library's calls: the items
    of the call's partition whose sort key is ``BETWEEN`` its bounds (strings by their UTF-8
    bytes, numbers by value), in key order or reversed, at most ``page`` (or the limit) a page,
    continued after the last key given; what a page read is what it returned."""

    def __init__(self, items: list[dict[str, Any]], page: int) -> None:
        self.items, self.page = items, page
        self.calls = 0
        self.answered: list[Any] = []  # the sort keys of every item a page held

    def fetch(self, call: Any, token: Any, limit: int | None) -> Page:
        self.calls += 1

        def order(value: Any) -> Any:
            return value.encode() if isinstance(value, str) else value

        chosen = sorted(
            (
                item
                for item in self.items
                if item.get(call.pk_attr) == call.partition
                and call.sk_attr in item
                and order(call.lo) <= order(item[call.sk_attr]) <= order(call.hi_inclusive)
            ),
            key=lambda item: order(item[call.sk_attr]),
            reverse=call.newest_first,
        )
        if token is not None:
            keys = [order(item[call.sk_attr]) for item in chosen]
            chosen = chosen[keys.index(order(token)) + 1 :]
        size = self.page if limit is None else min(self.page, limit)
        page, rest = chosen[:size], chosen[size:]
        entries = [(item[call.sk_attr], dict(item)) for item in page]
        self.answered += [key for key, _item in entries]
        return Page(entries, page[-1][call.sk_attr] if rest else None, len(page))


@pytest.mark.parametrize(("scheme", "variant"), CASES, ids=CASE_IDS)
@settings(max_examples=examples(15))
@given(data=st.data())
def test_windows_of_every_scheme_equal_brute_force_in_memory(
    scheme: IdScheme, variant: str, data: st.DataObject
) -> None:
    """The planner and the engine for every scheme and key variant, over items in memory in
    pages of 1 to 4 (moto's contract for the same cases is the slow test below)."""
    entity, ids, endpoint = draw_case(scheme, variant, data)
    org = "o"
    items = [{**entity.keys(org=org, id=id_text), "n": n} for n, id_text in enumerate(sorted(ids))]
    source = InMemoryQueries(items, data.draw(st.integers(1, 4), label="page"))
    for _ in range(2):
        start, end = sorted(data.draw(st.tuples(endpoint, endpoint), label="window"))
        newest_first = data.draw(st.booleans(), label="newest_first")
        limit = data.draw(st.none() | st.integers(0, 5), label="limit")
        expected = brute_force(entity, items, start, end, newest_first=newest_first, org=org)
        window = QueryWindow(start, end, newest_first, limit, fields={"org": org})
        plan = plan_query(entity, window)
        source.answered.clear()
        workers = data.draw(st.sampled_from([1, 4]))
        results = threads.run(plan, source, max_workers=workers)
        got = [item[entity.table.sk_attr] for item in results]
        assert got == expected[:limit]
        # the key conditions select nothing outside the window (DynamoDB would read it)
        assert set(source.answered) <= set(expected)
        assert results.stats.read == len(source.answered)
        if limit is None:
            stats = results.stats
            assert stats.returned == len(expected) and stats.skipped == stats.filtered == 0
            if workers == 1:  # one chain at a time: nothing read that is not returned
                assert stats.read == stats.returned
            else:  # split in time slices: a page in flight when its slice is cut may reach past
                # the cut (docs/dynamodb.md); what it reads there is the next slice's, read again
                again = len(source.answered) - len(set(source.answered))
                assert stats.read - stats.returned == again
        elif got:  # the rest, from the cursor alone
            resumed = entity.plan_window(cursor=results.cursor, newest_first=newest_first, org=org)
            rest = threads.run(resumed, source)
            assert got + [item[entity.table.sk_attr] for item in rest] == expected


def draw_case(
    scheme: IdScheme, variant: str, data: st.DataObject
) -> tuple[Entity, set[str], st.SearchStrategy[int]]:
    """An entity of ``scheme`` in ``variant``, random ids over the scheme's range (near a drawn
    time, anywhere, and at a few ms from it), and a strategy for window ends that favours the
    ids' own times."""
    entity = entity_for(scheme, variant)
    lo, hi = scheme.min_ms, scheme.max_ms
    if variant == "hot":  # bucket labels spell a four-digit year
        lo, hi = max(lo, 0), min(hi, PARTITION_LIMIT_MS - 1)
    base = data.draw(st.sampled_from([lo, hi]) | st.integers(lo, hi), label="base")
    near_lo, near_hi = max(lo, base - 3 * YEAR), min(hi, base + 3 * YEAR)
    close = st.integers(max(lo, base - 5_000), min(hi, base + 5_000))
    near = st.integers(near_lo, near_hi)
    anywhere = near if variant == "hot" else st.integers(lo, hi)
    specs = data.draw(
        st.lists(
            st.tuples(
                st.one_of(close, near, anywhere),
                st.sampled_from(["min", "max", "rand"]),
                st.integers(0, 2**160 - 1),
            ),
            max_size=12,
        ),
        label="ids",
    )
    ids = {random_id(scheme, ms, kind, bits) for ms, kind, bits in specs}
    if variant == "hot":  # random time bits (UUIDv6 ticks) may step past the last bucket
        ids = {i for i in ids if 0 <= scheme.timestamp_ms(i) < PARTITION_LIMIT_MS}
    times = [scheme.timestamp_ms(i) for i in ids]
    edges = [lo - 1_000, lo, hi, hi + 1, hi + 1_000] if variant != "hot" else [near_lo - 5]
    at_items = st.sampled_from([t + d for t in times for d in (-1, 0, 1)] or [base])
    endpoint = st.one_of(
        at_items,  # twice as likely: the window's edges are where exactness matters
        at_items,
        close,
        near,
        st.sampled_from(edges),
    )
    return entity, ids, endpoint


@pytest.mark.slow  # the same cases on moto, through every client form
@pytest.mark.no_cover  # untraced, as profiles.UNTRACED_SLOW says: the in-memory twin is traced
@pytest.mark.parametrize(("scheme", "variant"), CASES, ids=CASE_IDS)
@settings(max_examples=examples(15))
@given(data=st.data())
def test_windows_of_every_scheme_equal_brute_force(
    aws: dict[str, Any], scheme: IdScheme, variant: str, data: st.DataObject
) -> None:
    entity, ids, endpoint = draw_case(scheme, variant, data)
    org = f"o{next(_orgs)}"
    table_name = NUMBERS if variant == "number" else STRINGS
    stored = Table(aws["tables"][table_name], entity)
    items = []
    with stored.batch_writer() as writer:
        for n, id_text in enumerate(sorted(ids)):
            item = {**entity.keys(org=org, id=id_text), "n": n}
            writer.put(item)
            items.append(item)
    try:
        for _ in range(2):
            start, end = sorted(data.draw(st.tuples(endpoint, endpoint), label="window"))
            newest_first = data.draw(st.booleans(), label="newest_first")
            limit = data.draw(st.none() | st.integers(0, 5), label="limit")
            via = data.draw(st.sampled_from(["client", "table"]), label="via")
            table = (
                stored if via == "table" else Table(aws["client"], entity, table_name=table_name)
            )
            expected = brute_force(entity, items, start, end, newest_first=newest_first, org=org)
            window = QueryWindow(start, end, newest_first, limit, fields={"org": org})
            plan = plan_query(entity, window)
            aws["rec"].clear()
            results = table.run(plan)
            got = [item[entity.table.sk_attr] for item in results]
            assert got == expected[:limit]
            for page in aws["rec"].pages:
                assert page.scanned == page.count
            if limit and got:  # the rest, from the cursor alone (its window need not be one
                # TimeWindow takes: UUIDv6 ids reach back to 1582)
                rest = table.query_window(cursor=results.cursor, newest_first=newest_first, org=org)
                assert got + [item[entity.table.sk_attr] for item in rest] == expected
            if limit is None:  # nothing read that is not returned: ScannedCount == Count
                stats = results.stats
                assert stats.read == stats.returned == len(expected) and stats.skipped == 0
                if 0 <= start < 2**48 and end <= 2**48:  # times TimeWindow takes
                    again = stored.query_window(start, end, newest_first=newest_first, org=org)
                    assert [item[entity.table.sk_attr] for item in again] == got
    finally:  # moto reads the whole table for every query: keep it small
        with stored.batch_writer() as writer:
            for item in items:
                writer.delete(item)


@pytest.mark.parametrize(("scheme", "variant"), CASES, ids=CASE_IDS)
def test_window_edges_of_every_scheme_are_exact(
    aws: dict[str, Any], scheme: IdScheme, variant: str
) -> None:
    """The largest id before the window, the smallest and largest of its first and last
    step, the smallest at its end; and the first and last ids the scheme has. DynamoDB reads
    exactly the ones in the window (a bound off by one would read one more)."""
    entity = entity_for(scheme, variant)
    step = scheme.resolution_ms
    start = to_ms("2024-01-01T00:00:00Z")  # a year bucket's first ms, in every scheme's range
    end = start + 5 * step
    ids = [
        scheme.max_for(start - step),
        scheme.min_for(start),
        scheme.max_for(start),
        scheme.min_for(end - step),
        scheme.max_for(end - step),
        scheme.min_for(end),
    ]
    first, last = scheme.min_for(scheme.min_ms), scheme.max_for(scheme.max_ms)
    if variant != "hot":
        ids += [first, last]
    org = f"edges-{scheme.name}-{variant}"
    table_name = NUMBERS if variant == "number" else STRINGS
    forms = [
        Table(aws["tables"][table_name], entity),
        Table(aws["client"], entity, table_name=table_name),
    ]
    with forms[0].batch_writer() as writer:
        for id_text in ids:
            writer.put(entity.keys(org=org, id=id_text))

    def check(start: int, end: int, expected: list[str]) -> None:
        for table, newest_first in itertools.product(forms, (False, True)):
            plan = plan_query(entity, QueryWindow(start, end, newest_first, fields={"org": org}))
            results = table.run(plan)
            got = [entity.parse(item)["id"] for item in results]
            assert got == sorted(expected, reverse=newest_first), (start, end)
            assert results.stats.read == results.stats.returned == len(expected)

    check(start, end, ids[1:5])
    check(start + step, end - step, [])
    check(start - step, end + step, ids[:6])
    if variant != "hot":
        check(scheme.min_ms, scheme.min_ms + step, [first])
        check(scheme.min_ms - 10**6, scheme.max_ms + 1, ids)
        check(scheme.max_ms, scheme.max_ms + 10**6, [last])
        check(scheme.max_ms + 1, scheme.max_ms + 10**6, [])
