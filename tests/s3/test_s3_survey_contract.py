"""The survey's honesty contract, as properties over generated buckets against brute force:
every count marked exact is exact; every range holds the truth (at its stated confidence);
every other count is unknown with a sure lower bound; an oldest or newest time marked exact is
exact, else the truth lies beyond it; a survey never makes more calls than its budget nor more
than reading the prefix whole takes; a layout is suggested only for a prefix read whole, and
then lists exactly the id-bearing keys; a layout reported (suggested or not) lists every key
that holds an id (no shard count the survey did not see); with no layout, the keys counted are
the keys that end in an id of any scheme. Buckets: flat, sharded, period folders, newest-first;
uniform, bursty, multi-day, same-ms and outlier times; junk names mixed in. The S3 side is an
in-memory bucket with AWS's listing rules (tests/s3/standin.py) counting calls; the explicit
cases of the issue run on moto too."""

from __future__ import annotations

import math
import random
import string
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from moto import mock_aws
from profiles import UNTRACED_SLOW, examples
from s3support import fill_bucket, new_bucket
from standin import StandInS3

from ulidkeys import ULID
from ulidkeys.cli.survey import text_of
from ulidkeys.errors import UlidkeysError
from ulidkeys.ids.protocol import inverted_time
from ulidkeys.ids.registry import generator_for, names, scheme_named
from ulidkeys.s3 import KeyLayout, Survey, survey
from ulidkeys.survey.counts import bin_starts

T0 = 1_715_904_000_000  # 2024-05-17T00:00:00Z
HOUR, DAY = 3_600_000, 86_400_000
LAST_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z

LAYOUTS = {
    "flat": KeyLayout("up/", suffix=".dat"),
    "4 shards": KeyLayout("up/", shards=4, suffix=".dat"),
    "16 shards, days": KeyLayout("logs/", shards=16, period="day"),
    "days": KeyLayout("d/", period="day", suffix=".json"),
    "newest first": KeyLayout("feed/", newest_first=True),
    "newest first, 8 shards": KeyLayout("feed/", shards=8, newest_first=True),
}
SHAPES = ("uniform", "burst", "multi-day", "same-ms", "outliers")


