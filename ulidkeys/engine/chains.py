"""A page chain as an I/O-free state machine: one call's pages in order, their order checks,
stop bounds and per-key verdicts (:class:`ChainState`), what a run cost (:class:`Stats`), and the
page an adapter returns (:class:`Page`, from a :class:`PageSource` or an
:class:`AsyncPageSource`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice
from operator import itemgetter, lt
from typing import Any, Generic, Protocol, TypeVar

from ulidkeys.errors import UnorderedListing
from ulidkeys.planning.plans import SKIP, Call, Plan, Position

Item = TypeVar("Item")
CallT = TypeVar("CallT", bound=Call)
CallC = TypeVar("CallC", bound=Call, contravariant=True)
Ordered = tuple[Position, Any]


@dataclass
class Stats:
    """What a listing or query cost and gave.

    ``calls`` requests sent; ``read`` keys or items the service read for them (S3: keys and
    common prefixes transferred; DynamoDB: ``ScannedCount``); ``returned`` items handed to the
    caller; ``skipped`` read ones that do not fit the layout or template; ``filtered`` read
    ones that fit but that a filter the caller asked for left out (another suffix than
    ``latest(suffix=...)``'s). The rest (:attr:`outside`) fitted but lay outside the window or
    past a stop bound.
    """

    calls: int = 0
    read: int = 0
    returned: int = 0
    skipped: int = 0
    filtered: int = 0

    @property
    def outside(self) -> int:
        return self.read - self.returned - self.skipped - self.filtered

    @property
    def read_per_item(self) -> float:
        """Read per item returned: 1.0 means nothing was read and thrown away."""
        if self.returned:
            return self.read / self.returned
        return math.inf if self.read else 0.0


@dataclass(frozen=True)
class Page:
    """One answer, as the executor needs it: ``(key, item)`` pairs in the service's order,
    the continuation token (None on the last page) and how much the service read."""

    entries: Sequence[tuple[Any, Any]]
    token: Any
    read: int


class PageSource(Protocol[CallC]):
    """What an adapter provides: one request for one page of one call chain."""

    def fetch(self, call: CallC, token: Any, limit: int | None) -> Page:
        """Send the call (continuing at ``token``, at most ``limit`` items if given)."""
        ...


class AsyncPageSource(Protocol[CallC]):
    """What an asyncio adapter provides: one awaited request for one page of one call chain."""

    async def fetch(self, call: CallC, token: Any, limit: int | None) -> Page:
        """Send the call (continuing at ``token``, at most ``limit`` items if given)."""
        ...


#: Keys at the end of a page looked at for the chain's time (keys that fit the plan carry one).
_TIME_PROBE = 8


class Crowded(Exception):
    """A chain needed more pages than the budget it was given (``latest`` narrows its slice)."""


class ChainState(Generic[CallT]):
    """One call chain of a plan, as a state machine with no I/O.

    :meth:`next_request` says what to send (or None when the chain is done); :meth:`receive`
    takes the answer and returns the positioned items of the answer it holds. Ordered chains
    give them as they come; unordered ones (directory buckets) hold everything until the last
    page, then give it sorted.
    """

    def __init__(
        self, plan: Plan[CallT], call: CallT, stats: Stats, page_budget: int | None = None
    ) -> None:
        self.plan, self.call, self.stats = plan, call, stats
        self._token: Any = None
        self._started = False
        self.done = False
        self._previous: Any = None
        self._held: list[Ordered] = []
        self._budget = page_budget
        self._read = self._kept = 0
        # what the chain has read, and the time of its last key that fits the plan (the
        # density that time slices and the newest-first search steer by)
        self.read = 0
        self.last_ms: int | None = None
        # the ids this chain answers for: a time slice's own, narrowed when its tail is cut off
        self.owns: tuple[str, str] | None = call.owns

    @property
    def started(self) -> bool:
        """The chain's first page has been asked for."""
        return self._started

    @property
    def waiting(self) -> bool:
        """The chain has a page to ask for (it is neither done nor waiting for an answer)."""
        return not self.done and (not self._started or self._token is not None)

    def narrow(self, below: str) -> None:
        """Answer only for ids below ``below`` (another slice lists the rest); the chain
        ends at the first key whose id is at or past it."""
        low = "" if self.owns is None else self.owns[0]
        self.owns = (low, below)

    def next_request(self, remaining: int | None = None) -> tuple[Any, int | None] | None:
        """``(token, limit)`` of the next page to send, None when the chain is done.

        ``remaining`` (items the caller still wants) sets a page limit, scaled up by the share
        of skipped keys seen so far so that children do not cost a call each.
        """
        if self.done:
            return None
        if self._started and self._token is None:
            return None
        if self._budget is not None:
            if self._budget == 0:
                raise Crowded
            self._budget -= 1
        self._started = True
        self.stats.calls += 1  # counted when sent: calls made, not calls used
        limit = None
        if remaining is not None:
            limit = max(1, math.ceil(max(remaining, 1) * (self._read + 1) / (self._kept + 1)))
        return self._token, limit

    def receive(self, page: Page) -> list[Ordered]:
        """The items of one answer that belong to the plan's result, with their positions."""
        stats, plan, call = self.stats, self.plan, self.call
        stats.read += page.read
        descending = plan.newest_first
        ended = False
        whole = self._whole(page.entries) if call.ordered and not descending else None
        if whole is None:
            out, ended = self._one_by_one(page.entries)
        else:
            out = whole
        self.read += page.read
        self._read += len(page.entries)
        self._kept += len(out)
        self._token = None if ended else page.token
        if self._token is None:
            self.done = True
        if call.ordered:
            return out
        self._held += out
        limit = plan.limit
        if limit is not None and len(self._held) > 2 * limit + MAX_HELD_SLACK:
            # only the first ``limit`` in result order can be returned: memory stays O(limit)
            # instead of O(folder) (``latest(20)`` of a directory bucket without period folders)
            self._held.sort(key=_position, reverse=descending)
            del self._held[limit:]
        if not self.done:
            return []
        held, self._held = self._held, []
        held.sort(key=_position, reverse=descending)
        return held

    def _whole(self, entries: Sequence[tuple[Any, Any]]) -> list[Ordered] | None:
        """The entries of an oldest-first chain's page, positioned, when every one of them is
        in the answer and they come in order: read at once, with no Python step per key (most
        pages of a window: those inside it). None: :meth:`_one_by_one` reads the page and
        says which are left out, or raises for keys out of order."""
        if not entries or self.plan.strategy.locate_run is None:
            return None
        keys = list(map(_KEY, entries))
        # judged first: a key that is no text (an item without its sort key) is read one by
        # one, where it is skipped, rather than compared with text here
        judged = self.plan.judge_run(keys, self.owns)
        if judged is None:
            return None
        previous, stop = self._previous, self.call.stop_at
        if previous is not None and keys[0] <= previous:
            return None
        if stop is not None and keys[-1] >= stop:
            return None
        if not all(map(lt, keys, islice(keys, 1, None))):
            return None
        positions, self.last_ms = judged
        self._previous = keys[-1]
        return list(zip(positions, map(_ITEM, entries), strict=True))

    def _one_by_one(self, entries: Sequence[tuple[Any, Any]]) -> tuple[list[Ordered], bool]:
        """The entries of a page that are in the answer, with their positions, key by key;
        and whether the chain ends at this page (a key past its stop bound or its slice)."""
        stats, plan, call = self.stats, self.plan, self.call
        stop = call.stop_at if call.ordered and not plan.newest_first else None
        descending = plan.newest_first
        previous = self._previous
        judge = plan.judge
        owns = self.owns
        out: list[Ordered] = []
        ended = False
        for key, item in entries:
            if call.ordered:
                if previous is not None and (key >= previous if descending else key <= previous):
                    raise UnorderedListing(
                        f"the service returned {key!r} after {previous!r} in one "
                        f"{'descending' if descending else 'ascending'} chain; an exact window "
                        "needs ordered answers (S3 directory buckets, named '...--x-s3', do not "
                        "list in order; a DynamoDB Query always should)"
                    )
                previous = key
                if stop is not None and key >= stop:
                    ended = True  # ordered: nothing after this can be in the window
                    break
            verdict = judge(key)
            if verdict.__class__ is tuple:
                if owns is not None:
                    if verdict[0] >= owns[1] and call.ordered and not descending:
                        ended = True  # the next slice's first id: ids only grow from here
                        break
                    if not owns[0] <= verdict[0] < owns[1]:
                        continue  # another slice's key (a neighbour of the edge)
                out.append((verdict, item))
            elif verdict == SKIP:
                stats.skipped += 1
        self._previous = previous
        locate = plan.strategy.locate
        for key, _item in entries[: -_TIME_PROBE - 1 : -1]:
            found = locate(key)
            if found is not None:
                self.last_ms = found[1]
                break
        return out, ended


#: Unordered chains with a limit trim what they hold once it exceeds twice the limit plus this
#: (a page's worth), so the sort runs about once a page, not once per key.
MAX_HELD_SLACK = 1000


def _position(entry: Ordered) -> Position:
    return entry[0]


_POSITION = itemgetter(0)  # _position in C: the merge of shards calls it for every item
_KEY, _ITEM = itemgetter(0), itemgetter(1)  # of a page's (key, item) entries
