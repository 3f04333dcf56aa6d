"""S3 listings and writes against moto in-process: exact windows, resume (after= and cursors),
latest, periods, put_new, and every id scheme of ``ulidkeys.ids`` as keys.

Keys are created straight in moto's backend (``s3support.fill_bucket``); every ListObjectsV2
request goes through a Recorder that fails the test if MaxKeys exceeds 1,000.
"""

from __future__ import annotations

import itertools
import random
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from idsupport import SORTABLE
from periodsupport import layout_periods
from profiles import UNTRACED_SLOW, examples
from s3support import (
    T0,
    FakeDirectoryBucket,
    FakeS3,
    Recorder,
    brute_force,
    fill_bucket,
    keys_of,
    layouts,
    moto_client,
    new_bucket,
    ulid_at,
)

from ulidkeys import TimeWindow
from ulidkeys.errors import InvalidValue, UploadConflict
from ulidkeys.ids import (
    ULID_SCHEME,
    IdScheme,
)
from ulidkeys.planning.listings import plan_listing
from ulidkeys.planning.periods import LAYOUT_PERIOD_NAMES
from ulidkeys.s3 import Bucket, KeyLayout
from ulidkeys.timeinput import MAX_MS

HOUR = 3_600_000
DAY = 86_400_000


@pytest.fixture(scope="module")
def s3() -> Iterator[Recorder]:
    with moto_client() as client:
        yield Recorder(client)


def random_keys(layout: KeyLayout, rng: random.Random, n: int, lo: int, hi: int) -> list[str]:
    exts = [None, None, None, "png"]
    return [
        layout.key_for(ulid_at(rng.randrange(lo, hi), rng.getrandbits(80)), rng.choice(exts))
        for _ in range(n)
    ]


@settings(max_examples=examples(15))
@given(
    layout=layouts,
    seed=st.integers(0, 2**32),
    n=st.integers(0, 3000),
    start=st.integers(-HOUR, 3 * DAY),
    length=st.sampled_from([1, 1000, 60_000, HOUR, DAY, 4 * DAY]),
)
def test_list_window_matches_brute_force(
    s3: Recorder, layout: KeyLayout, seed: int, n: int, start: int, length: int
) -> None:
    rng = random.Random(seed)
    start += T0
    end = start + length
    keys = random_keys(layout, rng, n, T0 - HOUR, T0 + 3 * DAY)
    top = (1 << 80) - 1
    for t, r in [(start - 1, top), (start, 0), (start, top), (end - 1, top), (end, 0)]:
        keys.append(layout.key_for(ulid_at(t, r)))
    keys += [layout.prefix + "junk", layout.prefix + "0" * 26 + ".bad suffix"]
    bucket = new_bucket(s3)
    fill_bucket(bucket, keys)
    s3.requests.clear()
    listing = Bucket(s3, bucket, layout).list_window(start, end)
    got = keys_of(listing)
    assert got == brute_force(layout, keys, start, end)
    assert listing.stats.calls == len(s3.requests)
    assert all("StartAfter" in r or "ContinuationToken" in r for r in s3.requests)


def test_more_than_1000_keys_in_a_window_paginate_with_bounds_inside_pages(s3: Recorder) -> None:
    layout = KeyLayout("logs/", suffix=".json")
    keys = [layout.key_for(ulid_at(T0 + 10 * i, i)) for i in range(2700)]
    bucket = new_bucket(s3)
    fill_bucket(bucket, keys)
    s3.requests.clear()
    listing = Bucket(s3, bucket, layout).list_window(T0 + 10 * 333 - 5, T0 + 10 * 2444 + 1)
    assert keys_of(listing) == keys[333:2445]
    assert listing.stats.calls == 3 == len(s3.requests)  # ceil(2112 / 1000)
    assert [r["MaxKeys"] for r in s3.requests] == [1000] * 3
    assert listing.stats.outside == 2700 - 2445  # the last page runs to the end of the bucket


