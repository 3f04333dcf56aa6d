"""The engine proven without AWS: a plan's listing through :class:`Schedule`, in the thread shell
and in the asyncio shell, over in-memory S3 buckets with tiny pages (general-purpose: ordered;
directory: unordered, folder by folder) gives exactly the brute-force answer - every window,
shard layout, period, page size, worker count, split or not, with a limit and newest first,
resumed from a cursor taken anywhere - and the two shells give the same items, stats and cursors.
"""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples
from s3support import T0, FakeDirectoryBucket, FakeS3, brute_force, layouts, ulid_at

from ulidkeys.engine import tasks, threads
from ulidkeys.engine.chains import Page, Stats
from ulidkeys.engine.scheduling import Schedule
from ulidkeys.planning.listings import plan_listing
from ulidkeys.s3 import KeyLayout
from ulidkeys.s3.bucket import ListingSource

HOUR = 3_600_000


class AwaitedSource:
    """A page source awaited by the asyncio shell, answering with the thread shell's source."""

    def __init__(self, source: ListingSource) -> None:
        self.source = source

    async def fetch(self, call: Any, token: Any, limit: int | None) -> Page:
        await asyncio.sleep(0)  # let other requests in flight take their turn
        return self.source.fetch(call, token, limit)


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[KeyLayout, list[str], int, int]:
    layout = draw(layouts)
    start = T0 + draw(st.integers(-2 * HOUR, HOUR))
    end = start + draw(st.sampled_from([0, 1, 1000, 60_000, HOUR, 3 * HOUR, 30 * HOUR]))
    spots = draw(st.lists(st.integers(T0 - 3 * HOUR, T0 + 4 * HOUR), max_size=25))
    spots += [start - 1, start, end - 1, end]
    keys = []
    for spot in spots:
        for randomness in draw(st.lists(st.integers(0, (1 << 80) - 1), min_size=1, max_size=6)):
            keys.append(layout.key_for(ulid_at(spot, randomness)))
    keys += [layout.prefix + "zzz", layout.prefix + "00/x"]  # keys that do not fit
    return layout, keys, start, end


Run = tuple[list[str], str | None, Any]


def thread_run(
    plan: Any, source: ListingSource, workers: int, split: bool, stop: int | None
) -> Run:
    listing = threads.run(plan, source, max_workers=workers, split=split)
    got = []
    for item in listing:
        got.append(item["Key"])
        if stop is not None and len(got) == stop:
            break
    cursor, stats = listing.cursor, listing.stats
    listing.close()
    return got, cursor, stats


def task_run(plan: Any, source: ListingSource, workers: int, split: bool, stop: int | None) -> Run:
    async def main() -> Run:
        listing = tasks.run(plan, AwaitedSource(source), max_workers=workers, split=split)
        got = []
        async with listing:
            async for item in listing:
                got.append(item["Key"])
                if stop is not None and len(got) == stop:
                    break
        return got, listing.cursor, listing.stats

    return asyncio.run(main())


@settings(max_examples=examples(60), deadline=None)
@given(
    scenarios(),
    st.integers(1, 5),
    st.sampled_from([1, 2, 8]),
    st.booleans(),
    st.none() | st.integers(0, 40),
    st.booleans(),
)
def test_both_shells_list_exactly_the_window(
    scenario: tuple[KeyLayout, list[str], int, int],
    page: int,
    workers: int,
    split: bool,
    limit: int | None,
    directory: bool,
) -> None:
    layout, keys, start, end = scenario
    expected = brute_force(layout, keys, start, end)
    fake: Any = FakeDirectoryBucket(keys, seed=page, page=page) if directory else FakeS3(keys, page)
    source = ListingSource(fake, "d--x-s3" if directory else "b")
    newest_first = directory and limit is not None  # latest's plans on directory buckets
    plan = plan_listing(
        layout,
        start,
        end,
        max_keys=page,
        limit=limit,
        newest_first=newest_first,
        directory_bucket=directory,
    )
    want = expected[::-1] if newest_first else expected
    if limit is not None:
        want = want[:limit]
    answers = [
        thread_run(plan, source, workers, split, None),
        task_run(plan, source, workers, split, None),
    ]
    for got, _cursor, stats in answers:
        assert got == want
        assert stats.returned == len(want)
        assert stats.read == stats.returned + stats.skipped + stats.outside
    assert answers[0][1] == answers[1][1]  # the same cursor after the same last item


@settings(max_examples=examples(40), deadline=None)
@given(scenarios(), st.integers(1, 4), st.sampled_from([1, 3, 8]), st.data())
def test_a_cursor_taken_anywhere_resumes_with_exactly_the_rest(
    scenario: tuple[KeyLayout, list[str], int, int], page: int, workers: int, data: st.DataObject
) -> None:
    layout, keys, start, end = scenario
    expected = brute_force(layout, keys, start, end)
    source = ListingSource(FakeS3(keys, page), "b")
    plan = plan_listing(layout, start, end, max_keys=page)
    stop = data.draw(st.integers(1, max(1, len(expected))), "stop")
    shell = data.draw(st.sampled_from([thread_run, task_run]), "shell")
    got, cursor, _stats = shell(plan, source, workers, True, stop)
    assert got == expected[:stop]
    if cursor is None:
        assert not expected
        return
    rest_plan = plan_listing(layout, start, end, cursor=cursor, max_keys=page)
    rest, _cursor, _stats = shell(rest_plan, source, workers, True, None)
    assert got + rest == expected


def test_the_schedule_sends_nothing_past_a_reached_limit() -> None:
    layout = KeyLayout("u/", shards=3)
    keys = [layout.key_for(ulid_at(T0 + i, i)) for i in range(300)]
    fake = FakeS3(keys, page=10)
    plan = plan_listing(layout, T0, T0 + 300, max_keys=10, limit=5)
    schedule = Schedule(plan, Stats())
    source = ListingSource(fake, "b")
    pending = [schedule.take()]
    sent = 0
    given_entries: list[Any] = []
    while True:
        requests = schedule.requests()
        sent += len(requests)
        for ticket, (call, token, limit) in requests:
            schedule.receive(ticket, source.fetch(call, token, limit))
        batch = schedule.take()
        if batch is None:
            break
        given_entries += batch
    assert pending == [[]]  # nothing is ready before an answer
    assert [key for (_id, key), _item in given_entries] == brute_force(layout, keys, T0, T0 + 300)[
        :5
    ]
    # each shard's first page is asked for 5 keys (what the limit leaves), and a shard is asked
    # again only while the merge needs it: a few pages, never the 30 the shards hold
    assert 3 <= sent <= 6
    assert schedule.requests() == []  # once the limit is reached nothing more is sent
