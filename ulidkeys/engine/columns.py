"""Pages of columns (``Results.pages(columns=...)``), written once for every adapter: the
columns asked for checked, the row each listed item gives the engine instead of the item (its
members asked for), and the page of columns made from a list of ``(position, row)`` entries,
in result order. An adapter says which names it offers, which member of an item each one is,
and which columns it makes from the positions instead (a key, an id's time).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import itemgetter, methodcaller
from typing import Any

from ulidkeys.engine.scheduling import Columns, Shape
from ulidkeys.errors import InvalidType, InvalidValue, describe
from ulidkeys.planning.plans import Position

#: Makes one column of a page from its positions (in result order).
FromPositions = Callable[[list[Position]], list[Any]]
_FIRST, _SECOND = itemgetter(0), itemgetter(1)


def check_names(
    names: Sequence[object], offered: Iterable[str] | None, what: str
) -> tuple[str, ...]:
    """``names`` checked: strs (InvalidType), at least one, each once, each one of ``offered``
    (None: any non-empty name) (InvalidValue naming the name, ``what`` does not offer it,
    and what to choose)."""
    choose = "" if offered is None else f"; choose from {', '.join(offered)}"
    if not names:
        raise InvalidValue(f"columns=() names no column{choose}")
    allowed = None if offered is None else set(offered)
    for name in names:
        if not isinstance(name, str):
            raise InvalidType(f"columns holds {describe(name)}: a column name is a str")
        if allowed is None and not name:
            raise InvalidValue("columns holds '': a column name is an attribute's name")
        if allowed is not None and name not in allowed:
            raise InvalidValue(f"columns holds {name!r}, which {what} does not offer{choose}")
    checked = tuple(str(name) for name in names)
    if len(set(checked)) != len(checked):
        twice = next(name for name in checked if checked.count(name) > 1)
        raise InvalidValue(f"columns names {twice!r} twice: each column once")
    return checked


@dataclass(frozen=True)
class ColumnSpec:
    """The columns asked for (``names``, in the caller's order), the member of an item each
    one is (``member_of``; absent: made from the positions), and the members a row holds for
    them (``members``: each once, in the order of ``names``)."""

    names: tuple[str, ...]
    member_of: Mapping[str, str]
    members: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        members = dict.fromkeys(self.member_of[n] for n in self.names if n in self.member_of)
        object.__setattr__(self, "members", tuple(members))

    def rows(self, columns: Mapping[str, list[Any]]) -> Iterable[Any]:
        """The rows of the items of a page read into ``columns`` (one list per member)."""
        members = self.members
        if not members:
            return repeat(None)
        if len(members) == 1:
            return columns[members[0]]
        return zip(*(columns[member] for member in members), strict=True)

    def rows_of(self, items: Sequence[Mapping[str, Any]]) -> Iterable[Any]:
        """The rows of a page of items (mappings; None for a member one lacks), made in C."""
        members = self.members
        if not members:
            return repeat(None, len(items))
        if len(members) == 1:
            return map(methodcaller("get", members[0]), items)
        return zip(*(map(methodcaller("get", member), items) for member in members), strict=True)

    def row_of(self) -> Callable[[Mapping[str, Any]], Any]:
        """The row of one item's mapping (None for a member it lacks): one value, a tuple of
        values, or None when no member is asked for."""
        members = self.members
        if not members:
            return _nothing
        if len(members) == 1:
            member = members[0]
            return lambda obj: obj.get(member)
        return lambda obj: tuple(map(obj.get, members))

    def shape(self, derived: Mapping[str, FromPositions]) -> Shape:
        """The page of columns of a list of ``(position, row)`` entries: each member's values
        from the rows, each other column made by ``derived`` from the positions."""
        names, members, member_of = self.names, self.members, self.member_of
        missing = [name for name in names if name not in member_of and name not in derived]
        if missing:  # an adapter's offer and its shape disagree: never a column left out
            raise InvalidValue(f"columns holds {missing[0]!r}, which this listing cannot make")

        def shape(entries: list[tuple[Any, Any]]) -> Columns:
            if not entries:
                return {name: [] for name in names}
            positions: list[Position] | None = None
            values: dict[str, list[Any]] = {}
            if len(members) == 1:
                values[members[0]] = list(map(_SECOND, entries))
            elif members:
                transposed = zip(*map(_SECOND, entries), strict=True)
                values.update(zip(members, map(list, transposed), strict=True))
            out: Columns = {}
            for name in names:
                member = member_of.get(name)
                if member is not None:
                    out[name] = values[member]
                    continue
                if positions is None:
                    positions = list(map(_FIRST, entries))
                out[name] = derived[name](positions)
            return out

        return shape


def keys_of(positions: list[Position]) -> list[Any]:
    """The keys of positions (``(id, key)``): the key column of a listing."""
    return list(map(_SECOND, positions))


def times_of(time_of: Callable[[Position], int]) -> FromPositions:
    """The column of the ids' times of positions, each read by ``time_of``."""
    return lambda positions: list(map(time_of, positions))


def _nothing(_obj: Mapping[str, Any]) -> None:
    return None