# on moto; resuming in memory: test_s3_plan.py::test_cursor_resume_loses_and_repeats_nothing
@pytest.mark.slow
def test_resume_from_every_cursor_position(s3: Recorder) -> None:
    layout = KeyLayout("up/", shards=3, period="hour", suffix=".jpg")
    rng = random.Random(7)
    start, end = T0 + HOUR - 20_000, T0 + HOUR + 20_000  # crosses an hour folder
    keys = random_keys(layout, rng, 70, start - 5_000, end + 5_000)
    bucket = new_bucket(s3)
    fill_bucket(bucket, keys)
    listed = Bucket(s3, bucket, layout)
    full = keys_of(listed.list_window(start, end))
    assert full == brute_force(layout, keys, start, end) and len(full) > 30
    listing = listed.list_window(start, end)
    for i, after in enumerate(full):
        assert next(listing)["Key"] == after
        cursor = listing.cursor
        assert cursor is not None
        # a Lambda that read full[: i + 1] and resumed: union is the answer, nothing repeats
        resumed = keys_of(listed.list_window(start, end, after=after))
        assert full[: i + 1] + resumed == full
        if i % 4 == 0 or i == len(full) - 1:  # the cursor resumes there too (more: test_s3_plan)
            assert keys_of(listed.list_window(cursor=cursor)) == resumed


def test_keys_that_do_not_fit_are_skipped_and_counted(s3: Recorder) -> None:
    layout = KeyLayout("u/", shards=2)
    good = [layout.key_for(ulid_at(T0 + i, 2 * i)) for i in range(10)]  # all in shard 00
    # inside the listed key ranges, but not keys of the layout:
    wrong_shard = [f"u/01/{ulid_at(T0 + i, 2 * i)}" for i in range(3)]
    lower_tail = [f"u/00/{ulid_at(T0 + i, 0)[:10]}{'zz' * 8}" for i in range(2)]
    bad_suffix = [good[4] + "~", good[5] + ".tmp/part1"]
    # outside every listed range: never even transferred
    elsewhere = ["u/00/README", "u/01/x", "v/" + good[0]]
    bucket = new_bucket(s3)
    fill_bucket(bucket, good + wrong_shard + lower_tail + bad_suffix + elsewhere)
    listing = Bucket(s3, bucket, layout).list_window(T0, T0 + 10)
    assert keys_of(listing) == good
    assert listing.stats.skipped == 3 + 2 + 2
    assert listing.stats.returned == 10


def test_prefix_plus_delimiter_loses_keys_but_list_window_does_not(s3: Recorder) -> None:
    """The blog-post trick: Prefix = shared ULID prefix, Delimiter = the upper bound's next
    character. Every key of the window with that character later in its name is folded into
    CommonPrefixes and missing from Contents."""
    layout = KeyLayout("uploads/")
    window = TimeWindow.from_ms(T0, T0 + HOUR)
    rng = random.Random(3)
    keys = random_keys(layout, rng, 400, T0 - HOUR, T0 + 2 * HOUR)
    bucket = new_bucket(s3)
    fill_bucket(bucket, keys)
    expected = brute_force(layout, keys, window.start_ms, window.end_ms)
    lo, hi = window.bounds("uploads/")
    prefix = "uploads/" + window.common_prefix()
    delimiter = hi[len(prefix)]
    page = s3.list_objects_v2(Bucket=bucket, Prefix=prefix, Delimiter=delimiter, MaxKeys=1000)
    assert not page["IsTruncated"]
    naive = [o["Key"] for o in page.get("Contents", []) if lo <= o["Key"] < hi]
    lost = sorted(set(expected) - set(naive))
    assert lost, "with 400 random keys some in-window key contains the delimiter"
    assert all(delimiter in key[len(prefix) :] for key in lost)
    assert keys_of(Bucket(s3, bucket, layout).list_window(T0, T0 + HOUR)) == expected


# on moto; the same property in memory, with the calls it costs: test_s3_latest_cost.py
@pytest.mark.slow
@settings(max_examples=examples(12))
@given(
    layout=layouts,
    seed=st.integers(0, 2**32),
    n=st.integers(1, 1500),
    want=st.integers(0, 40),
    spread=st.sampled_from([10, 60_000, DAY, 40 * DAY]),
)
def test_latest_matches_brute_force(
    s3: Recorder, layout: KeyLayout, seed: int, n: int, want: int, spread: int
) -> None:
    rng = random.Random(seed)
    keys = random_keys(layout, rng, n, T0 - spread, T0)
    bucket = new_bucket(s3)
    fill_bucket(bucket, keys)
    before = T0 - spread // 3
    expected = brute_force(layout, keys, 0, before)[::-1][:want]
    listing = Bucket(s3, bucket, layout).latest(want, until=before)
    assert keys_of(listing) == expected


