"""Snowflake-style generation: the documents' worked examples (Instagram, the survey's Snowflake),
bit splits, sequence exhaustion, clocks that step back, threads and forked processes."""

from __future__ import annotations

import itertools
import json
import os
import sys
from collections.abc import Callable
from datetime import datetime, timezone

import pytest
import snowflake  # snowflake-id, reference only
from hypothesis import given
from hypothesis import strategies as st
from idsupport import in_threads

from ulidkeys import errors
from ulidkeys.ids import (
    INSTAGRAM_ID,
    INSTAGRAM_SPLIT,
    KSUID,
    OBJECT_ID,
    TWITTER_SPLIT,
    ULID_SCHEME,
    UUID1,
    UUID1_ORDERED,
    UUID6,
    UUID7,
    SnowflakeGenerator,
    SnowflakeScheme,
    SnowflakeSplit,
    TypeIdScheme,
    instagram_shard_of,
)
from ulidkeys.ids.protocol import shard_of
from ulidkeys.ids.typed import ULID_TAG3
from ulidkeys.ids.uuids import UUID4

INSTAGRAM_EPOCH = 1_314_220_021_721  # "our_epoch bigint := 1314220021721" in the document
# The survey's Snowflake: 41 bits of ms since 2015-01-01, 10-bit node, 12-bit sequence.
SURVEY = SnowflakeSplit(SnowflakeScheme("survey-snowflake", epoch_ms=1_420_070_400_000), 12)


class FakeClock:
    """Epoch ms from a script; after the script, the last value plus ``step`` per call."""

    def __init__(self, *script: int, step: int = 0) -> None:
        self.script = list(script)
        self.step = step
        self.calls = 0
        self.last = script[0]

    def __call__(self) -> int:
        self.calls += 1
        if self.script:
            self.last = self.script.pop(0)
        else:
            self.last += self.step
        return self.last


def test_the_instagram_worked_example() -> None:
    # 1387263000 ms after the epoch, user 31341 on 2000 logical shards, the table's 5001st id.
    # (The translated document's code line drops a digit, "138726300"; its prose and the
    # English original say 1387263000.)
    shard = 31341 % 2000
    assert shard == 1341
    value = INSTAGRAM_SPLIT.compose(INSTAGRAM_EPOCH + 1_387_263_000, shard, 5001 % 1024)
    assert value == (1_387_263_000 << (64 - 41)) | (1341 << (64 - 41 - 13)) | 905
    assert value == 11_637_205_501_278_089
    text = INSTAGRAM_ID.from_int(value)
    assert text == "0011637205501278089"
    assert instagram_shard_of(text) == instagram_shard_of(str(value)) == 1341
    assert INSTAGRAM_SPLIT.decompose(value) == (INSTAGRAM_EPOCH + 1_387_263_000, 1341, 905)
    assert INSTAGRAM_ID.timestamp_ms(text) == INSTAGRAM_EPOCH + 1_387_263_000
    # The survey's bigint check: 1992325551::bigint << 23.
    assert 1_992_325_551 << 23 == 16_712_838_055_723_008


def test_the_survey_snowflake_worked_example() -> None:
    ms = 1_528_538_400_000  # June 9, 2018 10:00:00 GMT
    assert ms - SURVEY.scheme.epoch_ms == 108_468_000_000
    # The document prints 454947766275219456 after "id |= sequence": that is time | node only;
    # OR-ing in its sequence 3450 gives 454947766275222906.
    assert SURVEY.compose(ms, 786, 0) == 454_947_766_275_219_456
    assert SURVEY.compose(ms, 786, 3450) == 454_947_766_275_222_906
    assert SURVEY.decompose(454_947_766_275_222_906) == (ms, 786, 3450)
    # 41 bits of ms from the Unix epoch end on Wednesday, September 7, 2039 3:47:35.551 PM.
    unix = SnowflakeScheme("unix-41", epoch_ms=0)
    last = datetime.fromtimestamp(unix.max_ms / 1000, timezone.utc)
    assert unix.max_ms == 2**41 - 1 and last.isoformat() == "2039-09-07T15:47:35.551000+00:00"


@given(st.integers(0, 2**41 - 1), st.integers(0, 1023), st.integers(0, 4095))
def test_cross_check_the_twitter_split_with_snowflake_id(offset: int, node: int, seq: int) -> None:
    epoch = SURVEY.scheme.epoch_ms  # snowflake-id's layout: 41 ms | 10 instance | 12 sequence
    theirs = snowflake.Snowflake(timestamp=offset, instance=node, epoch=epoch, seq=seq)
    ours = SURVEY.compose(epoch + offset, node, seq)
    assert ours == theirs.value
    parsed = snowflake.Snowflake.parse(ours, epoch)
    assert SURVEY.decompose(ours) == (epoch + parsed.timestamp, parsed.instance, parsed.seq)


