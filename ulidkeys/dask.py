"""Windows that outgrow one machine, on the engine users already run: a ``dask.bag`` whose
partitions each list (or query) one slice of a window on a worker. Slices are plain data
(:class:`~ulidkeys.planning.plans.Slice`), so only the slice, the layout or entity and the
client's settings cross the wire; each worker builds its own boto3 client.

Needs Dask (``pip install 'ulidkeys[dask]'``); imported only when used. What it offers:

- :func:`window_bag` (a bucket's window) and :func:`query_bag` (a table's window): bags of one
  time slice per partition, each worker connecting where the bound object's client does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import dask.bag as db

from ulidkeys.clients import ClientSettings
from ulidkeys.dynamodb import Entity, Table
from ulidkeys.errors import InvalidType, describe, require_count
from ulidkeys.planning.layout import KeyLayout
from ulidkeys.planning.plans import MAX_SLICES, Slice, fixed_window
from ulidkeys.s3 import Bucket
from ulidkeys.timeinput import TimeInput

__all__ = ["query_bag", "window_bag"]


def _pieces(plan: Any, partitions: int) -> list[str]:
    require_count(partitions, "partitions", 1, MAX_SLICES)
    return [piece.to_json() for piece in plan.slices(partitions)]


def window_bag(
    bucket: Bucket,
    since: TimeInput,
    until: TimeInput,
    *,
    partitions: int = 16,
) -> db.Bag:
    """The objects of ``bucket`` with id time in ``[since, until)`` as a bag of ``partitions``
    partitions, each listing one time slice of the window on a worker: together exactly the
    window, no object twice. ``since``/``until`` must be fixed times (every worker cuts the
    same window). ``window_bag(...).map(process)`` runs the listing and the processing on the
    cluster."""
    if not isinstance(bucket, Bucket):
        raise InvalidType(f"bucket={describe(bucket)} must be a ulidkeys.s3.Bucket")
    start, end = fixed_window(since, until, "window_bag")
    pieces = _pieces(bucket.plan_window(start, end), partitions)
    settings = ClientSettings.of(bucket.client)
    bag: db.Bag = db.from_sequence(pieces, npartitions=len(pieces))
    return bag.map_partitions(_list_slices, settings, bucket.name, bucket.layout, bucket.directory)


def _list_slices(
    pieces: list[str], settings: ClientSettings, name: str, layout: KeyLayout, directory: bool
) -> list[dict[str, Any]]:
    """On a worker: the objects of its slices, each its dict whole. Items, not pages of
    columns (``Results.pages``): the columns offered do not hold every member of the dicts
    (``ChecksumAlgorithm``, ``ChecksumType``...), which a bag of rows rebuilt from them would
    drop without a word."""
    bucket = Bucket(settings.s3(), name, layout, directory=directory)
    return [obj for text in pieces for obj in bucket.list_slice(Slice.from_json(text))]


def query_bag(
    table: Table,
    since: TimeInput,
    until: TimeInput,
    *,
    partitions: int = 16,
    **fields: Any,
) -> db.Bag:
    """The DynamoDB twin of :func:`window_bag`: the entity's items with id time in ``[since,
    until)`` (``fields`` the key fields, as for ``Table.query_window``), each partition querying
    one time slice on a worker."""
    if not isinstance(table, Table):
        raise InvalidType(f"table={describe(table)} must be a ulidkeys.dynamodb.Table")
    start, end = fixed_window(since, until, "query_bag")
    pieces = _pieces(table.plan_window(start, end, **fields), partitions)
    settings = ClientSettings.of(table.target.client)
    bag: db.Bag = db.from_sequence(pieces, npartitions=len(pieces))
    return bag.map_partitions(_query_slices, settings, table.name, table.entity, dict(fields))


def _query_slices(
    pieces: list[str],
    settings: ClientSettings,
    name: str,
    entity: Entity,
    fields: Mapping[str, Any],
) -> list[dict[str, Any]]:
    """On a worker: the items of its slices."""
    table = Table(settings.dynamodb(), entity, table_name=name)
    return [item for text in pieces for item in table.query_slice(Slice.from_json(text), **fields)]
