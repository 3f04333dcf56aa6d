"""Time-split listings: chains cut into concurrent time slices give exactly the brute-force
answer (tiny pages so edges fall everywhere, keys of one millisecond on both sides of an edge),
resume from cursors taken mid-split, and keep within max_workers and the call budget."""

from __future__ import annotations

import itertools
import threading
import time
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples
from s3support import T0, FakeS3, brute_force, keys_of, layouts, ulid_at

from ulidkeys.engine.chains import Stats
from ulidkeys.engine.slicing import Slicing
from ulidkeys.planning.listings import plan_listing
from ulidkeys.s3 import Bucket, KeyLayout

HOUR = 3_600_000


@st.composite
def dense_scenarios(draw: st.DrawFn) -> tuple[KeyLayout, list[str], int, int]:
    """Keys bunched on few milliseconds (many per ms), so slice edges split bunches."""
    layout = draw(layouts)
    start = T0 + draw(st.integers(-HOUR, HOUR))
    end = start + draw(st.sampled_from([1, 2, 1000, 60_000, HOUR, 2 * HOUR]))
    spots = draw(st.lists(st.integers(T0 - HOUR, T0 + 3 * HOUR), min_size=1, max_size=30))
    spots += [start - 1, start, end - 1, end]
    keys = []
    for spot in spots:
        for r in draw(st.lists(st.integers(0, (1 << 80) - 1), min_size=1, max_size=12)):
            keys.append(layout.key_for(ulid_at(spot, r), draw(st.sampled_from([None, "png"]))))
    keys += [layout.prefix + "zzz", layout.prefix + "00/"]  # keys that do not fit
    return layout, keys, start, end


@settings(max_examples=examples(60))
@given(dense_scenarios(), st.integers(1, 4), st.sampled_from([2, 3, 8]))
def test_split_listing_is_exact(
    scenario: tuple[KeyLayout, list[str], int, int], page: int, workers: int
) -> None:
    layout, keys, start, end = scenario
    fake = FakeS3(keys, page=page)
    plan = plan_listing(layout, start, end, max_keys=page)
    listing = Bucket(fake, "b", layout).run(plan, max_workers=workers)
    got = keys_of(listing)
    assert got == brute_force(layout, keys, start, end)
    stats = listing.stats
    assert stats.calls == len(fake.requests)
    assert stats.read == sum(len(r["Contents"]) for r in fake.responses)
    assert stats.read == stats.returned + stats.skipped + stats.outside


@settings(max_examples=examples(40))
@given(dense_scenarios(), st.integers(1, 3), st.lists(st.integers(0, 30), max_size=4))
def test_resume_from_a_cursor_taken_mid_split(
    scenario: tuple[KeyLayout, list[str], int, int], page: int, stops: list[int]
) -> None:
    layout, keys, start, end = scenario
    bucket = Bucket(FakeS3(keys, page=page), "b", layout)
    got: list[str] = []
    cursor: str | None = None
    for k in [*stops, None]:
        plan = (
            plan_listing(layout, start, end, max_keys=page)
            if cursor is None
            else plan_listing(layout, start, end, cursor=cursor, max_keys=page)
        )
        with bucket.run(plan, max_workers=4) as listing:
            got += keys_of(itertools.islice(listing, k))
            cursor = listing.cursor or cursor
    assert got == brute_force(layout, keys, start, end)


