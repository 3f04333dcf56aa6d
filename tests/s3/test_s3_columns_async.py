"""Pages of columns on both shells, boto3 threads and aiobotocore tasks, against moto's HTTP
server (the asyncio half of ``test_s3_columns.py``: run where aiobotocore is installed)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from aiosupport import MODES, Shell, shells
from s3support import brute_force, fill_bucket, ulid_at
from test_s3_columns import HOUR, T0, item_rows, page_rows

from ulidkeys.aio import AsyncBucket
from ulidkeys.s3 import Bucket, KeyLayout


@pytest.fixture(scope="module")
def both() -> Iterator[dict[str, Shell]]:
    with shells() as made:
        yield made


@pytest.mark.parametrize("mode", MODES)
def test_pages_of_columns_on_both_shells(both: dict[str, Shell], mode: str) -> None:
    shell = both[mode]
    layout = KeyLayout("aio/", shards=3)
    name = f"columns-{mode}"
    shell.sync_clients["s3"].create_bucket(Bucket=name)
    keys = [layout.key_for(ulid_at(T0 + i * 7_001, i)) for i in range(2_500)]
    fill_bucket(name, keys, b"abc")
    names = ["key", "size", "id_ms"]
    bound = AsyncBucket if shell.is_async else Bucket
    items = shell.take(lambda: bound(shell.client("s3"), name, layout).list_window(T0, T0 + HOUR))
    listing = bound(shell.client("s3"), name, layout).list_window(T0, T0 + HOUR)

    async def take_pages() -> list[dict[str, list[Any]]]:
        return [page async for page in listing.pages(columns=names)]

    pages = shell.do(take_pages()) if shell.is_async else list(listing.pages(columns=names))
    assert page_rows(pages, names) == item_rows(items.items, names, layout)
    assert [row[0] for row in page_rows(pages, names)] == brute_force(layout, keys, T0, T0 + HOUR)
    assert listing.cursor == items.cursor
    assert listing.stats.returned == items.stats.returned
