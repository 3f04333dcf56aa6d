"""Pydantic models that give their keys: a ``LayoutId`` field makes the model's S3 key and an
``EntityId`` field its DynamoDB keys (with the model's other key fields), through pydantic's own
validation, serialization and JSON schema."""

from __future__ import annotations

import re

import pydantic
import pytest

from ulidkeys import ULID
from ulidkeys.dynamodb import Entity, Index
from ulidkeys.errors import InvalidKeyField, InvalidType
from ulidkeys.ids import UUID7
from ulidkeys.pydantic import EntityId, LayoutId, dynamodb_keys, s3_key
from ulidkeys.s3 import KeyLayout

PHOTOS = KeyLayout("uploads/", shards=4, period="day", suffix=".jpg")
POSTS = Entity(
    pk="Org#{org}",
    sk="Post#{id}",
    scheme=UUID7,
    gsi={"GSI1": Index(pk="User#{author}", sk="Post#{id}")},
)


class Upload(pydantic.BaseModel):
    id: LayoutId(PHOTOS)  # type: ignore[valid-type]
    title: str = ""


class Post(pydantic.BaseModel):
    org: str
    author: str
    id: EntityId(POSTS)  # type: ignore[valid-type]


def test_a_model_gives_its_s3_key() -> None:
    made = ULID.new(at="2024-05-17T09:00:00Z")
    upload = Upload(id=str(made).lower())  # any spelling the scheme reads
    assert upload.id == str(made)
    assert s3_key(upload) == PHOTOS.key_for(made)
    assert s3_key(upload, ext=".png").endswith(f"{made}.png")
    again = Upload.model_validate_json(upload.model_dump_json())
    assert again == upload
    schema = Upload.model_json_schema()["properties"]["id"]
    assert re.fullmatch(schema["pattern"], str(made))


def test_a_model_gives_its_dynamodb_keys() -> None:
    post = Post(org="acme", author="bob", id="018f85c7-92fb-7d8f-91b7-584a2265b1f5")
    assert dynamodb_keys(post) == POSTS.keys(
        org="acme", author="bob", id="018f85c7-92fb-7d8f-91b7-584a2265b1f5"
    )
    assert dynamodb_keys(post)["GSI1PK"] == "User#bob"


def test_mistakes_are_named() -> None:
    with pytest.raises(pydantic.ValidationError, match="not a ulid id"):
        Upload(id="not-an-id")
    with pytest.raises(InvalidType, match="LayoutId"):
        s3_key(Post(org="a", author="b", id="018f85c7-92fb-7d8f-91b7-584a2265b1f5"))
    with pytest.raises(InvalidType, match="EntityId"):
        dynamodb_keys(Upload(id=str(ULID.new())))
    with pytest.raises(InvalidType):
        LayoutId("uploads/")  # type: ignore[arg-type]

    class Partial(pydantic.BaseModel):
        id: EntityId(POSTS)  # type: ignore[valid-type]

    with pytest.raises(InvalidKeyField):
        dynamodb_keys(Partial(id="018f85c7-92fb-7d8f-91b7-584a2265b1f5"))
