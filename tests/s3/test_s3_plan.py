"""Window plans without AWS: exact answers over an in-memory S3 with tiny pages, and --explain."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from s3support import T0, FakeS3, brute_force, layouts, order, ulid_at

from ulidkeys import TimeWindow
from ulidkeys.errors import InvalidKeyPart, InvalidValue
from ulidkeys.s3 import KeyLayout, execute, plan_window
from ulidkeys.s3.layout import PERIOD_LIMIT_MS
from ulidkeys.s3.plan import MAX_KEYS

SPAN = 3 * 86_400_000  # keys spread over three days, windows anywhere in them


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[KeyLayout, list[str], int, int]:
    layout = draw(layouts)
    start = T0 + draw(st.integers(-3_600_000, SPAN))
    end = start + draw(st.sampled_from([0, 1, 2, 1000, 60_000, 3_600_000, 86_400_000, SPAN]))
    times = draw(st.lists(st.integers(T0 - 3_600_000, T0 + SPAN + 3_600_000), max_size=300))
    # keys exactly at and next to both bounds, with the smallest and largest random parts
    times += [start - 1, start, end - 1, end]
    rands = draw(st.lists(st.integers(0, (1 << 80) - 1), min_size=len(times), max_size=len(times)))
    rands[-4:] = [(1 << 80) - 1, 0, (1 << 80) - 1, 0]
    exts = draw(st.lists(st.sampled_from([None, None, "jpg", "png"]), min_size=len(times)))
    keys = [layout.key_for(ulid_at(t, r), e) for t, r, e in zip(times, rands, exts, strict=False)]
    path = layout.path(layout.shard_of(ulid_at(start, 0)), start)
    lo, _ = TimeWindow.from_ms(start, end).bounds(path)
    # keys that do not fit, sorted right next to the bounds: they must be skipped, not crash
    keys += [lo[:-1], lo[:-1] + ".", lo[:-1] + "0/x", layout.prefix + "zzz", layout.prefix + "00/"]
    return layout, keys, start, end


@settings(max_examples=150)
@given(scenarios(), st.integers(1, 40), st.sampled_from([1, 3, 8]))
def test_listing_is_exact_and_in_time_order(
    scenario: tuple[KeyLayout, list[str], int, int], page: int, workers: int
) -> None:
    layout, keys, start, end = scenario
    fake = FakeS3(keys, page=page)
    plan = plan_window(layout, TimeWindow.from_ms(start, end))
    listing = execute(plan, fake, "bucket", max_workers=workers)
    got = [obj["Key"] for obj in listing]
    expected = brute_force(layout, keys, start, end)
    assert got == expected
    stats = listing.stats
    assert stats.returned == len(expected)
    assert stats.calls == len(fake.requests)
    assert stats.transferred == stats.returned + stats.skipped + stats.outside
    for request in fake.requests:
        # never from the start of the bucket: a first call always carries StartAfter
        assert "StartAfter" in request or "ContinuationToken" in request
    for call in plan.calls:
        assert call.max_keys == MAX_KEYS
        assert call.start_after is not None and call.start_after.startswith(call.prefix)
        assert call.stop_at is None or call.start_after < call.stop_at


@settings(max_examples=60)
@given(scenarios(), st.integers(1, 7), st.data())
def test_resume_after_any_returned_key(
    scenario: tuple[KeyLayout, list[str], int, int], page: int, data: st.DataObject
) -> None:
    layout, keys, start, end = scenario
    window = TimeWindow.from_ms(start, end)
    full = [o["Key"] for o in execute(plan_window(layout, window), FakeS3(keys, page), "b")]
    if not full:
        return
    cut = data.draw(st.integers(0, len(full) - 1))
    plan = plan_window(layout, window, after=full[cut])
    rest = [o["Key"] for o in execute(plan, FakeS3(keys, page), "b")]
    assert rest == full[cut + 1 :]


@given(scenarios())
def test_calls_per_chain_stay_within_ceil_n_over_1000_plus_one(
    scenario: tuple[KeyLayout, list[str], int, int],
) -> None:
    layout, keys, start, end = scenario
    fake = FakeS3(keys)
    plan = plan_window(layout, TimeWindow.from_ms(start, end))
    result = [o["Key"] for o in execute(plan, fake, "b")]
    chains = max(1, len(plan.calls))
    assert len(fake.requests) <= math.ceil(len(result) / 1000) + chains


def test_pagination_with_more_than_1000_keys_and_bounds_inside_pages() -> None:
    layout = KeyLayout("u/")
    keys = [layout.key_for(ulid_at(T0 + i, i)) for i in range(3500)]
    fake = FakeS3(keys)
    listing = execute(plan_window(layout, TimeWindow.from_ms(T0 + 250, T0 + 2750)), fake, "b")
    got = [o["Key"] for o in listing]
    assert got == keys[250:2750]
    # 2,500 keys from key 250 on: pages of 1,000 end at keys 1250, 2250, 3250 -> 3 calls
    assert listing.stats.calls == 3
    assert listing.stats.outside == 3 * 1000 - 2500
    assert all(r["MaxKeys"] == 1000 for r in fake.requests)


def test_plan_picks_the_longest_safe_prefix_and_exact_start() -> None:
    layout = KeyLayout("uploads/", period="hour", suffix=".jpg")
    plan = plan_window(layout, TimeWindow.from_ms(T0, T0 + 60_000))
    (call,) = plan.calls
    lo = "uploads/dt=2024-05-17/hr=09/" + ulid_at(T0, 0)
    assert call.start_after == lo[:-1]
    assert call.stop_at == "uploads/dt=2024-05-17/hr=09/" + ulid_at(T0 + 60_000, 0)
    shared = TimeWindow.from_ms(T0, T0 + 60_000).common_prefix()
    assert call.prefix == "uploads/dt=2024-05-17/hr=09/" + shared
    # a key exactly at the lower bound, with any suffix, sorts after StartAfter
    assert (lo + ".jpg").encode() > call.start_after.encode()


def test_describe_prints_one_line_per_call() -> None:
    layout = KeyLayout("uploads/", shards=3, period="day")
    plan = layout.plan_window("2024-05-17T09:00:00Z", "2024-05-17T10:00:00Z")
    lines = str(plan).splitlines()
    assert len(lines) == 1 + 3
    assert "3 call chain(s)" in lines[0]
    for n, line in enumerate(lines[1:], 1):
        assert line.startswith(f"  {n}. ListObjectsV2 Prefix='uploads/0{n - 1}/dt=2024-05-17/")
        assert "StartAfter=" in line and "MaxKeys=1000" in line
        assert "stop at the first key >=" in line
    empty = layout.plan_window("2024-05-17T09:00:00Z", "2024-05-17T09:00:00Z")
    assert empty.calls == () and "no calls" in empty.describe()


def test_directory_plan_uses_slash_prefixes_and_no_start_after() -> None:
    layout = KeyLayout("uploads/", shards=2, period="hour")
    plan = layout.plan_window(T0 - 1, T0 + 3_600_000, directory_bucket=True)
    prefixes = [c.prefix for c in plan.calls]
    assert prefixes == [
        "uploads/00/dt=2024-05-17/hr=08/",
        "uploads/00/dt=2024-05-17/hr=09/",
        "uploads/01/dt=2024-05-17/hr=08/",
        "uploads/01/dt=2024-05-17/hr=09/",
    ]
    assert all(c.start_after is None and not c.ordered for c in plan.calls)
    assert "read every page (unordered)" in plan.describe()
    flat = KeyLayout("img-").plan_window(T0, T0 + 1, directory_bucket=True)
    assert [c.prefix for c in flat.calls] == [""]


def test_far_future_windows_stop_at_the_last_period_folder() -> None:
    layout = KeyLayout("u/", period="day")
    last = ulid_at(PERIOD_LIMIT_MS - 1, 7)
    keys = [layout.key_for(last), "u/zzz"]
    plan = plan_window(layout, TimeWindow.from_ms(PERIOD_LIMIT_MS - 10, PERIOD_LIMIT_MS + 10))
    assert [o["Key"] for o in execute(plan, FakeS3(keys), "b")] == [layout.key_for(last)]
    beyond = plan_window(layout, TimeWindow.from_ms(PERIOD_LIMIT_MS, PERIOD_LIMIT_MS + 10))
    assert beyond.calls == ()


def test_page_size_is_capped_at_1000() -> None:
    layout = KeyLayout("u/")
    window = TimeWindow.from_ms(T0, T0 + 1)
    assert {c.max_keys for c in plan_window(layout, window, max_keys=7).calls} == {7}
    for bad in (0, 1001):
        with pytest.raises(InvalidValue, match="max_keys"):
            plan_window(layout, window, max_keys=bad)


def test_bad_cursor_raises() -> None:
    layout = KeyLayout("u/", shards=2)
    with pytest.raises(InvalidKeyPart, match="after="):
        layout.plan_window(T0, T0 + 1, after="u/whatever")
    assert order(layout, layout.key_for(ulid_at(T0, 1)))[0] == ulid_at(T0, 1)


@pytest.mark.parametrize("spread", [1_000, 60_000, 3_600_000])
def test_latest_narrows_crowded_slices_instead_of_reading_them(spread: int) -> None:
    """50,000 keys crowded before ``before``: latest(5) must not read them all, wherever
    the crowd sits relative to the first slices."""
    layout = KeyLayout("busy/")
    first = T0 - spread - 600_000
    keys = [layout.key_for(ulid_at(first + i * spread // 50_000, i)) for i in range(50_000)]
    fake = FakeS3(keys)
    listing = layout.latest(fake, "b", 5, before=T0)
    assert [o["Key"] for o in listing] == keys[::-1][:5]
    assert listing.stats.transferred < 20_000  # each crowded probe costs one page