def test_generated_snowflakes_read_back_in_snowflake_id() -> None:
    made = SnowflakeGenerator(786, TWITTER_SPLIT).batch(50)
    epoch = TWITTER_SPLIT.scheme.epoch_ms
    parsed = [snowflake.Snowflake.parse(int(text), epoch) for text in made]
    assert {p.instance for p in parsed} == {786}
    assert [(p.timestamp, p.seq) for p in parsed] == sorted((p.timestamp, p.seq) for p in parsed)
    theirs = snowflake.SnowflakeGenerator(786, epoch=epoch)
    assert TWITTER_SPLIT.node_of(str(next(theirs))) == 786


def test_splits_check_their_fields() -> None:
    assert (TWITTER_SPLIT.node_bits, TWITTER_SPLIT.sequence_bits) == (10, 12)
    assert (INSTAGRAM_SPLIT.node_bits, INSTAGRAM_SPLIT.max_node) == (13, 8191)
    with pytest.raises(errors.InvalidValue, match="node=1024 is out of range"):
        TWITTER_SPLIT.compose(TWITTER_SPLIT.scheme.min_ms, 1024, 0)
    with pytest.raises(errors.InvalidValue, match="sequence=4096"):
        TWITTER_SPLIT.compose(TWITTER_SPLIT.scheme.min_ms, 0, 4096)
    with pytest.raises(errors.TimeOutOfRange):
        TWITTER_SPLIT.compose(0, 0, 0)  # before Twitter's epoch
    with pytest.raises(errors.InvalidValue, match="sequence_bits=23"):
        SnowflakeSplit(TWITTER_SPLIT.scheme, 23)
    with pytest.raises(errors.InvalidType, match="must be a SnowflakeScheme, not UlidScheme"):
        SnowflakeSplit(ULID_SCHEME, 12)  # type: ignore[arg-type]
    with pytest.raises(errors.InvalidType, match="split=12 must be a SnowflakeSplit"):
        SnowflakeGenerator(1, 12)  # type: ignore[arg-type]


@pytest.mark.parametrize("node", [-1, 1024])
def test_node_ids_are_checked(node: int) -> None:
    with pytest.raises(errors.InvalidValue, match=f"node={node}"):
        SnowflakeGenerator(node)
    with pytest.raises(errors.InvalidType, match="node=True"):
        SnowflakeGenerator(True)  # type: ignore[arg-type]
    with pytest.raises(errors.InvalidValue, match="on_clock_backwards='maybe'"):
        SnowflakeGenerator(1, on_clock_backwards="maybe")  # type: ignore[arg-type]


def test_generated_ids_carry_node_time_and_sequence() -> None:
    t0 = INSTAGRAM_EPOCH + 10_000
    gen = SnowflakeGenerator(1341, INSTAGRAM_SPLIT, clock=FakeClock(t0, t0, t0 + 1))
    made = [gen(), gen(), gen()]
    assert [INSTAGRAM_SPLIT.decompose(INSTAGRAM_ID.to_int(m)) for m in made] == [
        (t0, 1341, 0),
        (t0, 1341, 1),
        (t0 + 1, 1341, 0),
    ]
    assert all(instagram_shard_of(m) == 1341 for m in made)
    assert made == sorted(made) and all(len(m) == 19 for m in made)
    assert shard_of(INSTAGRAM_ID, made[0], 7) == shard_of(INSTAGRAM_ID, made[0].lstrip("0"), 7)


def test_it_waits_for_the_next_millisecond_when_the_sequence_runs_out() -> None:
    t0 = TWITTER_SPLIT.scheme.epoch_ms + 5
    clock = FakeClock(*([t0] * 4200), step=1)  # stuck on t0 for a while, then moving
    gen = SnowflakeGenerator(3, clock=clock)
    made = [gen.next_int() for _ in range(4097)]
    assert len(set(made)) == 4097 and made == sorted(made)
    fields = [TWITTER_SPLIT.decompose(v) for v in made]
    assert fields[4095] == (t0, 3, 4095)
    assert fields[4096][0] > t0 and fields[4096][2] == 0


def test_a_clock_that_goes_back_raises_instead_of_repeating() -> None:
    t0 = TWITTER_SPLIT.scheme.epoch_ms + 100
    gen = SnowflakeGenerator(3, clock=FakeClock(t0, t0 - 1))
    gen()
    with pytest.raises(errors.ClockMovedBackwards, match="went back 1 ms"):
        gen()


