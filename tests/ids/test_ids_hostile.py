"""Hostile data against the id generators: clock readings that are refused, stand still or
leave a scheme's range, sources of random bits that break their contract, forked children and
flags given as text. Each test pins a defect the sweep found (the ids repeated, spun forever,
came out as text that is no id, or failed with a bare TypeError)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ulidkeys import errors
from ulidkeys.ids import (
    KSUID,
    OBJECT_ID,
    TWITTER_SNOWFLAKE,
    TWITTER_SPLIT,
    ULID_SCHEME,
    UUID7,
    SnowflakeGenerator,
    SnowflakeSplit,
    TypeIdScheme,
    generator_for,
    scheme_named,
)
from ulidkeys.ids.generators import IdGenerator
from ulidkeys.ulid import ULID, Monotonic, ULIDGenerator

T = 1_700_000_000_000  # a millisecond every generated scheme can hold


def readings(*values: object, then: object = None) -> Callable[[], Any]:
    """A clock giving ``values`` in turn, then ``then`` forever (or raising, if it is an
    exception: so that a generator that would spin forever fails the test instead)."""
    it: Iterator[object] = iter(values)

    def clock() -> Any:
        value = next(it, then)
        if isinstance(value, BaseException):
            raise value
        if isinstance(value, type) and issubclass(value, BaseException):
            raise value()
        return value

    return clock


class ReadForever(Exception):
    """Raised by a test's clock or source read far more often than a correct generator reads it."""


def limited(source: Callable[..., Any], calls: int = 10_000) -> Callable[..., Any]:
    """``source``, raising ReadForever after ``calls`` calls (a generator in a loop)."""
    count = 0

    def wrapped(*args: Any) -> Any:
        nonlocal count
        count += 1
        if count > calls:
            raise ReadForever(f"read {calls} times")
        return source(*args)

    return wrapped


# --- Snowflake generators: the sequence never restarts within a step ---------------------


@pytest.mark.parametrize(
    ("bad", "error"),
    [
        (10**16, errors.TimeOutOfRange),  # past the scheme's last millisecond
        (TWITTER_SNOWFLAKE.max_ms + 1, errors.TimeOutOfRange),  # one past it
    ],
)
def test_a_refused_clock_reading_never_restarts_the_sequence(bad: object, error: type) -> None:
    # before: the sequence was reset before the reading was refused, so the next id of the
    # step repeated the second id already issued
    clock = readings(T, T, bad, T, T)
    make = SnowflakeGenerator(1, clock=clock)
    made = [make.next_int(), make.next_int()]
    with pytest.raises(error):
        make.next_int()
    made += [make.next_int(), make.next_int()]
    assert len(set(made)) == len(made)
    assert [TWITTER_SPLIT.decompose(v)[2] for v in made] == [0, 1, 2, 3]


def test_a_clock_refused_while_waiting_for_the_next_step_never_repeats_an_id() -> None:
    # one sequence bit: two ids a step. The third id waits for the next step; the clock read
    # during that wait is refused. Before: the used-up sequence was left at 0, so the next id
    # of the step was (T, 1) again.
    split = SnowflakeSplit(TWITTER_SNOWFLAKE, sequence_bits=1)
    make = SnowflakeGenerator(1, split, clock=readings(T, T, T, "refused", T, T + 1))
    made = [make.next_int(), make.next_int()]
    with pytest.raises(errors.InvalidType):
        make.next_int()
    made.append(make.next_int())
    assert len(set(made)) == 3
    assert split.decompose(made[-1])[::2] == (T + 1, 0)


def test_rebinding_to_a_node_it_had_keeps_the_sequence() -> None:
    # before: rebind started afresh, so the same node in the same millisecond repeated its ids
    make = SnowflakeGenerator(1, clock=lambda: T)
    first = make()
    make.rebind(1)
    second = make()
    make.rebind(2)
    make()
    make.rebind(1)
    third = make()
    assert len({first, second, third}) == 3
    assert TWITTER_SPLIT.node_of(third) == 1


def test_a_clock_that_stands_still_when_the_sequence_runs_out_raises_within_the_wait() -> None:
    # before: it read the clock forever (here: until the clock gave up with ReadForever)
    split = SnowflakeSplit(TWITTER_SNOWFLAKE, sequence_bits=1)
    clock = limited(lambda: T, calls=100_000)
    make = SnowflakeGenerator(1, split, max_wait_ms=20, clock=clock)
    make(), make()
    started = time.monotonic()
    with pytest.raises(errors.ClockMovedBackwards, match=r"sequence of step .* is used up"):
        make()
    assert time.monotonic() - started < 2


def test_a_flag_given_as_text_is_refused() -> None:
    # before: sequence_first="false" put the sequence below the node, as True does
    with pytest.raises(errors.InvalidType, match="sequence_first='false' must be a bool"):
        SnowflakeSplit(TWITTER_SNOWFLAKE, sequence_bits=12, sequence_first="false")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "make",
    [
        lambda: SnowflakeGenerator(1, clock=None),  # type: ignore[arg-type]
        lambda: IdGenerator(ULID_SCHEME, clock=1_700_000_000_000),  # type: ignore[arg-type]
        lambda: IdGenerator(KSUID, randbits=b"seed"),  # type: ignore[arg-type]
        lambda: generator_for("objectid", clock="now"),  # type: ignore[arg-type]
        lambda: generator_for("uuid6", randbits=42),  # type: ignore[arg-type]
        lambda: generator_for("uuid4", randbits=42),  # type: ignore[arg-type]
    ],
)
def test_a_clock_or_source_that_cannot_be_called_is_refused_when_given(
    make: Callable[[], object],
) -> None:
    # before: accepted, and the first id failed with a bare TypeError
    with pytest.raises(errors.InvalidType, match="must be a callable"):
        make()


