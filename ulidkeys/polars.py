"""Polars frames of a time window of S3 objects: exactly the objects ``Bucket.list_window``
gives, read as one lazy scan (Parquet, NDJSON or CSV) with each row's object key and id time
as columns, the connection taken from the bucket's own boto3 client.

Needs Polars (``pip install 'ulidkeys[polars]'``); imported only when used. What it offers:

- :func:`scan_window`: the window's objects as one lazy scan (Parquet, NDJSON or CSV);
- :func:`window_frame`: the window's listing itself as a frame (key, size, id time...), read
  as pages of columns (``Results.pages``), with no Python object per object listed;
- :func:`urls` (the objects' ``s3://`` URLs, oldest first) and :func:`storage_options` (the
  bucket client's connection, for your own Polars reads).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import polars as pl

from ulidkeys.errors import InvalidType, InvalidValue, describe
from ulidkeys.s3 import Bucket
from ulidkeys.s3.signing import credentials_of
from ulidkeys.timeinput import TimeInput

__all__ = ["scan_window", "storage_options", "urls", "window_frame"]

Format = Literal["parquet", "ndjson", "csv"]
#: The column of each row's object URL while the frame is built (dropped from the result).
_URL = "_ulidkeys_url"
#: The formats ``scan_window`` reads, and the Polars scan of each.
_FORMATS: Mapping[str, Any] = {
    "parquet": pl.scan_parquet,
    "ndjson": pl.scan_ndjson,
    "csv": pl.scan_csv,
}


#: The Polars type of each column of a listing (``Results.pages``' names).
_TYPES: Mapping[str, Any] = {
    "key": pl.String,
    "id_ms": pl.Int64,
    "size": pl.Int64,
    "last_modified": pl.Datetime("us", "UTC"),
    "etag": pl.String,
    "storage_class": pl.String,
}


def window_frame(
    bucket: Bucket,
    since: TimeInput | None = None,
    until: TimeInput | None = None,
    *,
    columns: Sequence[str] = ("key", "size", "id_ms"),
    cursor: str | None = None,
    max_workers: int = 8,
) -> pl.DataFrame:
    """The objects whose id time is in ``[since, until)`` - exactly those ``bucket.list_window``
    gives, in its order (oldest first) - as a ``DataFrame`` of one row per object and the
    ``columns`` asked for (``key``, ``size``, ``id_ms``: the id time in epoch ms, ``etag``,
    ``last_modified``, ``storage_class``), read as pages of columns
    (``list_window(...).pages(columns=...)``). ``cursor`` resumes a window listing."""
    if not isinstance(bucket, Bucket):
        raise InvalidType(f"bucket={describe(bucket)} must be a ulidkeys.s3.Bucket")
    listing = bucket.list_window(since, until, cursor=cursor, max_workers=max_workers)
    pages = listing.pages(columns=columns)  # checks the names
    names = list(columns)
    gathered: dict[str, list[Any]] = {name: [] for name in names}
    for page in pages:
        for name in names:
            gathered[name] += page[name]
    return pl.DataFrame(gathered, schema={name: _TYPES[name] for name in names})


def urls(
    bucket: Bucket, since: TimeInput | None = None, until: TimeInput | None = None
) -> list[str]:
    """The ``s3://`` URLs of the window's objects, oldest first (what :func:`scan_window` reads)."""
    return [f"s3://{bucket.name}/{obj['Key']}" for obj in bucket.list_window(since, until)]


def storage_options(bucket: Bucket) -> dict[str, str]:
    """Polars' (object_store's) options for the bucket's client: its region, its current
    credentials, and its endpoint when it is not AWS's (then path-style, and plain HTTP if the
    endpoint is, as a local S3 stand-in needs)."""
    client = bucket.client
    frozen = credentials_of(client).get_frozen_credentials()
    options = {
        "aws_region": client.meta.region_name or "us-east-1",
        "aws_access_key_id": frozen.access_key,
        "aws_secret_access_key": frozen.secret_key,
    }
    if frozen.token:
        options["aws_session_token"] = frozen.token
    endpoint = client.meta.endpoint_url
    if endpoint and not endpoint.rstrip("/").endswith(".amazonaws.com"):
        options["aws_endpoint_url"] = endpoint
        options["aws_virtual_hosted_style_request"] = "false"
        if endpoint.startswith("http://"):
            options["aws_allow_http"] = "true"
    return options


def scan_window(
    bucket: Bucket,
    since: TimeInput | None = None,
    until: TimeInput | None = None,
    *,
    format: Format = "parquet",
    key_column: str = "_key",
    time_column: str = "_id_time",
    options: Mapping[str, str] | None = None,
    **scan_kwargs: Any,
) -> pl.LazyFrame:
    """The rows of the objects whose id time is in ``[since, until)`` - exactly the objects
    ``bucket.list_window`` gives - as one ``LazyFrame``, with ``key_column`` (the object's key)
    and ``time_column`` (its id time, ``Datetime("ms", "UTC")``) added to each row.

    ``options`` replaces the storage options taken from the bucket's client
    (:func:`storage_options`); ``scan_kwargs`` go to Polars' scan (``schema=``, ...). A window
    without objects is an empty frame of the two added columns: nothing is read.
    """
    if not isinstance(format, str):
        raise InvalidType(f"format={describe(format)} must be a str: {', '.join(_FORMATS)}")
    if format not in _FORMATS:
        raise InvalidValue(f"format={describe(format)} must be one of {', '.join(_FORMATS)}")
    for name, column in (("key_column", key_column), ("time_column", time_column)):
        if not isinstance(column, str):
            raise InvalidType(f"{name}={describe(column)} must be a column name (a str)")
        if not column or column == _URL:
            raise InvalidValue(
                f"{name}={describe(column)} must be a column name (not empty, not {_URL!r}, "
                "which scan_window uses while it builds the frame)"
            )
    if key_column == time_column:
        raise InvalidValue(
            f"key_column and time_column are both {key_column!r}: each added column needs a name "
            "of its own"
        )
    taken = sorted(set(scan_kwargs) & {"storage_options", "include_file_paths"})
    if taken:
        raise InvalidValue(
            f"{', '.join(taken)} cannot go to the scan: scan_window sets it (pass options= for "
            "the storage options)"
        )
    listed = window_frame(bucket, since, until, columns=("key", "id_ms"))
    times = listed.select(
        (pl.lit(f"s3://{bucket.name}/") + pl.col("key")).alias(_URL),
        pl.col("key").alias(key_column),
        pl.col("id_ms").cast(pl.Datetime("ms", "UTC")).alias(time_column),
    )
    if not listed.height:
        return times.drop(_URL).lazy()
    scan: pl.LazyFrame = _FORMATS[format](
        times[_URL].to_list(),
        storage_options=dict(options if options is not None else storage_options(bucket)),
        include_file_paths=_URL,
        **scan_kwargs,
    )
    # The objects' own columns (the first object's header or footer is read for them): a join
    # would rename a clashing added column to "<name>_right" without a word.
    columns = scan.collect_schema()
    clashes = [name for name in (key_column, time_column) if name in columns]
    if clashes:
        raise InvalidValue(
            f"the objects have a column {clashes[0]!r} already; pass "
            f"{'key_column' if clashes[0] == key_column else 'time_column'}= another name for "
            "the added one"
        )
    # maintain_order: Polars' join may otherwise give the rows in any order (it does, for
    # objects of more rows than one batch), and a frame's rows come in the objects' order.
    return scan.join(times.lazy(), on=_URL, how="left", maintain_order="left").drop(_URL)
