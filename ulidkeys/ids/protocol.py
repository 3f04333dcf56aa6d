"""The protocol every time-sortable id scheme implements, and what planners derive from it.

Layouts, entities and planners are written once against :class:`IdScheme`: a scheme says how
its text looks, how to read the time out of an id, which ids are the smallest and largest of a
millisecond, where the id space ends, and which of its bits are random (for shards); one that
can make ids has ``new()``, which layouts and entities call for a fresh key.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Protocol, TypeGuard, runtime_checkable

from ulidkeys.errors import InvalidType, InvalidValue, describe, require_str


@runtime_checkable
class IdScheme(Protocol):
    """What ulidkeys needs to know about an id scheme.

    Beside these members, a scheme that can make ids has ``new() -> str``: the canonical text
    of a fresh id of the wall clock's time, its random bits from the OS (``os.urandom``).
    Layouts and entities call it (``KeyLayout.new_key``, so ``Bucket.put_new`` and presigned
    uploads; ``Entity.keys()`` given no id), and refuse to make keys for a scheme without it. It
    is not a member of the protocol because schemes that need more to make an id do without
    (Snowflakes need a node: ``generator_for(name, node=...)``; tickets come from a counter).
    The every-scheme tests require it of every registered scheme made from a clock and random
    bits that takes no node.
    """

    #: Short name, e.g. ``"ulid"``, ``"uuid7"``, ``"ksuid"``.
    name: str
    #: Time resolution of the id in milliseconds (1 for ms schemes, 1000 for second schemes).
    resolution_ms: int
    #: First and last epoch millisecond the scheme can represent.
    min_ms: int
    max_ms: int
    #: Whether the canonical text sorts by time (zero-padded, fixed width, ASCII-ordered digits).
    sorts_by_time: bool
    #: Characters of the canonical text (every canonical id has exactly this many).
    length: int
    #: A regular expression (no anchors, no groups) matching exactly the canonical texts.
    pattern: str
    #: Whether the canonical text is decimal digits, so the id can be a DynamoDB Number.
    numeric: bool

    def parse(self, text: str) -> str:
        """The canonical text of ``text``; raise InvalidId (a ValueError) if it is not one."""
        ...

    def timestamp_ms(self, text: str) -> int:
        """The epoch millisecond held in the id (floored to the scheme's resolution)."""
        ...

    def min_for(self, ms: int) -> str:
        """The smallest id whose time is ``ms`` (which must be a multiple of the resolution)."""
        ...

    def max_for(self, ms: int) -> str:
        """The largest id whose time is ``ms``."""
        ...

    def to_int(self, text: str) -> int:
        """The id's numeric form (its bits as an unsigned integer)."""
        ...

    def from_int(self, value: int) -> str:
        """The canonical text of a numeric form; InvalidId when the number is no id."""
        ...

    def random_bits(self, text: str) -> int | None:
        """The id's bits beside its time as an integer (random, or a process value and a
        counter as ObjectId's): :func:`shard_of` takes a key's shard from them.

        None only for a ``numeric`` scheme (decimal text: Snowflakes, tickets), whose ids are
        sharded by a hash of their text instead; every other time-sortable scheme returns its
        bits, never None (the every-scheme tests hold both).
        """
        ...


#: Types whose instances passed the protocol check (see :func:`is_id_scheme`).
_SCHEME_TYPES: set[type] = set()


def is_id_scheme(value: object) -> TypeGuard[IdScheme]:
    """``isinstance(value, IdScheme)``, remembered per type: a runtime protocol check looks up
    every member (~18 µs), which was most of the time ``TimeWindow.bounds`` takes."""
    kind = type(value)
    if kind in _SCHEME_TYPES:
        return True
    if isinstance(value, IdScheme):
        _SCHEME_TYPES.add(kind)  # a set's add is atomic: threads may race to add it, harmlessly
        return True
    return False


class MsWindow(Protocol):
    """Anything with a half-open ``[start_ms, end_ms)`` (a :class:`~ulidkeys.TimeWindow`)."""

    @property
    def start_ms(self) -> int: ...

    @property
    def end_ms(self) -> int: ...


def first_at_or_after(scheme: IdScheme, ms: int) -> str | None:
    """The smallest id whose time is ``>= ms``, or None if the scheme has no such id."""
    if ms > scheme.max_ms:
        return None
    step = scheme.resolution_ms
    rounded = max(scheme.min_ms, -(-ms // step) * step)
    return None if rounded > scheme.max_ms else scheme.min_for(rounded)


def id_floor(scheme: IdScheme) -> str:
    """A text at or below every id of the scheme: its smallest id."""
    return scheme.min_for(scheme.min_ms)


def id_ceiling(scheme: IdScheme) -> str:
    """A one-character text above every id of the scheme (``"8"`` for ULIDs).

    The largest id's first character, raised by one: every id (and every key that continues
    after an id) sorts below it, and it is short enough to stay a legal key bound.
    """
    return chr(ord(scheme.max_for(scheme.max_ms)[0]) + 1)


def id_range(scheme: IdScheme, start_ms: int, end_ms: int) -> tuple[str, str]:
    """``(lo, hi)``: ``lo <= id < hi`` exactly for the ids whose time is in ``[start, end)``.

    Also exact for ``id + anything`` (a suffix after a fixed-width id never changes its order
    against another id). Past the scheme's last time, ``hi`` is :func:`id_ceiling`.
    """
    require_sortable(scheme)
    ceiling = id_ceiling(scheme)
    lo = first_at_or_after(scheme, start_ms)
    hi = first_at_or_after(scheme, end_ms)
    return (ceiling if lo is None else lo, ceiling if hi is None else hi)


def require_sortable(scheme: IdScheme) -> IdScheme:
    """The scheme, if its text sorts by time; else InvalidValue (no string range is exact)."""
    if not scheme.sorts_by_time and has_no_time(scheme):
        raise no_time(scheme.name)
    if not scheme.sorts_by_time:
        raise InvalidValue(
            f"the text of {scheme.name} ids does not sort by time, so no key range can select "
            f"a time window; {_sortable_advice(scheme)}"
        )
    return scheme


def key_scheme(
    scheme: object, error: Callable[[str], Exception], *, timeless: bool = False
) -> IdScheme:
    """``scheme`` as the scheme of the ids in keys (a layout's, an entity's): InvalidType when it
    is no id scheme; ``error`` (the caller's kind: InvalidLayout, InvalidKeyTemplate) saying
    why when its text does not sort by time. ``timeless``: ids that hold no time (tickets)
    pass, for keys only."""
    if not is_id_scheme(scheme):
        raise InvalidType(f"scheme={describe(scheme)} is not an id scheme")
    if timeless and has_no_time(scheme):
        return scheme
    try:
        return require_sortable(scheme)
    except InvalidValue as refused:
        raise error(str(refused)) from None


def _sortable_advice(scheme: IdScheme) -> str:
    """What to use instead of a scheme whose text does not sort: a number's text sorts once
    zero-padded; a UUID's does not in any form (random bits, or a time split across fields)."""
    if scheme.numeric:
        return "use a fixed-width (zero-padded) form of the scheme"
    return "keys read by time need a time-ordered scheme (e.g. ulid, uuid7, uuid6, ksuid)"


def has_no_time(scheme: IdScheme) -> bool:
    """Whether the scheme's text sorts (by number) but holds no time
    (:data:`~ulidkeys.dynamodb.TICKET`): entities take such ids as keys, and refuse windows,
    buckets and newest-first keys."""
    return getattr(scheme, "sorts_by_value", False) is True


def no_time(name: str) -> InvalidValue:
    """The error for asking the time of an id that holds none (a ticket)."""
    return InvalidValue(
        f"{name} ids hold no time (they are counted up, not stamped), so no time window, time "
        f"bucket or newest-first key can use them; select {name}s by number instead"
    )


def inverted_time(scheme: IdScheme, ms: int) -> int:
    """``min_ms + max_ms - ms``: the scheme's time range turned upside down (an involution)."""
    return scheme.min_ms + scheme.max_ms - ms


def inverted_window(scheme: IdScheme, start_ms: int, end_ms: int) -> tuple[int, int]:
    """The window of inverted times holding exactly the ids of ``[start, end)``.

    ``start <= t < end`` exactly when ``K - end < K - t <= K - start`` (``K = min_ms +
    max_ms``), i.e. the half-open ``[K - end + 1, K - start + 1)``.
    """
    total = scheme.min_ms + scheme.max_ms
    return total - end_ms + 1, total - start_ms + 1


def key_window(scheme: IdScheme, newest_first: bool, start_ms: int, end_ms: int) -> tuple[int, int]:
    """The window of the times *in the keys* holding ``[start, end)``: itself, or the inverted
    window when the keys hold newest-first (inverted) ids; layouts and entities both ask."""
    return inverted_window(scheme, start_ms, end_ms) if newest_first else (start_ms, end_ms)


def invert_id(scheme: IdScheme, text: str) -> str:
    """The id with its time ``t`` replaced by :func:`inverted_time` and every other bit kept.

    Its text has the scheme's width and alphabet (it is a valid id of the scheme), so keys
    embedding inverted ids list newest first; applied twice it gives the id back. A newest-
    first layout or entity stores these and parses the original back.
    """
    require_sortable(scheme)
    ms = scheme.timestamp_ms(text)
    flipped = inverted_time(scheme, ms)
    with_time = getattr(scheme, "with_time", None)  # the built-in schemes know their fields
    if with_time is not None:
        inverted: str = with_time(text, flipped)
    else:  # a time field above every other bit: move it by arithmetic
        rest = scheme.to_int(text) - scheme.to_int(scheme.min_for(ms))
        inverted = scheme.from_int(scheme.to_int(scheme.min_for(flipped)) + rest)
    if scheme.timestamp_ms(inverted) != flipped:
        raise InvalidValue(
            f"id {text} has time {ms} ms, whose inverted time {flipped} ms cannot hold its "
            f"other bits in a {scheme.name} id"
        )
    return inverted


def shard_of(scheme: IdScheme, text: str, shards: int) -> int:
    """The shard (0 .. shards-1) of an id: its random bits modulo ``shards``.

    Schemes without random bits (Snowflake-style ids) use a stable hash of the text instead, so
    writes still spread evenly; either way the shard is derived from the id alone and a key can
    be rebuilt from its id.
    """
    bits = scheme.random_bits(text)
    if bits is None:  # hash the canonical text, so every spelling of an id has one shard
        canonical = scheme.parse(text).encode()
        bits = int.from_bytes(hashlib.blake2b(canonical, digest_size=8).digest(), "big")
    return bits % shards


def bounds(scheme: IdScheme, window: MsWindow, prefix: str = "") -> tuple[str, str]:
    """``(lo, hi)`` with ``lo <= key < hi`` exactly for keys ``prefix + id + anything`` whose id
    time is in the window.

    For schemes coarser than a millisecond, an id at second ``s`` has time ``s * 1000``, so
    the window selects the ids whose whole-second time is in it. When the window reaches past
    the scheme's last representable time, ``hi`` is ``prefix +`` :func:`id_ceiling`.
    """
    require_str(prefix, "prefix")
    start, end = getattr(window, "start_ms", None), getattr(window, "end_ms", None)
    if not is_id_scheme(scheme) or not (isinstance(start, int) and isinstance(end, int)):
        raise InvalidType(
            f"bounds({describe(scheme)}, {describe(window)}) needs an id scheme and a window "
            "with int start_ms and end_ms (a TimeWindow)"
        )
    lo, hi = id_range(scheme, start, end)
    return prefix + lo, prefix + hi


def in_window(scheme: IdScheme, window: MsWindow, text: str) -> bool:
    """Whether the id's time falls in the half-open window."""
    return window.start_ms <= scheme.timestamp_ms(text) < window.end_ms
