"""Sonyflake, a scheme declared in its own file: its numbers read back with sony's layout as
sonyflake-py (a reference implementation) decomposes them; its 10 ms steps in windows and
errors; the Snowflake generator with its sequence-above-machine split."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sonyflake import SonyFlake

from ulidkeys.errors import InvalidValue, TimeOutOfRange
from ulidkeys.ids import SnowflakeGenerator, SnowflakeScheme
from ulidkeys.ids.inspection import inspect
from ulidkeys.ids.protocol import shard_of
from ulidkeys.ids.sonyflake import SONYFLAKE, SONYFLAKE_EPOCH_MS, SONYFLAKE_SPLIT

REFERENCE = SonyFlake(machine_id=lambda: 1)


@given(
    units=st.integers(0, (1 << 39) - 1),
    sequence=st.integers(0, 255),
    machine=st.integers(0, 0xFFFF),
)
def test_fields_and_time_as_sonyflake_py_reads_them(
    units: int, sequence: int, machine: int
) -> None:
    ms = SONYFLAKE_EPOCH_MS + units * 10
    value = SONYFLAKE_SPLIT.compose(ms, machine, sequence)
    reference = REFERENCE.decompose(value)
    assert (reference["time"], reference["sequence"], reference["machine_id"]) == (
        units,
        sequence,
        machine,
    )
    text = SONYFLAKE.from_int(value)
    found = inspect(text, scheme="sonyflake")
    assert found.timestamp_ms == ms and SONYFLAKE.timestamp_ms(str(value)) == ms
    assert found.fields == {"machine_id": machine, "sequence": sequence}
    assert SONYFLAKE_SPLIT.decompose(value) == (ms, machine, sequence)
    assert len(text) == 19 and int(text) == value


def test_generated_ids_increase_and_decompose_in_the_reference() -> None:
    clock = iter([SONYFLAKE_EPOCH_MS + 1234567891] * 3 + [SONYFLAKE_EPOCH_MS + 1234567901] * 2)
    generator = SnowflakeGenerator(0xBEEF, SONYFLAKE_SPLIT, clock=lambda: next(clock))
    made = generator.batch(5)
    assert made == sorted(made) and len(set(made)) == 5
    parts = [REFERENCE.decompose(int(text)) for text in made]
    assert [p["sequence"] for p in parts] == [0, 1, 2, 0, 1]  # one sequence per 10 ms step
    assert {p["machine_id"] for p in parts} == {0xBEEF}
    assert [p["time"] for p in parts] == [123456789] * 3 + [123456790] * 2


def test_steps_of_10_ms_in_windows_and_errors() -> None:
    ms = SONYFLAKE_EPOCH_MS + 10_000
    assert SONYFLAKE.timestamp_ms(SONYFLAKE.max_for(ms)) == ms
    assert SONYFLAKE.to_int(SONYFLAKE.max_for(ms)) + 1 == SONYFLAKE.to_int(
        SONYFLAKE.min_for(ms + 10)
    )
    with pytest.raises(TimeOutOfRange, match="whole steps of 10 ms"):
        SONYFLAKE.min_for(ms + 3)
    with pytest.raises(InvalidValue, match="resolution_ms=7 must be >= 1 and divide epoch_ms=10"):
        SnowflakeScheme("odd", epoch_ms=10, resolution_ms=7)
    assert 0 <= shard_of(SONYFLAKE, SONYFLAKE.max_for(ms), 4) < 4
