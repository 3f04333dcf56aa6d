"""A bucket listing as pages of columns (``Results.pages(columns=...)``): the columns a listing
offers and the spec of the ones asked (:func:`column_spec`, over the engine's
:class:`~ulidkeys.engine.columns.ColumnSpec`: the row each listed object gives the engine
instead of its dict, and the page of columns made from a list of rows). The page reader
(:mod:`ulidkeys.s3.pages`) reads the asked members straight into lists; a page it leaves to
botocore gives its rows from the dicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ulidkeys.engine.columns import ColumnSpec, FromPositions, check_names, keys_of, times_of
from ulidkeys.engine.scheduling import Shape
from ulidkeys.errors import InvalidValue
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
#: The members an object's row holds (the key is the position's: never in the row).
_IN_ROWS = {name: member for name, member in OFFERED.items() if member not in (None, "Key")}


def column_spec(names: Sequence[object]) -> ColumnSpec:
    """The spec of ``names`` (InvalidValue for a name not offered, a repeated one or none):
    its ``members`` are the ``ListObjectsV2`` members of an object's row."""
    return ColumnSpec(check_names(names, OFFERED, "a bucket listing"), _IN_ROWS)


def column_shape(spec: ColumnSpec, layout: KeyLayout | None) -> Shape:
    """The page of columns of ``spec`` from a list of ``(position, row)`` entries: the key
    from the position, the id's time as ``layout`` reads the key."""
    derived: dict[str, FromPositions] = {"key": keys_of}
    if "id_ms" in spec.names:
        if layout is None:
            raise InvalidValue(
                "columns holds 'id_ms', which needs the bucket's layout: list through a "
                "Bucket, not a bare listing source"
            )
        locate = layout.locator()
        derived["id_ms"] = times_of(lambda position: locate(position[1])[1])  # type: ignore[index]
    return spec.shape(derived)
