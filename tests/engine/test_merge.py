"""``RunMerge`` (the one merge of a group's chains, a list at a time) gives exactly
``heapq.merge``'s order - ascending or descending, ties in chain order included - over chains cut
into lists of any size (empty ones too), asks a chain for its next list only once its entries
were all given, and never changes the lists it is handed."""

from __future__ import annotations

import heapq
from operator import itemgetter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples

from ulidkeys.engine.scheduling import RunMerge

positions = st.tuples(st.sampled_from("ABCDE"), st.sampled_from(["k1", "k2"]))
chains = st.lists(
    st.lists(st.lists(positions, max_size=6), max_size=5),  # a chain: its lists
    min_size=1,
    max_size=5,
)


def merged(
    sources: list[list[list[Any]]], descending: bool, asked: list[tuple[int, int]]
) -> list[Any]:
    """Drive a RunMerge as a shell does: hand each wanted chain its next non-empty list."""
    merge = RunMerge(len(sources), descending)
    at = [0] * len(sources)
    got: list[Any] = []
    while True:
        for number in merge.wanted():
            lists = sources[number]
            while at[number] < len(lists) and not lists[at[number]]:
                asked.append((number, at[number]))
                at[number] += 1
            if at[number] == len(lists):
                merge.end(number)
                continue
            asked.append((number, at[number]))
            # a chain's later list is asked for only once its earlier entries were all given
            before = sum(len(part) for part in lists[: at[number]])
            assert sum(1 for e in got if e[1][0] == number) >= before
            merge.put(number, lists[at[number]])
            at[number] += 1
        batch = merge.batch()
        if batch is None:
            return got
        got += batch


@settings(max_examples=examples(200))
@given(chains, st.booleans())
def test_the_merge_gives_heapq_merges_order(
    chain_lists: list[list[list[Any]]], descending: bool
) -> None:
    # each chain sorted as a whole (in result order), then cut back into lists of the drawn
    # sizes; items carry their chain number and place, so ties in chain order can be told apart
    sources: list[list[list[Any]]] = []
    for number, lists in enumerate(chain_lists):
        flat = sorted((p for part in lists for p in part), reverse=descending)
        entries = [(position, (number, i)) for i, position in enumerate(flat)]
        cut, at = [], 0
        for part in lists:
            cut.append(entries[at : at + len(part)])
            at += len(part)
        sources.append(cut)
    chained = [[entry for part in lists for entry in part] for lists in sources]
    expected = list(heapq.merge(*chained, key=itemgetter(0), reverse=descending))
    before_merge = [[list(part) for part in lists] for lists in sources]
    got = merged(sources, descending, [])
    assert got == expected
    assert sources == before_merge  # the lists handed over are never changed


def test_a_batch_waits_for_every_live_chain() -> None:
    merge = RunMerge(2, False)
    merge.put(0, [(("A", "k"), 0)])
    assert merge.wanted() == [1]
    assert merge.batch() == []  # chain 1 may still hold something before ("A", "k")
    merge.end(1)
    assert merge.batch() == [(("A", "k"), 0)]
    assert merge.wanted() == [0]
    merge.end(0)
    assert merge.batch() is None
