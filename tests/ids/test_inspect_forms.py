"""``inspect`` shows an id in the forms other tools print (python-ulid's ``ulid show``: hex,
int, UUID; a UUIDv7's ULID form; a Snowflake's typed and key forms), ignores surrounding
whitespace, notes the Unix-time reading of plausible numbers and near-miss ULID lengths."""

from __future__ import annotations

import json
import uuid

import bson
import ksuid
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typeid import TypeID
from ulid import ULID as PythonULID

import ulidkeys
from ulidkeys.cli import main
from ulidkeys.errors import InvalidId
from ulidkeys.ids import UUID7
from ulidkeys.ids.inspection import inspect


@given(st.integers(0, (1 << 128) - 1))
def test_ulid_forms_equal_python_ulids(value: int) -> None:
    theirs = PythonULID.from_int(value)
    found = inspect(f"  {theirs}\n")  # pasted with spaces around: the spaces are not the id
    assert (found.scheme, found.id) == ("ulid", str(theirs))
    assert found.forms["hex"] == theirs.hex
    assert found.forms["int"] == str(int(theirs))
    assert found.forms["uuid"] == str(theirs.to_uuid())
    assert found.timestamp_ms == theirs.milliseconds


@given(st.integers(0, (1 << 48) - 1), st.integers(0, (1 << 74) - 1))
def test_a_uuid7_shows_its_ulid_form(ms: int, random: int) -> None:
    value = UUID7.to_int(UUID7.min_for(ms)) | (random >> 62 << 64) | (random & ((1 << 62) - 1))
    text = str(uuid.UUID(int=value))
    found = inspect(text)
    assert found.scheme == "uuid7"
    assert PythonULID.from_str(found.forms["ulid"]).to_uuid() == uuid.UUID(text)
    assert PythonULID.from_str(found.forms["ulid"]).milliseconds == ms


def test_snowflakes_show_the_number_as_typed_and_the_key_form() -> None:
    found = inspect("175928847299117063")
    assert found.id == found.forms["key"] == "0175928847299117063"
    assert found.forms["decimal"] == "175928847299117063"


@pytest.mark.parametrize(
    ("text", "note"),
    [
        ("1715936400", "also Unix seconds: 2024-05-17T09:00:00.000Z"),
        ("1715936400000", "also Unix milliseconds: 2024-05-17T09:00:00.000Z"),
        ("01HY2WF4M0XKQ6J3WB5S8Z7DQAA", "27 characters: a ULID with one extra character?"),
    ],
)
def test_notes_on_likelier_readings(
    text: str, note: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert note in inspect(text).notes
    assert main(["inspect", "--json", f" {text} "]) == 0
    found = json.loads(capsys.readouterr().out)
    if text.isdigit():  # the CLI shows a plain Unix time as one, not as a 2010 tweet (issue 33)
        assert found["scheme"] == note.split(":")[0].replace("also Unix ", "unix-")
        assert found["time"] == note.rpartition(": ")[2]
        return
    assert note in found["notes"]
    assert main(["inspect", text]) == 0
    assert f"note          {note}" in capsys.readouterr().out


def test_a_ulid_one_short_names_the_near_miss() -> None:
    with pytest.raises(InvalidId, match=r"25 characters: a ULID missing one character\?"):
        inspect("01HY2WF4M0XKQ6J3WB5S8Z7DQ")
    assert inspect("01HY2WF4M0XKQ6J3WB5S8Z7DQA").notes == ()


def test_json_forms_are_strings_so_every_digit_survives(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "--json", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["forms"]["int"] == str((1 << 128) - 1)
    assert found["forms"]["uuid"] == "ffffffff-ffff-ffff-ffff-ffffffffffff"


def test_id_objects_of_other_libraries_are_inspected_like_their_text() -> None:
    for value, scheme in [
        (PythonULID(), "ulid"),
        (ulidkeys.ULID(), "ulid"),
        (uuid.UUID("018f85c7-9280-7eee-a90f-8b2e51f3b6ea"), "uuid7"),
        (uuid.uuid4(), "uuid4"),
        (bson.ObjectId(), "objectid"),
        (ksuid.Ksuid(), "ksuid"),
        (TypeID(prefix="user"), "typeid:user"),
    ]:
        assert inspect(value).scheme == scheme  # type: ignore[arg-type]
        assert inspect(value) == inspect(str(value))  # type: ignore[arg-type]


# idpeek's README (github.com/JaydenCJ/idpeek, v0.1.0) prints these as its "real captured output";
# the same ids read here give the same values, field by field.
IDPEEK_ULID = {
    "input": "01ARZ3NDEKTSV4RRFFQ69G5FAV",
    "timestamp": "2016-07-30T23:54:10.259Z",
    "unix_ms": 1469922850259,
    "randomness": "d6764c61efb99302bd5b",
    "as UUID": "01563e3a-b5d3-d676-4c61-efb99302bd5b",
    "as hex": "01563e3ab5d3d6764c61efb99302bd5b",
}


def test_a_ulid_reads_as_idpeek_prints_it() -> None:
    found = inspect(IDPEEK_ULID["input"])
    assert found.time is not None
    assert (
        found.time.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        == (IDPEEK_ULID["timestamp"])
    )
    assert found.timestamp_ms == IDPEEK_ULID["unix_ms"]
    assert found.fields["random"] == IDPEEK_ULID["randomness"]
    assert found.forms["uuid"] == IDPEEK_ULID["as UUID"]
    assert found.forms["hex"] == IDPEEK_ULID["as hex"]


def test_idpeeks_time_examples() -> None:
    # idpeek time --epoch discord 175928847299117063  -> 2016-04-30T11:18:25.796Z
    discord = inspect("175928847299117063", scheme="discord-snowflake")
    assert discord.timestamp_ms == 1_462_015_105_796
    assert discord.forms["decimal"] == "175928847299117063"
    # idpeek time --unix-ms 017f22e2-79b0-7cc3-98c4-dc0c0c07398f  -> 1645557742000
    assert inspect("017f22e2-79b0-7cc3-98c4-dc0c0c07398f").timestamp_ms == 1_645_557_742_000


def test_a_uuid1_shows_its_uuid6_twin_as_idpeek_converts_it() -> None:
    # idpeek convert --to uuidv6 c232ab00-9414-11ec-b3c8-9f6bdeced846 (RFC 9562's vector pair)
    v1, v6 = "c232ab00-9414-11ec-b3c8-9f6bdeced846", "1ec9414c-232a-6b00-b3c8-9f6bdeced846"
    assert inspect(v1).fields["uuid6"] == v6
    assert inspect(v6).fields["uuid1"] == v1
    assert inspect(v1).timestamp_ms == inspect(v6).timestamp_ms == 1_645_557_742_000
