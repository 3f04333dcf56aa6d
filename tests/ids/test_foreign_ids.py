"""Id objects of the libraries people already have are accepted wherever ulidkeys takes an id
(issue 26): ``ULID.parse``, ``inspect``, key layouts, entities and their parsers - read by
their public protocols (``bytes``, ``str()``), the same as their text."""

from __future__ import annotations

import uuid

import bson
import ksuid
import pytest
import uuid6
import uuid_utils
from ulid import ULID as PythonULID

from ulidkeys import ULID, inspect
from ulidkeys.dynamodb import Entity
from ulidkeys.ids import KSUID, OBJECT_ID, UUID7
from ulidkeys.s3 import KeyLayout

#: A fixed value: the parametrized test ids must be the same on every pytest-xdist worker.
THEIRS = PythonULID.from_str("01HY2WF4M0XKQ6J3WB5S8Z7DQA")


@pytest.mark.parametrize(
    ("value", "scheme", "text"),
    [
        (THEIRS, None, str(THEIRS)),
        (
            uuid.UUID("018f85c7-9280-7eee-a90f-8b2e51f3b6ea"),
            UUID7,
            "018f85c7-9280-7eee-a90f-8b2e51f3b6ea",
        ),
        (
            uuid6.UUID("018f85c7-9280-7eee-a90f-8b2e51f3b6ea"),
            UUID7,
            "018f85c7-9280-7eee-a90f-8b2e51f3b6ea",
        ),
        (
            uuid_utils.UUID("018f85c7-9280-7eee-a90f-8b2e51f3b6ea"),
            UUID7,
            "018f85c7-9280-7eee-a90f-8b2e51f3b6ea",
        ),
        (bson.ObjectId("507f1f77bcf86cd799439011"), OBJECT_ID, "507f1f77bcf86cd799439011"),
        (
            ksuid.Ksuid.from_base62("0ujtsYcgvSTl8PAuAdqWYSMnLOv"),
            KSUID,
            "0ujtsYcgvSTl8PAuAdqWYSMnLOv",
        ),
    ],
)
def test_layouts_entities_and_inspect_take_id_objects(
    value: object, scheme: object, text: str
) -> None:
    kwargs = {} if scheme is None else {"scheme": scheme}
    layout = KeyLayout("up/", suffix=".bin", **kwargs)  # type: ignore[arg-type]
    assert layout.key_for(value) == layout.key_for(text) == f"up/{text}.bin"  # type: ignore[arg-type]
    entity = Entity(pk="Org#{org}", sk="Post#{id}", **kwargs)  # type: ignore[arg-type]
    assert entity.keys(org="a", id=value)["SK"] == f"Post#{text}"
    assert inspect(value).id == inspect(text).id == text  # type: ignore[arg-type]


def test_ulid_parse_takes_python_ulids_and_uuids() -> None:
    assert str(ULID.parse(THEIRS)) == str(THEIRS)
    assert ULID.parse(THEIRS.to_uuid()) == ULID.parse(str(THEIRS.to_uuid())) == THEIRS
    assert ULID.parse(uuid_utils.UUID(str(THEIRS.to_uuid()))) == THEIRS
