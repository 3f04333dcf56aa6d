"""Pydantic types for ids of every scheme (``ulidkeys.pydantic``), through pydantic's own
validation, serialization and JSON-schema APIs: canonical text in, canonical text out, the
scheme's rules as the error, its pattern in the schema - read back with ``re``."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime, timezone

import bson
import pydantic
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ulid import ULID as PythonULID

from ulidkeys import ULID
from ulidkeys.dynamodb import Entity
from ulidkeys.ids import UUID7
from ulidkeys.ids.registry import sortable_samples
from ulidkeys.pydantic import (
    EntityId,
    IdStr,
    LayoutId,
    ObjectIdStr,
    SnowflakeStr,
    ULIDStr,
    UUID7Str,
)
from ulidkeys.s3 import KeyLayout


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


# --- one reading of every value, never a fresh random id (issue 31, item 9) ---------------


class Event(pydantic.BaseModel):
    id: ULID


class Keyed(pydantic.BaseModel):
    ulid: ULIDStr | None = None
    trace: UUID7Str | None = None
    tweet: SnowflakeStr | None = None
    photo: LayoutId(KeyLayout("uploads/")) | None = None  # type: ignore[valid-type]
    post: EntityId(Entity(pk="Org#{org}", sk="Post#{id}")) | None = None  # type: ignore[valid-type]


def outcome(validate: Callable[[], pydantic.BaseModel]) -> tuple[str, object]:
    """What one validation gives: the model's values, or the refusal's error types."""
    try:
        return "valid", validate().model_dump()
    except pydantic.ValidationError as error:
        return "refused", sorted(e["type"] for e in error.errors())


times = st.one_of(
    st.floats(allow_nan=False),
    st.datetimes(timezones=st.none() | st.just(timezone.utc)),
    st.integers(-(1 << 130), 1 << 130),
    st.integers(0, (1 << 48) - 1),  # every time in ms that ULID.parse makes an id of
    st.integers(10**36, 10**37 - 1),  # every int ULID.parse reads as a ULID's value
)


@given(times)
def test_a_ulid_field_reads_a_number_or_time_the_same_way_every_time(value: object) -> None:
    """Validated twice (Python and JSON mode), a value gives one id or one refusal: floats and
    datetimes are refused, an int is read exactly as ULID.parse reads it when that reading is
    a value (37 digits), refused when ULID.parse would make a random id of a time."""
    python = [outcome(lambda: Event.model_validate({"id": value})) for _ in range(2)]
    assert python[0] == python[1]
    if not isinstance(value, datetime):
        text = json.dumps({"id": value})
        from_json = [outcome(lambda: Event.model_validate_json(text)) for _ in range(2)]
        assert from_json[0] == from_json[1] == python[0]
    if isinstance(value, int) and 10**36 <= value < 10**37:
        assert python[0] == ("valid", {"id": ULID.parse(value)})
        assert ULID.parse(value) == ULID.from_int(value)  # the one reading of such an int
    else:
        assert python[0] == ("refused", ["ulid_format"])


@given(times, st.sampled_from(["ulid", "trace", "tweet", "photo", "post"]))
def test_id_text_fields_read_a_number_or_time_the_same_way_every_time(
    value: object, field: str
) -> None:
    python = [outcome(lambda: Keyed.model_validate({field: value})) for _ in range(2)]
    assert python[0] == python[1]
    if not isinstance(value, datetime):
        text = json.dumps({field: value})
        from_json = [outcome(lambda: Keyed.model_validate_json(text)) for _ in range(2)]
        assert from_json[0] == from_json[1] == python[0]
    if field != "tweet" or not isinstance(value, int):  # a Snowflake is a number
        assert python[0] == ("refused", ["id_format"])


@pytest.mark.parametrize("text", ["1715904000.0", "1e3", "1715904000000", "5", "0", "-1"])
def test_the_issues_json_numbers_are_refused_with_what_to_pass(text: str) -> None:
    with pytest.raises(pydantic.ValidationError) as raised:
        Event.model_validate_json(f'{{"id": {text}}}')
    message = raised.value.errors()[0]["msg"]
    assert ("ULID.from_timestamp" in message and "not an id" in message) or (
        "ULID.from_int(n)" in message and "ULID.min_for(ms)" in message
    )


def test_datetimes_floats_and_short_ints_are_refused_in_python_mode_too() -> None:
    at = datetime(2024, 5, 17, 9, tzinfo=timezone.utc)
    for value, words in [
        (at, "ULID.from_datetime"),
        (1715904000.0, "ULID.from_timestamp"),
        (1715904000000, "ULID.from_int(n)"),
        (ULID.min_for(0).int, "ULID.from_int(n)"),  # 0: python-ulid's pydantic takes it
    ]:
        with pytest.raises(pydantic.ValidationError, match=re.escape(words)):
            Event(id=value)
    made = ULID.new(at=at)
    assert Event(id=made.int).id == made == Event.model_validate_json(f'{{"id": {made.int}}}').id
    assert Event(id=ULID.min_for(at)).id == ULID.min_for(at)  # what to pass for a time