# --- ULID generators: a clock past 48 bits ------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda clock: Monotonic(clock=clock)(),
        lambda clock: str(ULIDGenerator(clock=clock).generate()),
        lambda clock: str(ULIDGenerator(clock=clock, randomness=lambda _: bytes(10)).generate()),
    ],
)
def test_a_ulid_clock_past_48_bits_is_refused_and_the_last_millisecond_is_made(
    make: Callable[[Callable[[], int]], str],
) -> None:
    # before: clock() = 2**48 gave '80000000...', text that is no ULID
    with pytest.raises(errors.TimeOutOfRange, match="48-bit"):
        make(lambda: 1 << 48)
    last = make(lambda: (1 << 48) - 1)
    assert ULID.parse(last).timestamp_ms == (1 << 48) - 1


# --- sources of random bits that break their contract -------------------------------------

GENERATED = ["ulid", "uuid7", "ksuid", "uuid6", "uuid1", "uuid1-ordered", "uuid4", "objectid"]
GENERATED += ["typeid:post", "ulid-tag2"]


@pytest.mark.parametrize("name", GENERATED)
@pytest.mark.parametrize(
    "returns",
    [lambda k: -1, lambda k: 1 << (k + 8), lambda k: 2**200],  # not k bits
)
def test_a_source_returning_a_number_of_other_than_k_bits_is_refused(
    name: str, returns: Callable[[int], int]
) -> None:
    # before: masked into a plausible id (ulid, ksuid, objectid, ...: an all-ones random part
    # from -1), a bare ValueError (uuid4), or a loop forever (the v1 family redrew values
    # >= 10,000 sub-millisecond ticks: here until ReadForever)
    source = limited(returns, calls=1000)
    with pytest.raises(errors.InvalidValue, match=r"randbits\(\d+\) returned"):
        generator_for(name, clock=lambda: T, randbits=source)()


@pytest.mark.parametrize("name", ["uuid6", "uuid1", "uuid1-ordered", "uuid4", "objectid"])
@pytest.mark.parametrize("returns", [lambda k: True, lambda k: 1.0])
def test_a_source_returning_no_int_is_refused(name: str, returns: Callable[[int], object]) -> None:
    # before: True was taken as the number 1; 1.0 failed with a bare TypeError
    with pytest.raises(errors.InvalidType, match=r"randbits\(\d+\)="):
        generator_for(name, clock=lambda: T, randbits=returns)()


@pytest.mark.parametrize("name", ["uuid6", "uuid1", "uuid1-ordered"])
def test_a_source_of_all_ones_gives_a_v1_family_id_of_the_clocks_millisecond(name: str) -> None:
    # before: 14 one bits (16,383) are not one of a millisecond's 10,000 ticks, and were
    # drawn again forever
    source = limited(lambda k: (1 << k) - 1, calls=1000)
    made = generator_for(name, clock=lambda: T, randbits=source)()
    assert scheme_named(name).timestamp_ms(made) == T


# --- ObjectIds in a forked child ----------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_an_objectid_generator_draws_afresh_in_a_forked_child() -> None:
    # before: parent and child shared the process value and the counter, so every id the
    # child made in a second the parent also made ids in was one of the parent's
    make = generator_for("objectid")
    make()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        try:
            os.close(read_end)
            with os.fdopen(write_end, "w") as out:
                out.write(json.dumps([make() for _ in range(200)]))
        finally:
            os._exit(0)
    os.close(write_end)
    mine = [make() for _ in range(200)]
    with os.fdopen(read_end) as source:
        theirs = json.loads(source.read())
    os.waitpid(pid, 0)
    assert len(set(mine) | set(theirs)) == 400
    assert {m[8:18] for m in mine} != {t[8:18] for t in theirs}  # the 5-byte process value


# --- scheme.new() by a wall clock outside the scheme --------------------------------------

NEW = {
    "ksuid": KSUID.new,
    "objectid": OBJECT_ID.new,
    "uuid7": UUID7.new,
    "typeid:post": TypeIdScheme("post").new,
}


@pytest.mark.parametrize(
    ("name", "ms", "edge"),
    [
        ("ksuid", 0, KSUID.min_ms),  # a clock left at 1970: before KSUID's 2014-05-13 epoch
        ("ksuid", KSUID.min_ms - 1, KSUID.min_ms),
        ("ksuid", KSUID.max_ms + 1000, KSUID.max_ms),
        ("objectid", OBJECT_ID.max_ms + 1000, OBJECT_ID.max_ms),  # 2106-02-07
        ("objectid", -1, 0),
        ("uuid7", -1, 0),
        ("typeid:post", 1 << 48, (1 << 48) - 1),
    ],
)
def test_new_refuses_a_wall_clock_its_scheme_cannot_hold_and_makes_the_edge(
    name: str, ms: int, edge: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # before: text that is no id of the scheme ('o5nT...' for a KSUID of 1970, 25 hex digits
    # for an ObjectId of 2106, '-0000000-...' for a UUIDv7 of 1969)
    monkeypatch.setattr(time, "time_ns", lambda: ms * 1_000_000)
    with pytest.raises(errors.TimeOutOfRange, match=f"the clock reads {ms} ms"):
        NEW[name]()
    # the nearest time the scheme holds (its last ms of a second, for the second schemes)
    scheme = scheme_named(name)
    inside = edge + (scheme.resolution_ms - 1 if edge == scheme.max_ms else 0)
    monkeypatch.setattr(time, "time_ns", lambda: inside * 1_000_000)
    made = NEW[name]()
    assert scheme.parse(made) == made
    assert scheme.timestamp_ms(made) == edge
