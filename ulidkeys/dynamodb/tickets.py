"""A Flickr-style ticket server on one DynamoDB item: an atomic counter handing out numbers.

Each reservation is one ``UpdateItem`` that ADDs to the item's count and returns the new count
(``ReturnValues=UPDATED_NEW``); the increment/offset split (:class:`~ulidkeys.dynamodb.TicketSplit`)
turns counts into tickets, so counters in two tables or regions never hand out the same one.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from ulidkeys.dynamodb.clients import TableOrClient, Target, item_key
from ulidkeys.errors import (
    TicketCounterMismatch,
    UnexpectedResponse,
    aws_error,
    describe,
    require_count,
)
from ulidkeys.ids.tickets import TicketSplit, tickets_above

#: Attributes of the counter item besides its key: slots taken, and the split it was made with.
COUNT, INCREMENT, OFFSET = "tickets_taken", "ticket_increment", "ticket_offset"

#: Most tickets one reservation (``block=`` or :meth:`TicketServer.take`) asks for.
MAX_BLOCK = 1_000_000

_SPLIT_CONDITION = "(attribute_not_exists(#i) OR #i = :i) AND (attribute_not_exists(#o) OR #o = :o)"

_servers: weakref.WeakSet[TicketServer] = weakref.WeakSet()


class TicketServer:
    """Unique numbers from the counter item with primary key ``key`` (e.g. ``{"PK":
    "Tickets64", "SK": "a"}``) in a table given as for :class:`~ulidkeys.dynamodb.Table`.

    * ``increment``/``offset``: this counter's share, as MySQL's ``auto_increment_increment``
      / ``auto_increment_offset``: Flickr's two servers are ``increment=2`` with ``offset=1``
      (odd tickets) and ``offset=2`` (even), each on its own item (own table, region or key);
      the item records its split, and a server with another split raises
      TicketCounterMismatch instead of sharing it;
    * ``block``: slots reserved per ``UpdateItem`` (1 by default); :meth:`next` hands a block
      out locally, under a lock, so 100 cuts the calls 100-fold. Tickets of a block not handed
      out before the server is dropped are never used (gaps, never duplicates).

    Thread-safe. A forked child drops the parent's block and reserves its own (the tickets
    stay unique); give the child its own boto3 client.
    """

    def __init__(
        self,
        table_or_client: TableOrClient,
        key: Mapping[str, str],
        *,
        table_name: str | None = None,
        increment: int = 1,
        offset: int = 1,
        block: int = 1,
    ) -> None:
        self.split = TicketSplit(increment, offset)
        require_count(block, "block", 1, MAX_BLOCK)
        self.block = block
        self.key = item_key(key, (COUNT, INCREMENT, OFFSET))
        self.target = Target.resolve(table_or_client, table_name)
        self.calls = 0  # UpdateItem calls that reserved tickets
        self._lock = threading.Lock()  # guards the local block
        self._calls_lock = threading.Lock()  # take() reserves outside the block's lock
        self._pending = range(0)  # the reserved block's tickets not handed out yet
        _servers.add(self)

    def __repr__(self) -> str:
        return (
            f"TicketServer({self.target.table_name!r}, {self.key!r}, increment="
            f"{self.split.increment}, offset={self.split.offset}, block={self.block})"
        )

    def next(self) -> int:
        """A ticket no other call (thread, process, server with another offset) gets."""
        with self._lock:
            if not self._pending:
                self._pending = self._reserve(self.block)
            ticket = self._pending[0]
            self._pending = self._pending[1:]
            return ticket

    def take(self, n: int) -> range:
        """``n`` tickets reserved with one ``UpdateItem`` (a range stepping by ``increment``),
        outside the local block."""
        require_count(n, "n", 1, MAX_BLOCK)
        return self._reserve(n)

    def count(self) -> int:
        """Slots taken from the counter so far (a consistent read; 0 before the first)."""
        stored = self._stored()
        return 0 if stored is None else _whole(stored.get(COUNT, 0), self, "the stored count")

    def advance_past(self, ticket: int) -> int:
        """Make every later ticket larger than ``ticket`` (to continue after ids issued
        elsewhere, e.g. an old MySQL ticket server): the counter moves up if it is below
        (never back), and the local block keeps only its tickets above. Returns the count of
        slots taken afterwards."""
        slots = self.split.slots_through(ticket)
        target = self.target
        with self._lock:
            self._pending = tickets_above(self._pending, ticket)
            try:
                target.client.update_item(
                    **self._request(
                        "SET #n = :n, #i = if_not_exists(#i, :i), #o = if_not_exists(#o, :o)",
                        slots,
                        f"{_SPLIT_CONDITION} AND (attribute_not_exists(#n) OR #n < :n)",
                    )
                )
            except Exception as error:
                if aws_error(error)[0] != "ConditionalCheckFailedException":
                    raise
                stored = self._stored() or {}
                self._check_split(stored)
                return _whole(stored.get(COUNT, 0), self, "the stored count")  # already past
            return slots

    # --- the counter item ---------------------------------------------------------------
    def _request(self, update: str, n: int, condition: str) -> dict[str, Any]:
        target = self.target
        return {
            "TableName": target.table_name,
            "Key": target.item(self.key),
            "UpdateExpression": update,
            "ConditionExpression": condition,
            "ExpressionAttributeNames": {"#n": COUNT, "#i": INCREMENT, "#o": OFFSET},
            "ExpressionAttributeValues": {
                ":n": target.value(n),
                ":i": target.value(self.split.increment),
                ":o": target.value(self.split.offset),
            },
            "ReturnValues": "UPDATED_NEW",
        }

    def _reserve(self, n: int) -> range:
        """One ADD of ``n`` slots: the tickets of the slots it moved the count over."""
        request = self._request(
            "ADD #n :n SET #i = if_not_exists(#i, :i), #o = if_not_exists(#o, :o)",
            n,
            _SPLIT_CONDITION,
        )
        with self._calls_lock:
            self.calls += 1
        try:
            response = self.target.client.update_item(**request)
        except Exception as error:
            if aws_error(error)[0] != "ConditionalCheckFailedException":
                raise
            self._check_split(self._stored() or {})
            raise  # the condition failed on a split that matches: not ours to explain
        attributes = response.get("Attributes")
        if not isinstance(attributes, Mapping) or COUNT not in attributes:
            raise UnexpectedResponse(
                f"UpdateItem on {self.target.table_name!r} answered without the new {COUNT!r} "
                f"(keys: {sorted(response)}); the slots it took are lost, none is handed out twice"
            )
        count = _whole(self.target.to_plain(attributes)[COUNT], self, "the new count")
        if count < n:
            raise UnexpectedResponse(f"{self} added {n} slots but the count is {count}")
        return self.split.tickets(count - n, n)

    def _stored(self) -> dict[str, Any] | None:
        target = self.target
        response = target.client.get_item(
            TableName=target.table_name, Key=target.item(self.key), ConsistentRead=True
        )
        raw = response.get("Item")
        return None if raw is None else target.to_plain(raw)

    def _check_split(self, stored: Mapping[str, Any]) -> None:
        mine = {INCREMENT: self.split.increment, OFFSET: self.split.offset}
        found = (stored.get(INCREMENT), stored.get(OFFSET))
        if any(name in stored and stored[name] != value for name, value in mine.items()):
            raise TicketCounterMismatch(
                f"counter item {self.key} of {self.target.table_name} was set up with "
                f"increment={found[0]}, offset={found[1]}, not {self.split.increment}/"
                f"{self.split.offset}: two counters must never share an item (give each its "
                "own key, table or region); nothing was taken"
            )

    def _after_fork(self) -> None:
        self._lock = threading.Lock()  # another thread may have held it at fork time
        self._calls_lock = threading.Lock()
        self._pending = range(0)  # the parent hands these out


def _whole(value: object, server: TicketServer, what: str) -> int:
    """A stored count as an int; UnexpectedResponse if the item holds anything else."""
    if isinstance(value, (int, Decimal)) and not isinstance(value, bool):
        whole = int(value)
        if whole == value and whole >= 0:
            return whole
    raise UnexpectedResponse(f"{server}: {what} is {describe(value)}, not a count")


def _after_fork_in_child() -> None:
    for server in list(_servers):
        server._after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
