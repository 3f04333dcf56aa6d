"""python-ulid 4.1's generator API on ulidkeys' monotonic state (issue 34): the policies'
semantics as properties over random clocks and sources, isolation between generators, thread
safety, the swappable default (which the library's own keys never use), and the value gaps
closed (weak references, subclass pickling, times before the epoch)."""

from __future__ import annotations

import pickle
import sys
import threading
import weakref
from collections.abc import Iterator
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ulidkeys
import ulidkeys.ulid as ulid_module
from ulidkeys import (
    ULID,
    LaxMonotonicPolicy,
    Monotonic,
    PureRandomPolicy,
    StrictMonotonicPolicy,
    ULIDGenerator,
    errors,
)
from ulidkeys.planning.layout import KeyLayout

START = 1_700_000_000_000
# clock readings: steps forward, repeats, and steps back
steps = st.lists(st.integers(-50, 50), min_size=1, max_size=300)


def clock_of(deltas: list[int]) -> Iterator[int]:
    now = START
    for delta in deltas:
        now = max(0, now + delta)
        yield now


@given(steps, st.sampled_from([StrictMonotonicPolicy, LaxMonotonicPolicy]))
def test_monotonic_policies_strictly_increase_whatever_the_clock_does(
    deltas: list[int], policy: type[StrictMonotonicPolicy]
) -> None:
    readings = clock_of(deltas)
    generator = ULIDGenerator(clock=lambda: next(readings), policy=policy())
    made = [generator.generate() for _ in deltas]
    assert all(a < b for a, b in pairwise(made)), "strictly increasing, even when time steps back"
    latest = 0
    for value, now in zip(made, clock_of(deltas), strict=True):
        latest = max(latest, now)
        assert value.milliseconds == latest, "the later millisecond is kept"


@given(steps)
def test_strict_is_plus_one_within_a_millisecond(deltas: list[int]) -> None:
    readings = clock_of(deltas)
    generator = ULIDGenerator(clock=lambda: next(readings))
    made = [generator.generate() for _ in deltas]
    for a, b in pairwise(made):
        if a.milliseconds == b.milliseconds:
            assert int(b) == int(a) + 1


@given(st.lists(st.binary(min_size=10, max_size=10), min_size=2, max_size=50))
def test_pure_random_takes_fresh_randomness_every_time(draws: list[bytes]) -> None:
    source = iter(draws)
    generator = ULIDGenerator(
        clock=lambda: START, randomness=lambda _ms: next(source), policy=PureRandomPolicy()
    )
    made = [generator.generate() for _ in draws]
    assert [u.bytes[6:] for u in made] == draws, "each id's random part is the source's draw"


def test_pure_random_with_the_csprng_is_not_enumerable() -> None:
    on_the_system_clock = ULIDGenerator(policy=PureRandomPolicy())
    assert len({on_the_system_clock.generate() for _ in range(100)}) == 100
    generator = ULIDGenerator(clock=lambda: START, policy=PureRandomPolicy())
    randoms = [generator.generate().randomness for _ in range(2000)]
    assert len(set(randoms)) == 2000
    assert not any(b == a + 1 for a, b in pairwise(randoms))


@given(steps, steps)
def test_generators_do_not_share_state(first: list[int], second: list[int]) -> None:
    a_clock, b_clock = clock_of(first), clock_of(second)
    a = ULIDGenerator(clock=lambda: next(a_clock))
    b = ULIDGenerator(clock=lambda: next(b_clock))
    made_a, made_b = [], []
    for i in range(max(len(first), len(second))):  # interleaved
        if i < len(first):
            made_a.append(a.generate())
        if i < len(second):
            made_b.append(b.generate())
    alone_clock = clock_of(first)
    alone = ULIDGenerator(clock=lambda: next(alone_clock))
    a_randoms = [u.randomness for u in made_a]
    alone_made = [alone.generate() for _ in first]
    # the same clock gives the same shape (which ids are +1 of the last) with or without b
    assert [x.milliseconds for x in made_a] == [x.milliseconds for x in alone_made]
    shape = [y - x == 1 for x, y in pairwise(a_randoms)]
    assert shape == [y.randomness - x.randomness == 1 for x, y in pairwise(alone_made)]
    assert b.policy.prev_timestamp == made_b[-1].milliseconds
    assert a.policy.prev_timestamp == made_a[-1].milliseconds


