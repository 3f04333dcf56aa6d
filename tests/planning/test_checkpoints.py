"""Consumer checkpoints without AWS: the JSON round trip and its refusals, the run window and
the advance (ulidkeys.planning.checkpoints)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ulidkeys.errors import InvalidCheckpoint, InvalidValue
from ulidkeys.planning.checkpoints import (
    FORMAT,
    Checkpoint,
    RunWindow,
    advance,
    delivery_key,
    expected_items,
    run_window,
)

ids = st.text("0123456789ABCDEFGHJKMNPQRSTVWXYZ", min_size=26, max_size=26).map(
    lambda t: "0" + t[1:]
)
checkpoints = st.builds(
    lambda scope, w, back, keys, seq: Checkpoint(scope, w, w - back, frozenset(keys), seq),
    st.text(max_size=20),
    st.integers(0, 2**48),
    st.integers(0, 10**6),
    st.lists(st.one_of(ids, ids.map(lambda i: i + ".jpg")), max_size=20),
    st.integers(0, 10**9),
)


@given(checkpoints)
def test_json_round_trip(checkpoint: Checkpoint) -> None:
    assert Checkpoint.from_json(checkpoint.to_json()) == checkpoint
    assert Checkpoint.from_json(checkpoint.to_json().encode()) == checkpoint


@given(checkpoints, st.data())
def test_any_changed_character_is_refused(checkpoint: Checkpoint, data: st.DataObject) -> None:
    text = checkpoint.to_json()
    at = data.draw(st.integers(0, len(text) - 1))
    new = data.draw(st.sampled_from('0159aAzZ"{}[],: '))
    changed = text[:at] + new + text[at + 1 :]
    if changed != text:
        with pytest.raises(InvalidCheckpoint):
            Checkpoint.from_json(changed)


def test_refusals_say_what_is_wrong() -> None:
    good = json.loads(Checkpoint("s", 10, 5, frozenset({"A"}), 3).to_json())
    with pytest.raises(InvalidCheckpoint, match="not JSON"):
        Checkpoint.from_json("{")
    with pytest.raises(InvalidCheckpoint, match="not a ulidkeys checkpoint"):
        Checkpoint.from_json("[1]")
    with pytest.raises(InvalidCheckpoint, match=f"format 2, newer than the {FORMAT}"):
        Checkpoint.from_json(json.dumps({**good, "ulidkeys_checkpoint": 2}))
    with pytest.raises(InvalidCheckpoint, match="checksum"):
        Checkpoint.from_json(json.dumps({**good, "watermark_ms": 11}))
    with pytest.raises(InvalidCheckpoint, match="exactly the fields"):
        Checkpoint.from_json(json.dumps({**good, "extra": 1}))
    with pytest.raises(InvalidCheckpoint, match="another listing than here"):
        Checkpoint("s", 10, 5).check_scope("t", "here")


def test_delivery_keys_start_at_the_id() -> None:
    assert delivery_key(("01ID", "uploads/07/dt=2024-05-17/01ID.jpg")) == "01ID.jpg"
    assert delivery_key(("01ID", "Doc#01ID#en")) == "01ID#en"


def test_the_window_and_its_advance() -> None:
    with pytest.raises(InvalidValue, match="since="):
        run_window(None, 1_000_000, 30_000, 60_000, None)
    first = run_window(None, 1_000_000, 30_000, 60_000, 500_000)
    assert first == RunWindow(500_000, 970_000, 500_000, 60_000)  # never below since

    def ms_of(key: str) -> int:
        return int(key)

    done = advance(None, "s", first, ["600000", "950000"], first.end_ms, ms_of)
    assert (done.watermark_ms, done.floor_ms, done.delivered) == (970_000, 910_000, {"950000"})
    # the next run re-lists the overlap; a clock that went back never moves the watermark back
    assert run_window(done, 1_060_000, 30_000, 60_000, None).start_ms == 910_000
    assert run_window(done, 900_000, 30_000, 60_000, None).end_ms == 970_000
    # a larger overlap than the checkpoint remembers ids for: only from what it covers
    assert run_window(done, 1_060_000, 30_000, 120_000, None).start_ms == 910_000
    # a run stopped part-way: the watermark moves to the last id time yielded
    nxt = run_window(done, 1_060_000, 30_000, 60_000, None)
    part = advance(done, "s", nxt, ["990000"], 990_000, ms_of)
    assert (part.watermark_ms, part.floor_ms) == (990_000, 930_000)
    assert part.delivered == {"950000", "990000"}
    assert advance(done, "s", nxt, [], None, ms_of).watermark_ms == 970_000
    # page sizes: the overlap's ids are known, the rest at their rate
    assert expected_items(done, nxt, ms_of) == (1, 1 / 60_000 * 60_000)
    assert expected_items(None, nxt, ms_of) is None
