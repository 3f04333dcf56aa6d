"""Id schemes behind one protocol, cross-checked with reference libraries and brute force."""

from __future__ import annotations

import random
import re
import uuid as std_uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal

import bson  # pymongo's ObjectId, reference only
import ksuid  # svix-ksuid, reference only
import pytest
import ulid as python_ulid  # python-ulid, reference only
import uuid6  # reference UUIDv6/v7
from hypothesis import given
from hypothesis import strategies as st
from idsupport import id_at

from ulidkeys import ULID, TimeWindow, base32, errors
from ulidkeys.ids import (
    INSTAGRAM_ID,
    KSUID,
    OBJECT_ID,
    TWITTER_SNOWFLAKE,
    ULID_SCHEME,
    UUID1,
    UUID1_ORDERED,
    UUID5,
    UUID6,
    UUID7,
    IdScheme,
    SnowflakeScheme,
    bounds,
)
from ulidkeys.ids.base import IntCodedScheme
from ulidkeys.ids.discord import DISCORD_SNOWFLAKE
from ulidkeys.ids.generators import IdGenerator
from ulidkeys.ids.protocol import (
    first_at_or_after,
    id_ceiling,
    id_floor,
    id_range,
    in_window,
    is_id_scheme,
    require_sortable,
    shard_of,
)
from ulidkeys.ids.registry import SCHEMES, generator_for, sortable_samples
from ulidkeys.ids.uuids import UUID4, UUID_NIL

#: A made-up 64-bit Snowflake layout, to check that the parameters (not only the built-ins) work.
CUSTOM_64 = SnowflakeScheme("custom-64", epoch_ms=0, shift=12, bits=64)
#: Every time-sortable scheme of the registry (a new scheme module joins without an edit here),
#: and a made-up Snowflake layout.
ALL: list[IntCodedScheme] = [
    *(s for s in sortable_samples() if isinstance(s, IntCodedScheme)),
    CUSTOM_64,
]
#: The schemes whose every number in range is an id (UUIDv7/v6: but their version and variant
#: bits): drawn as raw numbers, with floor 0 and ceiling all ones. Any other scheme of ALL is
#: drawn through its generator (SCHEMES, from the registry, holds more than these since the
#: registry's sortable single schemes all joined it).
RAW = (
    ULID_SCHEME,
    UUID7,
    UUID6,
    KSUID,
    OBJECT_ID,
    TWITTER_SNOWFLAKE,
    DISCORD_SNOWFLAKE,
    INSTAGRAM_ID,
)
SNOWFLAKES = [TWITTER_SNOWFLAKE, DISCORD_SNOWFLAKE, INSTAGRAM_ID, CUSTOM_64]
UUID_VERSION = {UUID7: 7, UUID6: 6}
GREGORIAN_OFFSET = 0x01B21DD213814000


def name_of(scheme: IntCodedScheme) -> str:
    return scheme.name


def utc(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, timezone.utc)


def valid_ints(scheme: IntCodedScheme) -> st.SearchStrategy[int]:
    """Random numeric forms of valid ids, the extremes included.

    Schemes whose every bit pattern is an id (and UUIDv7/v6, by their version and variant)
    are drawn as raw numbers; any other registered scheme through its own generator with the
    clock and random bits drawn (hypothesis' ``randoms``), so its fixed bits are its own.
    """
    if scheme in RAW or scheme is CUSTOM_64:
        top = (1 << scheme.bits) - 1
        raw = st.one_of(st.integers(0, top), st.sampled_from([0, 1, top - 1, top]))
        version = UUID_VERSION.get(scheme)
        if version is None:
            return raw
        clear = ~((0xF << 76) | (0b11 << 62))
        return raw.map(lambda v: (v & clear) | (version << 76) | (0b10 << 62))
    extremes = [
        scheme.to_int(scheme.min_for(scheme.min_ms)),
        scheme.to_int(scheme.max_for(scheme.max_ms - scheme.max_ms % scheme.resolution_ms)),
    ]

    def made(ms: int, rng: random.Random) -> int:
        try:
            new = IdGenerator(scheme, clock=lambda: ms, randbits=rng.getrandbits)
        except errors.InvalidValue:  # its bits are not a mask (100 ns ticks): its own generator
            new = generator_for(scheme.name, clock=lambda: ms, randbits=rng.getrandbits)
        return scheme.to_int(new())

    drawn = st.builds(made, st.integers(scheme.min_ms, scheme.max_ms), st.randoms())
    return st.one_of(drawn, st.sampled_from(extremes))


def alphabet_of(scheme: IntCodedScheme) -> str:
    """The characters of the scheme's texts plus a few near misses."""
    if scheme is ULID_SCHEME:
        return base32.ALPHABET + base32.ALPHABET.lower() + "ILOU-"
    if scheme in UUID_VERSION:
        return "0123456789abcdefABCDEFg-"
    if scheme is KSUID:
        return "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-"
    if scheme is OBJECT_ID:
        return "0123456789abcdefABCDEFg"
    if scheme.numeric:
        return "0123456789" * 3 + "١２+ -"
    return own_characters(scheme) + "-_+ é"


