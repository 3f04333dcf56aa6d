"""``ulidkeys.inspect``: every supported scheme recognised from its text (ids made by reference
libraries), ambiguous text in the documented order, ``scheme=``, and junk refused."""

from __future__ import annotations

import dataclasses
import json
import uuid as std_uuid
from datetime import datetime, timezone

import bson  # pymongo's ObjectId, reference only
import ksuid  # svix-ksuid, reference only
import pytest
import ulid as python_ulid  # reference only
import uuid6
from hypothesis import given
from hypothesis import strategies as st

import ulidkeys
from ulidkeys import ULID, errors
from ulidkeys.ids import INSTAGRAM_ID, TWITTER_SNOWFLAKE, UUID5, TypeIdScheme
from ulidkeys.ids.discord import DISCORD_SNOWFLAKE
from ulidkeys.ids.inspection import Inspection, inspect
from ulidkeys.ids.typed import ULID_TAG1


def utc(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, timezone.utc)


def test_exported_from_the_package_root() -> None:
    assert ulidkeys.inspect is inspect and ulidkeys.Inspection is Inspection


def test_reference_ids_are_recognised() -> None:
    u = python_ulid.ULID()
    v7, v6, v1 = uuid6.uuid7(), uuid6.uuid6(), std_uuid.uuid1()
    oid, k = bson.ObjectId(), ksuid.Ksuid()
    cases = [
        (str(u), "ulid", u.milliseconds),
        (str(v7), "uuid7", v7.time),
        (str(v6), "uuid6", (v6.time - 0x01B21DD213814000) // 10_000),
        (str(v1), "uuid1", (v1.time - 0x01B21DD213814000) // 10_000),
        (str(std_uuid.uuid4()), "uuid4", None),
        (str(std_uuid.uuid3(std_uuid.NAMESPACE_DNS, "a")), "uuid3", None),
        (str(std_uuid.uuid5(std_uuid.NAMESPACE_DNS, "a")), "uuid5", None),
        (str(oid), "objectid", int(oid.generation_time.timestamp()) * 1000),
        (str(k), "ksuid", int(k.datetime.timestamp()) * 1000),
    ]
    for text, scheme, ms in cases:
        found = inspect(text)
        assert (found.scheme, found.timestamp_ms) == (scheme, ms), text
        assert found.time == (None if ms is None else utc(ms))
        assert found.time is None or found.time.tzinfo is timezone.utc


def test_fields_per_scheme() -> None:
    v1 = inspect("58e0a7d7-eebc-11d8-9669-0800200c9a66")
    assert dict(v1.fields) == {
        "version": 1,
        "variant": 2,
        "ticks_100ns": 0x1D8EEBC58E0A7D7,
        "clock_seq": 0x1669,
        "node": "0800200c9a66",
        "node_is_random": False,
        "uuid6": "1d8eebc5-8e0a-67d7-9669-0800200c9a66",  # uuid6.uuid1_to_uuid6 of it
    }
    ordered = inspect("11d8eebc58e0a7d796690800200c9a66")
    assert ordered.scheme == "uuid1-ordered" and ordered.timestamp_ms == v1.timestamp_ms
    assert ordered.fields["uuid1"] == v1.id
    oid = inspect("507f1f77bcf86cd799439011")
    assert dict(oid.fields) == {"seconds": 0x507F1F77, "random": "bcf86cd799", "counter": 0x439011}
    typed = inspect("post_01h455vb4pex5vsknk084sn02q")
    assert (typed.scheme, typed.fields["type"]) == ("typeid:post", "post")
    assert typed.fields["uuid"] == "01890a5d-ac96-774b-bcce-b302099a8057"
    tagged = inspect(ULID_TAG1.tag_ulid("01HX5Q3T8R6K2M9N4P7W1Y3ZBC"))
    assert (tagged.scheme, tagged.fields["tag"]) == ("ulid-tag1", 1)
    assert tagged.fields["ulid"] == "01HX5Q3T8R6K2M9N4P7W1Y3ZBC"
    nil = inspect("00000000-0000-0000-0000-000000000000")
    assert (nil.scheme, nil.time, nil.timestamp_ms) == ("uuid-nil", None, None)


def test_the_instagram_example_is_ambiguous_in_the_documented_order() -> None:
    text = str((1_387_263_000 << 23) | (1341 << 10) | 905)
    found = inspect(text)
    assert [c.scheme for c in found.candidates] == [
        "twitter-snowflake",
        "discord-snowflake",
        "instagram-id",
    ]
    instagram = found.candidates[2]
    assert instagram.fields == {"shard": 1341, "sequence": 905}
    assert instagram.timestamp_ms == 1_314_220_021_721 + 1_387_263_000
    assert inspect(text, scheme="instagram-id") == dataclasses.replace(instagram)
    assert inspect(text, scheme=INSTAGRAM_ID).scheme == "instagram-id"
    assert inspect(text).as_dict()["alternatives"][1]["scheme"] == "instagram-id"
    json.dumps(found.as_dict())


@given(st.integers(0, (1 << 63) - 1))
def test_snowflake_numbers_read_as_each_epoch(value: int) -> None:
    found = inspect(str(value))
    readings = {c.scheme: c.timestamp_ms for c in found.candidates}
    for scheme in (TWITTER_SNOWFLAKE, DISCORD_SNOWFLAKE, INSTAGRAM_ID):
        assert readings[scheme.name] == scheme.timestamp_ms(str(value))


def test_a_lowercase_ulid_is_also_a_typeid_without_prefix() -> None:
    found = inspect("01h455vb4pex5vsknk084sn02q")
    assert [c.scheme for c in found.candidates] == ["ulid", "typeid"]
    assert inspect("01H455VB4PEX5VSKNK084SN02Q").alternatives == ()
    assert inspect("01h455vb4pex5vsknk084sn02q", scheme="typeid").scheme == "typeid"


def test_scheme_argument() -> None:
    name = UUID5.from_name("url", "https://example.com/a.jpg")
    assert inspect(name, scheme="uuid5").id == name
    assert inspect("post_01h455vb4pex5vsknk084sn02q", scheme=TypeIdScheme("post")).timestamp_ms
    with pytest.raises(errors.InvalidId, match="version nibble is 5, not 7"):
        inspect(name, scheme="uuid7")
    with pytest.raises(errors.InvalidType, match="scheme='bogus' is neither"):
        inspect(name, scheme="bogus")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("01HX5Q3T8R6K2M9N4P7W1Y3ZBU", "'U' at position 25"),
        ("hello", "it has 5 characters"),
        ("", "it has 0 characters"),
        ("58e0a7d7-eebc-71d8-9669-0800200c9a6z", "8-4-4-4-12"),
        ("post_01H455VB4PEX5VSKNK084SN02Q", "it has 31 characters"),
        ("12345678901234567890123", "past 2**64 - 1"),  # no 64-bit id: not its length
    ],
)
def test_junk_raises_invalid_id_with_the_reasons(text: str, reason: str) -> None:
    with pytest.raises(errors.InvalidId) as caught:
        inspect(text)
    assert isinstance(caught.value, ValueError)
    assert repr(text) in str(caught.value) and reason in str(caught.value)


