"""The scheme registry: every scheme of every ``ulidkeys.ids`` module, found by walking the
package, once by name; ``inspect`` reads in the registry's order; families and never-guessed
schemes; registrations checked when declared."""

from __future__ import annotations

import pytest

from ulidkeys import ids
from ulidkeys.errors import InvalidValue
from ulidkeys.ids import inspect
from ulidkeys.ids.inspection import READERS
from ulidkeys.ids.registration import Reading, Registration
from ulidkeys.ids.registry import (
    BY_NAME,
    READINGS,
    REGISTRATIONS,
    names,
    registration_of,
    scheme_named,
    sortable_samples,
)


def test_every_built_in_scheme_is_registered_once() -> None:
    assert names()[0] == "ulid"
    assert len(set(names())) == len(names())
    fixed = {scheme.name for scheme in (*ids.SCHEMES, *ids.UUID_SCHEMES, *ids.TAGGED_ULIDS)}
    assert fixed | {"typeid", "ticket", "sonyflake"} == set(names())
    for entry in REGISTRATIONS:
        assert registration_of(entry.name) is entry
        for alias in entry.aliases:
            assert BY_NAME[alias] is entry


def test_names_are_read_case_and_space_insensitively_and_unknown_ones_listed() -> None:
    assert scheme_named(" UUID7 ") is ids.UUID7
    assert scheme_named("snowflake") is ids.TWITTER_SNOWFLAKE
    assert scheme_named("typeid", "user_01h455vb4pex5vsknk084sn02q").name == "typeid:user"
    assert scheme_named("typeid").name == "typeid:post"  # the family's example member
    with pytest.raises(InvalidValue, match="not a known id scheme; one of: ulid, typeid"):
        registration_of("snowflakes")


def test_readings_are_in_the_documented_order() -> None:
    orders = [reading.order for reading, _ in READINGS]
    assert orders == sorted(orders) and len(READERS) == len(READINGS)
    first = [entry.name for _, entry in READINGS]
    assert first[:3] == ["ulid", "typeid", "ulid-tag1"]
    assert first.index("uuid7") < first.index("uuid1-ordered") < first.index("ksuid")
    assert "ticket" not in first and "sonyflake" not in first  # named only, never guessed


def test_sortable_samples_are_the_time_sortable_registrations() -> None:
    samples = sortable_samples()
    assert all(scheme.sorts_by_time for scheme in samples)
    assert {s.name for s in samples} >= {"ulid", "uuid7", "ksuid", "typeid:post", "sonyflake"}
    assert not {s.name for s in samples} & {"uuid4", "uuid1", "ticket", "uuid-nil"}


def test_a_registration_must_name_its_scheme_or_a_family_with_an_example() -> None:
    with pytest.raises(InvalidValue, match="exactly one of scheme= and of_text="):
        Registration("x")
    with pytest.raises(InvalidValue, match="names a scheme called 'ulid'"):
        Registration("not-ulid", ids.ULID_SCHEME)
    with pytest.raises(InvalidValue, match="needs example="):
        Registration("fam", of_text=lambda text: ids.ULID_SCHEME)
    assert Reading(1).spelling("abc") == "abc"


def test_inspect_reads_a_named_only_scheme_when_told() -> None:
    number = str(3 << 16)  # sequence 3 (the 8 bits above the 16-bit machine id)
    assert all(c.scheme != "sonyflake" for c in inspect(number).candidates)
    assert inspect(number, scheme="sonyflake").fields == {"machine_id": 0, "sequence": 3}
