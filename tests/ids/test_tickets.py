"""Ticket arithmetic and the ticket scheme, pure: the increment/offset split against brute
force, Flickr's worked example (two servers, odd and even), tickets as entity keys."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ulidkeys import TimeWindow, inspect
from ulidkeys.errors import (
    InvalidKeyTemplate,
    InvalidLayout,
    InvalidType,
    InvalidValue,
    KeyMismatch,
    TicketsExhausted,
)
from ulidkeys.ids import bounds
from ulidkeys.ids.protocol import has_no_time, shard_of
from ulidkeys.ids.tickets import TICKET, TICKET_MAX, TicketSplit, tickets_above
from ulidkeys.planning.entity import Entity
from ulidkeys.planning.layout import KeyLayout

# The survey's worked example: Flickr's Tickets64 row, and its two servers' settings.
FLICKR_ID = 72157623227190423
SERVER1, SERVER2 = TicketSplit(increment=2, offset=1), TicketSplit(increment=2, offset=2)


def brute_tickets(split: TicketSplit, bound: int) -> list[int]:
    """Every ticket of ``split`` up to ``bound``, found by testing each number (MySQL's rule:
    ``offset + k * increment`` for k = 0, 1, ...)."""
    return [
        n
        for n in range(1, bound + 1)
        if n >= split.offset and (n - split.offset) % split.increment == 0
    ]


splits = st.integers(1, 12).flatmap(
    lambda inc: st.builds(TicketSplit, st.just(inc), st.integers(1, inc))
)


@given(st.integers(1, 12), st.integers(1, 40))
def test_counters_of_one_increment_share_out_every_number_exactly_once(inc: int, n: int) -> None:
    bound = inc * n
    sequences = [TicketSplit(inc, off).tickets(0, n) for off in range(1, inc + 1)]
    for off, seq in enumerate(sequences, start=1):
        assert list(seq) == brute_tickets(TicketSplit(inc, off), bound)
    everything = [t for seq in sequences for t in seq]
    assert sorted(everything) == list(range(1, bound + 1))  # disjoint, and no number skipped


@given(splits, st.lists(st.integers(1, 30), max_size=12))
def test_blocks_hand_out_the_one_by_one_sequence(split: TicketSplit, blocks: list[int]) -> None:
    taken, handed = 0, []
    for size in blocks:
        handed.extend(split.tickets(taken, size))
        taken += size
    assert handed == [split.ticket(slot) for slot in range(1, taken + 1)]
    assert handed == brute_tickets(split, split.increment * taken)[:taken]


@given(splits, st.integers(0, 500))
def test_slots_owns_and_slots_through_against_brute_force(split: TicketSplit, n: int) -> None:
    mine = brute_tickets(split, n)
    assert split.slots_through(n) == len(mine)
    assert split.owns(n) == (n in mine)
    if n in mine:
        assert split.ticket(split.slot_of(n)) == n
        assert split.slot_of(n) == mine.index(n) + 1
    else:
        with pytest.raises(InvalidValue, match="is not a ticket of"):
            split.slot_of(n)
    # the count that continues after n hands out the first ticket above n, never one at or below
    following = split.ticket(split.slots_through(n) + 1)
    assert following > n and following == next(
        t for t in range(n + 1, n + 2 * split.increment + 2) if split.owns(t)
    )


@given(splits, st.integers(0, 60), st.integers(1, 30), st.integers(-5, 500))
def test_tickets_above_keeps_exactly_the_larger_ones(
    split: TicketSplit, before: int, taken: int, ticket: int
) -> None:
    block = split.tickets(before, taken)
    assert list(tickets_above(block, ticket)) == [t for t in block if t > ticket]


def test_flickr_worked_example() -> None:
    assert SERVER1.owns(FLICKR_ID) and not SERVER2.owns(FLICKR_ID)  # the odd server's ticket
    slot = SERVER1.slot_of(FLICKR_ID)
    assert SERVER1.tickets(slot, 3) == range(FLICKR_ID + 2, FLICKR_ID + 7, 2)
    assert SERVER2.ticket(SERVER2.slots_through(FLICKR_ID) + 1) == FLICKR_ID + 1
    assert list(SERVER1.tickets(0, 4)) == [1, 3, 5, 7]
    assert list(SERVER2.tickets(0, 4)) == [2, 4, 6, 8]


@pytest.mark.parametrize(
    ("increment", "offset", "error", "match"),
    [
        (2, 0, InvalidValue, "offset=0 must be in 1 .. increment"),
        (2, 3, InvalidValue, "offset=3 must be in 1 .. increment"),
        (0, 1, InvalidValue, "increment=0 is out of range"),
        (True, 1, InvalidType, "increment=True must be an int"),
        (2, 1.0, InvalidType, "offset=1.0 must be an int"),
    ],
)
def test_split_rules(increment: object, offset: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        TicketSplit(increment, offset)  # type: ignore[arg-type]


def test_arguments_are_checked() -> None:
    with pytest.raises(InvalidValue, match="slot=0"):
        SERVER1.ticket(0)
    with pytest.raises(InvalidValue, match="taken=0"):
        SERVER1.tickets(5, 0)
    with pytest.raises(InvalidValue, match="count_before=-1"):
        SERVER1.tickets(-1, 1)
    with pytest.raises(InvalidValue, match="ticket=-1"):
        SERVER1.slots_through(-1)
    with pytest.raises(InvalidType, match="ticket='7'"):
        SERVER1.owns("7")  # type: ignore[arg-type]


def test_tickets_end_at_64_bits_instead_of_wrapping() -> None:
    last_slot = SERVER1.slots_through(TICKET_MAX)
    assert SERVER1.ticket(last_slot) == TICKET_MAX  # 2**64 - 1 is odd
    assert SERVER1.tickets(last_slot - 1, 1) == range(TICKET_MAX, TICKET_MAX + 1, 2)
    with pytest.raises(TicketsExhausted, match="used up"):
        SERVER1.tickets(last_slot - 1, 2)
    assert SERVER2.ticket(SERVER2.slots_through(TICKET_MAX)) == TICKET_MAX - 1
    with pytest.raises(TicketsExhausted):
        SERVER2.ticket(SERVER2.slots_through(TICKET_MAX) + 1)


# --- the ticket scheme: tickets as key text ---------------------------------------------


@given(st.integers(0, TICKET_MAX), st.integers(0, TICKET_MAX))
def test_ticket_text_is_fixed_width_and_sorts_by_number(a: int, b: int) -> None:
    ta, tb = TICKET.from_int(a), TICKET.from_int(b)
    assert len(ta) == len(tb) == TICKET.length == 20
    assert (ta < tb) == (a < b)
    assert TICKET.parse(str(a)) == ta and TICKET.to_int(ta) == a


def test_ticket_scheme_refuses_every_time_question() -> None:
    assert has_no_time(TICKET) and not TICKET.sorts_by_time and TICKET.numeric
    for ask in (
        lambda: TICKET.timestamp_ms("7"),
        lambda: TICKET.min_for(0),
        lambda: bounds(TICKET, TimeWindow(0, 1000)),
    ):
        with pytest.raises(InvalidValue, match="ticket ids hold no time"):
            ask()
    with pytest.raises(InvalidLayout, match="ticket ids hold no time"):
        KeyLayout(scheme=TICKET)
    for junk in ("", "-1", "1e3", "١٢", str(TICKET_MAX + 1), "0" * 21):
        with pytest.raises(InvalidValue):
            TICKET.parse(junk)


def test_ticket_as_entity_sort_key() -> None:
    photo = Entity(pk="Org#{org}", sk="Photo#{id}", scheme=TICKET)
    keys = photo.keys(org="acme", id=FLICKR_ID)
    assert keys == {"PK": "Org#acme", "SK": "Photo#00072157623227190423"}
    assert photo.parse(keys) == {"org": "acme", "id": "00072157623227190423"}
    assert photo.keys(org="acme", id=9)["SK"] < photo.keys(org="acme", id=10)["SK"]
    with pytest.raises(KeyMismatch):
        photo.parse({"PK": "Org#acme", "SK": "Photo#" + "9" * 20})  # past 2**64 - 1
    number = Entity(pk="Org#{org}", sk="{id}", scheme=TICKET, numeric_sk=True)
    assert number.keys(org="acme", id="0042") == {"PK": "Org#acme", "SK": 42}
    assert number.parse({"PK": {"S": "Org#acme"}, "SK": {"N": "42"}})["id"] == TICKET.from_int(42)
    sharded = Entity(pk="Org#{org}#{shard}", sk="Photo#{id}", scheme=TICKET, shards=8)
    assert sharded.keys(org="a", id=5)["PK"] == f"Org#a#{shard_of(TICKET, '5', 8)}"
    with pytest.raises(InvalidValue, match="ticket ids hold no time"):
        photo.plan_window(0, 1000, org="acme")
    with pytest.raises(InvalidValue, match="ticket ids hold no time"):
        photo.plan_window(newest_first=True, limit=20, org="acme")
    with pytest.raises(InvalidKeyTemplate, match="bucket='day' needs the id's time"):
        Entity(pk="Org#{org}#{bucket}", sk="Photo#{id}", scheme=TICKET, bucket="day")
    with pytest.raises(InvalidKeyTemplate, match="newest_first_keys=True needs the id's time"):
        Entity(pk="Org#{org}", sk="Photo#{id}", scheme=TICKET, newest_first_keys=True)


def test_inspect_reads_a_ticket_only_when_asked() -> None:
    text = str(FLICKR_ID)
    assert all(c.scheme != "ticket" for c in inspect(text).candidates)  # never guessed
    reading = inspect(text, scheme="ticket")
    assert (reading.scheme, reading.time, reading.timestamp_ms) == ("ticket", None, None)
    assert reading.id == "000" + text and dict(reading.fields) == {"number": FLICKR_ID}
    assert inspect(text, scheme=TICKET) == reading
