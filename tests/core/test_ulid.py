"""The ULID value type: round trips, spec-exact text rules, and python-ulid as a reference."""

from __future__ import annotations

import pickle
import uuid
from datetime import datetime, timedelta, timezone

import pytest
import ulid as reference  # python-ulid, used only to cross-check
from hypothesis import given
from hypothesis import strategies as st

import ulidkeys
from ulidkeys import ULID, errors
from ulidkeys.base32 import ALPHABET
from ulidkeys.timeinput import MAX_DATETIME_MS, MAX_MS
from ulidkeys.ulid.forms import MAX_ULID, MIN_ULID

values = st.integers(min_value=0, max_value=(1 << 128) - 1)
milliseconds = st.integers(min_value=0, max_value=MAX_MS)
ulid_text = st.builds(
    lambda first, rest: first + rest,
    st.sampled_from("01234567"),
    st.text(alphabet=ALPHABET, min_size=25, max_size=25),
)


@given(values)
def test_int_bytes_uuid_text_round_trip(value: int) -> None:
    u = ULID.from_int(value)
    assert int(u) == u.int == value
    assert ULID.from_bytes(u.bytes) == u
    assert bytes(u) == value.to_bytes(16, "big")
    assert ULID.from_uuid(u.uuid) == u and u.uuid.int == value
    assert ULID.parse(str(u)) == u == ULID(str(u))
    assert u.hex == f"{value:032x}"
    assert u.timestamp_ms == value >> 80 and u.randomness == value & ((1 << 80) - 1)


@given(ulid_text)
def test_text_round_trip_and_case(text: str) -> None:
    assert str(ULID.parse(text)) == text
    assert str(ULID.parse(text.lower())) == text, "lowercase parses; canonical form is uppercase"


@given(milliseconds)
def test_datetime_round_trip_and_min_max(ms: int) -> None:
    low, high = ULID.min_for(ms), ULID.max_for(ms)
    assert low.timestamp_ms == high.timestamp_ms == ms
    assert low.randomness == 0 and high.randomness == (1 << 80) - 1
    if ms <= MAX_DATETIME_MS:
        assert ULID.min_for(low.datetime) == low
        assert low.datetime.tzinfo is not None
    else:
        with pytest.raises(errors.TimeOutOfRange, match="9999-12-31"):
            _ = low.datetime
    assert ULID.new(at=ms).timestamp_ms == ms
    if ms > 0:
        assert ULID.max_for(ms - 1) < low


@given(values, values)
def test_order_equals_numeric_order(a: int, b: int) -> None:
    ua, ub = ULID.from_int(a), ULID.from_int(b)
    assert (ua < ub) == (a < b) and (ua <= ub) == (a <= b)
    assert (ua > ub) == (a > b) and (ua >= ub) == (a >= b)
    assert (ua == ub) == (a == b) and (ua != ub) == (a != b)
    assert (str(ua) < str(ub)) == (a < b), "string order is time order"


def test_cross_check_with_python_ulid_both_directions() -> None:
    for _ in range(3000):
        theirs = reference.ULID()
        ours = ULID.parse(str(theirs))
        assert ours.bytes == theirs.bytes
        assert ours.timestamp_ms == theirs.milliseconds
        assert str(ours) == str(theirs)
        mine = ULID.new()
        back = reference.ULID.from_str(str(mine))
        assert back.bytes == mine.bytes and back.milliseconds == mine.timestamp_ms
        assert str(reference.ULID.from_bytes(mine.bytes)) == str(mine)
    for text in ulidkeys.batch(2000):
        assert reference.ULID.from_str(text).bytes == ULID.parse(text).bytes


@given(milliseconds)
def test_time_encoding_matches_python_ulid(ms: int) -> None:
    theirs = reference.ULID.from_timestamp(ms)  # an int is taken as milliseconds
    assert str(ULID.min_for(ms))[:10] == str(theirs)[:10]


def test_value_semantics() -> None:
    u = ULID.new()
    assert hash(u) == hash(ULID.parse(str(u).lower()))
    assert pickle.loads(pickle.dumps(u)) == u
    assert repr(u) == f"ULID({u})"  # python-ulid's repr (issue 34; was ULID('...'))
    assert {u: 1}[ULID(str(u))] == 1
    # immutable as ipaddress values are (issue 34): no public attribute can be set, deleted or
    # added; the private slots are left unguarded, a __setattr__ would tax every ULID()
    public = [name for name in dir(u) if not name.startswith("_")]
    assert {"int", "bytes", "hex", "timestamp", "milliseconds", "datetime"} <= set(public)
    for name in [*public, "added"]:
        with pytest.raises(AttributeError):
            setattr(u, name, 1)
        if name != "added":
            with pytest.raises(AttributeError):
                delattr(u, name)
    assert not hasattr(u, "__dict__") and str(ULID(str(u))) == str(u)
    # python-ulid's comparisons (issue 26): with its text, int and bytes; not with other types
    assert u == str(u) and u == int(u) and u == bytes(u) and u != str(u).lower()
    assert u < ULID.max_for(u.timestamp_ms + 1) and not u < str(u)
    with pytest.raises(TypeError):
        _ = u < 1.5  # type: ignore[operator]


