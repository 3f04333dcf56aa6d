"""The thread shell's merge of shard chains a list at a time
(:func:`~ulidkeys.engine.scheduling.merge_batches`) gives exactly the order of ``heapq.merge``
(and so of the asyncio shell's :class:`~ulidkeys.engine.scheduling.Merge`): ties in chain
order, oldest or newest first, however the chains cut their entries into lists.
"""

from __future__ import annotations

import heapq
from itertools import pairwise
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ulidkeys.engine.scheduling import merge_batches

positions = st.tuples(st.sampled_from("0123"), st.sampled_from("abc"))


def _lists(entries: list[Any], cuts: list[int]) -> list[list[Any]]:
    """``entries`` cut into non-empty lists at the given offsets (chains never give an empty
    list)."""
    edges = sorted({cut % (len(entries) + 1) for cut in cuts} | {0, len(entries)})
    return [entries[a:b] for a, b in pairwise(edges) if b > a]


@settings(max_examples=300)
@given(
    st.lists(st.tuples(st.lists(positions, max_size=12), st.lists(st.integers(0, 12))), max_size=5),
    st.booleans(),
)
def test_merge_batches_gives_the_order_of_heapq_merge(
    chains: list[tuple[list[Any], list[int]]], descending: bool
) -> None:
    streams = [
        [(position, (number, i)) for i, position in enumerate(sorted(chain, reverse=descending))]
        for number, (chain, _cuts) in enumerate(chains)
    ]
    expected = list(heapq.merge(*streams, key=lambda e: e[0], reverse=descending))
    batched = [
        iter(_lists(stream, cuts)) for stream, (_c, cuts) in zip(streams, chains, strict=True)
    ]
    got = list(merge_batches(batched, descending))
    assert all(got), "an empty list"
    assert [entry for batch in got for entry in batch] == expected


def test_chains_apart_in_time_are_merged_without_sorting_across_them() -> None:
    """Shards that do not overlap in time: each list goes out whole, as the chain gave it."""
    early = [[(("0", "a"), 1), (("1", "a"), 2)], [(("2", "a"), 3)]]
    late = [[(("5", "b"), 4), (("6", "b"), 5)]]
    got = list(merge_batches([iter(early), iter(late)], descending=False))
    assert got == [early[0], early[1], late[0]]