@pytest.mark.parametrize("policy", [StrictMonotonicPolicy, LaxMonotonicPolicy, PureRandomPolicy])
def test_a_generator_is_thread_safe(policy: type[PureRandomPolicy]) -> None:
    generator = ULIDGenerator(clock=lambda: START, policy=policy())
    results: list[list[ULID]] = [[] for _ in range(6)]

    def work(slot: int) -> None:
        out = results[slot]
        for _ in range(5_000):
            out.append(generator.generate())

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    everything = [u for out in results for u in out]
    assert len(set(everything)) == len(everything), "no id issued twice"
    if policy is not PureRandomPolicy:
        for out in results:
            assert all(a < b for a, b in pairwise(out))
        # one frozen millisecond: the ids are exactly one +1 run, split among the threads
        values = sorted(int(u) for u in everything)
        assert values == list(range(values[0], values[0] + len(values)))


@pytest.mark.parametrize("policy", [StrictMonotonicPolicy, LaxMonotonicPolicy])
def test_threads_racing_over_new_milliseconds_and_blocks_keep_every_run_whole(
    policy: type[StrictMonotonicPolicy],
) -> None:
    """The step takes no lock but to start a run: 6 threads on a clock that moves every few
    hundred readings (so they race to start each millisecond) and random parts starting 3
    below a block of 1024 (so they race over the cached block text), the interpreter
    switching threads every microsecond. No id twice, each thread's ids strictly increasing,
    and each millisecond's ids one whole +1 run from its first."""
    readings = iter(range(10**9))
    below_block = ((1 << 79) - 3).to_bytes(10, "big")
    generator = ULIDGenerator(
        clock=lambda: START + next(readings) // 300,
        randomness=lambda _ms: below_block,
        policy=policy(),
    )
    results: list[list[ULID]] = [[] for _ in range(6)]

    def work(slot: int) -> None:
        out = results[slot]
        for _ in range(3_000):
            out.append(generator.generate())

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(switch)
    everything = [u for out in results for u in out]
    assert len(set(everything)) == len(everything), "no id issued twice"
    for out in results:
        assert all(a < b for a, b in pairwise(out))
    by_ms: dict[int, list[int]] = {}
    for u in everything:
        by_ms.setdefault(u.milliseconds, []).append(u.randomness)
    assert len(by_ms) > 10, "the clock moved: many runs were started"
    for randoms in by_ms.values():
        randoms.sort()
        assert randoms == list(range((1 << 79) - 3, (1 << 79) - 3 + len(randoms)))


def test_strict_overflow_raises_python_ulids_error_and_lax_draws_fresh() -> None:
    strict = ULIDGenerator(clock=lambda: START, randomness=lambda _ms: b"\xff" * 10)
    strict.generate()
    with pytest.raises(errors.MonotonicOverflow, match="Randomness within same millisecond"):
        strict.generate()
    with pytest.raises(ValueError):  # python-ulid's users catch ValueError
        strict.generate()
    fresh = iter([b"\xff" * 10, b"\x00" * 9 + b"\x07"])
    lax = ULIDGenerator(
        clock=lambda: START, randomness=lambda _ms: next(fresh), policy=LaxMonotonicPolicy()
    )
    lax.generate()
    assert lax.generate().randomness == 7


def test_a_bad_randomness_source_or_clock_is_named() -> None:
    with pytest.raises(errors.InvalidULID, match="9 bytes"):
        ULIDGenerator(randomness=lambda _ms: b"x" * 9).generate()
    with pytest.raises(errors.InvalidType, match="randomness source"):
        ULIDGenerator(randomness=lambda _ms: "x" * 10).generate()  # type: ignore[arg-type,return-value]
    with pytest.raises(errors.InvalidType, match="clock"):
        ULIDGenerator(clock=lambda: 1.5).generate()  # type: ignore[arg-type,return-value]
    with pytest.raises(errors.TimeOutOfRange, match="clock"):
        ULIDGenerator(clock=lambda: -1).generate()


def test_explicit_times_increment_only_in_the_states_millisecond() -> None:
    generator = ULIDGenerator(clock=lambda: START)
    now = generator.generate()
    same = generator.generate(START)
    assert int(same) == int(now) + 1, "python-ulid's rule: one millisecond, +1"
    past = generator.generate(1_000)
    assert past.milliseconds == 1_000
    assert generator.generate().milliseconds == START, "a past time does not move the state"
    future = generator.generate(START + 10**9)
    assert future.milliseconds == START + 10**9
    assert generator.generate().milliseconds == START, "nor does a future one"


