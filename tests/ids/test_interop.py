"""Ids as other libraries' objects (python-ulid, uuid/uuid6/uuid_utils, svix-ksuid, bson) are
accepted wherever an id is: layout ``key_for`` and entity fields."""

from __future__ import annotations

import uuid as std_uuid
from collections.abc import Callable
from typing import Any

import bson
import ksuid
import pytest
import ulid as python_ulid
import uuid6
import uuid_utils

from ulidkeys import ULID, errors
from ulidkeys.dynamodb import Entity
from ulidkeys.ids import (
    KSUID,
    OBJECT_ID,
    TWITTER_SNOWFLAKE,
    ULID_SCHEME,
    UUID1,
    UUID1_ORDERED,
    UUID6,
    UUID7,
    IdScheme,
    TypeIdScheme,
    convert_uuid,
)
from ulidkeys.ids.interop import coerce_id
from ulidkeys.planning.layout import KeyLayout

POST = TypeIdScheme("post")
CASES: list[tuple[IdScheme, Callable[[], Any], Callable[[Any], str]]] = [
    (ULID_SCHEME, python_ulid.ULID, str),
    (ULID_SCHEME, ULID.new, str),
    (UUID7, uuid6.uuid7, str),
    (UUID7, uuid_utils.uuid7, str),
    (UUID6, uuid6.uuid6, str),
    (UUID6, uuid_utils.uuid6, str),
    (KSUID, ksuid.Ksuid, str),
    (OBJECT_ID, bson.ObjectId, str),
    (POST, uuid6.uuid7, POST.from_uuid),
    (UUID1_ORDERED, std_uuid.uuid1, lambda u: convert_uuid(str(u), UUID1, UUID1_ORDERED)),
]
if hasattr(std_uuid, "uuid7"):  # Python 3.14
    CASES.append((UUID7, std_uuid.uuid7, str))


def label(case: tuple[IdScheme, Callable[[], Any], Callable[[Any], str]]) -> str:
    return f"{case[0].name}-{getattr(case[1], '__module__', '')}.{case[1].__name__}"


@pytest.mark.parametrize("case", CASES, ids=label)
def test_layouts_and_entities_take_id_objects(
    case: tuple[IdScheme, Callable[[], Any], Callable[[Any], str]],
) -> None:
    scheme, make, text_of = case
    value = make()
    text = text_of(value)
    assert coerce_id(scheme, value) == text
    layout = KeyLayout("up/", shards=4, suffix=".bin", scheme=scheme)
    assert layout.key_for(value) == layout.key_for(text)
    assert layout.parse(layout.key_for(value)).id == text
    entity = Entity(pk="Org#{org}", sk="Doc#{id}", scheme=scheme)
    assert entity.key(org="acme", id=value) == entity.key(org="acme", id=text)
    assert entity.id_of(value) == text


def test_numbers_for_numeric_schemes_only() -> None:
    assert coerce_id(TWITTER_SNOWFLAKE, 1541815603606036480) == "1541815603606036480"
    with pytest.raises(errors.InvalidType, match="must be the text or an id object"):
        coerce_id(ULID_SCHEME, 12)
    with pytest.raises(errors.InvalidType, match="id=True"):
        coerce_id(TWITTER_SNOWFLAKE, True)


def test_an_object_of_the_wrong_kind_names_the_input_and_the_rule() -> None:
    wrong = std_uuid.uuid4()
    with pytest.raises(errors.InvalidId, match=r"id=UUID\('.*'\) is no uuid7 id: .*version"):
        KeyLayout("up/", scheme=UUID7).key_for(wrong)
    with pytest.raises(errors.InvalidId, match="is no objectid id"):
        coerce_id(OBJECT_ID, python_ulid.ULID())  # 16 bytes are no 12-byte ObjectId
    with pytest.raises(errors.InvalidType, match="not object"):
        KeyLayout("up/").key_for(object())
    with pytest.raises(errors.InvalidKeyField, match="field id="):
        Entity(pk="Org#{org}", sk="Doc#{id}", scheme=UUID7).key(org="a", id=wrong)
