"""UUID v1, MySQL's ordered v1, v3, v4, v5, nil and max: the design documents' worked examples,
cross-checks with the stdlib ``uuid`` and ``uuid6``, conversions, and refusals of windows."""

from __future__ import annotations

import itertools
import re
import uuid as std_uuid
from typing import Any

import bson  # pymongo's ObjectId, reference only
import pytest
import uuid6  # reference v1 -> v6 conversion
from hypothesis import given
from hypothesis import strategies as st

from ulidkeys import errors
from ulidkeys.dynamodb import Entity
from ulidkeys.ids import (
    OBJECT_ID,
    UUID1,
    UUID1_ORDERED,
    UUID5,
    UUID6,
    UUID7,
    IdScheme,
    bounds,
    convert_uuid,
)
from ulidkeys.ids.protocol import id_range, require_sortable
from ulidkeys.ids.uuids import UUID3, UUID4, UUID_MAX, UUID_NIL
from ulidkeys.planning.layout import KeyLayout

GREGORIAN_OFFSET = 0x01B21DD213814000

# The MySQL ordered-UUID document: the 60-bit time 1d8eebc58e0a7d7 gives this v1 UUID, and
# ordered_uuid() (= UUID_TO_BIN(u, 1)) moves time_hi, time_mid, time_low to the front.
SEED_V1 = "58e0a7d7-eebc-11d8-9669-0800200c9a66"
SEED_TICKS = 0x1D8EEBC58E0A7D7
SEED_ORDERED = "11d8eebc58e0a7d796690800200c9a66"


def v1_ints() -> st.SearchStrategy[int]:
    clear = ~((0xF << 76) | (0b11 << 62))
    return st.integers(0, (1 << 128) - 1).map(lambda v: (v & clear) | (1 << 76) | (0b10 << 62))


def test_the_ordered_uuid_worked_example() -> None:
    assert std_uuid.UUID(SEED_V1).time == SEED_TICKS
    assert convert_uuid(SEED_V1, UUID1, UUID1_ORDERED) == SEED_ORDERED
    # The document's SQL: SUBSTR(u,15,4) || SUBSTR(u,10,4) || SUBSTR(u,1,8) || SUBSTR(u,20,4)
    # || SUBSTR(u,25), without dashes (SUBSTR is 1-based).
    u = SEED_V1
    sql = u[14:18] + u[9:13] + u[0:8] + u[19:23] + u[24:]
    assert sql.replace("-", "") == SEED_ORDERED
    assert convert_uuid(SEED_ORDERED, UUID1_ORDERED, UUID1) == SEED_V1
    dashed = "11d8eebc-58e0-a7d7-9669-0800200c9a66"  # what BIN_TO_UUID(b) prints
    assert convert_uuid(dashed, UUID1_ORDERED, UUID1) == SEED_V1
    assert UUID1_ORDERED.parse(SEED_ORDERED.upper()) == SEED_ORDERED
    expected_ms = (SEED_TICKS - GREGORIAN_OFFSET) // 10_000
    assert UUID1.timestamp_ms(SEED_V1) == UUID1_ORDERED.timestamp_ms(SEED_ORDERED) == expected_ms


@pytest.mark.parametrize(
    "text", ["123e4567-e89b-12d3-a456-426614174000", "8c45583a-0e1f-11ec-804d-005056219395"]
)
def test_the_survey_examples_are_v1(text: str) -> None:
    reference = std_uuid.UUID(text)
    assert UUID1.parse(text) == text and reference.version == 1
    assert UUID1.timestamp_ms(text) == (reference.time - GREGORIAN_OFFSET) // 10_000


@given(v1_ints())
def test_conversions_round_trip_and_match_uuid6(value: int) -> None:
    v1 = UUID1.from_int(value)
    v6 = convert_uuid(v1, UUID1, UUID6)
    assert v6 == str(uuid6.uuid1_to_uuid6(std_uuid.UUID(v1)))
    assert convert_uuid(v6, UUID6, UUID1) == v1
    ordered = convert_uuid(v1, UUID1, UUID1_ORDERED)
    assert convert_uuid(ordered, UUID1_ORDERED, UUID1) == v1
    assert convert_uuid(v6, UUID6, UUID1_ORDERED) == ordered
    assert convert_uuid(ordered, UUID1_ORDERED, UUID6) == v6
    assert UUID1.timestamp_ms(v1) == UUID6.timestamp_ms(v6) == UUID1_ORDERED.timestamp_ms(ordered)
    assert UUID1.timestamp_ms(v1) == (std_uuid.UUID(v1).time - GREGORIAN_OFFSET) // 10_000
    assert re.fullmatch(UUID1_ORDERED.pattern, ordered)


@given(st.lists(v1_ints(), min_size=2, max_size=6))
def test_ordered_text_sorts_by_time_and_windows_are_exact(values: list[int]) -> None:
    ordered = sorted(convert_uuid(UUID1.from_int(v), UUID1, UUID1_ORDERED) for v in values)
    times = [UUID1_ORDERED.timestamp_ms(o) for o in ordered]
    assert times == sorted(times)
    start, end = times[0], times[-1] + 1
    lo, hi = id_range(UUID1_ORDERED, start, end)
    assert all(lo <= o < hi for o in ordered)
    assert UUID1_ORDERED.max_for(start - 1) < lo if start > UUID1_ORDERED.min_ms else True


