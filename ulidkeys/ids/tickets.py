"""Flickr-style tickets as numbers: the increment/offset split and the ticket scheme for keys.

A counter that has handed out ``n`` slots owns tickets ``offset + k * increment`` (MySQL's
``auto_increment_offset`` / ``auto_increment_increment``), so counters with one increment and
different offsets never meet. Pure arithmetic; ``ulidkeys.dynamodb.TicketServer`` keeps the count.
"""

from __future__ import annotations

from dataclasses import dataclass

from ulidkeys.errors import InvalidValue, TicketsExhausted, describe, require_count, require_int
from ulidkeys.ids.protocol import no_time
from ulidkeys.ids.registration import Registration
from ulidkeys.ids.snowflake import SnowflakeScheme

#: The largest ticket: Flickr's ``Tickets64`` is an unsigned 64-bit column, and so is the
#: 20-digit text of :data:`TICKET`.
TICKET_MAX = (1 << 64) - 1


@dataclass(frozen=True)
class TicketSplit:
    """One counter's share of the numbers: ``offset, offset + increment, offset + 2 * increment``.

    ``1 <= offset <= increment``. Flickr's two ticket servers are ``TicketSplit(2, 1)`` (odd)
    and ``TicketSplit(2, 2)`` (even); ``n`` counters use ``increment=n`` and offsets 1 .. n.
    Slot ``k`` (1, 2, ...) is the k-th ticket a counter hands out.
    """

    increment: int = 1
    offset: int = 1

    def __post_init__(self) -> None:
        require_count(self.increment, "increment", 1, TICKET_MAX)
        require_int(self.offset, "offset")
        if not 1 <= self.offset <= self.increment:
            # MySQL silently ignores such an offset; here it would make counters overlap.
            raise InvalidValue(
                f"offset={describe(self.offset)} must be in 1 .. increment ({self.increment}), "
                "so that counters with the same increment hand out disjoint tickets"
            )

    def ticket(self, slot: int) -> int:
        """The ticket of slot ``slot`` (1 for the first); TicketsExhausted past TICKET_MAX."""
        require_count(slot, "slot", 1)
        ticket = self.offset + (slot - 1) * self.increment
        if ticket > TICKET_MAX:
            raise TicketsExhausted(
                f"slot {slot} of {self} would be ticket {ticket}, past the largest ticket "
                f"2**64 - 1: this counter is used up"
            )
        return ticket

    def tickets(self, count_before: int, taken: int) -> range:
        """The tickets of a counter that went from ``count_before`` slots to ``count_before +
        taken`` in one step: slots ``count_before + 1 .. count_before + taken``."""
        require_count(count_before, "count_before")
        require_count(taken, "taken", 1)
        first = self.ticket(count_before + 1)
        last = self.ticket(count_before + taken)
        return range(first, last + 1, self.increment)

    def owns(self, ticket: int) -> bool:
        """Whether ``ticket`` is one of this split's tickets."""
        require_int(ticket, "ticket")
        return 0 < ticket <= TICKET_MAX and ticket % self.increment == self.offset % self.increment

    def slot_of(self, ticket: int) -> int:
        """The slot of one of this split's tickets; InvalidValue for another split's ticket."""
        if not self.owns(ticket):
            raise InvalidValue(f"ticket={describe(ticket)} is not a ticket of {self}")
        return (ticket - self.offset) // self.increment + 1

    def slots_through(self, ticket: int) -> int:
        """How many of this split's tickets are ``<= ticket``: the count a counter must have
        reached so that its next ticket is above ``ticket`` (to continue after old ids)."""
        require_count(ticket, "ticket", 0, TICKET_MAX)
        return 0 if ticket < self.offset else (ticket - self.offset) // self.increment + 1

    def __str__(self) -> str:
        return f"TicketSplit(increment={self.increment}, offset={self.offset})"


def tickets_above(block: range, ticket: int) -> range:
    """The tickets of ``block`` (an increasing range) that are larger than ``ticket``."""
    require_int(ticket, "ticket")
    skip = 0 if ticket < block.start else (ticket - block.start) // block.step + 1
    return block[skip:]


class TicketScheme(SnowflakeScheme):
    """Tickets as key text: 20-digit zero-padded decimal (any number up to 2**64 - 1; unpadded
    decimal parses too), so string sort keys sort by ticket, and ``numeric`` for Number keys.

    A ticket holds no time: ``sorts_by_time`` is False and every time question raises, so
    windows, buckets and newest-first keys refuse it. ``sorts_by_value`` tells entities that
    the text still sorts (by number), so keys, parsing and writes work.
    """

    sorts_by_time = False
    sorts_by_value = True

    def __init__(self) -> None:
        super().__init__("ticket", epoch_ms=0, shift=0, bits=64)
        self.min_ms = self.max_ms = 0

    def _time_of(self, value: int) -> int:
        raise no_time(self.name)

    def _compose(self, ms: int, fill: bool) -> int:
        raise no_time(self.name)


#: The ticket scheme: ``Entity(pk=..., sk="Photo#{id}", scheme=TICKET)``.
TICKET = TicketScheme()

#: Every decimal number is a ticket, so ``inspect`` reads one only when told (no readings).
REGISTRATIONS = (
    Registration(
        "ticket",
        TICKET,
        generated=False,
        fields=lambda _, value: {"number": value},
        summary="Flickr-style ticket numbers, 20 zero-padded digits (no time)",
    ),
)
