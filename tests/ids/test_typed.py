"""Typed ids: TypeID against the spec's published vectors (vendored in data/), and the off-spec
ULIDs with a 2-bit type tag; both as schemes of layouts and entities, windows within a type."""

from __future__ import annotations

import json
import re
import uuid as std_uuid
from pathlib import Path
from typing import Any

import pytest
import typeid as reference  # typeid-python, reference only
from hypothesis import given
from hypothesis import strategies as st

from ulidkeys import ULID, errors
from ulidkeys.dynamodb import Entity
from ulidkeys.ids import ULID_SCHEME, UUID7, TypeIdScheme
from ulidkeys.ids.protocol import id_range
from ulidkeys.ids.typed import (
    ULID_TAG1,
    ULID_TAG2,
    ULID_TAG3,
    TaggedUlidScheme,
    split_typeid,
    typeid,
)
from ulidkeys.planning.layout import KeyLayout

DATA = Path(__file__).parent / "data"
# From github.com/jetify-com/typeid spec/valid.json and spec/invalid.json (see data/README.md).
VALID: list[dict[str, str]] = json.loads((DATA / "typeid_valid.json").read_text())
INVALID: list[dict[str, str]] = json.loads((DATA / "typeid_invalid.json").read_text())
T0 = 1_715_936_400_000  # 2024-05-17T09:00:00Z


@pytest.mark.parametrize("case", VALID, ids=lambda c: c["name"])
def test_spec_valid_vectors(case: dict[str, str]) -> None:
    scheme = TypeIdScheme(case["prefix"])
    assert split_typeid(case["typeid"])[0] == case["prefix"]
    assert scheme.parse(case["typeid"]) == case["typeid"]
    assert scheme.uuid_text(case["typeid"]) == case["uuid"]
    assert scheme.from_uuid(std_uuid.UUID(case["uuid"])) == case["typeid"]
    assert scheme.from_uuid(case["uuid"]) == case["typeid"]
    assert re.fullmatch(scheme.pattern, case["typeid"])
    assert typeid(case["typeid"]).name == scheme.name


@pytest.mark.parametrize("case", INVALID, ids=lambda c: c["name"])
def test_spec_invalid_vectors(case: dict[str, str]) -> None:
    with pytest.raises(errors.InvalidId) as caught:
        split_typeid(case["typeid"])
    assert "is not a valid TypeID" in str(caught.value)
    assert repr(case["typeid"])[:40] in str(caught.value)


@pytest.mark.parametrize("prefix", ["Post", "_post", "post_", "p0st", "a" * 64, "é"])
def test_bad_prefixes_are_refused(prefix: str) -> None:
    with pytest.raises(errors.InvalidValue, match="is not a TypeID prefix"):
        TypeIdScheme(prefix)


def test_a_typeid_of_another_type_is_refused() -> None:
    with pytest.raises(errors.InvalidId, match="its prefix is 'user', not 'post'"):
        TypeIdScheme("post").parse("user_01h455vb4pex5vsknk084sn02q")


def test_new_typeids_are_uuid7() -> None:
    scheme = TypeIdScheme("post")
    made = scheme.new()
    assert made.startswith("post_") and std_uuid.UUID(scheme.uuid_text(made)).version == 7
    assert UUID7.timestamp_ms(scheme.uuid_text(made)) == scheme.timestamp_ms(made)


@given(st.integers(0, (1 << 48) - 1), st.integers(0, (1 << 80) - 1))
def test_typeid_text_is_the_lowercase_ulid_of_the_uuid(ms: int, rest: int) -> None:
    value = (ms << 80) | rest
    text = TypeIdScheme("post").from_int(value)
    assert text == "post_" + ULID_SCHEME.from_int(value).lower()
    assert TypeIdScheme("post").timestamp_ms(text) == ms


# --- tagged ULIDs (off-spec) -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("scheme", "firsts"),
    [(ULID_TAG1, "89ABCDEF"), (ULID_TAG2, "GHJKMNPQ"), (ULID_TAG3, "RSTVWXYZ")],
)
def test_tags_move_the_first_character(scheme: TaggedUlidScheme, firsts: str) -> None:
    plain = "01HX5Q3T8R6K2M9N4P7W1Y3ZBC"
    tagged = scheme.tag_ulid(plain)
    assert tagged[0] == firsts[0] and tagged[1:] == plain[1:]
    assert scheme.untag(tagged) == plain
    assert scheme.timestamp_ms(tagged) == ULID.parse(plain).timestamp_ms
    assert scheme.parse(tagged.lower()) == tagged
    top = scheme.max_for(scheme.max_ms)
    assert top[0] == firsts[-1] and re.fullmatch(scheme.pattern, top)
    with pytest.raises(errors.InvalidULID, match="first character must be 0-7"):
        ULID.parse(tagged)  # the plain ULID parser keeps rejecting tagged ids
    with pytest.raises(errors.InvalidId, match=f"its type tag is 0, not {scheme.tag}"):
        scheme.parse(plain)


def test_tag_must_be_1_to_3() -> None:
    for tag in (0, 4):
        with pytest.raises(errors.InvalidValue, match=f"tag={tag}"):
            TaggedUlidScheme(tag)


# --- as schemes of layouts and entities: windows select by time within a type ----------------


@pytest.mark.parametrize("scheme", [TypeIdScheme("post"), ULID_TAG2], ids=lambda s: s.name)
@given(data=st.data())
def test_windows_select_by_time_within_the_type(scheme: Any, data: st.DataObject) -> None:
    times = data.draw(st.lists(st.integers(T0, T0 + 10_000), min_size=1, max_size=20))
    ids = [
        scheme.from_int(scheme.to_int(scheme.min_for(t)) | data.draw(st.integers(0, 2**79)))
        for t in times
    ]
    layout = KeyLayout(prefix="posts/", shards=4, suffix=".json", scheme=scheme)
    keys = sorted(layout.key_for(i) for i in ids)
    start = data.draw(st.integers(T0, T0 + 10_000))
    end = data.draw(st.integers(start, T0 + 10_001))
    lo, hi = id_range(scheme, start, end)
    for key in keys:
        parts = layout.parse(key)
        assert parts.ms == scheme.timestamp_ms(parts.id)
        assert (lo <= parts.id < hi) == (start <= parts.ms < end)
    other = TypeIdScheme("user") if isinstance(scheme, TypeIdScheme) else ULID_TAG3
    assert not layout.fits("posts/00/" + other.min_for(start) + ".json")


def test_entities_take_typed_ids() -> None:
    scheme = TypeIdScheme("post")
    entity = Entity(pk="Org#{org}", sk="Post#{id}", scheme=scheme)
    made = scheme.from_int(scheme.to_int(scheme.min_for(T0)) | 12345)
    key = entity.key(org="acme", id=made)
    assert key["SK"] == "Post#" + made
    assert entity.parse({**key})["id"] == made
    with pytest.raises(errors.InvalidKeyField):
        entity.key(org="acme", id="user_" + made.split("_")[1])


def test_cross_check_with_typeid_python() -> None:
    scheme = TypeIdScheme("post")
    for _ in range(50):
        theirs = reference.TypeID(prefix="post")
        assert scheme.parse(str(theirs)) == str(theirs)
        assert scheme.uuid_text(str(theirs)) == str(theirs.uuid)
        ours = scheme.new()
        assert str(reference.TypeID.from_string(ours).uuid) == scheme.uuid_text(ours)