def test_latest_jumps_over_empty_days_with_period_folders(s3: Recorder) -> None:
    """Two years of nothing before ``before``: day folders (one Delimiter call per shard)
    let latest jump straight to the newest day with data instead of searching back."""
    layout = KeyLayout("g/", shards=2, period="day")
    keys = [layout.key_for(ulid_at(T0 + i * 60_000, i)) for i in range(300)]
    bucket = new_bucket(s3)
    fill_bucket(bucket, keys)
    s3.requests.clear()
    listed = Bucket(s3, bucket, layout)
    listing = listed.latest(10, until=T0 + 730 * DAY)
    assert keys_of(listing) == keys[::-1][:10]
    # 2 day listings, then slices of 1 min .. 17 h back from the end of the newest day (data
    # ends 10 h before it): 6 slices x 2 shards. Searching back from two years later without
    # the day folders would take 11+ slices.
    assert listing.stats.calls == len(s3.requests) <= 2 + 2 * 6
    assert keys_of(listed.latest(10, until=T0)) == []


def test_periods_lists_folders_with_data(s3: Recorder) -> None:
    for period, step in (("day", DAY), ("hour", HOUR)):
        layout = KeyLayout("p/", shards=2, period=period)  # type: ignore[arg-type]
        times = [T0 + 5 * step + 7, T0 + 5 * step + 9, T0 + 7 * step, T0 + 30 * step, T0 - step]
        keys = [layout.key_for(ulid_at(t, i)) for i, t in enumerate(times)]
        keys.append("p/00/dt=garbage/x")
        bucket = new_bucket(s3)
        fill_bucket(bucket, keys)
        since, until = T0 + step // 2, T0 + 30 * step
        found = Bucket(s3, bucket, layout).periods(since, until)
        starts = [p.start_ms for p in found]
        # folders overlapping [since, until) that hold a key (the key itself may lie outside)
        floors = {t - t % step for t in times}
        assert starts == sorted(f for f in floors if f + step > since and f < until)
        assert len(starts) == (3 if period == "day" else 2)  # T0 is hour-aligned
        # a window inside one folder: the folder itself, not the level below it
        inner = Bucket(s3, bucket, layout).periods(times[0], times[0] + 1)
        assert [p.start_ms for p in inner] == [times[0] - times[0] % step]
        assert [p.folder for p in found] == [layout.period_folder(ms) for ms in starts]
    with pytest.raises(InvalidValue, match="no period folders"):
        Bucket(s3, bucket, KeyLayout("p/")).periods(T0, T0 + 1)


def fixed_then_fresh(monkeypatch: pytest.MonkeyPatch, first: str) -> None:
    """Make the first id of every thread ``first`` (a forced collision), later ones fresh."""
    real = ULID_SCHEME.new
    local = threading.local()

    def fake() -> str:
        if getattr(local, "used", False):
            return real()
        local.used = True
        return first

    monkeypatch.setattr(ULID_SCHEME, "new", fake)


