"""Window plans without AWS: exact answers over an in-memory S3 with tiny pages, --explain,
cursors (resume, latest, refusals) and pages that break the ListObjectsV2 contract."""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from periodsupport import layout_periods
from profiles import examples
from s3support import T0, FakeS3, brute_force, keys_of, layouts, order, ulid_at

from ulidkeys import TimeWindow
from ulidkeys.errors import (
    InvalidCursor,
    InvalidKeyPart,
    InvalidType,
    InvalidValue,
    ServiceError,
    UnexpectedResponse,
)
from ulidkeys.planning.listings import MAX_KEYS, layout_scope, plan_listing
from ulidkeys.planning.periods import PARTITION_LIMIT_MS
from ulidkeys.planning.plans import Cursor
from ulidkeys.s3 import Bucket, KeyLayout

SPAN = 3 * 86_400_000  # keys spread over three days, windows anywhere in them


#: Layouts with shard and period folders: where a cursor must cross shards and folders.
sharded_period_layouts = st.builds(
    KeyLayout,
    prefix=st.sampled_from(["", "up/"]),
    shards=st.sampled_from([1, 3, 16]),
    period=layout_periods,
    suffix=st.sampled_from(["", ".jpg"]),
)


@st.composite
def scenarios(
    draw: st.DrawFn, layout_strategy: st.SearchStrategy[KeyLayout] = layouts
) -> tuple[KeyLayout, list[str], int, int]:
    layout = draw(layout_strategy)
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


@settings(max_examples=examples(150))
@given(scenarios(), st.integers(1, 40), st.sampled_from([1, 3, 8]))
def test_listing_is_exact_and_in_time_order(
    scenario: tuple[KeyLayout, list[str], int, int], page: int, workers: int
) -> None:
    layout, keys, start, end = scenario
    fake = FakeS3(keys, page=page)
    plan = plan_listing(layout, start, end)
    listing = Bucket(fake, "bucket", layout).run(plan, max_workers=workers)
    got = keys_of(listing)
    expected = brute_force(layout, keys, start, end)
    assert got == expected
    stats = listing.stats
    assert stats.returned == len(expected)
    assert stats.calls == len(fake.requests)
    assert stats.read == stats.returned + stats.skipped + stats.outside
    assert stats.read == sum(len(r["Contents"]) for r in fake.responses)
    for request in fake.requests:
        # never from the start of the bucket: a first call always carries StartAfter
        assert "StartAfter" in request or "ContinuationToken" in request
    for call in plan.calls:
        assert call.max_keys == MAX_KEYS
        assert call.start_after is not None and call.start_after.startswith(call.prefix)
        assert call.stop_at is None or call.start_after < call.stop_at


@settings(max_examples=examples(60))
@given(scenarios(), st.integers(1, 7), st.data())
def test_resume_after_any_returned_key(
    scenario: tuple[KeyLayout, list[str], int, int], page: int, data: st.DataObject
) -> None:
    layout, keys, start, end = scenario
    full = keys_of(Bucket(FakeS3(keys, page), "b", layout).list_window(start, end))
    if not full:
        return
    cut = data.draw(st.integers(0, len(full) - 1))
    plan = plan_listing(layout, start, end, after=full[cut])
    rest = keys_of(Bucket(FakeS3(keys, page), "b", layout).run(plan))
    assert rest == full[cut + 1 :]


@given(scenarios())
def test_calls_per_chain_stay_within_ceil_n_over_1000_plus_one(
    scenario: tuple[KeyLayout, list[str], int, int],
) -> None:
    layout, keys, start, end = scenario
    fake = FakeS3(keys)
    plan = plan_listing(layout, start, end)
    result = keys_of(Bucket(fake, "b", layout).run(plan))
    chains = max(1, len(plan.calls))
    assert len(fake.requests) <= math.ceil(len(result) / 1000) + chains


def test_pagination_with_more_than_1000_keys_and_bounds_inside_pages() -> None:
    layout = KeyLayout("u/")
    keys = [layout.key_for(ulid_at(T0 + i, i)) for i in range(3500)]
    fake = FakeS3(keys)
    listing = Bucket(fake, "b", layout).list_window(T0 + 250, T0 + 2750)
    got = keys_of(listing)
    assert got == keys[250:2750]
    # 2,500 keys from key 250 on: pages of 1,000 end at keys 1250, 2250, 3250 -> 3 calls
    assert listing.stats.calls == 3
    assert listing.stats.outside == 3 * 1000 - 2500
    assert all(r["MaxKeys"] == 1000 for r in fake.requests)


