"""One generator protocol for every registered scheme (``registry.generator_for``): an injected
clock and source of random bits give reproducible, valid ids of the clock's time, in time order;
the schemes that are not generated say so. Derived from the registry: a new scheme module is
covered without an edit here."""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples

from ulidkeys.errors import InvalidValue, TimeOutOfRange
from ulidkeys.ids.protocol import has_no_time
from ulidkeys.ids.registration import Registration
from ulidkeys.ids.registry import REGISTRATIONS, generator_for, scheme_named

T0 = 1_715_936_400_123  # 2024-05-17T09:00:00.123Z
NODE = 5
GENERATED = [r for r in REGISTRATIONS if r.generated]
NOT_GENERATED = [r for r in REGISTRATIONS if not r.generated]


def name_of(registration: Registration) -> str:
    return registration.name


def node_based(registration: Registration) -> bool:
    """Whether the scheme's generator asks for ``node=`` (its ids hold a node, not random bits)."""
    try:
        generator_for(registration.name)
    except InvalidValue as error:
        assert "node=" in str(error)
        return True
    return False


def make(registration: Registration, clock: Callable[[], int], seed: int) -> Callable[[], str]:
    """The registration's generator; node-based schemes get a node."""
    node = NODE if node_based(registration) else None
    randbits = random.Random(seed).getrandbits
    return generator_for(registration.name, clock=clock, randbits=randbits, node=node)


def test_the_protocol_covers_the_registry() -> None:
    assert len(GENERATED) >= 14 and {r.name for r in NOT_GENERATED} >= {"ticket", "uuid3"}


@pytest.mark.parametrize("registration", GENERATED, ids=name_of)
@settings(max_examples=examples(25))
@given(ms=st.integers(1_420_070_400_000, 2_000_000_000_000), seed=st.integers(0, 2**32))
def test_ids_are_valid_and_hold_the_clocks_time(
    registration: Registration, ms: int, seed: int
) -> None:
    new = make(registration, lambda: ms, seed)
    ids = [new() for _ in range(5)]
    scheme = scheme_named(registration.name, ids[0])
    for text in ids:
        assert re.fullmatch(scheme.pattern, text), text
        assert scheme.parse(text) == text
        if not has_no_time(scheme) and scheme.max_ms > 0:  # UUIDv4 holds no time
            assert scheme.timestamp_ms(text) == ms - ms % scheme.resolution_ms
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("registration", GENERATED, ids=name_of)
def test_an_injected_clock_and_seed_reproduce_the_ids(registration: Registration) -> None:
    first, second = make(registration, lambda: T0, 7), make(registration, lambda: T0, 7)
    assert [first() for _ in range(20)] == [second() for _ in range(20)]
    if not node_based(registration):  # the random bits come from the seed
        assert make(registration, lambda: T0, 8)() != make(registration, lambda: T0, 7)()


@pytest.mark.parametrize(
    "registration", [r for r in GENERATED if r.sample and r.sample.sorts_by_time], ids=name_of
)
def test_ids_of_later_steps_sort_later(registration: Registration) -> None:
    times = iter(range(T0, T0 + 200 * 1000, 1000))
    new = make(registration, lambda: next(times), 3)
    ids = [new() for _ in range(200)]
    assert ids == sorted(ids)


@pytest.mark.parametrize("registration", NOT_GENERATED, ids=name_of)
def test_schemes_that_are_not_generated_say_why(registration: Registration) -> None:
    with pytest.raises(InvalidValue, match="not made from a clock"):
        generator_for(registration.name)


def test_python_reads_the_v1_family_and_v7_as_made() -> None:
    ticks_of_t0 = T0 * 10_000 + 0x01B21DD213814000
    for name, version in (("uuid1", 1), ("uuid6", 6), ("uuid7", 7), ("uuid4", 4)):
        text = generator_for(name, clock=lambda: T0, randbits=random.Random(1).getrandbits)()
        read = uuid.UUID(text)
        assert read.version == version and read.variant == uuid.RFC_4122
        if version == 1:
            assert ticks_of_t0 <= read.time < ticks_of_t0 + 10_000
            assert read.node & (1 << 40)  # the multicast bit: never a MAC address


def test_objectids_count_up_from_one_random_start() -> None:
    new = generator_for("objectid", clock=lambda: T0, randbits=random.Random(2).getrandbits)
    a, b = new(), new()
    assert a[:18] == b[:18] and int(b[18:], 16) == (int(a[18:], 16) + 1) % (1 << 24)
    assert int(a[:8], 16) == T0 // 1000


@pytest.mark.parametrize("registration", GENERATED, ids=name_of)
def test_what_a_registration_says_its_generator_reads_is_what_it_reads(
    registration: Registration,
) -> None:
    """``clock`` and ``node`` (what ``ulidkeys new`` derives its --at / --node checks from)
    against the generator itself: the clock is called iff declared, a node is required iff
    declared, and refused (not ignored) otherwise."""
    calls: list[int] = []

    def clock() -> int:
        calls.append(T0)
        return T0

    assert node_based(registration) is registration.takes_node
    node = NODE if registration.takes_node else None
    generator_for(registration.name, clock=clock, node=node)()
    assert bool(calls) is registration.clock
    if not registration.takes_node:
        with pytest.raises(InvalidValue, match="no node"):
            generator_for(registration.name, node=NODE)


def test_node_based_schemes_need_a_node_and_others_refuse_one() -> None:
    with pytest.raises(InvalidValue, match="node="):
        generator_for("twitter-snowflake")
    with pytest.raises(InvalidValue, match="no node"):
        generator_for("ulid", node=1)
    for name in ("objectid", "uuid1", "uuid4"):  # own generators that used to ignore it
        with pytest.raises(InvalidValue, match="no node"):
            generator_for(name, node=1)
    new = generator_for("twitter-snowflake", clock=lambda: T0, node=NODE)
    assert (int(new()) >> 12) & 0x3FF == NODE


def test_a_clock_outside_the_schemes_times_is_refused() -> None:
    with pytest.raises(TimeOutOfRange):
        generator_for("ksuid", clock=lambda: 0)()
    with pytest.raises(TimeOutOfRange):
        generator_for("ulid", clock=lambda: 1 << 48)()


@pytest.mark.parametrize("registration", GENERATED, ids=name_of)
def test_the_first_and_last_milliseconds_of_a_scheme_are_generated(
    registration: Registration,
) -> None:
    # the v1 family's last millisecond holds fewer than its 10,000 ticks: a tick past 60 bits
    # was drawn (and refused) about two times in three there
    probe = make(registration, lambda: T0, 0)
    scheme = scheme_named(registration.name, probe())
    if has_no_time(scheme) or scheme.max_ms <= 0:
        return  # UUIDv4 holds no time
    for ms in (scheme.min_ms, scheme.max_ms):
        new = make(registration, lambda ms=ms: ms, ms & 0xFFFF)
        for _ in range(40):
            text = new()
            assert scheme.timestamp_ms(text) == ms - ms % scheme.resolution_ms, (ms, text)