def test_the_default_is_strict_swappable_and_shared_with_monotonic(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    default = ulid_module.default_generator
    assert isinstance(default.policy, StrictMonotonicPolicy)
    a, b, c = ULID(), ulidkeys.monotonic(), ULID()
    assert str(a) < b < str(c), "ULID() and monotonic() step one process-wide sequence"
    custom = ULIDGenerator(clock=lambda: 123456789, randomness=lambda _ms: b"1234567890")
    monkeypatch.setattr(ulid_module, "default_generator", custom)
    assert ULID().bytes[6:] == b"1234567890" and ULID().milliseconds == 123456789
    assert ULID.from_timestamp(1000.0).bytes[6:] == b"1234567890"


def test_the_librarys_own_keys_ignore_a_swapped_default(monkeypatch: pytest.MonkeyPatch) -> None:
    constant = ULIDGenerator(randomness=lambda _ms: b"\x00" * 10, policy=PureRandomPolicy())
    monkeypatch.setattr(ulid_module, "default_generator", constant)
    assert ULID().randomness == 0, "the swap took effect"
    layout = KeyLayout(prefix="uploads/")
    made = [ulidkeys.new(), str(ULID.new()), *ulidkeys.batch(3), layout.new_key()]
    randoms = {ULID.parse(text[-26:]).randomness for text in made}
    assert len(randoms) == len(made) and 0 not in randoms, "80 fresh random bits each"


def test_a_generator_subclass_or_foreign_default_is_honoured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Fixed:
        def generate(self, timestamp: object = None) -> str:
            return "01ARZ3NDEKTSV4RRFFQ69G5FAV"

    monkeypatch.setattr(ulid_module, "default_generator", Fixed())
    assert str(ULID()) == "01ARZ3NDEKTSV4RRFFQ69G5FAV"
    assert str(ULID.from_timestamp(5)) == "01ARZ3NDEKTSV4RRFFQ69G5FAV"

    class Counting(ULIDGenerator):
        calls = 0

        def generate(self, timestamp: object = None) -> ULID:
            Counting.calls += 1
            return super().generate(timestamp)  # type: ignore[arg-type]

    counting = Counting(clock=lambda: START)
    monkeypatch.setattr(ulid_module, "default_generator", counting)
    first, second = ULID(), ULID()  # through the subclass's generate, which calls the base's
    assert Counting.calls == 2 and first.milliseconds == START and int(second) == int(first) + 1
    counting.randomness_source = lambda _ms: b"\x00" * 9 + b"\x07"
    counting.policy = PureRandomPolicy()  # a change after the swap is what ULID() uses next
    assert ULID().randomness == 7 and Counting.calls == 3
    plain = ULIDGenerator(clock=lambda: START + 1, policy=PureRandomPolicy())
    monkeypatch.setattr(ulid_module, "default_generator", plain)
    plain.randomness_source = lambda _ms: b"\x00" * 9 + b"\x09"
    assert ULID().randomness == 9 and ULID().milliseconds == START + 1


def test_policy_changes_after_construction_take_effect() -> None:
    generator = ULIDGenerator(clock=lambda: START)
    generator.generate()
    generator.policy = PureRandomPolicy()
    randoms = [generator.generate().randomness for _ in range(100)]
    assert not any(b == a + 1 for a, b in pairwise(randoms))
    generator.randomness_source = lambda _ms: b"\x00" * 9 + b"\x05"
    assert generator.generate().randomness == 5


class Tagged(ULID):
    __slots__ = ()


class WithState(ULID):
    pass


def test_weak_references_and_subclass_pickling() -> None:
    u = ULID()
    assert weakref.ref(u)() is u
    tagged = Tagged()
    back = pickle.loads(pickle.dumps(tagged))
    assert type(back) is Tagged and back == tagged
    stateful = WithState()
    stateful.__dict__["note"] = "kept"
    back2 = pickle.loads(pickle.dumps(stateful))
    assert type(back2) is WithState and back2 == stateful and back2.__dict__ == {"note": "kept"}
    assert type(pickle.loads(pickle.dumps(u))) is ULID
    assert repr(u) == f"ULID({u})"


@pytest.mark.parametrize("seconds", [-0.0005, -0.5, -1.0])
def test_a_time_before_the_epoch_is_refused(seconds: float) -> None:
    with pytest.raises(errors.TimeOutOfRange, match=repr(seconds)):
        ULID.from_timestamp(seconds)
    assert ULID.from_timestamp(-0.0).milliseconds == 0
    with pytest.raises(ValueError, match="Value exceeds maximum possible timestamp"):
        ULID.from_timestamp(2**48)


def test_monotonic_and_a_generator_share_one_implementation() -> None:
    gen = Monotonic(clock=lambda: START)
    assert isinstance(gen._state, StrictMonotonicPolicy)
    first = gen()
    assert gen._state.prev_timestamp == START
    assert gen._state.prev_randomness == ULID.parse(first).bytes[6:]