def test_plan_picks_the_longest_safe_prefix_and_exact_start() -> None:
    layout = KeyLayout("uploads/", period="hour", suffix=".jpg")
    plan = plan_listing(layout, T0, T0 + 60_000)
    (call,) = plan.calls
    lo = "uploads/dt=2024-05-17/hr=09/" + ulid_at(T0, 0)
    assert call.start_after == lo[:-1]
    assert call.stop_at == "uploads/dt=2024-05-17/hr=09/" + ulid_at(T0 + 60_000, 0)
    shared = TimeWindow.from_ms(T0, T0 + 60_000).common_prefix()
    assert call.prefix == "uploads/dt=2024-05-17/hr=09/" + shared
    # a key exactly at the lower bound, with any suffix, sorts after StartAfter
    assert (lo + ".jpg").encode() > call.start_after.encode()
    assert plan.groups == (plan.calls,)  # a general bucket: one group, one chain per shard


def test_explain_prints_one_line_per_call() -> None:
    layout = KeyLayout("uploads/", shards=3, period="day")
    bucket = Bucket(FakeS3([]), "b", layout)
    plan = bucket.plan_window("2024-05-17T09:00:00Z", "2024-05-17T10:00:00Z")
    lines = str(plan).splitlines()
    assert str(plan) == plan.explain()
    assert len(lines) == 1 + 3
    assert "3 call chain(s)" in lines[0]
    for n, line in enumerate(lines[1:], 1):
        assert line.startswith(f"  {n}. ListObjectsV2 Prefix='uploads/0{n - 1}/dt=2024-05-17/")
        assert "StartAfter=" in line and "MaxKeys=1000" in line
        assert "stop at the first key >=" in line
    empty = bucket.plan_window("2024-05-17T09:00:00Z", "2024-05-17T09:00:00Z")
    assert empty.calls == () and "no calls" in empty.explain()
    assert keys_of(bucket.run(empty)) == []


def test_directory_plan_uses_slash_prefixes_and_no_start_after() -> None:
    layout = KeyLayout("uploads/", shards=2, period="hour")
    plan = plan_listing(layout, T0 - 1, T0 + 3_600_000, directory_bucket=True)
    # one group per folder time (read one after the other), one chain per shard in a group
    prefixes = [[c.prefix for c in group] for group in plan.groups]
    assert prefixes == [
        ["uploads/00/dt=2024-05-17/hr=08/", "uploads/01/dt=2024-05-17/hr=08/"],
        ["uploads/00/dt=2024-05-17/hr=09/", "uploads/01/dt=2024-05-17/hr=09/"],
    ]
    assert plan.calls == plan.groups[0] + plan.groups[1]
    assert all(c.start_after is None and not c.ordered for c in plan.calls)
    assert "read every page (unordered)" in plan.explain()
    flat = plan_listing(KeyLayout("img-"), T0, T0 + 1, directory_bucket=True)
    assert [c.prefix for c in flat.calls] == [""]
    # a directory bucket is recognised by its name
    named = Bucket(FakeS3([]), "photos--use1-az4--x-s3", layout).plan_window(T0 - 1, T0 + 1)
    assert named.groups == plan.groups


def test_far_future_windows_stop_at_the_last_period_folder() -> None:
    layout = KeyLayout("u/", period="day")
    last = ulid_at(PARTITION_LIMIT_MS - 1, 7)
    keys = [layout.key_for(last), "u/zzz"]
    plan = plan_listing(layout, PARTITION_LIMIT_MS - 10, PARTITION_LIMIT_MS + 10)
    assert keys_of(Bucket(FakeS3(keys), "b", layout).run(plan)) == [layout.key_for(last)]
    beyond = plan_listing(layout, PARTITION_LIMIT_MS, PARTITION_LIMIT_MS + 10)
    assert beyond.calls == ()


def test_page_size_is_capped_at_1000() -> None:
    layout = KeyLayout("u/")
    assert {c.max_keys for c in plan_listing(layout, T0, T0 + 1, max_keys=7).calls} == {7}
    bucket = Bucket(FakeS3([]), "b", layout)
    assert {c.max_keys for c in bucket.plan_window(T0, T0 + 1, max_keys=7).calls} == {7}
    for bad in (0, 1001):
        with pytest.raises(InvalidValue, match="max_keys"):
            plan_listing(layout, T0, T0 + 1, max_keys=bad)
        with pytest.raises(InvalidValue, match="max_keys"):
            bucket.plan_window(T0, T0 + 1, max_keys=bad)


