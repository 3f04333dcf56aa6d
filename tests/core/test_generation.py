"""Generation: new(), batch(), and the monotonic generator (threads, fork, overflow, clock)."""

from __future__ import annotations

import os
import threading
from collections import Counter
from itertools import pairwise
from typing import Any

import pytest

import ulidkeys
from ulidkeys import ULID, Monotonic, errors
from ulidkeys.base32 import ALPHABET
from ulidkeys.timeinput import now_ms
from ulidkeys.ulid.generation import MAX_BATCH

MAX_RANDOM = (1 << 80) - 1


def test_new_is_current_and_valid() -> None:
    before = now_ms()
    text = ulidkeys.new()
    after = now_ms()
    assert before <= ULID.parse(text).timestamp_ms <= after
    assert str(ULID.parse(text)) == text, "always canonical uppercase"


def test_batch_ids_are_distinct_and_independent() -> None:
    ids = ulidkeys.batch(20_000)
    assert len(ids) == 20_000 and len(set(ids)) == 20_000
    assert all(len(i) == 26 and str(ULID.parse(i)) == i for i in ids)
    # Independent random parts: consecutive ids are not +1 of each other (not enumerable).
    randoms = [ULID.parse(i).randomness for i in ids[:1000]]
    assert sum(1 for a, b in pairwise(randoms) if b == a + 1) == 0


def test_random_characters_are_uniform() -> None:
    # 16 random characters x 20,000 ids = 320,000 draws over 32 symbols (10,000 expected each).
    counts = Counter("".join(i[10:] for i in ulidkeys.batch(20_000)))
    assert set(counts) == set(ALPHABET)
    chi_square = sum((c - 10_000) ** 2 / 10_000 for c in counts.values())
    assert chi_square < 80, f"chi-square {chi_square:.1f} with 31 dof: characters are biased"


def test_batch_edge_sizes_and_errors() -> None:
    assert ulidkeys.batch(0) == []
    assert len(ulidkeys.batch(1)) == 1
    with pytest.raises(errors.InvalidValue, match="-1"):
        ulidkeys.batch(-1)
    with pytest.raises(errors.InvalidType):
        ulidkeys.batch("10")  # type: ignore[arg-type]


def test_monotonic_generator_batch_checks_its_size() -> None:
    """A generator's own batch() rejects what ulidkeys.batch() rejects (no silent [] for -1)."""
    generator = ulidkeys.Monotonic()
    with pytest.raises(errors.InvalidULID, match="negative"):
        generator.batch(-1)
    with pytest.raises(errors.InvalidType):
        generator.batch("10")  # type: ignore[arg-type]
    assert generator.batch(0) == []


@pytest.mark.parametrize("make", [ulidkeys.batch, ulidkeys.Monotonic().batch])
def test_a_batch_is_capped_before_anything_is_allocated(make: Any) -> None:
    """A huge count (a fuzzer's 2**40) is refused at once instead of exhausting memory."""
    assert len(make(MAX_BATCH)) == MAX_BATCH
    for count in (MAX_BATCH + 1, 2**40, 10**30):
        with pytest.raises(errors.InvalidULID, match="at most 1,000,000"):
            make(count)


def test_monotonic_batch_is_a_plus_one_run() -> None:
    ids = ulidkeys.batch(5000, monotonic=True)
    assert ids == sorted(ids) and len(set(ids)) == 5000
    parsed = [ULID.parse(i) for i in ids]
    for a, b in pairwise(parsed):
        if a.timestamp_ms == b.timestamp_ms:
            assert b.randomness == a.randomness + 1


def test_monotonic_carries_across_the_pair_boundary() -> None:
    frozen = 1_700_000_000_000
    start = ULID.from_int((frozen << 80) | 0x3FE)
    gen = Monotonic(after=start, clock=lambda: frozen)
    ids = [gen() for _ in range(3000)]
    values = [int(ULID.parse(i)) for i in ids]
    assert values == list(range(int(start) + 1, int(start) + 3001))


def test_monotonic_threads_strictly_increasing_and_distinct() -> None:
    gen = Monotonic()
    per_thread = 100_000
    results: list[list[str]] = [[] for _ in range(8)]

    def work(slot: int) -> None:
        out = results[slot]
        for _ in range(per_thread):
            out.append(gen())

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for out in results:
        assert all(a < b for a, b in pairwise(out)), "strictly increasing per thread"
    everything = [i for out in results for i in out]
    assert len(set(everything)) == 8 * per_thread


def test_monotonic_overflow_raises_and_never_wraps() -> None:
    frozen = 1_700_000_000_000
    gen = Monotonic(after=ULID.from_int((frozen << 80) | (MAX_RANDOM - 1)), clock=lambda: frozen)
    last = gen()
    assert ULID.parse(last) == ULID.max_for(frozen)
    with pytest.raises(errors.MonotonicOverflow, match=str(frozen)):
        gen()
    with pytest.raises(errors.MonotonicOverflow):
        gen()  # still refuses: it must not wrap to a smaller id


def test_monotonic_clock_going_backwards_still_increases() -> None:
    times = iter([5_000, 5_000, 4_000, 3_000, 5_000, 6_000])
    gen = Monotonic(clock=lambda: next(times))
    ids = [gen() for _ in range(6)]
    assert ids == sorted(ids) and len(set(ids)) == 6
    assert ULID.parse(ids[3]).timestamp_ms == 5_000, "keeps the later millisecond"
    assert ULID.parse(ids[5]).timestamp_ms == 6_000


def test_monotonic_after_must_be_a_ulid() -> None:
    with pytest.raises(errors.InvalidULID):
        Monotonic(after="not-a-ulid")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_forked_child_never_continues_the_parents_sequence() -> None:
    frozen = 1_700_000_000_000
    gen = Monotonic(clock=lambda: frozen)
    gen()  # the parent has state: a child that kept it would continue with +1, +2, ...
    ulidkeys.new()  # and the shared random buffer is filled
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        try:
            os.close(read_end)
            child_ids = (
                [gen() for _ in range(500)]
                + ulidkeys.batch(10)
                + [ulidkeys.new() for _ in range(500)]
            )
            os.write(write_end, "\n".join(child_ids).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    parent_ids = [gen() for _ in range(500)] + [ulidkeys.new() for _ in range(500)]
    chunks = []
    while chunk := os.read(read_end, 65536):
        chunks.append(chunk)
    os.close(read_end)
    os.waitpid(pid, 0)
    child_ids = b"".join(chunks).decode().split("\n")
    assert len(child_ids) == 1010
    assert not set(child_ids) & set(parent_ids)
    # Not even the random parts overlap: the child drew fresh bits.
    assert not {i[10:] for i in child_ids} & {i[10:] for i in parent_ids}
