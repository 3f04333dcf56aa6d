"""What latest(n) costs: the galloping search raced with a forward listing never costs more
than twice a full listing of the window plus one call, finds old data in O(log(age)) calls,
and answers exactly (brute force)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples
from s3support import T0, FakeS3, brute_force, keys_of, ulid_at

from ulidkeys.s3 import Bucket, KeyLayout

DAY = 86_400_000
YEAR = 365 * DAY


def _keys(layout: KeyLayout, count: int, newest: int, spread: int) -> list[str]:
    return [layout.key_for(ulid_at(newest - spread + i * spread // count, i)) for i in range(count)]


@settings(max_examples=examples(40))
@given(
    st.sampled_from([KeyLayout("u/"), KeyLayout("u/", shards=3), KeyLayout("u/", period="day")]),
    st.integers(0, 6_000),
    st.sampled_from([0, 1000, DAY, 30 * DAY, 2 * YEAR]),
    st.sampled_from([1, DAY, 180 * DAY]),
    st.sampled_from([1, 5, 20, 1500]),
)
def test_latest_is_exact_and_at_most_twice_a_full_listing_plus_one(
    layout: KeyLayout, count: int, age: int, spread: int, n: int
) -> None:
    keys = _keys(layout, count, T0 - age, spread)
    listing = Bucket(FakeS3(keys), "b", layout).latest(n, until=T0)
    assert keys_of(listing) == brute_force(layout, keys, 0, T0)[::-1][:n]
    full = Bucket(FakeS3(keys), "b", layout).list_window(0, T0, split=False)
    keys_of(full)
    folders = 0
    if layout.period is not None:  # latest first lists the day folders that hold data
        folders = max(1, len({k.split("/")[1] for k in keys}) // 1000 + 1)
    assert listing.stats.calls <= 2 * full.stats.calls + 1 + folders


def test_latest_of_a_two_year_old_small_prefix_costs_at_most_12_calls() -> None:
    """The issue's case: newest key 2-2.5 years old, a prefix of 4,108 keys (5 pages)."""
    layout = KeyLayout("u/")
    for age in (2 * YEAR, int(2.5 * YEAR)):
        keys = _keys(layout, 4108, T0 - age, 180 * DAY)
        for n in (5, 20):
            listing = Bucket(FakeS3(keys), "b", layout).latest(n, until=T0)
            assert keys_of(listing) == keys[::-1][:n]
            assert listing.stats.calls <= 12
            assert listing.stats.read <= 4108


def test_latest_search_calls_grow_with_the_log_of_the_age() -> None:
    """A big prefix (the forward listing cannot win): the search alone decides the cost."""
    layout = KeyLayout("u/")
    costs = []
    for age in (0, 3_600_000, 30 * DAY, 2 * YEAR):
        newest, spread = T0 - age, 30 * DAY
        ids = [ulid_at(newest - spread + i * spread // 100_000, i) for i in range(100_000)]
        keys = ["u/" + text for text in ids]  # the layout's keys, built 5x faster
        assert keys[::9_999] == [layout.key_for(text) for text in ids[::9_999]]
        listing = Bucket(FakeS3(keys), "b", layout).latest(20, until=T0)
        assert keys_of(listing) == keys[::-1][:20]
        costs.append(listing.stats.calls)
    assert costs[0] <= 6
    assert max(costs) <= 2 * 24  # the search and the forward listing it races, in turn
    assert costs == sorted(costs)


@settings(max_examples=examples(25))
@given(
    st.sampled_from([KeyLayout("u/"), KeyLayout("u/", shards=3), KeyLayout("u/", period="day")]),
    st.integers(0, 5_000),
    st.sampled_from([DAY, 30 * DAY]),
    st.sampled_from([1, 20, 1500]),
)
def test_latest_counts_every_key_transferred_and_every_call(
    layout: KeyLayout, count: int, spread: int, n: int
) -> None:
    """stats.read and stats.calls are what S3 sent and was asked, also for the pages the losing
    side of the race fetched but never read."""
    keys = _keys(layout, count, T0 - DAY, spread)
    service = FakeS3(keys)
    listing = Bucket(service, "b", layout).latest(n, until=T0)
    keys_of(listing)
    transferred = sum(
        len(answer.get("Contents", [])) + len(answer.get("CommonPrefixes", []))
        for answer in service.responses
    )
    assert (listing.stats.calls, listing.stats.read) == (len(service.requests), transferred)
