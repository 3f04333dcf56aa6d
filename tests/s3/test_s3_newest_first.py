"""Newest-first layouts on moto: keys embed inverted ids, ListObjectsV2 returns the newest first,
windows are exact against brute force, cursors resume, ``parse`` gives the original id back."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from idsupport import SORTABLE, id_at
from moto import mock_aws
from profiles import examples

from ulidkeys import errors
from ulidkeys.ids import ULID_SCHEME, IdScheme
from ulidkeys.ids.protocol import invert_id
from ulidkeys.s3 import Bucket, KeyLayout

T0 = 1_715_936_400_000  # 2024-05-17T09:00:00Z
SPAN = 40_000  # ids spread over 40 s, windows anywhere in them (and a bit beyond)
SCHEMES = SORTABLE
_names = itertools.count()


@pytest.fixture(scope="module")
def s3() -> Iterator[Any]:
    with mock_aws():
        yield boto3.client("s3", region_name="us-east-1")


def filled(s3: Any, layout: KeyLayout, ids: list[str]) -> tuple[Bucket, list[str]]:
    name = f"newest-{next(_names)}"
    s3.create_bucket(Bucket=name)
    keys = [layout.key_for(i) for i in ids]
    for key in keys:
        s3.put_object(Bucket=name, Key=key, Body=b"")
    return Bucket(s3, name, layout), keys


def brute_force(layout: KeyLayout, keys: list[str], start: int, end: int) -> list[str]:
    """The keys whose id time is in the window, in the order of the ids as the keys hold them
    (newest first in a newest-first layout; ties within a ms or a KSUID second by those ids),
    then by key (across shards)."""
    chosen = {k for k in keys if start <= layout.parse(k).ms < end}
    return sorted(chosen, key=lambda k: (layout.split(k)[0], k))


@pytest.mark.parametrize("scheme", SCHEMES, ids=lambda s: s.name)
def test_invert_id_is_an_involution_of_the_same_width(scheme: IdScheme) -> None:
    rng = random.Random(7)
    for ms in (scheme.min_ms, T0, scheme.max_ms):
        text = id_at(scheme, ms, rng)
        flipped = invert_id(scheme, text)
        assert len(flipped) == len(text) and scheme.parse(flipped) == flipped
        assert invert_id(scheme, flipped) == text
        assert scheme.timestamp_ms(flipped) == scheme.min_ms + scheme.max_ms - (
            scheme.timestamp_ms(text)
        )


@pytest.mark.parametrize("scheme", SCHEMES, ids=lambda s: s.name)
# No shrinking: every example fills a moto bucket, so shrinking takes minutes; the failing
# draws are printed as they are.
@settings(max_examples=examples(8), deadline=None, phases=[Phase.explicit, Phase.generate])
@given(data=st.data())
def test_windows_are_exact_in_key_order(s3: Any, scheme: IdScheme, data: Any) -> None:
    """Every sortable scheme, in both layouts: newest-first and the usual oldest-first."""
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    shards = data.draw(st.sampled_from([None, 3]))
    newest = data.draw(st.booleans())
    layout = KeyLayout("feed/", shards=shards, suffix=".json", scheme=scheme, newest_first=newest)
    times = [T0 + rng.randrange(SPAN) for _ in range(data.draw(st.integers(0, 25)))]
    ids = [id_at(scheme, ms, rng) for ms in times]
    bucket, keys = filled(s3, layout, ids)
    assert sorted({layout.parse(k).id for k in keys}) == sorted(set(ids))  # parse: the original
    start = T0 + data.draw(st.integers(-2_000, SPAN))
    end = start + data.draw(st.integers(0, SPAN))
    listing = bucket.list_window(start, end)
    got = [obj["Key"] for obj in listing]
    expected = brute_force(layout, keys, start, end)
    assert got == expected
    n = data.draw(st.integers(0, 5))
    newest_order = expected if newest else expected[::-1]
    assert [obj["Key"] for obj in bucket.latest(n, since=start, until=end)] == newest_order[:n]
    # Listing everything is already newest first: S3's own order of the keys.
    everything = [
        o["Key"] for o in s3.list_objects_v2(Bucket=bucket.name, Prefix="feed/").get("Contents", [])
    ]
    if shards is None and newest:
        assert [layout.parse(k).ms for k in everything] == sorted(
            (layout.parse(k).ms for k in everything), reverse=True
        )


def test_the_20_newest_are_one_call_and_cursors_resume(s3: Any) -> None:
    rng = random.Random(3)
    layout = KeyLayout("feed/", newest_first=True)
    ids = [id_at(ULID_SCHEME, T0 + i * 10, rng) for i in range(50)]
    bucket, keys = filled(s3, layout, ids)
    first = bucket.latest(20, since=T0, until=T0 + 10_000)
    got = [o["Key"] for o in first]
    assert got == brute_force(layout, keys, T0, T0 + 10_000)[:20]
    assert first.stats.calls == 1
    assert [layout.parse(k).id for k in got] == sorted(ids, reverse=True)[:20]
    cursor = first.cursor
    assert cursor is not None
    rest = [o["Key"] for o in bucket.latest(100, cursor=cursor)]
    assert got + rest == brute_force(layout, keys, T0, T0 + 10_000)


def test_newest_first_layouts_refuse_period_folders() -> None:
    with pytest.raises(errors.InvalidLayout, match="period='day' with newest_first=True"):
        KeyLayout("feed/", period="day", newest_first=True)
    with pytest.raises(errors.InvalidType, match="newest_first=1"):
        KeyLayout("feed/", newest_first=1)  # type: ignore[arg-type]
