"""Slices of a window (``plan.slices(n)``, ``Bucket.list_slice``) against brute force: disjoint,
their union exactly the window, across shards, period folders, newest-first layouts and
directory buckets; the JSON form and its refusals; the same against moto."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples
from s3support import (
    T0,
    FakeDirectoryBucket,
    FakeS3,
    brute_force,
    fill_bucket,
    keys_of,
    layouts,
    moto_client,
    new_bucket,
    ulid_at,
)

from ulidkeys.errors import InvalidSlice, InvalidType, InvalidValue, InvalidWindow
from ulidkeys.planning.listings import plan_listing
from ulidkeys.planning.plans import MAX_SLICES, fixed_window
from ulidkeys.s3 import Bucket, KeyLayout, Slice

HOUR = 3_600_000
DAY = 86_400_000

all_layouts = st.one_of(
    layouts,
    st.builds(KeyLayout, prefix=st.sampled_from(["", "logs/"]), newest_first=st.just(True)),
)
widths = st.one_of(st.integers(0, 40), st.integers(0, 3 * DAY))


def boundaries(pieces: list[Slice]) -> list[int]:
    return [pieces[0].start_ms] + [piece.end_ms for piece in pieces]


@settings(max_examples=examples(30))
@given(
    layout=all_layouts,
    offset=st.integers(-DAY, DAY),
    width=widths,
    n=st.integers(1, 12),
    directory=st.booleans(),
    page=st.integers(2, 5),
    data=st.data(),
)
def test_slices_are_disjoint_and_cover_the_window(
    layout: KeyLayout, offset: int, width: int, n: int, directory: bool, page: int, data: Any
) -> None:
    start = T0 + offset
    end = start + width
    client: Any = FakeS3([], page)
    bucket = Bucket(client, "b--x-s3" if directory else "b", layout)
    plan = bucket.plan_window(start, end)
    pieces = plan.slices(n)
    assert [piece.index for piece in pieces] == list(range(n))
    cuts = boundaries(pieces)
    assert cuts[0] == start and cuts[-1] == end and cuts == sorted(cuts)
    assert all(p.end_ms == q.start_ms for p, q in itertools.pairwise(pieces))
    # keys on every cut (and the millisecond before it), a few anywhere, several per millisecond
    near = st.sampled_from([c + d for c in cuts for d in (-1, 0)])
    anywhere = st.integers(start - HOUR, end + HOUR)
    times = data.draw(st.lists(st.one_of(near, anywhere), max_size=30))
    keys = [layout.key_for(ulid_at(ms, r)) for r, ms in enumerate(times * 2) if ms >= 0]
    keys.append(layout.prefix + "not-a-key.txt")
    client = FakeDirectoryBucket(keys, page=page) if directory else FakeS3(keys, page)
    bucket = Bucket(client, bucket.name, layout)
    whole = keys_of(bucket.list_window(start, end))
    listed = []
    for piece in pieces:
        # a worker gets the slice as JSON and plans it itself
        got = keys_of(bucket.list_slice(Slice.from_json(piece.to_json())))
        expected = set(brute_force(layout, keys, piece.start_ms, piece.end_ms))
        assert got == [key for key in whole if key in expected]  # in listing order
        assert len(got) == len(expected)
        listed += got
    assert len(listed) == len(set(listed))
    assert sorted(listed) == sorted(brute_force(layout, keys, start, end))


def test_a_slice_resumes_from_its_own_cursor() -> None:
    layout = KeyLayout("u/", shards=3, period="hour")
    keys = [layout.key_for(ulid_at(T0 + ms * 9_001, ms)) for ms in range(400)]
    bucket = Bucket(FakeS3(keys, 7), "b", layout)
    piece = bucket.plan_window(T0, T0 + HOUR).slices(3)[1]
    listing = bucket.list_slice(piece)
    head = [next(listing)["Key"] for _ in range(10)]
    rest = keys_of(bucket.list_slice(piece, cursor=listing.cursor))
    assert head + rest == brute_force(layout, keys, piece.start_ms, piece.end_ms)
    assert len(head + rest) > 10


def test_json_round_trip_and_its_form() -> None:
    plan = plan_listing(KeyLayout("u/", shards=4, period="day"), T0, T0 + 10 * DAY + 3)
    for piece in plan.slices(7):
        text = piece.to_json()
        assert Slice.from_json(text) == piece
        assert Slice.from_json(text.encode()) == piece
        body = json.loads(text)
        assert (body["start_ms"], body["end_ms"]) == (piece.start_ms, piece.end_ms)
        assert body["window"] == [T0, T0 + 10 * DAY + 3]
    assert str(plan.slices(2)[1]).startswith("slice 1/2 [2024-05-22T09:00:00.001Z, ")


@pytest.mark.parametrize(
    "change",
    [
        {"start_ms": 1},  # bounds that are not slice index/count of the window
        {"index": 7},
        {"index": -1},
        {"count": 0},
        {"window": [5, 1]},
        {"window": [1, 2, 3]},
        {"scope": 3},
        {"index": True},
        {"ulidkeys_slice": 2},
        {"extra": 1},
    ],
)
def test_damaged_json_is_refused(change: dict[str, Any]) -> None:
    piece = plan_listing(KeyLayout(), T0, T0 + DAY).slices(7)[3]
    body = {**json.loads(piece.to_json()), **change}
    with pytest.raises(InvalidSlice):
        Slice.from_json(json.dumps(body))


@pytest.mark.parametrize("text", ["", "[]", "null", "{", "\x00"])
def test_foreign_json_is_refused(text: str) -> None:
    with pytest.raises(InvalidSlice):
        Slice.from_json(text)


def test_refusals() -> None:
    layout = KeyLayout("u/")
    plan = plan_listing(layout, T0, T0 + DAY)
    piece = plan.slices(4)[0]
    with pytest.raises(InvalidValue, match="n=0"):
        plan.slices(0)
    with pytest.raises(InvalidValue):
        plan.slices(MAX_SLICES + 1)
    with pytest.raises(InvalidType):
        plan.slices("4")  # type: ignore[arg-type]
    with pytest.raises(InvalidSlice, match="whole window"):
        plan_listing(layout, T0, T0 + DAY, limit=5).slices(2)
    with pytest.raises(InvalidSlice, match="whole window"):
        plan_listing(layout, T0, T0 + DAY, after=layout.key_for(ulid_at(T0, 1))).slices(2)
    other_layout = plan_listing(KeyLayout("v/"), T0, T0 + DAY)
    with pytest.raises(InvalidSlice, match="another listing or window"):
        other_layout.slice_plan(piece)
    other_window = plan_listing(layout, T0, T0 + DAY + 1)
    with pytest.raises(InvalidSlice, match="another listing or window"):
        other_window.slice_plan(piece)
    with pytest.raises(InvalidType):
        plan.slice_plan(piece.to_json())  # type: ignore[arg-type]
    with pytest.raises(InvalidValue):
        Slice("s", T0, T0 + 1, 3, 3)


def test_narrow_windows_give_empty_slices_not_fewer() -> None:
    plan = plan_listing(KeyLayout(), T0, T0 + 3)
    pieces = plan.slices(8)
    assert len(pieces) == 8
    assert sum(piece.end_ms - piece.start_ms for piece in pieces) == 3
    assert [plan.slice_plan(piece).is_empty for piece in pieces].count(False) == 3


# --- moto -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def s3() -> Iterator[Any]:
    with moto_client() as client:
        yield client


MOTO_LAYOUT = KeyLayout("photos/", shards=4, period="hour", suffix=".jpg")


@pytest.fixture(scope="module")
def filled(s3: Any) -> tuple[Bucket, list[str]]:
    keys = [MOTO_LAYOUT.key_for(ulid_at(T0 + i * 97_003, i)) for i in range(220)]
    name = new_bucket(s3)
    fill_bucket(name, keys)
    return Bucket(s3, name, MOTO_LAYOUT), keys


@settings(max_examples=examples(8))
@given(offset=st.integers(0, 2 * HOUR), width=st.integers(0, 4 * HOUR), n=st.integers(1, 9))
def test_union_of_slices_equals_the_window_on_moto(
    filled: tuple[Bucket, list[str]], offset: int, width: int, n: int
) -> None:
    bucket, keys = filled
    start, end = T0 + offset, T0 + offset + width
    pieces = bucket.plan_window(start, end).slices(n)
    # keys on the cuts and the millisecond before each (the bucket keeps them for later examples)
    extra = [c + d for c in boundaries(pieces) for d in (-1, 0, 0)]
    new = [MOTO_LAYOUT.key_for(ulid_at(ms, len(keys) + i)) for i, ms in enumerate(extra)]
    fill_bucket(bucket.name, new)
    keys += new
    whole = keys_of(bucket.list_window(start, end))
    assert whole == brute_force(MOTO_LAYOUT, keys, start, end)
    union = [key for piece in pieces for key in keys_of(bucket.list_slice(piece))]
    assert len(union) == len(set(union))
    assert sorted(union) == sorted(whole)


@pytest.mark.parametrize(
    ("since", "until", "end"),
    [
        ("1h", "2024-05-17T10:00:00Z", "since"),
        ("2024-05-17T09:00:00Z", "now", "until"),
        ("2024-05-17T09:00:00Z", None, "until"),
        (timedelta(hours=1), 1_715_940_000_000, "since"),
    ],
)
def test_a_window_cut_by_many_workers_needs_fixed_ends(
    since: object, until: object, end: str
) -> None:
    with pytest.raises(InvalidWindow, match=f"slices needs a fixed {end} "):
        fixed_window(since, until, "slices")  # type: ignore[arg-type]
    assert fixed_window("2024-05-17T09:00:00Z", 1_715_940_000_000, "slices") == (
        1_715_936_400_000,
        1_715_940_000_000,
    )
