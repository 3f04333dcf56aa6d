"""The scheme registry: every scheme of every ``ulidkeys.ids`` module, found by walking the
package, once by name; ``inspect`` reads in the registry's order; families and never-guessed
schemes; registrations checked when declared."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

import pytest

from ulidkeys import ids
from ulidkeys.errors import InvalidValue
from ulidkeys.ids.base import IntCodedScheme
from ulidkeys.ids.inspection import READERS, inspect
from ulidkeys.ids.registration import Reading, Registration
from ulidkeys.ids.registry import (
    BY_NAME,
    READINGS,
    REGISTRATIONS,
    SCHEMES,
    generator_for,
    names,
    registration_of,
    scheme_named,
    sortable_samples,
)
from ulidkeys.ids.ulids import ULID_SCHEME
from ulidkeys.timeinput import now_ms


def scheme_modules() -> list[ModuleType]:
    """Every module of the ``ulidkeys.ids`` package, found the way the registry finds them."""
    return [
        importlib.import_module(f"ulidkeys.ids.{module.name}")
        for module in pkgutil.iter_modules(ids.__path__)
    ]


def test_every_scheme_a_module_defines_is_registered_once() -> None:
    # No list of names here: every scheme object any module of the package holds at module
    # level (its own or imported) is registered, so a module whose REGISTRATIONS is missing,
    # empty or short fails this test, and a new scheme file needs no edit to pass it.
    registered = {id(entry.scheme) for entry in REGISTRATIONS} | {
        id(entry.sample) for entry in REGISTRATIONS
    }
    families = tuple(type(entry.sample) for entry in REGISTRATIONS if entry.scheme is None)
    defined: set[int] = set()
    for module in scheme_modules():
        for name, value in vars(module).items():
            if isinstance(value, IntCodedScheme) and not isinstance(value, families):
                defined.add(id(value))
                assert id(value) in registered, f"{module.__name__}.{name} is not registered"
        for entry in getattr(module, "REGISTRATIONS", ()):
            assert registration_of(entry.name) is entry  # found by the walk, under its name
    # and the other way round: the registry holds exactly the schemes the modules define
    assert defined == {id(entry.scheme) for entry in REGISTRATIONS if entry.scheme is not None}
    assert names()[0] == "ulid"
    assert len(set(names())) == len(names())
    for entry in REGISTRATIONS:
        assert registration_of(entry.name) is entry
        for alias in entry.aliases:
            assert BY_NAME[alias] is entry
    assert not set(names()) & {alias for entry in REGISTRATIONS for alias in entry.aliases}


def test_schemes_is_every_registered_scheme_that_sorts_by_time() -> None:
    assert SCHEMES[0] is ULID_SCHEME and isinstance(SCHEMES, tuple)
    single = [entry.scheme for entry in REGISTRATIONS if entry.scheme is not None]
    assert list(SCHEMES) == [s for s in single if s.sorts_by_time]
    assert {s.name for s in SCHEMES} >= {"ulid", "uuid7", "ksuid", "sonyflake", "ulid-tag1"}
    assert not {s.name for s in SCHEMES} & {"uuid1", "uuid4", "ticket", "typeid"}


def test_a_generator_gets_a_node_only_when_its_registration_takes_one() -> None:
    # ObjectId, UUIDv4 and the v1 family have generators of their own that take no node:
    # generator_for refuses node= for them rather than let the generator drop it.
    for entry in REGISTRATIONS:
        if not entry.generated:
            continue
        if entry.takes_node:
            make = generator_for(entry.name, node=1, clock=lambda: 1_700_000_000_000)
            assert entry.scheme_for(made := make()).parse(made) == made
            with pytest.raises(InvalidValue, match="need node="):
                generator_for(entry.name)
        else:
            with pytest.raises(InvalidValue, match="have no node"):
                generator_for(entry.name, node=1)
    assert {e.name for e in REGISTRATIONS if e.takes_node} >= {"twitter-snowflake", "sonyflake"}
    with pytest.raises(InvalidValue, match="takes_node=True needs the generator="):
        Registration("ksuid", ids.KSUID, takes_node=True)


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
        Registration("not-ulid", ULID_SCHEME)
    with pytest.raises(InvalidValue, match="needs example="):
        Registration("fam", of_text=lambda text: ULID_SCHEME)
    assert Reading(1).spelling("abc") == "abc"


def test_inspect_reads_a_named_only_scheme_when_told() -> None:
    number = str(3 << 16)  # sequence 3 (the 8 bits above the 16-bit machine id)
    assert all(c.scheme != "sonyflake" for c in inspect(number).candidates)
    assert inspect(number, scheme="sonyflake").fields == {"machine_id": 0, "sequence": 3}


def test_a_scheme_made_from_a_clock_and_random_bits_has_new() -> None:
    # Layouts and entities make keys with scheme.new() (KeyLayout.new_key, Bucket.put_new,
    # Entity.keys): a registered scheme whose ids come from a clock and random bits and that
    # needs no node must have it (docs/project/contributing.md, "Adding an id scheme").
    checked = []
    for entry in REGISTRATIONS:
        scheme = entry.sample
        if not entry.generated or entry.takes_node:
            continue
        make = getattr(scheme, "new", None)
        assert callable(make), f"{entry.name}: a generated scheme without takes_node needs new()"
        before = now_ms()
        made = make()
        after = now_ms()
        assert scheme.parse(made) == made, entry.name
        if entry.clock:
            ms = scheme.timestamp_ms(made)
            assert before - scheme.resolution_ms < ms <= after, (entry.name, before, ms, after)
        checked.append(entry.name)
    assert {"ulid", "uuid7", "ksuid", "objectid", "uuid4"} <= set(checked)
