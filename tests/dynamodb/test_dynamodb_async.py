"""The DynamoDB suites run on both executors, the thread shell (boto3) and the asyncio shell
(aiobotocore, ``ulidkeys.aio``), against moto's HTTP server: items written by the shell's batch
writer, exact windows against a brute-force answer (fan-out over bucketed shards, newest
first, limits, small pages), resume from ``.cursor``, early close, racing ``put_new``."""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from aiosupport import MODES, RequestCounter, Shell, shells
from hypothesis import given, settings
from hypothesis import strategies as st
from moto.dynamodb.models import DynamoDBBackend
from profiles import examples
from test_dynamodb_support import brute_force, create_table, ulid_at

from ulidkeys.aio import AsyncTable
from ulidkeys.dynamodb import Entity, Table
from ulidkeys.errors import ItemAlreadyExists
from ulidkeys.ulid import ULID

TABLE = "async"
HOUR = 3_600_000
T0 = 1_700_000_000_000 - 1_700_000_000_000 % HOUR
POST = Entity(pk="Org#{org}", sk="Post#{id}")
HOT = Entity(pk="Hot#{org}#{bucket}#{shard}", sk="Post#{id}", bucket="hour", shards=3)
ENTITIES = {"post": POST, "hot": HOT}
_orgs = itertools.count()


@pytest.fixture(scope="module")
def both() -> Iterator[dict[str, Shell]]:
    with shells() as made:
        create_table(made["sync"].sync_clients["dynamodb"], TABLE)
        yield made


def table_of(shell: Shell, entity: Entity) -> Table | AsyncTable:
    client = shell.client("dynamodb")
    if shell.is_async:
        return AsyncTable(client, entity, table_name=TABLE)
    return Table(client, entity, table_name=TABLE)


def write(shell: Shell, table: Table | AsyncTable, items: list[dict[str, Any]]) -> None:
    """Through the shell's own batch writer (BatchWriter or AsyncBatchWriter)."""
    if isinstance(table, AsyncTable):

        async def go() -> None:
            async with table.batch_writer() as writer:
                for item in items:
                    await writer.put(item)

        shell.loop.run(go())
        return
    with table.batch_writer() as writer:
        for item in items:
            writer.put(item)


offsets = st.lists(
    st.tuples(st.integers(0, 5 * HOUR), st.sampled_from(["min", "max", "rand"])), max_size=40
)


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=examples(20))
@given(
    kind=st.sampled_from(sorted(ENTITIES)),
    offsets=offsets,
    bounds=st.tuples(st.integers(0, 5 * HOUR), st.integers(0, 5 * HOUR)).map(sorted),
    newest_first=st.booleans(),
    limit=st.none() | st.integers(1, 8),
    page_size=st.none() | st.integers(1, 4),
    split=st.booleans(),
)
def test_windows_are_exact_and_resume_from_cursors(
    both: dict[str, Shell],
    mode: str,
    kind: str,
    offsets: list[tuple[int, str]],
    bounds: list[int],
    newest_first: bool,
    limit: int | None,
    page_size: int | None,
    split: bool,
) -> None:
    shell, entity = both[mode], ENTITIES[kind]
    org = f"o{next(_orgs)}"
    by_key = {}  # one item a key: "min" ids of one ms are the same id
    for n, (offset, how) in enumerate(offsets):
        item = {**entity.keys(org=org, id=ulid_at(T0 + offset, how)), "n": n}
        by_key[item["PK"], item["SK"]] = item
    items = list(by_key.values())
    table = table_of(shell, entity)
    write(shell, table, items)
    start, end = T0 + bounds[0], T0 + bounds[1]
    expected = brute_force(entity, items, start, end, newest_first=newest_first, org=org)
    with RequestCounter(shell.client("dynamodb"), "dynamodb.Query") as counter:
        first = shell.take(
            lambda: table.query_window(
                start,
                end,
                newest_first=newest_first,
                limit=limit,
                page_size=page_size,
                split=split,
                org=org,
            )
        )
    assert [item["SK"] for item in first.items] == expected[:limit]
    assert first.stats.calls == counter.sent and first.stats.returned == len(first.items)
    if first.cursor is not None:
        rest = shell.take(
            lambda: table.query_window(
                cursor=first.cursor, newest_first=newest_first, split=split, org=org
            )
        )
        assert [item["SK"] for item in first.items + rest.items] == expected
    if kind == "post" or bounds[0] > 0:  # bucketed entities need since=
        newest = shell.take(lambda: table.latest(3, since=start, until=end, org=org))
        reverse = brute_force(entity, items, start, end, newest_first=True, org=org)
        assert [item["SK"] for item in newest.items] == reverse[:3]


@pytest.mark.parametrize("mode", MODES)
def test_closing_early_cancels_outstanding_requests(both: dict[str, Shell], mode: str) -> None:
    """15 bucket/shard chains of one-item pages, closed after 4 items: the asyncio shell
    sends nothing after close; the thread shell no new request."""
    shell = both[mode]
    org = f"o{next(_orgs)}"
    items = [{**HOT.keys(org=org, id=ULID.new(T0 + n * 61_000)), "n": n} for n in range(290)]
    table = table_of(shell, HOT)
    write(shell, table, items)
    with RequestCounter(shell.client("dynamodb"), "dynamodb.Query") as counter:
        taken = shell.take(
            lambda: table.query_window(T0, T0 + 5 * HOUR, page_size=1, max_workers=4, org=org), 4
        )
        at_close = counter.sent
        time.sleep(0.3)
        after = counter.sent
    assert len(taken.items) == 4 and taken.stats.calls < 100
    if shell.is_async:
        assert after == at_close
    else:
        assert after <= at_close + 4
    assert after <= taken.stats.calls


@pytest.fixture
def atomic_puts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Conditional puts atomic, as DynamoDB makes them: moto's server handles requests on
    threads and checks a put's condition and stores it in two steps, so two racing puts could
    both pass (seen: two winners out of eight)."""
    lock = threading.Lock()
    put_item = DynamoDBBackend.put_item

    def atomic(self: DynamoDBBackend, *args: Any, **kwargs: Any) -> Any:
        with lock:
            return put_item(self, *args, **kwargs)

    monkeypatch.setattr(DynamoDBBackend, "put_item", atomic)


@pytest.mark.parametrize("mode", MODES)
def test_put_new_races_exactly_one_wins(
    both: dict[str, Shell], mode: str, atomic_puts: None
) -> None:
    shell = both[mode]
    org = f"o{next(_orgs)}"
    table = table_of(shell, POST)
    contested = ULID.new(T0)
    outcomes: list[object] = []
    if isinstance(table, AsyncTable):

        async def race() -> list[object]:
            writes = (table.put_new({**POST.keys(org=org, id=contested), "n": n}) for n in range(8))
            return await asyncio.gather(*writes, return_exceptions=True)

        outcomes = shell.loop.run(race())
    else:
        barrier = threading.Barrier(8)
        lock = threading.Lock()

        def writer(n: int) -> None:
            barrier.wait()
            try:
                result: object = table.put_new({**POST.keys(org=org, id=contested), "n": n})
            except ItemAlreadyExists as error:
                result = error
            with lock:
                outcomes.append(result)

        threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    won = [o for o in outcomes if isinstance(o, dict)]
    assert len(outcomes) == 8 and len(won) == 1
    assert all(isinstance(o, ItemAlreadyExists) for o in outcomes if o not in won)
    stored = shell.take(lambda: table.query_window(T0, T0 + 1, org=org)).items
    assert [int(item["n"]) for item in stored] == [int(won[0]["n"])]  # type: ignore[index]
