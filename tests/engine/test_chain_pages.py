"""A chain reads a page whose keys are all in the answer at once (``ChainState._whole``: C maps,
no Python step per key), and any other page key by key: both must give exactly the same items,
positions, stop, order errors and state. Property test against the key-by-key reading, over
layouts (shards, period folders, suffixes), windows, resumed listings, time slices (``owns``),
stop bounds, hostile keys among the pages and pages out of order."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from periodsupport import layout_periods_or_none
from profiles import examples

from ulidkeys.engine.chains import ChainState, Page, Stats
from ulidkeys.errors import UnorderedListing
from ulidkeys.planning.layout import KeyLayout
from ulidkeys.planning.listings import plan_listing
from ulidkeys.ulid import ULID

HOUR = 3_600_000
T0 = 1_715_936_400_000


def read_all(state: ChainState[Any], pages: list[list[str]]) -> tuple[list[Any], Any]:
    """Every page fed to ``state`` in turn: its items, or the error it raised; and its state."""
    out: list[Any] = []
    error = None
    try:
        for number, keys in enumerate(pages):
            token = None if number == len(pages) - 1 else f"t{number}"
            page = Page([(key, {"Key": key}) for key in keys], token, len(keys))
            out += state.receive(page)
            if state.done:
                break
    except UnorderedListing as raised:
        error = str(raised)
    stats = state.stats
    return out, (
        error,
        state.done,
        state.last_ms,
        state.read,
        stats.read,
        stats.skipped,
        state._previous,  # the order check of the next page
    )


class KeyByKey(ChainState[Any]):
    """A chain that reads every page key by key (the reading the whole-page one must equal)."""

    def _whole(self, entries: Any) -> None:
        return None


@settings(max_examples=examples(80), deadline=None)
@given(
    shards=st.sampled_from([None, 4]),
    period=layout_periods_or_none,
    suffix=st.sampled_from(["", ".jpg"]),
    seed=st.integers(0, 2**32),
    resumed=st.booleans(),
    sliced=st.booleans(),
    hostile=st.sampled_from([0, 0, 1, 3]),
    shuffled=st.booleans(),
)
def test_a_page_read_at_once_gives_what_reading_it_key_by_key_gives(
    shards: int | None,
    period: str | None,
    suffix: str,
    seed: int,
    resumed: bool,
    sliced: bool,
    hostile: int,
    shuffled: bool,
) -> None:
    rng = random.Random(seed)
    layout = KeyLayout("up/", shards, period, suffix)  # type: ignore[arg-type]
    start, end = T0 + rng.randrange(4 * HOUR), T0 + 4 * HOUR + rng.randrange(4 * HOUR)
    times = [T0 - HOUR + rng.randrange(10 * HOUR) for _ in range(rng.randrange(1, 400))]
    if not times:
        return
    ids = [str(ULID.new(ms)) for ms in times]
    shard = rng.randrange(shards) if shards else None
    # one chain's keys: those of one shard, sorted as S3 lists them
    keys = sorted(
        layout.key_for(text, rng.choice([None, None, ".png"]))
        for text in ids
        if shards is None or layout.shard_of(text) == shard
    )
    after = rng.choice(keys) if resumed and keys else None  # a key the listing returned
    for _ in range(hostile):
        at = rng.randrange(len(keys) + 1)
        near = keys[min(at, len(keys) - 1)] if keys else "up/"
        keys.insert(at, near[:-1] + "~" if rng.random() < 0.5 else near + "/x")
    plan = plan_listing(layout, start, end, after=after, max_keys=50)
    calls = [
        call for call in plan.calls if shard is None or call.prefix.startswith(f"up/{shard:02d}")
    ]
    if not calls or not keys:
        return
    call = calls[0]
    size = rng.choice([1, 7, 50])
    pages = [keys[i : i + size] for i in range(0, len(keys), size)]
    if shuffled and len(pages) > 1:
        i = rng.randrange(len(pages) - 1)
        pages[i], pages[i + 1] = pages[i + 1], pages[i]

    def state(kind: type[ChainState[Any]]) -> ChainState[Any]:
        made = kind(plan, call, Stats())
        if sliced:
            middle = str(ULID.new(start + (end - start) // 2))
            made.owns = (
                str(ULID.new(start + (end - start) // 4)).replace(middle[10:], "0" * 16),
                middle,
            )
        return made

    assert read_all(state(ChainState), pages) == read_all(state(KeyByKey), pages)
