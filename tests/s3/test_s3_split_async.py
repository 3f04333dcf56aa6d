"""Time slices under asyncio, and what both shells share: the asyncio shell lists a chain as
concurrent time slices with the same :class:`~ulidkeys.engine.slicing.Slicing` as the thread shell
(exact at every edge, resumable mid-split, within ``max_workers``); Slicing bounds how much is
listed ahead of a caller that takes nothing.

A small in-memory S3 (``FakeS3``) answers through ``await``, so these run without a server;
the suites against moto's HTTP server are in ``test_s3_async.py``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples
from s3support import T0, FakeS3, brute_force, keys_of, ulid_at
from test_s3_split import dense_scenarios

from ulidkeys.aio import AsyncBucket
from ulidkeys.engine.chains import Stats
from ulidkeys.engine.slicing import MAX_AHEAD_PAGES, Slicing
from ulidkeys.planning.listings import plan_listing
from ulidkeys.s3 import KeyLayout
from ulidkeys.s3.bucket import ListingSource

HOUR = 3_600_000


class AsyncFake:
    """``FakeS3`` behind ``await``, optionally slow, recording how many calls overlap."""

    def __init__(self, fake: FakeS3, delay: float = 0.0) -> None:
        self.fake, self.delay = fake, delay
        self.busy = self.most = 0

    async def list_objects_v2(self, **kwargs: Any) -> dict[str, Any]:
        self.busy += 1
        self.most = max(self.most, self.busy)
        try:
            await asyncio.sleep(self.delay)
            return self.fake.list_objects_v2(**kwargs)
        finally:
            self.busy -= 1


async def _collect(results: Any, k: int | None = None) -> tuple[list[dict[str, Any]], Any]:
    items: list[dict[str, Any]] = []
    async with results:
        async for item in results:
            items.append(item)
            if k is not None and len(items) >= k:
                break
    return items, results


def _spread(layout: KeyLayout, count: int, span: int) -> list[str]:
    return [layout.key_for(ulid_at(T0 + i * span // count, i)) for i in range(count)]


@settings(max_examples=examples(40))
@given(dense_scenarios(), st.integers(1, 4), st.sampled_from([2, 3, 8]))
def test_async_split_listing_is_exact(
    scenario: tuple[KeyLayout, list[str], int, int], page: int, workers: int
) -> None:
    layout, keys, start, end = scenario
    fake = FakeS3(keys, page=page)
    plan = plan_listing(layout, start, end, max_keys=page)
    bucket = AsyncBucket(AsyncFake(fake), "b", layout)  # type: ignore[arg-type]
    items, listing = asyncio.run(_collect(bucket.run(plan, max_workers=workers)))
    assert keys_of(items) == brute_force(layout, keys, start, end)
    stats = listing.stats
    assert stats.calls == len(fake.requests)
    assert stats.read == sum(len(r["Contents"]) for r in fake.responses)
    assert stats.read == stats.returned + stats.skipped + stats.outside


@settings(max_examples=examples(25))
@given(dense_scenarios(), st.integers(1, 3), st.lists(st.integers(0, 30), max_size=4))
def test_async_resume_from_a_cursor_taken_mid_split(
    scenario: tuple[KeyLayout, list[str], int, int], page: int, stops: list[int]
) -> None:
    layout, keys, start, end = scenario
    bucket = AsyncBucket(AsyncFake(FakeS3(keys, page=page)), "b", layout)  # type: ignore[arg-type]
    got: list[str] = []
    cursor: str | None = None
    for k in [*stops, None]:
        plan = (
            plan_listing(layout, start, end, max_keys=page)
            if cursor is None
            else plan_listing(layout, start, end, cursor=cursor, max_keys=page)
        )
        items, listing = asyncio.run(_collect(bucket.run(plan, max_workers=4), k))
        got += keys_of(items)
        cursor = listing.cursor or cursor
    assert got == brute_force(layout, keys, start, end)


def test_async_dense_window_is_split_within_max_workers_and_the_call_budget() -> None:
    layout = KeyLayout("u/")
    keys = _spread(layout, 20_000, HOUR)
    fake = FakeS3(keys)
    client = AsyncFake(fake, delay=0.002)
    bucket = AsyncBucket(client, "b", layout)  # type: ignore[arg-type]
    items, listing = asyncio.run(_collect(bucket.list_window(T0, T0 + HOUR, max_workers=6)))
    assert keys_of(items) == keys
    starts = {r.get("StartAfter") for r in fake.requests if "StartAfter" in r}
    assert len(starts) >= 6  # every worker got a slice
    assert client.most <= 6
    assert 20 <= listing.stats.calls <= 20 + len(starts)  # a partial page more per slice


def test_slices_stop_listing_ahead_of_a_caller_that_takes_nothing() -> None:
    """The shared, I/O-free :class:`Slicing`: answers are fed back, nothing is taken. Past
    ``MAX_AHEAD_PAGES`` pages per worker only an empty first slice may still ask, so the
    listing stops with a bounded amount held (without the bound: all 200 pages); then taking
    lets it go on, and the whole window comes out exact."""
    layout = KeyLayout("u/")
    keys = _spread(layout, 8_000, HOUR)
    plan = plan_listing(layout, T0, T0 + HOUR, max_keys=40)
    source = ListingSource(FakeS3(keys, page=40), "b")  # type: ignore[arg-type]
    slicing = Slicing(plan, plan.calls, Stats(), max_workers=4)
    assert slicing.max_buffered == MAX_AHEAD_PAGES * 4 * 40

    def settle() -> None:
        while requests := slicing.requests():
            for piece, token, limit in requests:
                slicing.receive(piece, source.fetch(piece.state.call, token, limit))

    settle()
    assert slicing.max_buffered <= slicing.buffered <= slicing.max_buffered + 4 * 40
    got = []
    while not slicing.finished(0):
        got += slicing.take(0)
        assert slicing.buffered <= slicing.max_buffered + 4 * 40
        settle()
    assert [key for (_, key), _ in got] == keys


def test_near_the_bound_the_workers_stay_on_what_the_caller_needs_next() -> None:
    """A caller that takes what is ready after every round of answers: the window is much
    bigger than the bound, so the slices far ahead fill it; then the workers must keep to the
    slices the caller reaches next, not wait on its front slice alone (which took 405 rounds
    here), and the bound still holds."""
    layout = KeyLayout("u/")
    keys = _spread(layout, 20_000, HOUR)  # 1,000 pages of 20
    plan = plan_listing(layout, T0, T0 + HOUR, max_keys=20)
    source = ListingSource(FakeS3(keys, page=20), "b")  # type: ignore[arg-type]
    slicing = Slicing(plan, plan.calls, Stats(), max_workers=8)
    assert slicing.max_buffered == MAX_AHEAD_PAGES * 8 * 20  # 256 of the 1,000 pages
    rounds, got, most = 0, [], 0
    while not slicing.finished(0):
        requests = slicing.requests()
        rounds += 1
        for piece, token, limit in requests:
            slicing.receive(piece, source.fetch(piece.state.call, token, limit))
        most = max(most, slicing.buffered)
        taken = slicing.take(0)
        assert requests or taken or slicing.finished(0), "stalled"
        got += taken
    assert [key for (_, key), _ in got] == keys
    assert most <= slicing.max_buffered + 8 * 20  # a page a worker past the bound at most
    assert rounds <= 1.6 * 1000 / 8  # all 8 workers busy most rounds (172 here)