def test_put_new_never_overwrites(s3: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = KeyLayout("in/", suffix=".txt")
    bucket = new_bucket(s3)
    taken = ulid_at(T0, 1)
    s3.put_object(Bucket=bucket, Key=layout.key_for(taken), Body=b"first")
    fixed_then_fresh(monkeypatch, taken)
    listed = Bucket(s3, bucket, layout)
    key = listed.put_new(b"second", ContentType="text/plain")
    assert key != layout.key_for(taken) and layout.fits(key)
    assert s3.get_object(Bucket=bucket, Key=layout.key_for(taken))["Body"].read() == b"first"
    assert s3.get_object(Bucket=bucket, Key=key)["Body"].read() == b"second"
    monkeypatch.setattr(ULID_SCHEME, "new", lambda: taken)
    with pytest.raises(UploadConflict, match="3 fresh keys"):
        listed.put_new(b"third", attempts=3)
    with pytest.raises(InvalidValue, match="IfNoneMatch"):
        listed.put_new(b"x", IfNoneMatch="*")


def test_racing_writers_one_wins_nothing_lost(
    s3: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight threads start with the same key; S3 lets exactly one create it. moto checks
    If-None-Match and then writes without a lock, so its PUT handler is serialized here to
    model S3's atomic conditional write (the behaviour under test is put_new's retry)."""
    import moto.s3.responses

    lock = threading.Lock()
    original = moto.s3.responses.S3Response.put_object

    def atomic_put(self: Any) -> Any:
        with lock:
            return original(self)

    monkeypatch.setattr(moto.s3.responses.S3Response, "put_object", atomic_put)
    layout = KeyLayout("race/", shards=4)
    bucket = new_bucket(s3)
    contested = ulid_at(T0, 42)
    fixed_then_fresh(monkeypatch, contested)
    barrier = threading.Barrier(8)
    written: dict[int, str] = {}

    def writer(n: int) -> None:
        barrier.wait()
        written[n] = Bucket(s3, bucket, layout).put_new(f"body-{n}".encode())

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(written) == 8 and len(set(written.values())) == 8
    assert sum(key == layout.key_for(contested) for key in written.values()) == 1
    for n, key in written.items():
        assert s3.get_object(Bucket=bucket, Key=key)["Body"].read() == f"body-{n}".encode()
    listed = s3.list_objects_v2(Bucket=bucket, MaxKeys=1000)["Contents"]
    assert sorted(o["Key"] for o in listed) == sorted(written.values())


# --- cursors ----------------------------------------------------------------------------------


@settings(max_examples=examples(6))
@given(
    layout=st.builds(
        KeyLayout,
        prefix=st.sampled_from(["", "c/"]),
        shards=st.sampled_from([2, 5, 16]),
        period=layout_periods,
        suffix=st.sampled_from(["", ".json"]),
    ),
    seed=st.integers(0, 2**32),
    n=st.integers(0, 1200),
    start=st.integers(-HOUR, 2 * DAY),
    length=st.sampled_from([1000, HOUR, DAY, 3 * DAY]),
    stops=st.lists(st.integers(0, 400), max_size=3),
    want=st.integers(1, 200),
)
def test_cursors_resume_listings_and_latest_exactly(
    s3: Recorder,
    layout: KeyLayout,
    seed: int,
    n: int,
    start: int,
    length: int,
    stops: list[int],
    want: int,
) -> None:
    """Stop a listing after k items (0 and all included), resume from ``.cursor``, repeat: the
    pieces are the answer. ``latest(n)`` then ``latest(n, cursor=...)``: the next older ones."""
    rng = random.Random(seed)
    start += T0
    end = start + length
    keys = random_keys(layout, rng, n, T0 - HOUR, T0 + 3 * DAY)
    bucket = new_bucket(s3)
    fill_bucket(bucket, keys)
    listed = Bucket(s3, bucket, layout)
    expected = brute_force(layout, keys, start, end)
    got: list[str] = []
    cursor: str | None = None
    for k in [*stops, None]:
        listing = (
            listed.list_window(start, end) if cursor is None else listed.list_window(cursor=cursor)
        )
        with listing:
            got += keys_of(itertools.islice(listing, k))
        cursor = listing.cursor or cursor
    assert got == expected
    newest: list[str] = []
    listing = listed.latest(want, since=start, until=end)
    for _ in range(3):
        taken = keys_of(listing)
        newest += taken
        if len(taken) < want:
            break
        listing = listed.latest(want, cursor=listing.cursor)
    assert newest == expected[::-1][: len(newest)]
    assert len(newest) == min(len(expected), 3 * want)


# --- every id scheme as keys ------------------------------------------------------------------

#: No period, then every period layouts offer (drawn from the registry: a new period joins).
SCHEME_LAYOUTS: list[dict[str, Any]] = [
    {"prefix": "ids/"},
    *(
        {"shards": 4, "period": name, "suffix": "/meta.json"}
        if n % 2
        else {"prefix": "ids/", "shards": 3, "period": name, "suffix": ".bin"}
        for n, name in enumerate(LAYOUT_PERIOD_NAMES)
    ),
]


def id_at(scheme: IdScheme, ms: int, bits: int) -> str:
    """An id of millisecond ``ms`` (floored to the resolution) with random bits from ``bits``:
    the bits that differ between the smallest and the largest id of that time."""
    ms -= ms % scheme.resolution_ms
    low, high = scheme.to_int(scheme.min_for(ms)), scheme.to_int(scheme.max_for(ms))
    return scheme.from_int(min(high, low | (bits & (low ^ high))))


#: Every registered sortable scheme (a new scheme file joins them): besides the int-coded
#: schemes, the ordered UUIDv1 (MySQL's swap), TypeID and tagged ULIDs.
LAID_OUT_SCHEMES = tuple(SORTABLE)


def _in_the_loop(index: int, shape: int) -> bool:
    """Whether ``make test`` runs scheme ``index`` in layout ``shape``: two shapes a scheme,
    turning with the scheme, so every shape meets several schemes; the slow runs (test-all,
    CI) run every pair."""
    return (shape - index) % len(SCHEME_LAYOUTS) in (0, 2)


#: Every scheme in every layout shape (the pairs the loop leaves to the slow runs marked).
SCHEME_CASES = [
    pytest.param(
        scheme,
        shape,
        id=f"{scheme.name}-{shape}",
        marks=() if _in_the_loop(index, shape) else UNTRACED_SLOW,
    )
    for index, scheme in enumerate(LAID_OUT_SCHEMES)
    for shape in range(len(SCHEME_LAYOUTS))
]


#: The periods every scheme meets on moto too: week and month, the periods that came last
#: (their folders are the newest spelling for the planner, the engine and the adapter alike).
ON_MOTO_FOR_EVERY_SCHEME = ("week", "month")


#: The layout shapes of those periods, and the others (one of which each scheme meets, turning).
_EVERY_SCHEME_SHAPES = tuple(
    n for n, shaped in enumerate(SCHEME_LAYOUTS) if shaped.get("period") in ON_MOTO_FOR_EVERY_SCHEME
)
_TURNING_SHAPES = tuple(n for n in range(len(SCHEME_LAYOUTS)) if n not in _EVERY_SCHEME_SHAPES)


def _on_moto(index: int, shape: int) -> bool:
    """Whether the moto twin runs scheme ``index`` in layout ``shape``: every scheme in the
    shapes of :data:`ON_MOTO_FOR_EVERY_SCHEME` and in one of the others, turning with the
    scheme. The in-memory test runs every pair: what moto adds is the adapter, whose pages
    ``tests/s3/test_s3_fake.py`` proves equal to the in-memory bucket's."""
    return shape in _EVERY_SCHEME_SHAPES or shape == _TURNING_SHAPES[index % len(_TURNING_SHAPES)]


#: The pairs the moto twin runs (all in the slow runs).
MOTO_SCHEME_CASES = [
    pytest.param(scheme, shape, id=f"{scheme.name}-{shape}")
    for index, scheme in enumerate(LAID_OUT_SCHEMES)
    for shape in range(len(SCHEME_LAYOUTS))
    if _on_moto(index, shape)
]


def test_the_loop_meets_every_scheme_and_every_shape() -> None:
    """Read from the parametrizations themselves: the pairs ``make test`` runs (not marked
    slow) meet every scheme and every shape; the slow runs hold every pair in memory, and on
    moto every scheme in week and month and every shape with several schemes."""
    looped = [case.values for case in SCHEME_CASES if not case.marks]
    assert {scheme for scheme, _ in looped} == set(LAID_OUT_SCHEMES)
    assert {shape for _, shape in looped} == set(range(len(SCHEME_LAYOUTS)))
    assert len(SCHEME_CASES) == len(LAID_OUT_SCHEMES) * len(SCHEME_LAYOUTS)  # all in slow runs
    on_moto = [case.values for case in MOTO_SCHEME_CASES]
    periods = [SCHEME_LAYOUTS[shape].get("period") for shape in _EVERY_SCHEME_SHAPES]
    assert sorted(periods) == sorted(ON_MOTO_FOR_EVERY_SCHEME)  # each a shape of its own
    for shape in _EVERY_SCHEME_SHAPES:
        assert {scheme for scheme, at in on_moto if at == shape} == set(LAID_OUT_SCHEMES)
    for shape in range(len(SCHEME_LAYOUTS)):
        assert len({scheme for scheme, at in on_moto if at == shape}) >= 3, shape
    assert len(on_moto) == len(LAID_OUT_SCHEMES) * (len(ON_MOTO_FOR_EVERY_SCHEME) + 1)


@pytest.mark.parametrize(("scheme", "shape"), SCHEME_CASES)
@settings(max_examples=examples(3))
@given(data=st.data())
def test_every_id_scheme_lists_exact_windows_in_memory(
    scheme: IdScheme, shape: int, data: st.DataObject
) -> None:
    """The planner and the engine for every scheme, over an in-memory bucket of small pages."""
    check_every_scheme(lambda keys: FakeS3(keys, page=50), scheme, shape, data)


@pytest.mark.slow  # the same on moto: the adapter's contract for every scheme
@pytest.mark.no_cover  # untraced, as UNTRACED_SLOW says: the in-memory twin is traced
@pytest.mark.parametrize(("scheme", "shape"), MOTO_SCHEME_CASES)
@settings(max_examples=examples(3))
@given(data=st.data())
def test_every_id_scheme_lists_exact_windows(
    s3: Recorder, scheme: IdScheme, shape: int, data: st.DataObject
) -> None:
    def on_moto(keys: list[str]) -> Any:
        bucket = new_bucket(s3)
        fill_bucket(bucket, keys)
        return _Named(s3, bucket)

    check_every_scheme(on_moto, scheme, shape, data)


class _Named:
    """A client and the bucket it lists (what check_every_scheme binds a Bucket to)."""

    def __init__(self, client: Any, bucket: str) -> None:
        self.client, self.bucket = client, bucket


def check_every_scheme(
    make: Callable[[list[str]], Any], scheme: IdScheme, shape: int, data: st.DataObject
) -> None:
    """Windows of every kind over keys of ``scheme`` in layout ``shape``, listed from the bucket
    ``make(keys)`` gives (an in-memory client, or a client and a moto bucket), equal the
    brute-force answer; newest first and directory buckets on in-memory buckets."""
    layout = KeyLayout(scheme=scheme, **SCHEME_LAYOUTS[shape])  # type: ignore[arg-type]
    step = scheme.resolution_ms
    first = scheme.min_ms if layout.period is None else max(scheme.min_ms, 0)
    first += -first % step
    last = layout.last_ms - layout.last_ms % step
    near = min(max(T0, first), last)
    center = data.draw(st.sampled_from([first, last, near]) | st.integers(first, last), "center")
    spread = data.draw(st.sampled_from([0, 2_000, HOUR, 3 * DAY, 400 * DAY]), "spread")
    rng = random.Random(data.draw(st.integers(0, 2**32), "seed"))

    def clamp(ms: int) -> int:
        return min(max(ms, first), last)

    windows = []
    for _ in range(3):
        start = center + rng.randint(-spread - 2 * step, spread + 2 * step)
        length = rng.choice([0, 1, step, 1000, HOUR, DAY, 2 * spread + step, 1 << 50])
        windows.append((start, start + length))
    windows.append((first - 5 * step, last + 5 * step))  # every id of the layout
    times = [clamp(center + rng.randint(-spread, spread)) for _ in range(rng.randint(0, 200))]
    ids = [id_at(scheme, t, rng.getrandbits(160)) for t in times]
    for start, end in windows:  # the smallest and largest ids at and next to both ends
        for ms in (start - step, start, end - step, end):
            ms -= ms % step
            if first <= ms <= last:
                ids += [scheme.min_for(ms), scheme.max_for(ms)]
    keys = [layout.key_for(i, rng.choice([None, None, "png"])) for i in ids]
    some = scheme.min_for(near)
    keys += [  # keys that do not fit: skipped, never returned, never fatal
        layout.prefix + "zzz",
        layout.path(None if layout.shards is None else 0, near) + ulid_at(near, 1)[:-1],
        layout.path(layout.shard_of(some), near) + some + "~",
    ]
    made = make(keys)
    if isinstance(made, _Named):
        listed = Bucket(made.client, made.bucket, layout)
    else:
        listed = Bucket(made, "in-memory-listed", layout)
    directory = Bucket(FakeDirectoryBucket(keys, seed=len(keys), page=50), "d--x-s3", layout)
    in_memory = Bucket(FakeS3(keys, page=50), "in-memory", layout)
    for start, end in windows:
        expected = brute_force(layout, keys, start, end)
        if 0 <= start <= end and start <= MAX_MS and (end <= MAX_MS or end == MAX_MS + 1):
            listing = listed.list_window(start, end)
            # the newest first too, on an in-memory bucket (moto adds nothing here but time)
            newest = in_memory.latest(7, since=start, until=end)
            assert keys_of(newest) == expected[::-1][:7], (layout, start, end)
        else:  # times a TimeWindow cannot name (before 1970, past 2**48): plan by hand
            listing = listed.run(plan_listing(layout, start, min(end, 1 << 60)))
        assert keys_of(listing) == expected, (layout, start, end)
        assert listing.stats.returned == len(expected)
        assert all(scheme.parse(layout.parse(k).id) == layout.parse(k).id for k in expected)
        # and a directory bucket (unordered pages, folder by folder), in memory
        try:
            plan = plan_listing(layout, start, min(end, 1 << 60), directory_bucket=True)
        except InvalidValue as error:  # a window of centuries, folder by folder
            assert "more than 10,000" in str(error)
            continue
        assert keys_of(directory.run(plan)) == expected, (layout, start, end)
