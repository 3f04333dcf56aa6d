"""``merge_runs`` (the thread shell's merge of ordered chains, a page at a time) gives exactly
``heapq.merge``'s order, ties in chain order included, over chains cut into lists of any size
(empty ones too), asks a chain for its next list only once its entries were all given, and
never changes the lists it is handed."""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from operator import itemgetter
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ulidkeys.engine.scheduling import merge_runs

positions = st.tuples(st.sampled_from("ABCDE"), st.sampled_from(["k1", "k2"]))
chains = st.lists(
    st.lists(st.lists(positions, max_size=6), max_size=5),  # a chain: its lists
    min_size=1,
    max_size=5,
)


@given(chains)
def test_merge_runs_gives_heapq_merges_order(chain_lists: list[list[list[Any]]]) -> None:
    # each chain sorted as a whole, then cut back into lists of the drawn sizes; items
    # carry their chain number and place, so ties in chain order can be told apart
    sources: list[list[list[Any]]] = []
    for number, lists in enumerate(chain_lists):
        flat = sorted(p for part in lists for p in part)
        entries = [(position, (number, i)) for i, position in enumerate(flat)]
        cut, at = [], 0
        for part in lists:
            cut.append(entries[at : at + len(part)])
            at += len(part)
        sources.append(cut)
    chained = [[entry for part in lists for entry in part] for lists in sources]
    expected = list(heapq.merge(*chained, key=itemgetter(0)))
    asked: list[tuple[int, int]] = []
    before_merge = [[list(part) for part in lists] for lists in sources]

    def source(number: int, lists: list[list[Any]]) -> Iterator[list[Any]]:
        for index, part in enumerate(lists):
            asked.append((number, index))
            yield part

    merged = merge_runs([source(n, lists) for n, lists in enumerate(sources)])
    got = []
    for entry in merged:
        got.append(entry)
        # a chain's later list is asked for only after all of its earlier entries were given
        for number, index in asked:
            before = sum(len(part) for part in sources[number][:index])
            assert sum(1 for e in got if e[1][0] == number) >= before
    assert got == expected
    assert sources == before_merge  # the lists handed over are never changed
