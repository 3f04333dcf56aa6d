"""KeyLayout: keys built from ULIDs parse back; bad layouts, parts and keys raise clear errors."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from idsupport import SORTABLE, id_at
from periodsupport import layout_periods_or_none, oracle_folder
from s3support import T0, layouts, ulid_at

from ulidkeys import ULID, base32
from ulidkeys.errors import (
    InvalidKeyPart,
    InvalidLayout,
    InvalidType,
    InvalidValue,
    KeyMismatch,
)
from ulidkeys.ids import IdScheme
from ulidkeys.ids.protocol import invert_id, shard_of
from ulidkeys.planning.periods import PARTITION_LIMIT_MS, Period
from ulidkeys.s3 import KeyLayout, KeyParts

times = st.integers(0, PARTITION_LIMIT_MS - 1)
randomness = st.integers(0, (1 << 80) - 1)
exts = st.one_of(st.none(), st.sampled_from(["jpg", ".png", ".tar.gz", "x+y_z-1"]))


@given(layouts, times, randomness, exts)
def test_key_for_parses_back(layout: KeyLayout, ms: int, rand: int, ext: str | None) -> None:
    ulid = ulid_at(ms, rand)
    key = layout.key_for(ulid, ext)
    parts = layout.parse(key)
    assert isinstance(parts, KeyParts) and parts.key == key
    assert str(parts.ulid) == ulid == parts.id
    assert parts.ms == ms
    assert parts.suffix == (layout.suffix if ext is None else "." + ext.lstrip("."))
    assert key.startswith(layout.prefix)
    if layout.shards:
        assert parts.shard == rand % layout.shards
        assert key[len(layout.prefix) :].startswith(f"{parts.shard:02d}/")
    else:
        assert parts.shard is None
    if layout.period is None:
        assert parts.period is None
    else:
        expected = oracle_folder(layout.period, ms)
        assert parts.period == expected
        period = Period(layout.period)
        assert period.parse_folder(expected) == period.floor(ms) <= ms < period.next(ms)
    assert layout.fits(key)


@pytest.mark.parametrize("scheme", SORTABLE, ids=lambda scheme: scheme.name)
@given(
    shards=st.integers(1, 1000),
    period=layout_periods_or_none,
    newest_first=st.booleans(),
    seed=st.integers(0, 2**32),
)
def test_key_for_of_every_scheme_puts_the_id_in_its_protocol_shard_and_time(
    scheme: IdScheme, shards: int, period: str | None, newest_first: bool, seed: int
) -> None:
    # key_for reads the id's time and shard folder as a listing reads a key's (the scheme's
    # quick readers of canonical text): both must be the protocol's, shard_of and timestamp_ms
    newest_first = newest_first and period is None  # the two do not combine (InvalidLayout)
    layout = KeyLayout("k/", shards=shards, period=period, scheme=scheme, newest_first=newest_first)
    low = max(scheme.min_ms, 0) if newest_first or period else scheme.min_ms
    high = min(scheme.max_ms, PARTITION_LIMIT_MS - 1) if period else scheme.max_ms
    text = id_at(scheme, random.Random(seed).randint(low, high), random.Random(seed))
    try:
        key = layout.key_for(text)
    except InvalidKeyPart:  # an id whose inverted time cannot hold its other bits
        assert newest_first
        return
    in_key = invert_id(scheme, text) if newest_first else text
    shard = layout.shard_folder(shard_of(scheme, in_key, shards))
    folder = oracle_folder(period, scheme.timestamp_ms(text)) if period else ""
    assert key == f"k/{shard}{folder}{in_key}"
    parts = layout.parse(key)
    assert (parts.id, parts.ms) == (text, scheme.timestamp_ms(text))
    assert parts.shard == shard_of(scheme, in_key, shards)


@given(layouts, times, randomness, times, randomness)
def test_key_order_is_time_order_within_a_shard(
    layout: KeyLayout, ms1: int, r1: int, ms2: int, r2: int
) -> None:
    """Within one shard folder, key order equals ULID order (what one listing chain relies on)."""
    if layout.shards:
        r2 = r2 - r2 % layout.shards + r1 % layout.shards  # same shard as r1
        if r2 >= 1 << 80:
            r2 -= layout.shards
    a, b = ulid_at(ms1, r1), ulid_at(ms2, r2)
    ka, kb = layout.key_for(a), layout.key_for(b)
    assert (a < b) == (ka.encode() < kb.encode())


def test_shard_folder_width_and_new_key() -> None:
    layout = KeyLayout("u/", shards=128, period="hour", suffix=".bin")
    key = layout.new_key()
    parts = layout.parse(key)
    assert key == f"u/{parts.shard:03d}/{parts.period}{parts.ulid}.bin"
    assert layout.new_key(ext="png").endswith(".png")
    assert KeyLayout(shards=7).key_for(ulid_at(T0, 9)) == "02/" + ulid_at(T0, 9)


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"prefix": "/uploads/"}, InvalidLayout, "leading slash"),
        ({"prefix": "a/../b/"}, InvalidLayout, "'..' path segment"),
        ({"prefix": "./"}, InvalidLayout, "'.' path segment"),
        ({"prefix": "a//b/"}, InvalidLayout, "empty path segment"),
        ({"prefix": "up\nloads/"}, InvalidLayout, "control character"),
        ({"prefix": "up\ud800/"}, InvalidLayout, "surrogate"),
        ({"prefix": "x" * 1000}, InvalidLayout, "at most 1024 bytes"),
        ({"prefix": "é" * 500}, InvalidLayout, "bytes of UTF-8"),
        ({"suffix": "/../x"}, InvalidLayout, "'..' path segment"),
        ({"suffix": "/"}, InvalidLayout, "ends with '/'"),
        ({"suffix": "\x7f"}, InvalidLayout, "control character"),
        ({"shards": -1}, InvalidLayout, "out of range"),
        ({"shards": 0}, InvalidLayout, "out of range.*shards=None means no shard folder"),
        ({"shards": 1001}, InvalidLayout, "out of range"),
        ({"period": "fortnight"}, InvalidLayout, "must be None or one of 'hour', 'day', 'week'"),
        ({"period": "year"}, InvalidLayout, "DynamoDB bucket size that S3 layouts do not offer"),
        ({"period": 1}, InvalidLayout, "period=1 must be None or one of"),
    ],
)
def test_bad_layouts_raise(kwargs: dict[str, object], error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words.replace("(", r"\(")) as caught:
        KeyLayout(**kwargs)  # type: ignore[arg-type]
    assert isinstance(caught.value, InvalidValue)


def test_bad_types_raise_type_errors() -> None:
    with pytest.raises(TypeError, match="shards"):
        KeyLayout(shards=True)
    with pytest.raises(InvalidType, match="shards='3'"):
        KeyLayout(shards="3")  # type: ignore[arg-type]
    with pytest.raises(InvalidType, match="not an id scheme"):
        KeyLayout(scheme="ulid")  # type: ignore[arg-type]
    assert KeyLayout().shards is None and KeyLayout(shards=1).key_for(ulid_at(T0, 5))[:3] == "00/"
    with pytest.raises(TypeError, match="prefix"):
        KeyLayout(prefix=b"x/")  # type: ignore[arg-type]


@pytest.mark.parametrize("ext", ["", ".", "a/b", "jp g", "x" * 40, "\x00"])
def test_bad_extensions_raise(ext: str) -> None:
    with pytest.raises(InvalidKeyPart, match="ext="):
        KeyLayout("u/").key_for(ulid_at(T0, 1), ext)


def test_key_for_rejects_bad_ulids_and_far_future_periods() -> None:
    with pytest.raises(InvalidValue, match="ULID"):
        KeyLayout("u/").key_for("not-a-ulid")
    with pytest.raises(InvalidKeyPart, match="9999-12-31"):
        KeyLayout(period="day").key_for(ulid_at(PARTITION_LIMIT_MS, 0))
    assert (
        KeyLayout(period="day")
        .key_for(ulid_at(PARTITION_LIMIT_MS - 1, 0))
        .startswith("dt=9999-12-31/")
    )
    # lowercase input is stored canonical (uppercase), so it sorts with the others
    assert KeyLayout("u/").key_for(ulid_at(T0, 5).lower()) == "u/" + ulid_at(T0, 5)


def test_parse_explains_keys_that_do_not_fit() -> None:
    layout = KeyLayout("u/", shards=4, period="day", suffix=".jpg")
    ulid = ulid_at(T0, 6)  # shard 2
    good = layout.key_for(ulid)
    assert good == "u/02/dt=2024-05-17/" + ulid + ".jpg"
    cases = {
        "v/02/dt=2024-05-17/" + ulid + ".jpg": "prefix",
        "u/03/dt=2024-05-17/" + ulid + ".jpg": "shard folder '03/'",
        "u/02/dt=2024-05-18/" + ulid + ".jpg": "period folder",
        "u/02/dt=2024-05-17/" + ulid.lower() + ".jpg": "canonical",
        "u/02/dt=2024-05-17/" + "8" + ulid[1:] + ".jpg": "canonical",
        "u/02/dt=2024-05-17/" + ulid[:-1] + ".jpg": "canonical",
        "u/02/dt=2024-05-17/" + ulid + "~": "suffix",
        "u/02/dt=2024-05-17/": "canonical",
    }
    for key, words in cases.items():
        with pytest.raises(KeyMismatch, match=words):
            layout.parse(key)
        assert not layout.fits(key)
    assert layout.parse(good).ulid == ULID(ulid)


def test_folders_round_trip_and_reject_lookalikes() -> None:
    ms = T0 + 3_600_000 * 5
    day, hour = Period("day"), Period("hour")
    assert hour.folder(ms) == "dt=2024-05-17/hr=14/"
    assert hour.parse_folder("dt=2024-05-17/hr=14/") == ms - ms % 3_600_000
    for bad in ["dt=2024-05-17/hr=24/", "dt=2024-02-30/", "dt=2024-5-17/x/", "xx=2024-05-17/"]:
        assert day.parse_folder(bad) is None
        assert hour.parse_folder(bad) is None
    assert base32.encode_time(T0) == ulid_at(T0, 0)[:10]
