"""Pages of columns of a table's queries on both shells, boto3 threads and aiobotocore tasks,
against moto's HTTP server (the asyncio half of ``test_dynamodb_columns.py``: run where
aiobotocore is installed): the same rows, cursor and stats as the items, over shards and
time buckets, a split window, newest first with a limit, and a cursor resumed by pages."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from aiosupport import MODES, Shell, shells
from columnsupport import page_rows
from test_dynamodb_columns import DAY, HOUR, T0, item_rows, ulid_at
from test_dynamodb_support import create_table

from ulidkeys.aio import AsyncTable
from ulidkeys.dynamodb import Entity, Table

TABLE = "columns-async"
HOT = Entity(pk="Hot#{org}#{bucket}#{shard}", sk="Post#{id}", bucket="day", shards=3)
NAMES = ["SK", "id_ms", "ms", "n", "nope"]


@pytest.fixture(scope="module")
def both() -> Iterator[dict[str, Shell]]:
    with shells() as made:
        client = made["sync"].sync_clients["dynamodb"]
        create_table(client, TABLE)
        with Table(client, HOT, table_name=TABLE).batch_writer() as writer:
            for n in range(150):
                ms = T0 - HOUR + n * 997_001
                writer.put({**HOT.keys(org="acme", id=ulid_at(ms, n)), "ms": ms, "n": n})
        yield made


def bound(shell: Shell) -> Table | AsyncTable:
    client = shell.client("dynamodb")
    if shell.is_async:
        return AsyncTable(client, HOT, table_name=TABLE)
    return Table(client, HOT, table_name=TABLE)


def pages_of(shell: Shell, listing: Any, k: int | None = None) -> list[dict[str, list[Any]]]:
    """Up to ``k`` pages of columns of ``listing``, then closed."""
    if not shell.is_async:
        with listing:
            return list(itertools.islice(listing.pages(columns=NAMES), k))

    async def take() -> list[dict[str, list[Any]]]:
        taken = []
        async with listing:
            async for page in listing.pages(columns=NAMES):
                taken.append(page)
                if k is not None and len(taken) >= k:
                    break
        return taken

    return shell.do(take())  # type: ignore[no-any-return]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "options",
    [
        {"page_size": 7},
        {"split": True, "max_workers": 4},
        {"newest_first": True, "limit": 33, "page_size": 5},
    ],
    ids=["pages", "split", "newest-limit"],
)
def test_pages_of_columns_on_both_shells(
    both: dict[str, Shell], mode: str, options: dict[str, Any]
) -> None:
    shell = both[mode]
    query = {"org": "acme", **options}
    items = shell.take(lambda: bound(shell).query_window(T0, T0 + DAY, **query))
    listing = bound(shell).query_window(T0, T0 + DAY, **query)
    pages = pages_of(shell, listing)
    assert len(items.items) > 30
    assert page_rows(pages, NAMES) == item_rows(items.items, NAMES)
    assert listing.cursor == items.cursor
    assert listing.stats.returned == items.stats.returned
    if not options.get("split"):
        assert listing.stats == items.stats


@pytest.mark.parametrize("mode", MODES)
def test_a_cursor_after_pages_of_columns_resumes_exactly(both: dict[str, Shell], mode: str) -> None:
    shell = both[mode]
    query = {"org": "acme", "page_size": 4}
    every = shell.take(lambda: bound(shell).query_window(T0, T0 + DAY, **query)).items
    got: list[str] = []
    cursor = None
    for k in (2, 1, 3, None):
        listing = bound(shell).query_window(T0, T0 + DAY, cursor=cursor, **query)
        got += [row[0] for row in page_rows(pages_of(shell, listing, k), NAMES)]
        cursor = listing.cursor or cursor
    assert got == [item["SK"] for item in every]