def test_bad_after_raises() -> None:
    layout = KeyLayout("u/", shards=2)
    with pytest.raises(InvalidKeyPart, match="after="):
        Bucket(FakeS3([]), "b", layout).plan_window(T0, T0 + 1, after="u/whatever")
    with pytest.raises(InvalidKeyPart, match="after="):
        plan_listing(layout, T0, T0 + 1, after="u/whatever")
    assert order(layout, layout.key_for(ulid_at(T0, 1)))[0] == ulid_at(T0, 1)


@pytest.mark.parametrize("spread", [1_000, 60_000, 3_600_000])
def test_latest_narrows_crowded_slices_instead_of_reading_them(spread: int) -> None:
    """50,000 keys crowded before ``until``: latest(5) must not read them all, wherever
    the crowd sits relative to the first slices."""
    layout = KeyLayout("busy/")
    first = T0 - spread - 600_000
    keys = [layout.key_for(ulid_at(first + i * spread // 50_000, i)) for i in range(50_000)]
    fake = FakeS3(keys)
    listing = Bucket(fake, "b", layout).latest(5, until=T0)
    assert keys_of(listing) == keys[::-1][:5]
    assert listing.stats.read < 20_000  # each crowded probe costs one page


# --- cursors ----------------------------------------------------------------------------------


@settings(max_examples=examples(60))
@given(
    scenarios(st.one_of(sharded_period_layouts, layouts)),
    st.integers(1, 7),
    st.lists(st.integers(0, 40), max_size=5),
    st.sampled_from([1, 8]),
    st.booleans(),
)
def test_cursor_resume_loses_and_repeats_nothing(
    scenario: tuple[KeyLayout, list[str], int, int],
    page: int,
    stops: list[int],
    workers: int,
    with_window: bool,
) -> None:
    """Read k items (k random, 0 included), stop, resume from ``.cursor``; again and again,
    then read to the end: the pieces put together are exactly the answer."""
    layout, keys, start, end = scenario
    bucket = Bucket(FakeS3(keys, page), "b", layout)
    expected = brute_force(layout, keys, start, end)
    got: list[str] = []
    cursor: str | None = None
    for k in [*stops, None]:
        if cursor is None:
            listing = bucket.list_window(start, end, max_workers=workers)
        elif with_window:  # the same window given again is accepted
            listing = bucket.list_window(start, end, cursor=cursor, max_workers=workers)
        else:  # the cursor's own window
            listing = bucket.list_window(cursor=cursor, max_workers=workers)
        assert listing.cursor is None  # nothing yielded yet
        with listing:
            taken = keys_of(itertools.islice(listing, k))
        got += taken
        if taken:
            assert listing.position == order(layout, taken[-1])
            assert isinstance(listing.cursor, str)
            cursor = listing.cursor
        else:
            assert listing.cursor is None
    assert got == expected
    if cursor is not None:  # past the last item: nothing more
        assert keys_of(bucket.list_window(cursor=cursor)) == []


@settings(max_examples=examples(30))
@given(
    scenarios(st.one_of(sharded_period_layouts, layouts)),
    st.integers(1, 7),
    st.integers(0, 30),
    st.integers(1, 4),
)
def test_latest_then_latest_with_cursor_continues_with_older_ones(
    scenario: tuple[KeyLayout, list[str], int, int], page: int, n: int, rounds: int
) -> None:
    layout, keys, start, end = scenario
    bucket = Bucket(FakeS3(keys, page), "b", layout)
    expected = brute_force(layout, keys, start, end)[::-1]
    got: list[str] = []
    listing = bucket.latest(n, since=start, until=end)
    for _ in range(rounds):
        taken = keys_of(listing)
        assert len(taken) == min(n, len(expected) - len(got))
        got += taken
        if listing.cursor is None:
            break
        if n % 2:  # the cursor's own window, or the same window again
            listing = bucket.latest(n, cursor=listing.cursor)
        else:
            listing = bucket.latest(n, since=start, until=end, cursor=listing.cursor)
    assert got == expected[: len(got)]
    assert len(got) == min(len(expected), n * rounds)


def _cursors(keys_at: int = 40) -> tuple[Bucket, str, str]:
    """A bucket, a list_window cursor and a latest cursor of the same window."""
    layout = KeyLayout("up/", shards=3, period="hour")
    keys = [layout.key_for(ulid_at(T0 + 1000 * i, i)) for i in range(keys_at)]
    bucket = Bucket(FakeS3(keys, 4), "b", layout)
    forward = bucket.list_window(T0, T0 + 3_600_000)
    next(forward)
    backward = bucket.latest(3, since=T0, until=T0 + 3_600_000)
    next(backward)
    assert forward.cursor is not None and backward.cursor is not None
    return bucket, forward.cursor, backward.cursor


def test_cursors_of_another_layout_window_or_direction_are_refused() -> None:
    bucket, forward, backward = _cursors()
    fake = bucket.client
    others = [
        KeyLayout("up/", shards=3, period="day"),
        KeyLayout("up/", shards=4, period="hour"),
        KeyLayout("up2/", shards=3, period="hour"),
        KeyLayout("up/", shards=3, period="hour", suffix=".jpg"),
    ]
    for layout in others:
        other = Bucket(fake, "b", layout)
        with pytest.raises(InvalidCursor, match="another listing"):
            list(other.list_window(cursor=forward))
        with pytest.raises(InvalidCursor, match="another listing"):
            list(other.latest(3, cursor=backward))
        with pytest.raises(InvalidCursor, match="another listing"):
            other.plan_window(cursor=forward)
    with pytest.raises(InvalidCursor, match="another listing"):
        plan_listing(others[0], T0, T0 + 3_600_000, cursor=forward)
    for since, until in [(T0, T0 + 3_600_001), (T0 + 1, T0 + 3_600_000), (0, T0)]:
        with pytest.raises(InvalidCursor, match="window"):
            list(bucket.list_window(since, until, cursor=forward))
        with pytest.raises(InvalidCursor, match="window"):
            list(bucket.latest(3, since=since, until=until, cursor=backward))
    with pytest.raises(InvalidCursor, match="oldest-first"):
        list(bucket.latest(3, cursor=forward))
    with pytest.raises(InvalidCursor, match="newest-first"):
        list(bucket.list_window(cursor=backward))
    with pytest.raises(InvalidValue, match="after= or cursor="):
        bucket.plan_window(T0, T0 + 3_600_000, after="up/00/x", cursor=forward)
    with pytest.raises(InvalidType, match="cursor="):
        bucket.list_window(cursor=b"uk1.x")  # type: ignore[arg-type]
    # the cursors themselves still work
    assert len(keys_of(bucket.list_window(cursor=forward))) == 39
    assert len(keys_of(bucket.latest(2, cursor=backward))) == 2


def _damaged(cursor: str) -> list[str]:
    """Every way a stored cursor gets hurt: cut short, a character changed, text added."""
    alphabet = "AZaz09-_.=+/ é"
    cut = [cursor[:i] for i in range(len(cursor))]
    changed = [
        cursor[:i] + char + cursor[i + 1 :]
        for i in range(len(cursor))
        for char in alphabet
        if char != cursor[i]
    ]
    added = [cursor + tail for tail in ("=", "==", "A", ".", " ", "\n")]
    added += [cursor[:i] + char + cursor[i:] for i in range(0, len(cursor), 3) for char in "A=."]
    return [*cut, *changed, *added, "uk1.", "uk2." + cursor[4:], cursor.upper()]


def test_damaged_cursors_raise_invalid_cursor() -> None:
    bucket, forward, backward = _cursors()
    for cursor in (forward, backward):
        for bad in _damaged(cursor):
            assert bad != cursor
            with pytest.raises(InvalidCursor):
                bucket.plan_window(cursor=bad)
            with pytest.raises(InvalidCursor):
                list(bucket.latest(3, cursor=bad))
    # well-formed cursors of this listing whose last item is no key of it (made by hand)
    layout, start, end = bucket.layout, T0, T0 + 3_600_000
    good = layout.key_for(ulid_at(T0 + 5, 3))
    for id_text, key in [
        ("garbage", good),
        (ulid_at(T0 + 5, 4), good),  # the key holds another id
        (ulid_at(T0 + 5, 3), "up/x"),
        (ulid_at(end, 3), layout.key_for(ulid_at(end, 3))),  # outside the window
    ]:
        forged = Cursor(layout_scope(layout), False, start, end, (id_text, key)).encode()
        with pytest.raises(InvalidCursor, match="does not end at a key"):
            bucket.plan_window(cursor=forged)
    fine = Cursor(layout_scope(layout), False, start, end, (ulid_at(T0 + 5, 3), good)).encode()
    assert bucket.plan_window(cursor=fine).after == (ulid_at(T0 + 5, 3), good)


# --- pages that break the ListObjectsV2 contract ----------------------------------------------


class _Answers:
    """A client whose ListObjectsV2 gives fixed answers, one per request."""

    def __init__(self, *answers: dict[str, Any]) -> None:
        self.answers = list(answers)
        self.requests: list[dict[str, Any]] = []

    def list_objects_v2(self, **kwargs: Any) -> dict[str, Any]:
        self.requests.append(kwargs)
        return self.answers.pop(0)


@pytest.mark.parametrize(
    "answer",
    [
        {},  # HTTP 200, empty body
        {"ResponseMetadata": {"HTTPStatusCode": 200}},
        {"Contents": [{"Key": "u/" + ulid_at(T0, 1)}]},
        {"Contents": [{"Key": "u/" + ulid_at(T0, 1)}], "KeyCount": 1, "MaxKeys": 1000},
        {"IsTruncated": "false", "Contents": []},
        {"IsTruncated": None},
    ],
)
def test_a_page_without_is_truncated_raises(answer: dict[str, Any]) -> None:
    layout = KeyLayout("u/")
    client = _Answers(answer)
    listing = Bucket(client, "b", layout).list_window(T0, T0 + 10)
    with pytest.raises(UnexpectedResponse, match="without IsTruncated") as caught:
        next(listing)
    assert isinstance(caught.value, ServiceError)
    assert listing.cursor is None and len(client.requests) == 1


def test_a_truncated_page_without_a_token_raises() -> None:
    layout = KeyLayout("u/")
    contents = [{"Key": layout.key_for(ulid_at(T0, 1))}]
    client = _Answers({"Contents": contents, "IsTruncated": True})
    with pytest.raises(UnexpectedResponse, match="NextContinuationToken"):
        list(Bucket(client, "b", layout).list_window(T0, T0 + 10))


class _Forgetful(FakeS3):
    """FakeS3 whose answers to the chosen requests (by number) lose IsTruncated."""

    def __init__(self, keys: list[str], page: int, broken: set[int]) -> None:
        super().__init__(keys, page)
        self.broken = broken
        self.count = 0

    def list_objects_v2(self, **kwargs: Any) -> dict[str, Any]:
        result = super().list_objects_v2(**kwargs)
        with self._lock:
            self.count += 1
            if self.count in self.broken:
                del result["IsTruncated"]
        return result


@settings(max_examples=examples(40))
@given(
    scenarios(st.one_of(sharded_period_layouts, layouts)),
    st.integers(1, 7),
    st.sets(st.integers(1, 60), max_size=8),
    st.sampled_from([1, 8]),
)
def test_pages_without_is_truncated_raise_and_the_cursor_resumes_exactly(
    scenario: tuple[KeyLayout, list[str], int, int], page: int, broken: set[int], workers: int
) -> None:
    layout, keys, start, end = scenario
    client = _Forgetful(keys, page, broken)
    bucket = Bucket(client, "b", layout)
    got: list[str] = []
    cursor: str | None = None
    raised = 0
    for _attempt in range(len(broken) + 1):  # each raise uses up one broken answer
        if cursor is None:
            listing = bucket.list_window(start, end, max_workers=workers)
        else:
            listing = bucket.list_window(cursor=cursor, max_workers=workers)
        sent = client.count
        try:
            for obj in listing:  # one at a time: what came before the raise is kept
                got.append(obj["Key"])
        except UnexpectedResponse:
            raised += 1
            if workers == 1:  # requests in order: this listing got a broken answer
                assert broken & set(range(sent + 1, client.count + 1))
            cursor = listing.cursor or cursor
            continue
        if workers == 1:  # never a silent short answer: a listing that ends got none
            assert not broken & set(range(sent + 1, client.count + 1))
        break
    else:
        raise AssertionError("every attempt raised")
    assert got == brute_force(layout, keys, start, end)
    # a broken answer was read by some listing (or by a request still in flight when its
    # listing had already raised): either way, some listing raised
    assert (raised > 0) == bool(broken & set(range(1, client.count + 1)))


def test_latest_sends_nothing_before_iteration() -> None:
    """Like list_window, latest is lazy: requests (and their errors) come from the loop."""
    from ulidkeys.s3 import Bucket

    class NoCalls:
        def list_objects_v2(self, **kwargs: object) -> dict[str, object]:
            raise AssertionError(f"requested before iteration: {kwargs}")

    bucket = Bucket(NoCalls(), "bkt", KeyLayout("up/", shards=4, period="day"))  # type: ignore[arg-type]
    listing = bucket.latest(5)
    listing.close()
    bucket.list_window(0, 10).close()


def test_window_ends_that_are_not_ints_are_refused_by_name() -> None:
    # found by the fuzz test: None reached a comparison and raised a bare TypeError
    layout = KeyLayout("u/")
    with pytest.raises(InvalidType, match="start_ms=None"):
        plan_listing(layout, None, T0)  # type: ignore[arg-type]
    with pytest.raises(InvalidType, match="end_ms='1h'"):
        plan_listing(layout, T0, "1h")  # type: ignore[arg-type]
