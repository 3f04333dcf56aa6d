"""Id schemes behind one protocol, cross-checked with reference libraries and brute force."""

from __future__ import annotations

import uuid as std_uuid

import bson  # pymongo's ObjectId, reference only
import ksuid  # svix-ksuid, reference only
import pytest
import uuid6  # reference UUIDv6/v7
from hypothesis import given
from hypothesis import strategies as st

from ulidkeys import ULID, TimeWindow, errors
from ulidkeys.ids import (
    DISCORD_SNOWFLAKE,
    INSTAGRAM_ID,
    KSUID,
    OBJECT_ID,
    TWITTER_SNOWFLAKE,
    ULID_SCHEME,
    UUID6,
    UUID7,
    IdScheme,
    IntCodedScheme,
    SnowflakeScheme,
    bounds,
    in_window,
)

PADDED_TWITTER = SnowflakeScheme("twitter-19", epoch_ms=1_288_834_974_657, width=19)
SORTABLE: list[IntCodedScheme] = [ULID_SCHEME, UUID7, UUID6, KSUID, OBJECT_ID, PADDED_TWITTER]
ALL: list[IntCodedScheme] = [*SORTABLE, TWITTER_SNOWFLAKE, DISCORD_SNOWFLAKE, INSTAGRAM_ID]


@pytest.mark.parametrize("scheme", ALL, ids=lambda s: s.name)
def test_every_scheme_implements_the_protocol(scheme: IntCodedScheme) -> None:
    assert isinstance(scheme, IdScheme)