def times(shape: str, n: int, rng: random.Random) -> list[int]:
    """``n`` id times of a shape: uniform over 30 days, 90% in one hour of 30 days, a few
    clusters over a year, all in 3 ms, or uniform with three keys at 1970 and three at 9999."""
    if shape == "uniform":
        return [T0 + rng.randrange(30 * DAY) for _ in range(n)]
    if shape == "burst":
        hour = T0 + rng.randrange(29 * DAY)
        return [
            hour + rng.randrange(HOUR) if rng.random() < 0.9 else T0 + rng.randrange(30 * DAY)
            for _ in range(n)
        ]
    if shape == "multi-day":
        days = [T0 + rng.randrange(365) * DAY for _ in range(4)]
        return [rng.choice(days) + rng.randrange(DAY // 8) for _ in range(n)]
    if shape == "same-ms":
        return [T0 + rng.randrange(3) for _ in range(n)]
    found = [T0 + rng.randrange(30 * DAY) for _ in range(max(0, n - 6))]
    return found + [rng.randrange(1000) for _ in range(3)] + [LAST_MS - rng.randrange(1000)] * 3


def keys_at(layout: KeyLayout, stamps: list[int], rng: random.Random) -> list[str]:
    at = [0]
    new = generator_for("ulid", clock=lambda: at[0], randbits=rng.getrandbits)
    keys = []
    for ms in sorted(stamps):
        at[0] = ms
        keys.append(layout.key_for(new()))
    return keys


def junk(prefix: str, n: int, rng: random.Random) -> list[str]:
    """Names that hold no id: lower-case hex of a ULID's length, words, look-alikes of mixed
    case (``I``, ``L``, ``O``, ``U`` and lower case are outside Crockford's upper-case text)."""
    alphabet = string.ascii_letters + string.digits
    kinds = [
        lambda: "".join(rng.choice("0123456789abcdef") for _ in range(26)),
        lambda: "".join(rng.choice(alphabet) for _ in range(26)) + ".dat",
        lambda: f"report-{rng.randrange(10**6)}.csv",
    ]
    return [prefix + rng.choice(kinds)() for _ in range(n)]


def end_id_times(keys: list[str], inverted: str | None) -> list[tuple[bool, int | None]]:
    """Brute force: whether each key ends in an id of any registered scheme (the canonical
    text of one as its last part, before any dot), and that id's time (None for ids without
    one), turned back for the ids of scheme ``inverted`` (the direction the survey read)."""
    found: list[tuple[bool, int | None]] = []
    for key in keys:
        stem = key.rpartition("/")[2].partition(".")[0]
        for name in names():
            try:
                scheme = scheme_named(name, stem)
                if scheme.parse(stem) != stem:
                    continue
            except UlidkeysError:
                continue
            try:
                ms: int | None = scheme.timestamp_ms(stem)
            except UlidkeysError:
                ms = None
            if ms is not None and name == inverted:
                ms = inverted_time(scheme, ms)
            found.append((True, ms))
            break
        else:
            found.append((False, None))
    return found


def check_contract(found: Survey, keys: list[str], prefix: str, calls: int, budget: int) -> None:
    """Every promise of the survey against the keys it was run on."""
    under = [key for key in keys if key.startswith(prefix)]
    pages = max(1, math.ceil(len(under) / 1000))
    assert calls == found.calls <= budget, (calls, found.calls, budget)
    assert calls <= pages, f"{calls} calls where reading {len(under)} keys whole takes {pages}"
    if found.python is not None or found.config is not None:
        assert found.exact and found.layout is not None  # suggested only when read whole
    layout = found.layout
    if layout is None:  # the keys counted are the keys that end in an id of any scheme
        shape = found.shape
        ends = end_id_times(under, shape.scheme if shape and shape.newest_first else None)
        held = sum(holds for holds, _ in ends)
        fitting = [ms for holds, ms in ends if holds and ms is not None]
        count = found.keys
        assert count.low <= held and (not count.exact or count.low == held), (count, held)
    else:
        fitting = [split[2] for k in under if (split := layout.split(k))[3] is None]
    count = found.keys
    assert count.low <= len(fitting), (count, len(fitting))
    if count.exact:
        assert count.low == len(fitting) and found.exact, (count, len(fitting))
    elif count.high is not None:
        assert len(fitting) <= count.high and count.confidence < 1, (count, len(fitting))
    if found.oldest_ms is not None:
        truth = min(fitting)
        assert found.oldest_ms == truth if found.oldest_exact else found.oldest_ms >= truth
    if found.newest_ms is not None:
        truth = max(fitting)
        assert found.newest_ms == truth if found.newest_exact else found.newest_ms <= truth
    if found.histogram:
        starts = bin_starts(found.histogram[0][0], found.newest_ms + 1, len(found.histogram))
        for (start, binned), end in zip(
            found.histogram, [*starts[1:], found.newest_ms + 1], strict=True
        ):
            inside = sum(start <= ms < end for ms in fitting)
            assert binned.low <= inside, (start, binned, inside)
            assert binned.high is not None and inside <= binned.high, (start, binned, inside)
            assert binned.exact == count.exact
    if found.per_day is not None:
        assert found.per_day.exact and count.exact
    if found.config is not None:
        assert count.exact  # a layout is suggested as config only when it was checked whole


#: A bucket of the contract: its prefix, the layout its ids were written with (None: at no
#: place a layout puts them), the keys with ids, the keys without, the survey's budget.
Case = tuple[str, KeyLayout | None, list[str], list[str], int]


@st.composite
def buckets(draw: st.DrawFn) -> Case:
    layout = LAYOUTS[draw(st.sampled_from(sorted(LAYOUTS)))]
    rng = random.Random(draw(st.integers(0, 2**32)))
    n = draw(st.integers(0, 9_000))
    shape = draw(st.sampled_from(SHAPES))
    ids = keys_at(layout, times(shape, n, rng), rng)
    garbage = junk(layout.prefix, draw(st.sampled_from([0, 0, 5, n // 10])), rng)
    budget = draw(st.integers(1, 12))
    return layout.prefix, layout, ids, garbage, budget


def year_folders(n: int, seed: int) -> list[str]:
    """``n`` keys ``years/YYYY/<ulid>.csv`` from 2000 to 2023: ids under period folders of a
    spelling no layout writes."""
    rng = random.Random(seed)
    at = [0]
    new = generator_for("ulid", clock=lambda: at[0], randbits=rng.getrandbits)
    keys = []
    for index in range(n):
        year = 2000 + index % 24
        at[0] = (year - 1970) * 365 * DAY + rng.randrange(300 * DAY)
        keys.append(f"years/{year}/{new()}.csv")
    return keys


#: 20,000 keys in 4 shard folders x day folders, surveyed in 4 calls: the keys read sit in
#: shard 00 alone, and a layout of 1 shard was suggested that lists 4,884 of them.
FOUR_SHARDS_DAYS = KeyLayout("logs/", shards=4, period="day")
A_PART_OF_THE_SHARDS: Case = (
    "logs/",
    FOUR_SHARDS_DAYS,
    keys_at(FOUR_SHARDS_DAYS, times("uniform", 20_000, random.Random(42)), random.Random(43)),
    [],
    4,
)
#: 500 keys holding ULIDs under year folders, read whole in one call: reported as 0 keys
#: (exact), 500 not fitting.
IDS_UNDER_YEAR_FOLDERS: Case = ("years/", None, year_folders(500, 4), [], 50)


@given(buckets())
@example(A_PART_OF_THE_SHARDS)
@example(IDS_UNDER_YEAR_FOLDERS)
@settings(max_examples=examples(40))
def test_every_figure_is_exact_bounded_or_unknown(case: Case) -> None:
    prefix, layout, ids, garbage, budget = case
    bucket = StandInS3(ids + garbage)
    found = survey(bucket, "b", prefix, max_calls=budget, fast_pages=False)  # type: ignore[arg-type]
    check_contract(found, bucket.keys, prefix, bucket.calls, budget)
    if found.layout is not None:
        # a layout reported lists every key with an id (no shard count it did not see) ...
        fits = {key for key in bucket.keys if found.layout.split(key)[3] is None}
        assert set(ids) <= fits, (found.layout, len(set(ids) - fits))
        if found.config is not None:
            assert fits == set(ids)  # ... and a suggested one exactly those
    if layout is None:  # no layout lists them: none is suggested, the ids are counted
        assert found.layout is None and found.python is None and found.config is None
        assert not found.exact or found.keys.low == len(ids)
    elif ids and found.exact and len(ids) >= 200 and len(garbage) * 4 < len(ids):
        assert found.layout == layout  # enough keys to tell
        # suggested only for a prefix read whole in key order: every shard read whole but keys
        # without an id right under the prefix (after the shard folders) seen only by the folder
        # listing is exact, and unsuggested
        if bucket.listed >= {key for key in bucket.keys if key.startswith(prefix)}:
            assert found.config is not None


# --- the cases, explicitly ---------------------------------------------------------


def run(keys: list[str], prefix: str, budget: int = 50) -> tuple[Survey, StandInS3]:
    bucket = StandInS3(keys)
    found = survey(bucket, "b", prefix, max_calls=budget, fast_pages=False)  # type: ignore[arg-type]
    check_contract(found, bucket.keys, prefix, bucket.calls, budget)
    return found, bucket


def test_a_large_newest_first_prefix_is_not_15_billion_keys() -> None:
    rng = random.Random(1)
    layout = LAYOUTS["newest first"]
    for n, span in ((12_000, 30 * DAY), (20_000, 6 * HOUR)):
        ids = keys_at(layout, [T0 + rng.randrange(span) for _ in range(n)], rng)
        found, _ = run(ids, "feed/")
        assert found.layout == layout and found.keys.exact and found.keys.low == n
    found, _ = run(ids, "feed/", 10)  # read in part: its newest key is its first
    assert found.keys.state == "unknown" and found.keys.low == 10_000 and found.newest_exact
    assert not found.oldest_exact


#: The loop tries the sizes about the budget of 4 calls and the largest; the slow runs all ten
#: (the other six untraced: the same code, on other sizes).
_PAGES = [p if p in (1, 4, 5, 10) else pytest.param(p, marks=UNTRACED_SLOW) for p in range(1, 11)]


@pytest.mark.parametrize("pages", _PAGES)
def test_calls_on_prefixes_of_1_to_10_pages(pages: int) -> None:
    rng = random.Random(pages)
    layout = LAYOUTS["flat"]
    n = pages * 1000 - 7
    ids = keys_at(layout, [T0 + rng.randrange(DAY) for _ in range(n)], rng)
    for budget in (4, 50):
        found, bucket = run(ids, "up/", budget)
        assert bucket.calls == min(pages, budget)  # a flat prefix: every call reads on
        assert found.exact == (pages <= budget)
        if found.exact:
            assert found.keys.low == n
        else:
            assert found.keys.state == "unknown" and str(found.keys).startswith("unknown")


def test_full_prefixes_never_say_zero_exact() -> None:
    rng = random.Random(3)
    flat = LAYOUTS["flat"]
    ids = keys_at(flat, [T0 + rng.randrange(DAY) for _ in range(6_000)], rng)
    hexes = [f"up/{rng.getrandbits(104):026x}" for _ in range(12_000)]  # sorts before the ids
    found, _ = run(ids + hexes, "up/")
    assert found.layout == flat and found.keys.exact and found.keys.low == 6_000
    assert found.shape is not None and found.shape.junk == 12_000
    for budget in (4, 5):
        found, _ = run(ids + hexes, "up/", budget)
        assert found.keys.state == "unknown"


def test_year_folders_are_periods_not_shards() -> None:
    rng = random.Random(4)
    keys = []
    at = [0]
    new = generator_for("ulid", clock=lambda: at[0], randbits=rng.getrandbits)
    for year in range(2000, 2024):
        for _ in range(20):
            at[0] = (year - 1970) * 365 * DAY + rng.randrange(300 * DAY)
            keys.append(f"years/{year}/{new()}.csv")
    found, _ = run(keys, "years/")
    assert found.shape is not None and found.shape.shards is None
    assert found.shape.other_period is not None and found.layout is None
    assert found.config is None and any("period folders" in note for note in found.notes)


def test_a_skewed_prefix_is_counted_exactly_or_bounded() -> None:
    rng = random.Random(5)
    layout = LAYOUTS["4 shards"]
    ids = keys_at(layout, times("burst", 12_000, rng), rng)
    found, _ = run(ids, "up/")
    assert found.keys.exact and found.keys.low == 12_000
    outliers = keys_at(layout, times("outliers", 10_000, rng), rng)
    found, _ = run(outliers, "up/")
    assert found.keys.exact and found.keys.low == 10_000
    sixteen = LAYOUTS["16 shards, days"]
    big = keys_at(sixteen, times("burst", 36_000, rng), rng)
    found, _ = run(big, "logs/", 12)  # 11 pages read: the first shards whole, a range
    assert found.keys.state == "range" and found.keys.low <= 36_000 <= (found.keys.high or 0)
    assert found.keys.high is not None and found.keys.high < 2 * found.keys.low


def test_look_alike_names_do_not_flip_the_direction() -> None:
    rng = random.Random(6)
    layout = LAYOUTS["flat"]
    ids = keys_at(layout, [T0 + rng.randrange(DAY) for _ in range(200)], rng)
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    look_alikes = [
        "up/" + rng.choice("89ABCDEFGHJKMNPQRSTVWXYZ") + "".join(rng.choices(alphabet, k=25))
        for _ in range(200)
    ]
    found, _ = run(ids + look_alikes, "up/")
    assert found.layout == layout and not layout.newest_first
    assert found.shape is not None and found.shape.junk == 200 and found.keys.low == 200


@pytest.fixture(scope="module")
def s3() -> Iterator[Any]:
    with mock_aws():
        yield boto3.client("s3", region_name="us-east-1")


# the same in memory:
# test_a_prefix_read_in_part_suggests_no_layout_nor_a_shard_count_it_did_not_see
@pytest.mark.slow
def test_on_moto_a_partly_read_sharded_prefix_holds_its_range(s3: Any) -> None:
    rng = random.Random(7)
    layout = LAYOUTS["16 shards, days"]
    ids = keys_at(layout, times("multi-day", 12_000, rng), rng)
    bucket = new_bucket(s3)
    fill_bucket(bucket, ids)
    calls: list[str] = []
    s3.meta.events.register("before-call.s3.ListObjectsV2", lambda **kw: calls.append("call"))
    try:
        found = survey(s3, bucket, "logs/", max_calls=6)
    finally:
        s3.meta.events.unregister("before-call.s3.ListObjectsV2")
    check_contract(found, sorted(ids, key=str.encode), "logs/", len(calls), 6)
    assert found.keys.state == "range" and found.layout == layout


def test_shards_seen_on_the_first_page_alone_count_nothing_exactly() -> None:
    """16 shards of 250 keys each, one call: the page ends exactly where folder 03 does, so the
    keys read look like a whole 4-shard layout. Without the folder listing the shard count is
    not known: the count is unknown, never "1,000 (exact)" (hypothesis found it)."""
    layout = LAYOUTS["16 shards, days"]
    rng = random.Random(7)
    ids: list[str] = []
    per_shard = {shard: 0 for shard in range(16)}
    while min(per_shard.values()) < 250:
        key = keys_at(layout, [T0 + rng.randrange(DAY)], rng)[0]
        shard = int(key[len(layout.prefix) : len(layout.prefix) + 2])
        if per_shard[shard] < 250:
            per_shard[shard] += 1
            ids.append(key)
    bucket = StandInS3(ids)
    found = survey(bucket, "b", layout.prefix, max_calls=1, fast_pages=False)  # type: ignore[arg-type]
    check_contract(found, bucket.keys, layout.prefix, bucket.calls, 1)
    assert bucket.calls == 1 and not found.exact
    assert found.keys.state == "unknown" and found.keys.low == 1000
    assert found.config is None


def test_a_prefix_read_in_part_suggests_no_layout_nor_a_shard_count_it_did_not_see() -> None:
    """20,000 keys in 4 shard folders x day folders, 4 calls: the keys read sit in shard 00
    alone. A 1-shard layout was suggested (it lists 4,884 of the keys); now no layout is given,
    the shard count is "at least 1", and the keys read that end in an id are counted."""
    prefix, _layout, ids, _, budget = A_PART_OF_THE_SHARDS
    found, _ = run(ids, prefix, budget)
    assert not found.exact and found.calls == 4
    assert found.layout is None and found.python is None and found.config is None
    assert found.shape is not None and not found.shape.shards_known
    assert found.shape.shards == 1 and found.shape.period == "day"
    row = found.as_dict()["layout"]
    assert row["shards"] is None and row["shards_at_least"] == 1
    assert found.keys.state == "unknown" and found.keys.low == 4_000
    text = text_of(found)
    assert "at least 1 shard folders" in text and "shards=1" not in text
    assert any("how many shards there are is unknown" in note for note in found.notes)
    # with the folders listed (7 calls: shard 00's 5,006 keys read whole in 6) the shard count
    # is seen and the layout reported, with a range - but suggested only for a prefix read whole
    found, _ = run(ids, prefix, 7)
    assert found.layout == FOUR_SHARDS_DAYS and found.shape is not None
    assert found.shape.shards_known and found.python is None and found.config is None
    assert found.keys.state == "range"
    found, _ = run(ids, prefix, 21)
    assert found.exact and found.layout == FOUR_SHARDS_DAYS
    assert found.python == "KeyLayout('logs/', shards=4, period='day')"


def test_ids_under_year_folders_are_counted_with_their_span() -> None:
    """500 keys holding ULIDs under year folders, read whole: 500 keys (exact), their exact
    time span, no key without an id; junk stays junk; no layout is suggested."""
    keys = year_folders(500, 4)
    readme = [f"years/{year}/README.md" for year in (2001, 2002, 2003)]
    found, _ = run(keys + readme, "years/")
    stamps = [ULID.parse(key.rpartition("/")[2][:26]).timestamp_ms for key in keys]
    assert found.exact and found.keys.exact and found.keys.low == 500
    assert found.oldest_ms == min(stamps) and found.oldest_exact
    assert found.newest_ms == max(stamps) and found.newest_exact
    assert found.shape is not None and found.shape.fitting == 500 and found.shape.junk == 3
    assert found.shape.examples == tuple(readme) and found.shape.suffixes == {".csv": 500}
    assert found.layout is None and found.python is None and found.config is None
    text = text_of(found)
    assert text.startswith("s3://b/years/: 500 (exact) keys, read whole in 1 of")
    assert "no id        3 of 503 keys read" in text
    rate = 500 * DAY / (max(stamps) - min(stamps) + 1)  # 0.058 a day: not "0 (exact)"
    assert f"per day      {rate:.3g} (exact)" in text and rate < 0.1
    assert any("period folders" in note for note in found.notes)
