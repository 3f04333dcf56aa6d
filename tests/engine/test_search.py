"""The newest-first search proven on its own, without AWS: :func:`search_back` over an in-memory
bucket of tiny pages finds exactly the ``n`` newest keys of a window - the brute-force answer's
tail - wherever the data lies below the window's end (a millisecond or a year down, in bursts
dense enough to crowd a slice), with the occupied top-level folders given or not, and
:func:`forward_tail` (the plain listing it races in ``latest``) finds the same; and it ends,
within a cap on its steps, however many keys share a millisecond and however full the pages."""

from __future__ import annotations

import random
import threading
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples
from s3support import T0, FakeS3, brute_force, keys_of, layouts, ulid_at

from ulidkeys.engine.chains import Stats
from ulidkeys.engine.operations import Fetch
from ulidkeys.engine.search import Search, forward_tail, search_back
from ulidkeys.planning.listings import plan_listing
from ulidkeys.s3 import Bucket, KeyLayout
from ulidkeys.s3.bucket import ListingSource

DAY = 86_400_000

#: How far below the window's end a burst of keys lies: the same millisecond, within the first
#: slice the search probes, a few galloping steps down, and a year down.
AGES = [0, 1, 59_999, 60_000, 3_600_000, DAY, 40 * DAY, 400 * DAY]


#: More steps than any search of these small buckets takes (a page of one key each, at most a
#: few hundred keys): a search still asking for pages past it would never end.
MAX_STEPS = 5_000


def drive(search: Search, source: ListingSource) -> list[Any]:
    """Run a search as a shell does, answering each :class:`Fetch` with the source's pages."""
    reply = None
    try:
        for _ in range(MAX_STEPS):
            fetch = search.send(reply)  # type: ignore[arg-type]
            assert isinstance(fetch, Fetch)
            reply = [source.fetch(call, token, limit) for call, token, limit in fetch.requests]
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]
    raise AssertionError(f"the search still asked for pages after {MAX_STEPS} steps")


def occupied_spans(
    layout: KeyLayout, keys: list[str], start: int, end: int
) -> list[tuple[int, int]]:
    """The top-level period folders that hold a key of ``[start, end)``, newest first, as
    ``data_spans`` reads them from the bucket: ``[first, next)`` of each."""
    assert layout.partition is not None
    top = layout.partition.top
    firsts = {
        top.floor(layout.scheme.timestamp_ms(layout.parse(k).id))
        for k in brute_force(layout, keys, start, end)
    }
    return [(first, top.next(first)) for first in sorted(firsts, reverse=True)]


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[KeyLayout, list[str], int, int]:
    """A layout, its keys in bursts at drawn ages below the window's end (with keys that do not
    fit), and the window ``[start, end)``."""
    layout = draw(layouts)
    end = T0 + draw(st.integers(0, DAY))
    start = end - draw(st.sampled_from([0, 1, 60_000, DAY, 30 * DAY, 500 * DAY]))
    rng = random.Random(draw(st.integers(0, 2**32)))
    keys = []
    for age in draw(st.lists(st.sampled_from(AGES), max_size=6)):
        at = end - age + draw(st.sampled_from([-1, 0, 0, 5_000]))  # some at or past the end
        for _ in range(draw(st.sampled_from([1, 2, 7, 40]))):  # 40 crowd a slice of tiny pages
            spot = at - rng.randrange(draw(st.sampled_from([1, 1000, 60_000])))
            keys.append(layout.key_for(ulid_at(max(0, spot), rng.getrandbits(80))))
    keys += [layout.prefix + "zzz", layout.prefix + "00/x"]  # keys that do not fit
    return layout, keys, max(0, start), end


@settings(max_examples=examples(60), deadline=None)
@given(
    scenarios(),
    st.integers(1, 30),
    st.sampled_from([1, 2, 3, 5]),
    st.sampled_from([2, 4, 1000]),
    st.booleans(),
)
def test_search_back_finds_exactly_the_newest_n(
    scenario: tuple[KeyLayout, list[str], int, int],
    n: int,
    page: int,
    page_size: int,
    with_spans: bool,
) -> None:
    """The ``n`` newest keys of the window, newest first, whatever the ages and the crowding
    (tiny pages, and ``page_size`` as small as a page: slices crowd and the bracket halves),
    and the forward listing's tail is the same answer."""
    layout, keys, start, end = scenario
    expected = brute_force(layout, keys, start, end)[::-1][:n]
    source = ListingSource(FakeS3(keys, page), "b")

    def plan_slice(low: int, high: int) -> Any:
        return plan_listing(layout, low, high)

    spans = None
    if with_spans and layout.partition is not None:
        spans = occupied_spans(layout, keys, start, end)
    found = drive(
        search_back(plan_slice, Stats(), n, start, end, page_size=page_size, occupied=spans),
        source,
    )
    assert [entry["Key"] for _, entry in found] == expected
    tail = drive(forward_tail(plan_slice(start, end), n, Stats()), source)
    assert [entry["Key"] for _, entry in tail] == expected


def test_latest_ends_when_more_keys_than_a_page_share_a_millisecond() -> None:
    """A batch of ids minted in one millisecond (1,200 keys, more than a page), 40 s below the
    window's end, over a year of older keys: ``latest(1)`` is the batch's largest id. The
    search's bracket halved down to that millisecond and then stood still without sending a
    request, so ``latest`` spun forever (the plain listing it races never got its turn)."""
    layout = KeyLayout(prefix="up/")
    rng = random.Random(7)
    batch = T0 - 40_000
    keys = [layout.key_for(ulid_at(batch, rng.getrandbits(80))) for _ in range(1200)]
    keys += [
        layout.key_for(ulid_at(batch - rng.randrange(1, 365 * DAY), rng.getrandbits(80)))
        for _ in range(20_000)
    ]
    bucket = Bucket(FakeS3(keys), "b", layout)
    answer: list[str] = []
    worker = threading.Thread(
        target=lambda: answer.extend(keys_of(bucket.latest(1, until=T0))), daemon=True
    )
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive(), "latest(1) did not end within a minute"
    assert answer == brute_force(layout, keys, 0, T0)[-1:]