@pytest.mark.parametrize("scheme", ALL, ids=lambda s: s.name)
@given(data=st.data())
def test_min_max_round_trip(scheme: IntCodedScheme, data: st.DataObject) -> None:
    step = scheme.resolution_ms
    ms = data.draw(st.integers(scheme.min_ms // step, min(scheme.max_ms, (1 << 48) - 1) // step))
    ms *= step
    low, high = scheme.min_for(ms), scheme.max_for(ms)
    assert scheme.timestamp_ms(low) == scheme.timestamp_ms(high) == ms
    assert scheme.parse(low) == low and scheme.parse(high) == high
    assert scheme.to_int(low) <= scheme.to_int(high)
    if scheme.sorts_by_time:
        assert low <= high
        if ms - step >= scheme.min_ms:
            assert scheme.max_for(ms - step) < low


@pytest.mark.parametrize("scheme", SORTABLE, ids=lambda s: s.name)
@given(data=st.data())
def test_bounds_select_exactly_the_window(scheme: IntCodedScheme, data: st.DataObject) -> None:
    step = scheme.resolution_ms
    top = min(scheme.max_ms, (1 << 48) - 1)
    start = data.draw(st.integers(0, top))
    end = data.draw(st.integers(start, min(top, start + 5 * step)))
    window = TimeWindow.from_ms(start, end)
    lo, hi = bounds(scheme, window, prefix="p/")
    for probe in {start, end, start - 1, end - 1, start + step, end + step}:
        t = max(scheme.min_ms, min(top, probe)) // step * step
        for text in (scheme.min_for(t), scheme.max_for(t)):
            key = f"p/{text}.bin"
            assert (lo <= key < hi) == in_window(scheme, window, text), (text, window)


def test_cross_check_uuid7_and_uuid6_with_uuid6_package() -> None:
    for _ in range(500):
        v7 = uuid6.uuid7()
        assert UUID7.timestamp_ms(str(v7)) == v7.time
        assert UUID7.parse(str(v7).upper()) == str(v7)
        v6 = uuid6.uuid6()
        assert UUID6.timestamp_ms(str(v6)) == (v6.time - 0x01B21DD213814000) // 10_000
    ours = UUID7.new()
    assert std_uuid.UUID(ours).version == 7 and std_uuid.UUID(ours).variant == std_uuid.RFC_4122


def test_cross_check_ksuid_with_svix() -> None:
    for _ in range(300):
        theirs = ksuid.Ksuid()
        assert KSUID.timestamp_ms(str(theirs)) == theirs.timestamp * 1000
        assert KSUID.parse(str(theirs)) == str(theirs)
        mine = KSUID.new()
        assert ksuid.Ksuid.from_base62(mine).timestamp * 1000 == KSUID.timestamp_ms(mine)
    assert KSUID.max_for(KSUID.max_ms) == "aWgEPTl1tmebfsQzFP4bxwgy80V"
    assert KSUID.min_for(KSUID.min_ms) == "0" * 27


def test_cross_check_objectid_with_bson() -> None:
    for _ in range(300):
        oid = bson.ObjectId()
        assert OBJECT_ID.timestamp_ms(str(oid)) == int(oid.generation_time.timestamp()) * 1000
    # MongoDB's documented example id, created 2012-10-17T21:13:27Z.
    assert OBJECT_ID.timestamp_ms("507f1f77bcf86cd799439011") == 1_350_508_407_000


def test_snowflake_known_values() -> None:
    # Built by hand from Twitter's layout: (ms - epoch) << 22 | worker << 12 | sequence.
    made = ((1_656_346_999_379 - 1_288_834_974_657) << 22) | (17 << 12) | 5
    assert TWITTER_SNOWFLAKE.timestamp_ms(str(made)) == 1_656_346_999_379
    # Discord's documented example id 175928847299117063 is 2016-04-30T11:18:25.796Z.
    assert DISCORD_SNOWFLAKE.timestamp_ms("175928847299117063") == 1_462_015_105_796
    low = INSTAGRAM_ID.min_for(1_400_000_000_000)
    assert INSTAGRAM_ID.timestamp_ms(low) == 1_400_000_000_000


def test_ulid_scheme_agrees_with_the_ulid_type() -> None:
    u = ULID.new()
    assert ULID_SCHEME.timestamp_ms(str(u)) == u.timestamp_ms
    assert ULID_SCHEME.to_int(str(u)) == int(u)
    assert ULID_SCHEME.min_for(u.timestamp_ms) == str(ULID.min_for(u.timestamp_ms))


def test_unsortable_text_refuses_bounds() -> None:
    with pytest.raises(errors.InvalidValue, match="does not sort by time"):
        bounds(TWITTER_SNOWFLAKE, TimeWindow.from_ms(1_600_000_000_000, 1_600_000_001_000))


def test_window_past_the_scheme_end_is_open_above() -> None:
    window = TimeWindow.from_ms(OBJECT_ID.max_ms - 1000, OBJECT_ID.max_ms + 5000)
    lo, hi = bounds(OBJECT_ID, window)
    assert hi == "~" and lo <= OBJECT_ID.max_for(OBJECT_ID.max_ms) < hi


@pytest.mark.parametrize(
    ("scheme", "text", "rule"),
    [
        (UUID7, "01a2010f-ea96-6c34-8fb4-69b90044ad44", "version nibble is 6"),
        (UUID7, "01a2010f-ea96-7c34-cfb4-69b90044ad44", "variant"),
        (UUID7, "01a2010fea967c348fb469b90044ad44", "8-4-4-4-12"),
        (UUID6, "01a2010f-ea96-7c34-8fb4-69b90044ad44", "version nibble is 7"),
        (KSUID, "3MRX31uUhfbWp4kAmx6ScOjZf5", "expected 27"),
        (KSUID, "3MRX31uUhfbWp4kAmx6ScOjZf5-", "'-' at position 26"),
        (KSUID, "zzzzzzzzzzzzzzzzzzzzzzzzzzz", "largest KSUID"),
        (OBJECT_ID, "6b0251e69d340c0a1718912", "24 hex"),
        (PADDED_TWITTER, "1541815603606036480 ", "decimal digits"),
        (PADDED_TWITTER, "541815603606036480", "19 zero-padded digits"),
        (ULID_SCHEME, "01HX5Q3T8R6K2M9N4P7W1Y3ZBU", "'U' at position 25"),
    ],
)
def test_bad_ids_raise_invalid_id(scheme: IntCodedScheme, text: str, rule: str) -> None:
    with pytest.raises(errors.InvalidId) as caught:
        scheme.parse(text)
    assert rule in str(caught.value) and repr(text) in str(caught.value)


def test_times_outside_a_scheme_are_rejected() -> None:
    with pytest.raises(errors.TimeOutOfRange, match="ksuid"):
        KSUID.min_for(0)
    with pytest.raises(errors.TimeOutOfRange, match="whole seconds"):
        OBJECT_ID.min_for(1_500)
    with pytest.raises(errors.InvalidType):
        UUID7.parse(123)  # type: ignore[arg-type]
