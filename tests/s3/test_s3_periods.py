"""Every period S3 layouts offer (drawn from the registry: a new period joins), on moto, where
the calendar bites: keys around month ends and ISO year boundaries (2020-W53, 2021-01-01 in
2020-W53, 2024-12-30 in 2025-W01), against brute force - windows, cursors at every stop,
``periods()``, ``latest()``, directory buckets folder by folder, and a consumer run by run."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from periodsupport import brute_floor, brute_next, layout_periods
from profiles import examples
from s3support import (
    FakeDirectoryBucket,
    FakeS3,
    Recorder,
    brute_force,
    fill_bucket,
    keys_of,
    moto_client,
    new_bucket,
    ulid_at,
)

from ulidkeys.planning.periods import DAY_MS, LAYOUT_PERIOD_NAMES
from ulidkeys.s3 import Bucket, KeyLayout, MemoryStore

HOUR = 3_600_000
#: Where calendars disagree: a 53-week ISO year ending inside a month, a month end that is no
#: week end, a year whose last days are in the next ISO year.
CORNERS = [
    1_608_854_400_000,  # 2020-12-25 (2020-W52; 2020 has 53 ISO weeks)
    1_611_964_800_000,  # 2021-01-30 (January ends on a Sunday)
    1_735_084_800_000,  # 2024-12-25 (2024-12-30 is in 2025-W01)
]
#: Keys spread over 16 days from a corner: two month or ISO year boundaries inside.
SPREAD = 16 * DAY_MS


@pytest.fixture(scope="module")
def s3() -> Iterator[Recorder]:
    with moto_client() as client:  # a bucket a test (new_bucket): one moto for the module
        yield Recorder(client)


def keys_around(layout: KeyLayout, rng: random.Random, corner: int, n: int) -> list[str]:
    times = [corner + rng.randrange(SPREAD) for _ in range(n)]
    # the first and last millisecond of each folder, with the smallest and largest ids
    period = layout.partition
    assert period is not None
    spans = list(period.spans(corner, corner + SPREAD))
    for first, following in rng.sample(spans, min(len(spans), 12)):
        times += [first, following - 1]
    keys = [
        layout.key_for(ulid_at(t, rng.choice([0, (1 << 80) - 1, rng.getrandbits(80)])))
        for t in times
    ]
    return [*keys, layout.prefix + "junk", layout.prefix + "00/wk=2024-W99/x"]


layouts_of_periods = st.builds(
    KeyLayout,
    prefix=st.sampled_from(["", "p/"]),
    shards=st.sampled_from([None, 3]),
    period=layout_periods,
    suffix=st.sampled_from(["", ".json"]),
)


@settings(max_examples=examples(8))
@given(
    layout=layouts_of_periods,
    corner=st.sampled_from(CORNERS),
    seed=st.integers(0, 2**32),
    stops=st.lists(st.integers(0, 60), max_size=3),
)
def test_windows_cursors_and_latest_are_exact_across_calendar_edges(
    s3: Recorder, layout: KeyLayout, corner: int, seed: int, stops: list[int]
) -> None:
    rng = random.Random(seed)
    keys = keys_around(layout, rng, corner, rng.randrange(0, 400))
    bucket = new_bucket(s3)
    fill_bucket(bucket, keys)
    listed = Bucket(s3, bucket, layout)
    directory = Bucket(FakeDirectoryBucket(keys, seed=seed, page=40), "d--x-s3", layout)
    in_memory = Bucket(FakeS3(keys, page=40), "in-memory", layout)  # moto adds only time here
    for _ in range(3):
        start = corner - DAY_MS + rng.randrange(SPREAD + 2 * DAY_MS)
        end = start + rng.choice([1, HOUR, DAY_MS, 8 * DAY_MS, SPREAD])
        expected = brute_force(layout, keys, start, end)
        assert keys_of(listed.list_window(start, end)) == expected, (layout, start, end)
        assert keys_of(directory.run(layout.plan_window(start, end, directory_bucket=True))) == (
            expected
        )
        assert keys_of(in_memory.latest(9, since=start, until=end)) == expected[::-1][:9]
        assert keys_of(directory.latest(9, since=start, until=end)) == expected[::-1][:9]
        # stop after k, resume from the cursor: the pieces are the answer
        got: list[str] = []
        cursor: str | None = None
        for k in [*stops, None]:
            listing = (
                listed.list_window(start, end)
                if cursor is None
                else listed.list_window(cursor=cursor)
            )
            with listing:
                got += keys_of(itertools.islice(listing, k))
            cursor = listing.cursor or cursor
        assert got == expected


@pytest.mark.parametrize("name", LAYOUT_PERIOD_NAMES)
@pytest.mark.parametrize("corner", CORNERS)
def test_periods_lists_the_folders_with_data(s3: Recorder, name: str, corner: int) -> None:
    layout = KeyLayout("p/", shards=2, period=name)
    rng = random.Random(corner)
    times = sorted(corner + rng.randrange(SPREAD) for _ in range(12))
    keys = [layout.key_for(ulid_at(t, rng.getrandbits(80))) for t in times]
    keys += [f"p/00/{layout.period_folder(corner)[:3]}garbage/x", "p/01/zz/x"]
    bucket = new_bucket(s3)
    fill_bucket(bucket, keys)
    listed = Bucket(s3, bucket, layout)
    directory = Bucket(FakeDirectoryBucket(keys, seed=3, page=7), "d--x-s3", layout)
    for since, until in [
        (corner, corner + SPREAD),
        (times[3], times[8]),
        (times[5], times[5] + 1),  # inside one folder: that folder, not the levels below it
        (corner - 40 * DAY_MS, corner),
    ]:
        # brute force: the folders (from the standard library's calendar) of the keys' times
        # that overlap [since, until)
        spans = {(brute_floor(name, t), brute_next(name, t)) for t in times}
        expected = sorted(first for first, end in spans if first < until and end > since)
        for bucket_of in (listed, directory):
            found = bucket_of.periods(since, until)
            assert [p.start_ms for p in found] == expected
            assert [p.end_ms for p in found] == [brute_next(name, ms) for ms in expected]
            assert [p.folder for p in found] == [layout.period_folder(ms) for ms in expected]


@pytest.mark.parametrize("name", LAYOUT_PERIOD_NAMES)
def test_a_consumer_delivers_every_key_once_across_folders(s3: Recorder, name: str) -> None:
    layout = KeyLayout("c/", shards=2, period=name, suffix=".json")
    corner = CORNERS[0]
    bucket = Bucket(s3, new_bucket(s3), layout)
    store = MemoryStore()
    rng = random.Random(5)
    written: list[str] = []
    delivered: list[str] = []
    for run in range(6):  # a run every 3 days, keys written up to the run's clock
        now = corner + (run + 1) * 3 * DAY_MS
        fresh = [
            layout.key_for(ulid_at(now - rng.randrange(3 * DAY_MS) - 60_000, rng.getrandbits(80)))
            for _ in range(40)
        ]
        fill_bucket(bucket.name, fresh)
        written += fresh
        clock = itertools.repeat(now).__next__
        consumption = bucket.consume(store, since=corner, settle=30_000, now=clock)
        delivered += keys_of(consumption)
        consumption.commit()
    assert sorted(delivered) == sorted(written) and len(set(delivered)) == len(delivered)