def test_a_clock_that_goes_back_can_be_waited_for() -> None:
    t0 = TWITTER_SPLIT.scheme.epoch_ms + 100
    gen = SnowflakeGenerator(
        3, clock=FakeClock(t0, t0 - 2, t0 - 1, t0, t0 + 1), on_clock_backwards="wait"
    )
    first, second = gen.next_int(), gen.next_int()
    assert TWITTER_SPLIT.decompose(first) == (t0, 3, 0)
    assert TWITTER_SPLIT.decompose(second) == (t0, 3, 1)  # waited until t0, next sequence
    far = SnowflakeGenerator(
        3, clock=FakeClock(t0, t0 - 60_000), on_clock_backwards="wait", max_wait_ms=1000
    )
    far()
    with pytest.raises(errors.ClockMovedBackwards, match="waits <= 1000"):
        far()


def test_unique_and_increasing_under_8_threads() -> None:
    results = in_threads(SnowflakeGenerator(7).next_int, each=3000)
    made = [v for out in results for v in out]
    assert len(set(made)) == len(made) == 24_000
    assert all(out == sorted(out) for out in results)


@pytest.mark.parametrize(("sequence_first", "system_clock"), [(False, True), (True, False)])
def test_threads_racing_through_used_up_steps_never_repeat(
    sequence_first: bool, system_clock: bool
) -> None:
    """On the system clock the common path takes no lock (a step's sequences come from an
    atomic counter); a clock of the caller's is read under the lock. With a 4-bit sequence (16
    ids a step) and threads switched every microsecond, most ids start a step, use one up or
    lose a race to start it. Every id is unique, every thread's ids increase, and each
    decomposes into the node and a sequence of its step."""
    split = SnowflakeSplit(TWITTER_SPLIT.scheme, sequence_bits=4, sequence_first=sequence_first)
    readings = itertools.count()
    start = 1_700_000_000_000

    def clock() -> int:  # one step every 10 readings
        return start + next(readings) // 10

    gen = SnowflakeGenerator(5, split, **({} if system_clock else {"clock": clock}))
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        results = in_threads(gen.next_int, threads=6, each=800)
    finally:
        sys.setswitchinterval(switch)
    made = [value for out in results for value in out]
    assert len(set(made)) == len(made) == 4800  # a thread that raised would leave fewer
    assert all(out == sorted(out) for out in results)
    for value in made:
        ms, node, sequence = split.decompose(value)
        assert node == 5 and 0 <= sequence <= 15 and ms >= start


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_forked_children_must_rebind_and_then_stay_disjoint() -> None:
    gen = SnowflakeGenerator(0)
    gen()
    children = []
    for node in range(1, 5):  # 4 processes, each with a node of its own
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            try:
                os.close(read_end)
                try:
                    gen()
                    refused = False
                except errors.ForkedGenerator:
                    refused = True
                gen.rebind(node)
                payload = json.dumps({"refused": refused, "ids": gen.batch(2000)})
                with os.fdopen(write_end, "w") as out:
                    out.write(payload)
            finally:
                os._exit(0)
        os.close(write_end)
        children.append((pid, read_end))
    made = gen.batch(2000)
    for pid, read_end in children:
        with os.fdopen(read_end) as source:
            answer = json.loads(source.read())
        os.waitpid(pid, 0)
        assert answer["refused"] is True
        made += answer["ids"]
    assert len(set(made)) == len(made) == 10_000


#: Every generator of the package, by name: scheme.new, and a Snowflake generator's call.
GENERATORS: dict[str, Callable[[], str]] = {
    scheme.name: scheme.new
    for scheme in (
        ULID_SCHEME,
        UUID7,
        UUID6,
        UUID1,
        UUID1_ORDERED,
        UUID4,
        KSUID,
        OBJECT_ID,
        ULID_TAG3,
        TypeIdScheme("post"),
    )
}
GENERATORS["twitter-snowflake"] = SnowflakeGenerator(9)


@pytest.mark.parametrize("name", GENERATORS)
def test_every_generator_is_unique_under_8_threads(name: str) -> None:
    made = [m for out in in_threads(GENERATORS[name], each=1500) for m in out]
    assert len(set(made)) == len(made) == 12_000


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.parametrize("name", [n for n in GENERATORS if n != "twitter-snowflake"])
def test_every_generator_is_unique_across_4_forked_processes(name: str) -> None:
    make = GENERATORS[name]
    make()  # the parent's state (counters, process-random values) exists before the forks
    children = []
    for _ in range(4):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            try:
                os.close(read_end)
                with os.fdopen(write_end, "w") as out:
                    out.write(json.dumps([make() for _ in range(1000)]))
            finally:
                os._exit(0)
        os.close(write_end)
        children.append((pid, read_end))
    made = [make() for _ in range(1000)]
    for pid, read_end in children:
        with os.fdopen(read_end) as source:
            made += json.loads(source.read())
        os.waitpid(pid, 0)
    assert len(set(made)) == len(made) == 5000
