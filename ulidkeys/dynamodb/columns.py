"""A table's query as pages of columns (``Results.pages(columns=...)``): any attribute of the
items by its name (None where an item lacks it, as ``item.get`` gives), and ``id_ms``, the id's
time in epoch milliseconds as the query read the sort key - over the engine's
:class:`~ulidkeys.engine.columns.ColumnSpec`, as a bucket listing's columns are. Each row is
made from the page's plain items, the members asked for taken in C.
"""

from __future__ import annotations

from collections.abc import Sequence

from ulidkeys.engine.columns import ColumnSpec, check_names, times_of
from ulidkeys.engine.scheduling import Shape
from ulidkeys.planning.entity import Entity

#: The column made from the sort key rather than an attribute (as a bucket listing's).
ID_MS = "id_ms"


def column_spec(names: Sequence[object]) -> ColumnSpec:
    """The spec of ``names``: attribute names, and ``id_ms`` (InvalidType for a name that is
    no str, InvalidValue for an empty one, a repeated one or none)."""
    checked = check_names(names, None, "a table's query")
    return ColumnSpec(checked, {name: name for name in checked if name != ID_MS})


def column_shape(spec: ColumnSpec, entity: Entity) -> Shape:
    """The page of columns of ``spec`` from a list of ``(position, row)`` entries: the id's
    time from the position's id, as ``entity``'s keys hold it."""
    key_time = entity.key_time
    return spec.shape({ID_MS: times_of(lambda position: key_time(position[0]))})
