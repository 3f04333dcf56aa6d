"""Pydantic types for ids of every scheme (``ulidkeys.pydantic``), through pydantic's own
validation, serialization and JSON-schema APIs: canonical text in, canonical text out, the
scheme's rules as the error, its pattern in the schema - read back with ``re``."""

from __future__ import annotations

import json
import re

import bson
import pydantic
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ulid import ULID as PythonULID

from ulidkeys import ULID
from ulidkeys.ids import UUID7
from ulidkeys.ids.registry import sortable_samples
from ulidkeys.pydantic import IdStr, ObjectIdStr, SnowflakeStr, ULIDStr, UUID7Str


class Upload(pydantic.BaseModel):
    id: ULIDStr
    trace: UUID7Str | None = None
    owner: ObjectIdStr | None = None
    tweet: SnowflakeStr | None = None


def test_canonical_text_in_and_out() -> None:
    made = ULID()
    lower = str(made).lower()
    trace = "018F85C7-9280-7EEE-A90F-8B2E51F3B6EA"
    upload = Upload(
        id=lower, trace=trace, owner=bson.ObjectId("507f1f77bcf86cd799439011"), tweet="42"
    )
    assert upload.id == str(made)  # canonical: uppercase
    assert upload.trace == trace.lower() and upload.owner == "507f1f77bcf86cd799439011"
    assert upload.tweet == "0000000000000000042"  # the key form, which sorts
    dumped = json.loads(upload.model_dump_json())
    assert dumped["id"] == str(made) and Upload.model_validate(dumped) == upload
    assert Upload(id=PythonULID.from_str(str(made))).id == str(made)  # an id object
    assert Upload(id=made).id == str(made)


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("id", "01HX5Q3T8R6K2M9N4P7W1Y3ZBU", "not a ulid id"),
        ("id", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "not a ulid id"),
        ("trace", "2253b23b-a9c8-448e-b317-242db95d64a5", "not a uuid7 id"),  # a v4
        ("owner", 5, "not a objectid id"),
    ],
)
def test_the_schemes_rules_are_the_validation_error(field: str, value: object, words: str) -> None:
    fields = {"id": str(ULID()), field: value}
    with pytest.raises(pydantic.ValidationError, match=words):
        Upload.model_validate(fields)


@pytest.mark.parametrize("scheme", sortable_samples(), ids=lambda s: s.name)
def test_every_scheme_has_a_type_whose_schema_pattern_matches_its_ids(scheme: object) -> None:
    model = pydantic.create_model("M", value=(IdStr(scheme), ...))  # type: ignore[call-overload]
    text = scheme.min_for(max(scheme.min_ms, 0) - max(scheme.min_ms, 0) % scheme.resolution_ms)  # type: ignore[attr-defined]
    assert model(value=text).value == text
    schema = model.model_json_schema()["properties"]["value"]
    assert schema["type"] == "string" and re.fullmatch(schema["pattern"][1:-1], text)
    assert re.search(schema["pattern"], text)


@given(st.integers(0, (1 << 48) - 1))
def test_uuid7_pattern_is_exactly_the_schemes(ms: int) -> None:
    pattern = Upload.model_json_schema()["properties"]["trace"]["anyOf"][0]["pattern"]
    text = UUID7.max_for(ms)  # its random bits all set: hex letters, so the case matters
    assert re.fullmatch(pattern, text) and not re.fullmatch(pattern, text.upper())