def test_new_accepts_every_time_input() -> None:
    at = datetime(2024, 5, 17, 9, 0, 0, 123456, tzinfo=timezone.utc)
    expected = 1715936400123
    assert ULID.new(at=at).timestamp_ms == expected, "sub-millisecond part is floored"
    assert ULID.new(at=expected).timestamp_ms == expected
    assert ULID.new(at="2024-05-17T09:00:00.123Z").timestamp_ms == expected
    assert ULID.new(at="2024-05-17T11:00:00.123+02:00").timestamp_ms == expected
    before = ULID.new().timestamp_ms
    assert before - 60_000 - 5_000 <= ULID.new(at=timedelta(minutes=1)).timestamp_ms <= before


def test_extremes() -> None:
    assert str(ULID.from_int((1 << 128) - 1)) == MAX_ULID
    assert str(ULID.from_int(0)) == MIN_ULID
    assert ULID.parse(MAX_ULID).timestamp_ms == MAX_MS
    assert str(ULID.max_for(MAX_MS)) == MAX_ULID


# --- bad input: the exception type, and a message naming the input and the rule ------------

BAD_TEXT = [
    ("01HX5Q3T8R6K2M9N4P7W1Y3ZB", "expected 26 characters, got 25"),
    ("01HX5Q3T8R6K2M9N4P7W1Y3ZBCD", "expected 26 characters, got 27"),
    ("", "expected 26 characters, got 0"),
    ("01HX5Q3T8R6K2M9N4P7W1Y3ZBU", "'U' at position 25"),
    ("01HX5Q3T8R6K2M9N4P7W1Y3ZBI", "'I' at position 25"),
    ("01HX5Q3T8R6K2M9N4P7W1Y3ZBl", "'l' at position 25"),
    ("01HX5Q3T8R6K2M9N4P7W1Y3ZBo", "'o' at position 25"),
    ("01HX5Q3T8R6K2M9N4P7W1Y3Z-C", "'-' at position 24"),
    (" 1HX5Q3T8R6K2M9N4P7W1Y3ZBC", "' ' at position 0"),
    ("01HX5Q3T8R6K2M9N4P7W1Y3Z_C", "'_' at position 24"),
    ("01HX5Q3T8R6K2M9N4P7W1Y3ZBé", "'é' at position 25"),
    # a non-ASCII letter whose uppercase is in the alphabet (long s -> 'S') is not base32
    ("01HX5Q3T8R6K2M9N4P7W1Y3ZBſ", "'ſ' at position 25"),
    ("ſ1HX5Q3T8R6K2M9N4P7W1Y3ZBC", "'ſ' at position 0"),
    ("80000000000000000000000000", "exceeds the largest ULID 7ZZZZZZZZZZZZZZZZZZZZZZZZZ"),
    ("ZZZZZZZZZZZZZZZZZZZZZZZZZZ", "exceeds the largest ULID"),
]


@pytest.mark.parametrize(("text", "rule"), BAD_TEXT)
def test_bad_text_is_rejected_with_a_clear_message(text: str, rule: str) -> None:
    with pytest.raises(errors.InvalidULID) as caught:
        ULID.parse(text)
    assert rule in str(caught.value)
    assert repr(text) in str(caught.value), "the message names the input"
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize("value", [b"\x00" * 15, b"\x00" * 17, b""])
def test_wrong_byte_length(value: bytes) -> None:
    with pytest.raises(errors.InvalidULID, match=f"expected 16 bytes, got {len(value)}"):
        ULID.from_bytes(value)


@pytest.mark.parametrize("value", [-1, 1 << 128])
def test_int_out_of_range(value: int) -> None:
    with pytest.raises(errors.InvalidULID, match=str(value)):
        ULID.from_int(value)


@pytest.mark.parametrize(
    ("call", "arg"),
    [
        # the strict text parser (ULID.parse reads ints and bytes too, as python-ulid's does)
        (ULID.from_str, 12345),
        (ULID.from_str, b"01HX5Q3T8R6K2M9N4P7W1Y3ZBC"),
        (ULID.parse, 1.5j),
        (ULID.from_int, True),
        (ULID.from_int, "1"),
        (ULID.from_bytes, "x" * 16),
        (ULID.from_uuid, "0190b0ae-7fa3-7000-8000-000000000000"),
    ],
)
def test_wrong_types_raise_type_errors(call: object, arg: object) -> None:
    with pytest.raises(errors.InvalidType) as caught:
        call(arg)  # type: ignore[operator]
    assert isinstance(caught.value, TypeError)
    assert repr(arg)[:20] in str(caught.value)


def test_uuid_conversion_is_bitwise() -> None:
    u = uuid.UUID("0190b0ae-7fa3-7000-8000-0123456789ab")
    assert ULID.from_uuid(u).uuid == u


@given(st.text(min_size=0, max_size=30) | st.text(alphabet=ALPHABET + "ilouILOU-_ ", max_size=28))
def test_arbitrary_text_parses_or_raises_invalid_ulid(text: str) -> None:
    try:
        parsed = ULID.parse(text)
    except errors.InvalidULID as error:
        assert repr(text)[:40] in str(error) or len(repr(text)) > 80
        return
    assert str(parsed) == text.upper() and len(text) == 26
    assert reference.ULID.from_str(text.upper()).bytes == parsed.bytes