def test_non_text_is_a_type_error() -> None:
    with pytest.raises(errors.InvalidType, match="must be the text of an id"):
        inspect(123)  # type: ignore[arg-type]


def test_inspections_are_frozen() -> None:
    found = inspect("01HX5Q3T8R6K2M9N4P7W1Y3ZBC")
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.scheme = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        found.fields["random"] = "0"  # type: ignore[index]


def test_the_s3_ulid_article_worked_example() -> None:
    # The Trek10 article on ULIDs as S3 keys: one ULID's forms, as python's ulid-py printed them.
    u = ULID.parse("01E5V7GWA9CHP337PB8SR18ZP4")
    assert int(u) == 1918360407572615930874316424782053060
    assert u.bytes == b"\x01qvxqIdl1\x9e\xcbFp\x14~\xc4"
    assert bin(int(u)) == (
        "0b1011100010111011001111000011100010100100101100100011011000011000110011110110010110100"
        "011001110000000101000111111011000100"
    )
    # Its `aws s3 ls` listing (US Eastern, UTC-4): keys in name order are in time order, each
    # id's time within the second before the object's LastModified.
    listing = [
        ("01E5V474WE4DE0N63ZWT7P6YWH", "2020-04-14T01:17:53Z"),
        ("01E5V475QFRCEHXKJAS3BRS6BV", "2020-04-14T01:17:54Z"),
        ("01E5V4KXFTP52C9M5DVPQ2XR8T", "2020-04-14T01:24:51Z"),
        ("01E5V5Z9J0GX72VFSENBCKMHF0", "2020-04-14T01:48:33Z"),
    ]
    assert [key for key, _ in listing] == sorted(key for key, _ in listing)
    for key, modified in listing:
        found = inspect(key)
        assert found.scheme == "ulid" and found.timestamp_ms is not None
        stamp = datetime.fromisoformat(modified.replace("Z", "+00:00")).timestamp() * 1000
        assert 0 <= stamp - found.timestamp_ms < 1000