def test_uuid1_generation_uses_a_random_node_never_the_mac() -> None:
    made = [UUID1.new() for _ in range(200)]
    parsed = [std_uuid.UUID(m) for m in made]
    assert all(p.version == 1 and p.variant == std_uuid.RFC_4122 for p in parsed)
    assert all(p.node >> 40 & 1 for p in parsed)  # multicast bit: not a MAC address
    assert len({p.node for p in parsed}) == 200
    assert std_uuid.getnode() not in {p.node for p in parsed}
    ticks = [p.time for p in parsed]
    assert ticks == sorted(ticks) and len(set(ticks)) == 200  # strictly increasing in-process


def test_uuid6_and_objectid_generation_match_the_references() -> None:
    made = [UUID6.new() for _ in range(100)]
    assert all(str(uuid6.UUID(m)) == m and uuid6.UUID(m).version == 6 for m in made)
    assert all(std_uuid.UUID(m).node >> 40 & 1 for m in made)
    assert made == sorted(made)  # the shared tick counter is strictly increasing
    oids = [OBJECT_ID.new() for _ in range(100)]
    assert all(str(bson.ObjectId(o)) == o for o in oids)
    assert len({o[8:18] for o in oids}) == 1  # one process-random value
    counters = [int(o[18:], 16) for o in oids]
    assert all((b - a) % (1 << 24) == 1 for a, b in itertools.pairwise(counters))


@pytest.mark.parametrize(
    ("scheme", "reference"),
    [(UUID3, std_uuid.uuid3), (UUID5, std_uuid.uuid5)],
    ids=["uuid3", "uuid5"],
)
@given(name=st.text(max_size=40))
def test_name_based_ids_match_the_stdlib(scheme: Any, reference: Any, name: str) -> None:
    for namespace, space in (("dns", std_uuid.NAMESPACE_DNS), (std_uuid.NAMESPACE_URL, None)):
        expected = reference(space or namespace, name)
        assert scheme.from_name(namespace, name) == str(expected)
        assert scheme.from_name(namespace, name.encode()) == str(expected)  # same key again
        assert scheme.parse(str(expected)) == str(expected)


def test_name_based_ids_reject_bad_namespaces_and_names() -> None:
    with pytest.raises(errors.InvalidValue, match="namespace='nope'"):
        UUID5.from_name("nope", "x")
    with pytest.raises(errors.InvalidType, match="namespace=42"):
        UUID5.from_name(42, "x")  # type: ignore[arg-type]
    with pytest.raises(errors.InvalidType, match="name=3"):
        UUID3.from_name("url", 3)  # type: ignore[arg-type]


def test_uuid4_matches_the_stdlib_shape() -> None:
    made = UUID4.new()
    assert std_uuid.UUID(made).version == 4 and str(std_uuid.UUID(made)) == made
    assert UUID4.parse(str(std_uuid.uuid4()).upper()) is not None


def test_nil_and_max() -> None:
    assert UUID_NIL.parse(str(std_uuid.UUID(int=0))) == "00000000-0000-0000-0000-000000000000"
    assert UUID_MAX.parse("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF") == "ffffffff-" + "ffff-" * 3 + (
        "f" * 12
    )
    with pytest.raises(errors.InvalidId, match="is not a valid uuid-nil id"):
        UUID_NIL.parse("00000000-0000-0000-0000-000000000001")
    assert UUID_MAX.to_int(UUID_MAX.from_int((1 << 128) - 1)) == (1 << 128) - 1


@pytest.mark.parametrize("scheme", [UUID1, UUID3, UUID4, UUID5, UUID_NIL, UUID_MAX])
def test_schemes_that_do_not_sort_by_time_are_refused_everywhere(scheme: IdScheme) -> None:
    assert scheme.sorts_by_time is False
    with pytest.raises(errors.InvalidValue, match="does not sort by time"):
        require_sortable(scheme)
    with pytest.raises(errors.InvalidValue, match="does not sort by time"):
        id_range(scheme, 0, 1000)
    with pytest.raises(errors.InvalidValue, match="does not sort by time"):
        bounds(scheme, _Window(0, 1000))
    with pytest.raises(errors.InvalidLayout, match="does not sort by time"):
        KeyLayout(prefix="uploads/", scheme=scheme)
    with pytest.raises(errors.InvalidValue, match="does not sort by time"):
        Entity(pk="Org#{org}", sk="Doc#{id}", scheme=scheme)


@pytest.mark.parametrize("scheme", [UUID3, UUID4, UUID5, UUID_NIL])
def test_timeless_ids_say_they_hold_no_time(scheme: IdScheme) -> None:
    text = {UUID3: UUID3.from_name("dns", "a"), UUID5: UUID5.from_name("dns", "a")}.get(
        scheme, UUID4.new() if scheme is UUID4 else "00000000-0000-0000-0000-000000000000"
    )
    with pytest.raises(errors.InvalidValue, match="no time"):
        scheme.timestamp_ms(text)
    with pytest.raises(errors.InvalidValue, match="no time"):
        scheme.min_for(0)


def test_convert_uuid_takes_the_time_uuids_only() -> None:
    with pytest.raises(errors.InvalidValue, match="not uuid4 -> uuid6"):
        convert_uuid(UUID4.new(), UUID4, UUID6)
    with pytest.raises(errors.InvalidId, match="version nibble is 6, not 1"):
        convert_uuid(UUID6.min_for(0), UUID1, UUID6)


def test_every_uuid_scheme_implements_the_protocol() -> None:
    uuids = (UUID1, UUID1_ORDERED, UUID3, UUID4, UUID5, UUID_NIL, UUID_MAX, UUID6, UUID7)
    assert all(isinstance(scheme, IdScheme) for scheme in uuids)
    assert len({scheme.name for scheme in uuids}) == len(uuids)


class _Window:
    def __init__(self, start_ms: int, end_ms: int) -> None:
        self.start_ms, self.end_ms = start_ms, end_ms
