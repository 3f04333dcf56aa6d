"""A bucket listing as pages of columns (``Results.pages(columns=...)``): the columns a listing
offers, the row each listed object gives the engine instead of its dict, and the page of
columns made from a list of rows. The page reader (:mod:`ulidkeys.s3.pages`) reads the asked
members straight into lists; a page it leaves to botocore gives its rows from the dicts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import itemgetter
from typing import Any

from ulidkeys.engine.scheduling import Columns, Shape
from ulidkeys.errors import InvalidType, InvalidValue, describe
from ulidkeys.planning.layout import KeyLayout

#: The columns a listing offers: each object's ``ListObjectsV2`` member, or None for the one
#: the key gives (``id_ms``: the id's time in epoch milliseconds, as the layout reads the key).
OFFERED: Mapping[str, str | None] = {
    "key": "Key",
    "id_ms": None,
    "size": "Size",
    "last_modified": "LastModified",
    "etag": "ETag",
    "storage_class": "StorageClass",
}
_FIRST, _SECOND = itemgetter(0), itemgetter(1)


@dataclass(frozen=True)
class ColumnSpec:
    """The columns asked for (``names``, in the caller's order) and the ``ListObjectsV2``
    members an object's row holds for them (``members``: the asked ones other than the key,
    each once, in the order of ``names``)."""

    names: tuple[str, ...]
    members: tuple[str, ...]

    @classmethod
    def of(cls, names: Sequence[object]) -> ColumnSpec:
        """The spec of ``names`` (InvalidValue for a name not offered, a repeated one or none)."""
        if not names:
            raise InvalidValue(f"columns=() names no column; choose from {', '.join(OFFERED)}")
        for name in names:
            if not isinstance(name, str):
                raise InvalidType(f"columns holds {describe(name)}: a column name is a str")
            if name not in OFFERED:
                raise InvalidValue(
                    f"columns holds {name!r}, which a bucket listing does not offer; choose "
                    f"from {', '.join(OFFERED)}"
                )
        checked = tuple(str(name) for name in names)
        if len(set(checked)) != len(checked):
            twice = next(name for name in checked if checked.count(name) > 1)
            raise InvalidValue(f"columns names {twice!r} twice: each column once")
        members = tuple(
            member for name in checked if (member := OFFERED[name]) not in (None, "Key")
        )
        return cls(checked, members)

    def rows(self, columns: Mapping[str, list[Any]]) -> Iterable[Any]:
        """The rows of the objects of a page read into ``columns`` (by member name)."""
        members = self.members
        if not members:
            return repeat(None)
        if len(members) == 1:
            return columns[members[0]]
        return zip(*(columns[member] for member in members), strict=True)

    def row_of(self) -> Callable[[Mapping[str, Any]], Any]:
        """The row of one object's dict (None for a member it lacks): one value, a tuple of
        values, or None when only the key is asked for."""
        members = self.members
        if not members:
            return _nothing
        if len(members) == 1:
            member = members[0]
            return lambda obj: obj.get(member)
        return lambda obj: tuple(map(obj.get, members))

    def shape(self, layout: KeyLayout | None) -> Shape:
        """The page of columns of a list of ``(position, row)`` entries."""
        names, members = self.names, self.members
        locate = None
        if "id_ms" in names:
            if layout is None:
                raise InvalidValue(
                    "columns holds 'id_ms', which needs the bucket's layout: list through a "
                    "Bucket, not a bare listing source"
                )
            locate = layout.locator()

        def shape(entries: list[tuple[Any, Any]]) -> Columns:
            if not entries:
                return {name: [] for name in names}
            keys = list(map(_SECOND, map(_FIRST, entries)))  # a position is (id, key)
            values: dict[str, list[Any]] = {}
            if len(members) == 1:
                values[members[0]] = list(map(_SECOND, entries))
            elif members:
                transposed = zip(*map(_SECOND, entries), strict=True)
                values.update(zip(members, map(list, transposed), strict=True))
            out: Columns = {}
            for name in names:
                member = OFFERED[name]
                if member == "Key":
                    out[name] = keys
                elif member is None:
                    assert locate is not None
                    out[name] = [locate(key)[1] for key in keys]  # type: ignore[index]
                else:
                    out[name] = values[member]
            return out

        return shape


def _nothing(_obj: Mapping[str, Any]) -> None:
    return None