def _spread(layout: KeyLayout, count: int, span: int) -> list[str]:
    return [layout.key_for(ulid_at(T0 + i * span // count, i)) for i in range(count)]


class _Slow(FakeS3):
    """FakeS3 that takes a little time per call and records how many calls overlap."""

    def __init__(self, keys: list[str], page: int = 1000, delay: float = 0.002) -> None:
        super().__init__(keys, page)
        self.delay, self.busy, self.most = delay, 0, 0

    def list_objects_v2(self, **kwargs: Any) -> dict[str, Any]:
        with self._lock:
            self.busy += 1
            self.most = max(self.most, self.busy)
        time.sleep(self.delay)
        try:
            return super().list_objects_v2(**kwargs)
        finally:
            with self._lock:
                self.busy -= 1


def test_a_dense_window_is_split_within_max_workers_and_the_call_budget() -> None:
    layout = KeyLayout("u/")
    keys = _spread(layout, 20_000, HOUR)
    fake = _Slow(keys)
    listing = Bucket(fake, "b", layout).list_window(T0, T0 + HOUR, max_workers=6)
    assert keys_of(listing) == keys
    starts = {r.get("StartAfter") for r in fake.requests if "StartAfter" in r}
    assert len(starts) >= 6  # every worker got a slice
    assert fake.most <= 6
    # 20 pages in one chain: each slice costs at most one partial page more
    assert 20 <= listing.stats.calls <= 20 + len(starts)
    sequential = Bucket(FakeS3(keys), "b", layout).list_window(T0, T0 + HOUR, max_workers=1)
    assert keys_of(sequential) == keys and sequential.stats.calls == 20


def test_an_empty_tail_costs_one_call_per_slice_and_shards_split_too() -> None:
    layout = KeyLayout("u/", shards=4, period="hour")
    keys = _spread(layout, 8_000, HOUR // 4)  # data in the first quarter hour of a 4 h window
    fake = FakeS3(keys, page=100)
    plan = plan_listing(layout, T0, T0 + 4 * HOUR, max_keys=100)
    listing = Bucket(fake, "b", layout).run(plan, max_workers=8)
    assert keys_of(listing) == brute_force(layout, keys, T0, T0 + 4 * HOUR)
    slices = sum("StartAfter" in r for r in fake.requests)
    # 80 full pages; every slice (4 chains, then the cuts) adds at most one partial page
    assert listing.stats.calls <= 80 + slices


def test_the_first_chain_to_answer_takes_its_fair_share_of_the_workers() -> None:
    layout = KeyLayout("u/", shards=4)
    keys = _spread(layout, 8_000, HOUR)  # about 20 pages of 100 in each shard's chain
    source = Bucket(FakeS3(keys, page=100), "b", layout).source
    plan = plan_listing(layout, T0, T0 + HOUR, max_keys=100)
    slicing = Slicing(plan, plan.calls, Stats(), max_workers=16)
    first = slicing.requests()
    assert len(first) == 4  # one chain a shard, no density known yet: nothing to cut
    piece, token, limit = first[0]
    slicing.receive(piece, source.fetch(piece.state.call, token, limit))
    cut = slicing.requests()
    # the other shards hold as many keys: a quarter of the workers, not all 13 idle ones (each
    # slice costs a partial page; the other chains would be cut later for no shorter wall time)
    assert [len(chain) for chain in slicing.chains] == [4, 1, 1, 1]
    assert len(cut) == 4  # the shard's first slice again, and its 3 new ones
    for piece, token, limit in [*first[1:], *cut]:
        slicing.receive(piece, source.fetch(piece.state.call, token, limit))
    slicing.requests()
    sizes = [len(chain) for chain in slicing.chains]
    assert min(sizes) >= 3 and sum(sizes) <= 16  # every shard cut, the workers shared out


def test_no_split_with_one_worker_or_split_off() -> None:
    layout = KeyLayout("u/")
    keys = _spread(layout, 5_000, HOUR)
    for workers, split in [(1, True), (8, False)]:
        fake = FakeS3(keys)
        listing = Bucket(fake, "b", layout).run(
            plan_listing(layout, T0, T0 + HOUR), max_workers=workers, split=split
        )
        assert keys_of(listing) == keys
        assert len(fake.requests) == 5
        assert sum("StartAfter" in r for r in fake.requests) == 1


def test_closing_a_split_listing_stops_requests() -> None:
    layout = KeyLayout("u/")
    fake = _Slow(_spread(layout, 30_000, HOUR), delay=0.005)
    with Bucket(fake, "b", layout).list_window(T0, T0 + HOUR, max_workers=4) as listing:
        first = keys_of(itertools.islice(listing, 1500))
    assert len(first) == 1500
    sent = len(fake.requests)
    time.sleep(0.05)
    assert len(fake.requests) <= sent + 4  # only what was in flight
    assert threading.active_count() < 50