def own_characters(scheme: IntCodedScheme) -> str:
    """Any other text scheme (a new scheme module's too): the characters of 64 of its own ids
    at random times, in both cases, so mutations stay near its texts instead of digits."""
    rng = random.Random(scheme.name)
    step = scheme.resolution_ms
    first = -(-scheme.min_ms // step) * step
    seen: set[str] = set()
    for _ in range(64):
        seen.update(id_at(scheme, rng.randint(first, scheme.max_ms), rng))
    chars = "".join(sorted(seen))
    return "".join(sorted(set(chars + chars.swapcase())))


@dataclass(frozen=True)
class Window:
    """A bare MsWindow (TimeWindow refuses times before 1970; UUIDv6 has them)."""

    start_ms: int
    end_ms: int


# --- the protocol and its attributes --------------------------------------------------------


def test_schemes_lists_every_builtin_scheme_ulid_first() -> None:
    # SCHEMES comes from the registry now (every registered single scheme that sorts by time,
    # tests/ids/test_registry.py): the eight it held by hand are all in it, ULID first.
    assert SCHEMES[0] is ULID_SCHEME
    assert set(SCHEMES) >= set(RAW)
    assert len({s.name for s in SCHEMES}) == len(SCHEMES)
    assert isinstance(SCHEMES, tuple)


@pytest.mark.parametrize("scheme", ALL, ids=name_of)
def test_every_scheme_implements_the_protocol(scheme: IntCodedScheme) -> None:
    assert isinstance(scheme, IdScheme)
    assert require_sortable(scheme) is scheme
    for attribute in ("length", "resolution_ms", "min_ms", "max_ms"):
        value = getattr(scheme, attribute)
        assert isinstance(value, int) and not isinstance(value, bool)
    assert isinstance(scheme.pattern, str) and isinstance(scheme.numeric, bool)
    assert scheme.min_ms < scheme.max_ms


def test_the_scheme_check_remembered_per_type_answers_as_the_protocol() -> None:
    """``is_id_scheme`` (remembered per type, so a window's bounds skip the ~18 µs protocol
    check) agrees with ``isinstance(value, IdScheme)``, before and after a type is remembered,
    and ``bounds`` still refuses what is not a scheme."""

    @dataclass(frozen=True)
    class Partial:  # one protocol member short
        name: str = "partial"

    values: list[object] = [*ALL, "ulid", ULID_SCHEME.name, 26, None, Partial(), IdScheme]
    for _round in range(2):
        for value in values:
            assert is_id_scheme(value) == isinstance(value, IdScheme), value
    window = TimeWindow.from_ms(0, 1000)
    for value in ("ulid", Partial(), None):
        with pytest.raises(errors.InvalidType, match="needs an id scheme"):
            bounds(value, window)  # type: ignore[arg-type]
    assert bounds(ULID_SCHEME, window) == (ULID_SCHEME.min_for(0), ULID_SCHEME.min_for(1000))


@pytest.mark.parametrize(
    ("scheme", "length", "numeric"),
    [
        (ULID_SCHEME, 26, False),
        (UUID7, 36, False),
        (UUID6, 36, False),
        (KSUID, 27, False),
        (OBJECT_ID, 24, False),
        (TWITTER_SNOWFLAKE, 19, True),
        (DISCORD_SNOWFLAKE, 20, True),
        (INSTAGRAM_ID, 19, True),
        (CUSTOM_64, 20, True),
    ],
    ids=lambda v: v.name if isinstance(v, IntCodedScheme) else repr(v),
)
def test_length_and_numeric(scheme: IntCodedScheme, length: int, numeric: bool) -> None:
    assert scheme.length == length
    assert scheme.numeric is numeric
    assert scheme.sorts_by_time is True
    assert len(id_floor(scheme)) == len(scheme.max_for(scheme.max_ms)) == length


def test_patterns_of_the_fixed_alphabet_schemes() -> None:
    assert ULID_SCHEME.pattern == "[0-7][0-9A-HJKMNP-TV-Z]{25}"
    assert UUID7.pattern == "[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
    assert UUID6.pattern == UUID7.pattern.replace("-7", "-6")
    assert OBJECT_ID.pattern == "[0-9a-f]{24}"


@pytest.mark.parametrize("scheme", ALL, ids=name_of)
def test_pattern_has_no_groups_and_no_anchors(scheme: IntCodedScheme) -> None:
    compiled = re.compile(scheme.pattern)
    assert compiled.groups == 0
    assert not re.search(r"\^|\$|\\A|\\Z|\\b", scheme.pattern)
    # Usable inside a larger expression, with a named group around it.
    key = re.compile(rf"p/(?P<id>{scheme.pattern})\.jpg")
    text = scheme.max_for(scheme.max_ms)
    found = key.fullmatch(f"p/{text}.jpg")
    assert found is not None and found["id"] == text


@pytest.mark.parametrize("scheme", ALL, ids=name_of)
@given(data=st.data())
def test_canonical_texts_match_the_pattern_and_round_trip(
    scheme: IntCodedScheme, data: st.DataObject
) -> None:
    value = data.draw(valid_ints(scheme))
    text = scheme.from_int(value)
    assert len(text) == scheme.length
    assert re.fullmatch(scheme.pattern, text)
    assert scheme.parse(text) == text
    assert scheme.to_int(text) == value
    assert text.isascii() and (text.isdigit() or not scheme.numeric)
    ms = scheme.timestamp_ms(text)
    assert scheme.min_ms <= ms <= scheme.max_ms
    assert ms % scheme.resolution_ms == 0
    low, high = scheme.min_for(ms), scheme.max_for(ms)
    assert re.fullmatch(scheme.pattern, low) and re.fullmatch(scheme.pattern, high)
    assert low <= text <= high
    assert scheme.to_int(low) <= value <= scheme.to_int(high)
    assert id_floor(scheme) <= text < id_ceiling(scheme)
    assert text + "~~~" < id_ceiling(scheme) and text + "\U0010ffff" < id_ceiling(scheme)


@pytest.mark.parametrize("scheme", ALL, ids=name_of)
@given(data=st.data())
def test_pattern_matches_exactly_the_canonical_texts(
    scheme: IntCodedScheme, data: st.DataObject
) -> None:
    alphabet = alphabet_of(scheme)
    canonical = scheme.from_int(data.draw(valid_ints(scheme)))
    position = data.draw(st.integers(0, scheme.length - 1))
    replacement = data.draw(st.sampled_from(alphabet))
    mutated = canonical[:position] + replacement + canonical[position + 1 :]
    random_text = data.draw(st.text(alphabet, min_size=scheme.length, max_size=scheme.length))
    for text in (mutated, random_text):
        try:
            is_canonical = scheme.parse(text) == text
        except errors.InvalidId:
            is_canonical = False
        assert (re.fullmatch(scheme.pattern, text) is not None) == is_canonical, text


@pytest.mark.parametrize("scheme", ALL, ids=name_of)
@given(data=st.data())
def test_text_order_is_numeric_order(scheme: IntCodedScheme, data: st.DataObject) -> None:
    a, b = data.draw(valid_ints(scheme)), data.draw(valid_ints(scheme))
    assert (scheme.from_int(a) < scheme.from_int(b)) == (a < b)


@pytest.mark.parametrize("scheme", ALL, ids=name_of)
@given(data=st.data())
def test_min_max_round_trip(scheme: IntCodedScheme, data: st.DataObject) -> None:
    step = scheme.resolution_ms
    ms = data.draw(st.integers(-(-scheme.min_ms // step), scheme.max_ms // step)) * step
    low, high = scheme.min_for(ms), scheme.max_for(ms)
    assert scheme.timestamp_ms(low) == scheme.timestamp_ms(high) == ms
    assert scheme.parse(low) == low and scheme.parse(high) == high
    assert low <= high
    if ms - step >= scheme.min_ms:
        assert scheme.max_for(ms - step) < low
    assert first_at_or_after(scheme, ms) == low


@pytest.mark.parametrize("scheme", ALL, ids=name_of)
def test_floor_and_ceiling(scheme: IntCodedScheme) -> None:
    floor, ceiling = id_floor(scheme), id_ceiling(scheme)
    lowest, highest = 0, (1 << scheme.bits) - 1
    if scheme not in RAW and scheme is not CUSTOM_64:  # fixed bits of their own
        lowest = scheme.to_int(scheme.min_for(scheme.min_ms))
        highest = scheme.to_int(scheme.max_for(scheme.max_ms))
        assert scheme.to_int(id_floor(scheme)) == lowest
    if scheme in UUID_VERSION:
        fixed = (UUID_VERSION[scheme] << 76) | (0b10 << 62)
        lowest, highest = fixed, highest & ~((0xF << 76) | (0b11 << 62)) | fixed
    assert floor == scheme.min_for(scheme.min_ms) == scheme.from_int(lowest)
    last = scheme.max_for(scheme.max_ms)
    assert last == scheme.from_int(highest)
    assert len(ceiling) == 1 and last < ceiling and last + "\U0010ffff" < ceiling
    assert first_at_or_after(scheme, scheme.max_ms + 1) is None
    assert first_at_or_after(scheme, scheme.min_ms - 10**6) == floor
    lo, hi = id_range(scheme, scheme.min_ms - 1, scheme.max_ms + 10**9)
    assert (lo, hi) == (floor, ceiling)
    assert id_range(scheme, scheme.max_ms + 1, scheme.max_ms + 5) == (ceiling, ceiling)


# --- exact windows --------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ALL, ids=name_of)
@given(data=st.data())
def test_id_range_selects_exactly_the_window(scheme: IntCodedScheme, data: st.DataObject) -> None:
    step = scheme.resolution_ms
    text = scheme.from_int(data.draw(valid_ints(scheme)))
    t = scheme.timestamp_ms(text)
    start = data.draw(st.integers(t - 3 * step, t + 3 * step))
    end = data.draw(st.integers(start - step, start + 6 * step))
    lo, hi = id_range(scheme, start, end)
    inside = start <= t < end
    window = Window(start, end)
    assert in_window(scheme, window, text) == inside
    for key in (text, text + ".jpg", text + "#x", text + "/a"):
        assert (lo <= key < hi) == inside, (key, start, end, lo, hi)
    plo, phi = bounds(scheme, window, prefix="p/")
    assert (plo, phi) == ("p/" + lo, "p/" + hi)
    for key in ("p/" + text + ".jpg", "p/" + text + "#x"):
        assert (plo <= key < phi) == inside
    # The neighbours of the window's ends, at the edges of their resolution steps.
    for probe in (start - step, start, end - step, end):
        t2 = max(scheme.min_ms, min(scheme.max_ms, probe)) // step * step
        t2 = max(t2, -(-scheme.min_ms // step) * step)
        for neighbour in (scheme.min_for(t2), scheme.max_for(t2)):
            assert (lo <= neighbour + ".jpg" < hi) == (start <= t2 < end)


@pytest.mark.parametrize("scheme", [s for s in ALL if s.min_ms >= 0], ids=name_of)
@given(data=st.data())
def test_bounds_with_a_time_window(scheme: IntCodedScheme, data: st.DataObject) -> None:
    step = scheme.resolution_ms
    top = min(scheme.max_ms, (1 << 48) - 1)
    start = data.draw(st.integers(0, top))
    end = data.draw(st.integers(start, min(top, start + 5 * step)))
    window = TimeWindow.from_ms(start, end)
    lo, hi = bounds(scheme, window, prefix="p/")
    for probe in {start, end, start - 1, end - 1, start + step, end + step}:
        t = max(scheme.min_ms, min(top, probe)) // step * step
        if t < scheme.min_ms:
            continue
        for text in (scheme.min_for(t), scheme.max_for(t)):
            key = f"p/{text}.bin"
            assert (lo <= key < hi) == in_window(scheme, window, text), (text, window)


def test_window_past_the_scheme_end_is_open_above() -> None:
    window = TimeWindow.from_ms(OBJECT_ID.max_ms - 1000, OBJECT_ID.max_ms + 5000)
    lo, hi = bounds(OBJECT_ID, window)
    assert hi == id_ceiling(OBJECT_ID) == "g"
    assert lo <= OBJECT_ID.max_for(OBJECT_ID.max_ms) < hi


def test_ceilings_of_the_builtin_schemes() -> None:
    assert [id_ceiling(s) for s in RAW] == ["8", "g", "g", "b", "g", ":", "2", ":"]


def test_unsortable_scheme_refuses_ranges() -> None:
    class Unpadded(SnowflakeScheme):
        sorts_by_time = False

    scheme = Unpadded("unpadded", epoch_ms=0)
    with pytest.raises(errors.InvalidValue, match="does not sort by time"):
        require_sortable(scheme)
    with pytest.raises(errors.InvalidValue, match="does not sort by time"):
        id_range(scheme, 0, 1000)
    with pytest.raises(errors.InvalidValue, match="does not sort by time"):
        bounds(scheme, TimeWindow.from_ms(1_600_000_000_000, 1_600_000_001_000))


# --- random bits and shards -----------------------------------------------------------------


@given(value=valid_ints(ULID_SCHEME))
def test_ulid_random_bits_are_the_ulid_randomness(value: int) -> None:
    text = ULID_SCHEME.from_int(value)
    bits = ULID_SCHEME.random_bits(text)
    assert bits == ULID.parse(text).randomness == base32.decode(text[10:])
    assert bits == int.from_bytes(python_ulid.ULID.from_str(text).bytes[6:], "big")
    assert ULID_SCHEME.random_bits(text.lower()) == bits
    # Keys already in S3 were sharded with randomness % n: shard_of must agree.
    for shards in (1, 2, 16, 256, 1000):
        assert shard_of(ULID_SCHEME, text, shards) == ULID.parse(text).randomness % shards


def test_uuid_random_bits_against_the_uuid_fields() -> None:
    for _ in range(200):
        v7 = uuid6.uuid7()
        rand_a = v7.time_hi_version & 0xFFF
        rand_b = ((v7.clock_seq_hi_variant & 0x3F) << 56) | (v7.clock_seq_low << 48) | v7.node
        assert UUID7.random_bits(str(v7)) == (rand_a << 62) | rand_b
        assert UUID7.random_bits(str(v7).upper()) == (rand_a << 62) | rand_b
        v6 = uuid6.uuid6()
        assert UUID6.random_bits(str(v6)) == (v6.clock_seq << 48) | v6.node
    mine = UUID7.new()
    bits = UUID7.random_bits(mine)
    assert bits is not None and bits.bit_length() <= 74


@pytest.mark.parametrize(("scheme", "width"), [(UUID7, 74), (UUID6, 62)], ids=["uuid7", "uuid6"])
@given(data=st.data())
def test_uuid_random_bits_cover_every_non_fixed_bit(
    scheme: IntCodedScheme, width: int, data: st.DataObject
) -> None:
    random = data.draw(st.integers(0, (1 << width) - 1))
    low = scheme.to_int(scheme.min_for(1_600_000_000_000))
    # UUIDv7: rand_a sits above the variant, rand_b below it; UUIDv6: rand_b only.
    rand_a, rand_b = random >> 62, random & ((1 << 62) - 1)
    value = low | (rand_a << 64) | rand_b
    text = scheme.from_int(value)
    assert scheme.random_bits(text) == random
    assert scheme.timestamp_ms(text) == 1_600_000_000_000


def test_ksuid_and_objectid_random_bits_against_the_references() -> None:
    for _ in range(200):
        k = ksuid.Ksuid()
        assert KSUID.random_bits(str(k)) == int.from_bytes(k.payload, "big")
        oid = bson.ObjectId()
        assert OBJECT_ID.random_bits(str(oid)) == int.from_bytes(oid.binary[4:], "big")
    assert OBJECT_ID.random_bits("507f1f77bcf86cd799439011") == 0xBCF86CD799439011
    assert KSUID.random_bits(KSUID.max_for(KSUID.max_ms)) == (1 << 128) - 1


@pytest.mark.parametrize("scheme", ALL, ids=name_of)
@given(data=st.data())
def test_shard_of_is_the_random_bits_or_a_hash(scheme: IntCodedScheme, data: st.DataObject) -> None:
    text = scheme.from_int(data.draw(valid_ints(scheme)))
    shards = data.draw(st.integers(1, 1000))
    shard = shard_of(scheme, text, shards)
    assert 0 <= shard < shards and shard == shard_of(scheme, text, shards)
    bits = scheme.random_bits(text)
    if scheme.numeric:
        assert bits is None
    else:
        assert bits is not None and shard == bits % shards


@pytest.mark.parametrize("scheme", SNOWFLAKES, ids=name_of)
def test_snowflake_shards_spread_consecutive_ids(scheme: SnowflakeScheme) -> None:
    first = scheme.to_int(scheme.min_for(scheme.min_ms + 10**9))
    counts = [0] * 8
    for offset in range(800):
        counts[shard_of(scheme, scheme.from_int(first + offset), 8)] += 1
    assert min(counts) > 50, counts


@pytest.mark.parametrize("scheme", SNOWFLAKES, ids=name_of)
def test_snowflakes_have_no_random_bits_but_check_the_text(scheme: SnowflakeScheme) -> None:
    assert scheme.random_bits("12345") is None
    with pytest.raises(errors.InvalidId):
        scheme.random_bits("12x45")
    with pytest.raises(errors.InvalidType):
        scheme.random_bits(12345)  # type: ignore[arg-type]


# --- validation -----------------------------------------------------------------------------


def test_from_int_regressions() -> None:
    # Used to return 'ZZZZ...' and '-0000000-...'.
    with pytest.raises(errors.InvalidId, match="2\\*\\*128"):
        ULID_SCHEME.from_int(-1)
    with pytest.raises(errors.InvalidULID):
        ULID_SCHEME.from_int(1 << 128)
    with pytest.raises(errors.InvalidId, match="2\\*\\*128"):
        UUID7.from_int(-1)


@pytest.mark.parametrize("scheme", ALL, ids=name_of)
@pytest.mark.parametrize("value", ["-1", "2**bits", "10**5000", "-10**5000"])
def test_from_int_refuses_numbers_out_of_range(scheme: IntCodedScheme, value: str) -> None:
    number = {
        "-1": -1,
        "2**bits": 1 << scheme.bits,
        "10**5000": 10**5000,  # repr() of it raises ValueError: messages must not use it
        "-10**5000": -(10**5000),
    }[value]
    with pytest.raises(errors.InvalidId) as caught:
        scheme.from_int(number)
    assert scheme.name in str(caught.value) and f"2**{scheme.bits}" in str(caught.value)


@pytest.mark.parametrize("scheme", ALL, ids=name_of)
@pytest.mark.parametrize("value", [True, False, 1.0, "1", Decimal(1), Decimal("NaN"), None, b"1"])
def test_from_int_refuses_non_ints(scheme: IntCodedScheme, value: object) -> None:
    with pytest.raises(errors.InvalidType, match="value="):
        scheme.from_int(value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("scheme", "value", "rule"),
    [
        (UUID7, 0, "version nibble is 0, not 7"),
        (UUID7, 7 << 76, "variant"),
        (UUID7, (7 << 76) | (0b11 << 62), "variant"),
        (UUID7, (6 << 76) | (0b10 << 62), "version nibble is 6"),
        (UUID6, (7 << 76) | (0b10 << 62), "version nibble is 7"),
        (UUID6, (6 << 76) | (0b01 << 62), "variant"),
    ],
)
def test_from_int_checks_uuid_version_and_variant(
    scheme: IntCodedScheme, value: int, rule: str
) -> None:
    with pytest.raises(errors.InvalidId, match=rule):
        scheme.from_int(value)


@pytest.mark.parametrize("scheme", ALL, ids=name_of)
@pytest.mark.parametrize("value", [None, 123, b"01HX5Q3T8R6K2M9N4P7W1Y3ZB0", ["x"]])
def test_text_functions_refuse_non_str(scheme: IntCodedScheme, value: object) -> None:
    for function in (scheme.parse, scheme.timestamp_ms, scheme.to_int, scheme.random_bits):
        with pytest.raises(errors.InvalidType, match=scheme.name):
            function(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("scheme", ALL, ids=name_of)
@pytest.mark.parametrize("text", ["9" * 5000, "0" * 5000, "", "f" * 100_000])
def test_very_long_or_empty_text_is_an_invalid_id(scheme: IntCodedScheme, text: str) -> None:
    for function in (scheme.parse, scheme.timestamp_ms, scheme.to_int, scheme.random_bits):
        with pytest.raises(errors.InvalidId) as caught:
            function(text)
        message = str(caught.value)
        assert "Exceeds the limit" not in message and len(message) < 400


def test_twitter_snowflake_of_5000_nines_regression() -> None:
    with pytest.raises(errors.InvalidId, match="expected 1 to 19 decimal digits"):
        TWITTER_SNOWFLAKE.parse("9" * 5000)


@pytest.mark.parametrize("scheme", ALL, ids=name_of)
@pytest.mark.parametrize(
    "ms", [Decimal("NaN"), Decimal(1_600_000_000_000), 1.6e12, float("nan"), True, "1", None]
)
def test_min_and_max_for_refuse_non_ints(scheme: IntCodedScheme, ms: object) -> None:
    with pytest.raises(errors.InvalidType, match="ms="):
        scheme.min_for(ms)  # type: ignore[arg-type]
    with pytest.raises(errors.InvalidType, match="ms="):
        scheme.max_for(ms)  # type: ignore[arg-type]


@pytest.mark.parametrize("scheme", ALL, ids=name_of)
def test_min_and_max_for_refuse_times_out_of_range(scheme: IntCodedScheme) -> None:
    for ms in (scheme.min_ms - scheme.resolution_ms, scheme.max_ms + 1, 10**5000, -(10**5000)):
        with pytest.raises(errors.TimeOutOfRange, match=scheme.name):
            scheme.min_for(ms)
        with pytest.raises(errors.TimeOutOfRange, match=scheme.name):
            scheme.max_for(ms)


def test_times_outside_a_scheme_are_rejected() -> None:
    with pytest.raises(errors.TimeOutOfRange, match="ksuid"):
        KSUID.min_for(0)
    with pytest.raises(errors.TimeOutOfRange, match="whole seconds"):
        OBJECT_ID.min_for(1_500)


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
        (TWITTER_SNOWFLAKE, "1541815603606036480 ", "expected 1 to 19 decimal digits"),
        (TWITTER_SNOWFLAKE, "154181560360603648 ", "ASCII decimal digits"),
        (TWITTER_SNOWFLAKE, "00000000000000000001", "expected 1 to 19 decimal digits"),
        (TWITTER_SNOWFLAKE, "9223372036854775808", "exceeds the largest"),
        (DISCORD_SNOWFLAKE, "18446744073709551616", "exceeds the largest"),
        (ULID_SCHEME, "01HX5Q3T8R6K2M9N4P7W1Y3ZBU", "'U' at position 25"),
        (ULID_SCHEME, "81HX5Q3T8R6K2M9N4P7W1Y3ZB0", "exceeds the largest ULID"),
        (UUID1, "58e0a7d7-eebc-61d8-9669-0800200c9a66", "version nibble is 6, not 1"),
        (UUID1, "58e0a7d7-eebc-11d8-c669-0800200c9a66", "variant"),
        (UUID4, "58e0a7d7eebc11d896690800200c9a66", "8-4-4-4-12"),
        (UUID1_ORDERED, "21d8eebc58e0a7d796690800200c9a66", "first hex digit"),
        (UUID1_ORDERED, "11d8eebc58e0a7d706690800200c9a66", "variant"),
        (UUID1_ORDERED, "11d8eebc58e0a7d79669080020", "32 hex digits"),
        (UUID5, "58e0a7d7-eebc-11d8-9669-0800200c9a6g", "8-4-4-4-12"),
        (UUID_NIL, "00000000-0000-0000-0000-000000000001", "it is not 00000000-"),
    ],
)
def test_bad_ids_raise_invalid_id(scheme: IntCodedScheme, text: str, rule: str) -> None:
    with pytest.raises(errors.InvalidId) as caught:
        scheme.parse(text)
    assert rule in str(caught.value) and repr(text) in str(caught.value)


# --- Snowflake-style ids --------------------------------------------------------------------


@pytest.mark.parametrize("scheme", SNOWFLAKES, ids=name_of)
@given(data=st.data())
def test_snowflake_parse_pads_unpadded_decimal(
    scheme: SnowflakeScheme, data: st.DataObject
) -> None:
    value = data.draw(valid_ints(scheme))
    plain = str(value)
    padded = plain.zfill(scheme.length)
    assert scheme.parse(plain) == scheme.parse(padded) == padded == scheme.from_int(value)
    assert scheme.timestamp_ms(plain) == scheme.timestamp_ms(padded)
    assert scheme.to_int(plain) == value
    assert scheme.parse("0" * data.draw(st.integers(0, scheme.length - len(plain))) + plain) == (
        padded
    )


@pytest.mark.parametrize("scheme", SNOWFLAKES, ids=name_of)
@pytest.mark.parametrize(
    "text",
    [
        "١٢٣",  # Arabic-Indic digits: int() accepts them
        "۱۲۳",  # Extended Arabic-Indic
        "１２３",  # fullwidth
        "²",
        "12\u0663",
        "+123",
        "-1",
        " 123",
        "123\n",
        "1_000",
        "0x10",
        "1e3",
        "12.0",
    ],
)
def test_snowflake_parse_takes_ascii_digits_only(scheme: SnowflakeScheme, text: str) -> None:
    with pytest.raises(errors.InvalidId, match="ASCII decimal digits"):
        scheme.parse(text)


def test_snowflake_widths_and_ranges() -> None:
    assert (TWITTER_SNOWFLAKE.bits, TWITTER_SNOWFLAKE.length) == (63, 19)
    assert (INSTAGRAM_ID.bits, INSTAGRAM_ID.length) == (63, 19)
    assert (DISCORD_SNOWFLAKE.bits, DISCORD_SNOWFLAKE.length) == (64, 20)
    assert TWITTER_SNOWFLAKE.max_for(TWITTER_SNOWFLAKE.max_ms) == str(2**63 - 1)
    assert INSTAGRAM_ID.max_for(INSTAGRAM_ID.max_ms) == str(2**63 - 1)
    assert DISCORD_SNOWFLAKE.max_for(DISCORD_SNOWFLAKE.max_ms) == str(2**64 - 1)
    assert TWITTER_SNOWFLAKE.min_for(TWITTER_SNOWFLAKE.min_ms) == "0" * 19
    assert utc(TWITTER_SNOWFLAKE.max_ms).year == 2080


def test_snowflake_known_values() -> None:
    # Built by hand from Twitter's layout: (ms - epoch) << 22 | worker << 12 | sequence.
    made = ((1_656_346_999_379 - 1_288_834_974_657) << 22) | (17 << 12) | 5
    assert TWITTER_SNOWFLAKE.timestamp_ms(str(made)) == 1_656_346_999_379
    assert TWITTER_SNOWFLAKE.parse(str(made)) == str(made).zfill(19)
    low = INSTAGRAM_ID.min_for(1_400_000_000_000)
    assert INSTAGRAM_ID.timestamp_ms(low) == 1_400_000_000_000


def test_discord_ids_are_unsigned_64_bit() -> None:
    # Discord's documented example id 175928847299117063 is 2016-04-30T11:18:25.796Z.
    ms = DISCORD_SNOWFLAKE.timestamp_ms("175928847299117063")
    assert ms == 1_462_015_105_796
    assert utc(ms).isoformat() == "2016-04-30T11:18:25.796000+00:00"
    assert DISCORD_SNOWFLAKE.parse("175928847299117063") == "00175928847299117063"
    # 42 bits of time from 2015-01-01: the range ends in 2154, not 2084.
    assert DISCORD_SNOWFLAKE.min_ms == 1_420_070_400_000
    assert DISCORD_SNOWFLAKE.max_ms == 1_420_070_400_000 + 2**42 - 1
    assert utc(DISCORD_SNOWFLAKE.max_ms).year == 2154
    # Ids at and above 2**63 are valid (times from 2084 on).
    text = DISCORD_SNOWFLAKE.parse(str(2**63))
    assert text == "09223372036854775808"
    assert DISCORD_SNOWFLAKE.timestamp_ms(text) == 1_420_070_400_000 + 2**41
    assert utc(DISCORD_SNOWFLAKE.timestamp_ms(text)).year == 2084
    assert DISCORD_SNOWFLAKE.parse(str(2**64 - 1)) == str(2**64 - 1)
    assert DISCORD_SNOWFLAKE.min_for(DISCORD_SNOWFLAKE.max_ms) < DISCORD_SNOWFLAKE.max_for(
        DISCORD_SNOWFLAKE.max_ms
    )


def test_instagram_ids_keep_the_sign_bit_clear() -> None:
    # A signed Postgres bigint: 40 usable bits of time after the 23 shard/sequence bits.
    assert INSTAGRAM_ID.bits == 63 and INSTAGRAM_ID.shift == 23
    assert INSTAGRAM_ID.max_ms == INSTAGRAM_ID.epoch_ms + 2**40 - 1
    assert (INSTAGRAM_ID.max_ms + 1 - INSTAGRAM_ID.epoch_ms) << 23 == 2**63
    assert utc(INSTAGRAM_ID.max_ms).date().isoformat() == "2046-06-27"
    with pytest.raises(errors.TimeOutOfRange):
        INSTAGRAM_ID.min_for(INSTAGRAM_ID.max_ms + 1)
    with pytest.raises(errors.InvalidId):
        INSTAGRAM_ID.parse(str(2**63))


def test_snowflake_scheme_arguments_are_checked() -> None:
    with pytest.raises(errors.InvalidValue, match="bits=62"):
        SnowflakeScheme("x", epoch_ms=0, bits=62)
    with pytest.raises(errors.InvalidType, match="bits="):
        SnowflakeScheme("x", epoch_ms=0, bits=True)
    with pytest.raises(errors.InvalidValue, match="shift=63"):
        SnowflakeScheme("x", epoch_ms=0, shift=63)
    with pytest.raises(errors.InvalidValue, match="shift=-1"):
        SnowflakeScheme("x", epoch_ms=0, shift=-1)
    with pytest.raises(errors.InvalidType, match="epoch_ms="):
        SnowflakeScheme("x", epoch_ms=1.5)  # type: ignore[arg-type]
    with pytest.raises(errors.InvalidType, match="name="):
        SnowflakeScheme(None, epoch_ms=0)  # type: ignore[arg-type]
    with pytest.raises(errors.InvalidValue, match="name="):
        SnowflakeScheme("", epoch_ms=0)


# --- UUIDv6 before 1970 ---------------------------------------------------------------------


def test_uuid6_starts_at_the_gregorian_epoch() -> None:
    assert UUID6.min_ms == -12_219_292_800_000
    assert utc(UUID6.min_ms) == datetime(1582, 10, 15, tzinfo=timezone.utc)
    assert UUID6.min_for(UUID6.min_ms) == "00000000-0000-6000-8000-000000000000"
    assert id_floor(UUID6) == "00000000-0000-6000-8000-000000000000"
    assert UUID6.timestamp_ms("00000000-0000-6000-8000-000000000000") == UUID6.min_ms
    # The end stays where the 60-bit tick counter ends.
    assert UUID6.max_ms == ((1 << 60) - 1 - GREGORIAN_OFFSET) // 10_000
    assert UUID6.max_for(UUID6.max_ms) == "ffffffff-ffff-6fff-bfff-ffffffffffff"
    assert UUID6.timestamp_ms("ffffffff-ffff-6fff-bfff-ffffffffffff") == UUID6.max_ms


def test_uuid6_before_1970_decodes_consistently() -> None:
    moon = datetime(1969, 7, 20, 20, 17, 40, 123000, tzinfo=timezone.utc)
    ms = int(moon.timestamp() * 1000)
    ticks = ms * 10_000 + GREGORIAN_OFFSET + 4_321
    reference = uuid6.UUID(int=(ticks >> 12) << 80 | (ticks & 0xFFF) << 64 | 12345, version=6)
    assert reference.time == ticks and reference.version == 6
    text = str(reference)
    assert UUID6.timestamp_ms(text) == ms < 0
    assert UUID6.min_ms <= ms <= UUID6.max_ms
    assert UUID6.min_for(ms) <= text <= UUID6.max_for(ms)
    lo, hi = id_range(UUID6, ms, ms + 1)
    assert lo <= text < hi
    assert text < id_range(UUID6, ms + 1, ms + 2)[0]
    # 1 ms before 1970 and the very start of 1970 straddle the epoch in order.
    assert UUID6.max_for(-1) < UUID6.min_for(0)


# --- cross-checks with reference libraries --------------------------------------------------


def test_cross_check_uuid7_and_uuid6_with_uuid6_package() -> None:
    for _ in range(300):
        v7 = uuid6.uuid7()
        assert UUID7.timestamp_ms(str(v7)) == v7.time
        assert UUID7.parse(str(v7).upper()) == str(v7)
        assert UUID7.to_int(str(v7)) == v7.int and UUID7.from_int(v7.int) == str(v7)
        v6 = uuid6.uuid6()
        assert UUID6.timestamp_ms(str(v6)) == (v6.time - GREGORIAN_OFFSET) // 10_000
        assert UUID6.from_int(v6.int) == str(v6)
    ours = UUID7.new()
    assert std_uuid.UUID(ours).version == 7 and std_uuid.UUID(ours).variant == std_uuid.RFC_4122
    assert re.fullmatch(UUID7.pattern, ours)


def test_cross_check_ksuid_with_svix() -> None:
    for _ in range(300):
        theirs = ksuid.Ksuid()
        assert KSUID.timestamp_ms(str(theirs)) == theirs.timestamp * 1000
        assert KSUID.parse(str(theirs)) == str(theirs)
        assert re.fullmatch(KSUID.pattern, str(theirs))
        mine = KSUID.new()
        assert ksuid.Ksuid.from_base62(mine).timestamp * 1000 == KSUID.timestamp_ms(mine)
    assert KSUID.max_for(KSUID.max_ms) == "aWgEPTl1tmebfsQzFP4bxwgy80V"
    assert KSUID.min_for(KSUID.min_ms) == "0" * 27
    assert not re.fullmatch(KSUID.pattern, "aWgEPTl1tmebfsQzFP4bxwgy80W")


def test_cross_check_objectid_with_bson() -> None:
    for _ in range(300):
        oid = bson.ObjectId()
        assert OBJECT_ID.timestamp_ms(str(oid)) == int(oid.generation_time.timestamp()) * 1000
        assert OBJECT_ID.from_int(int(str(oid), 16)) == str(oid)
    # MongoDB's documented example id, created 2012-10-17T21:13:27Z.
    assert OBJECT_ID.timestamp_ms("507f1f77bcf86cd799439011") == 1_350_508_407_000
    assert OBJECT_ID.parse("507F1F77BCF86CD799439011") == "507f1f77bcf86cd799439011"


def test_ulid_scheme_agrees_with_the_ulid_type() -> None:
    u = ULID.new()
    assert ULID_SCHEME.timestamp_ms(str(u)) == u.timestamp_ms
    assert ULID_SCHEME.to_int(str(u)) == int(u)
    assert ULID_SCHEME.from_int(int(u)) == str(u)
    assert ULID_SCHEME.min_for(u.timestamp_ms) == str(ULID.min_for(u.timestamp_ms))
    assert ULID_SCHEME.parse(str(u).lower()) == str(u)
    assert re.fullmatch(ULID_SCHEME.pattern, ULID_SCHEME.new())
