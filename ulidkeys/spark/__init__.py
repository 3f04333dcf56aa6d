"""Windows of a bucket or a DynamoDB partition as Spark DataFrames, and "what is new" as a stream.

Spark 4's Python data sources (:mod:`pyspark.sql.datasource`) let the library supply both the
partitions and the rows: :func:`register` adds

- ``spark.read.format("ulidkeys.s3")``: exactly the objects of a window, one Spark partition
  per time slice (:class:`~ulidkeys.planning.plans.Slice`), each listed by an executor with its
  own boto3 client built from the region and endpoint (credentials: the executor's own);
- ``spark.read.format("ulidkeys.dynamodb")``: exactly the items of an entity's window (or of
  a collection's kinds, with a kind column), the schema given or inferred from a sample;
- ``spark.readStream.format("ulidkeys.s3")``: what is new since the last micro-batch, whose
  offsets are the library's consumer :class:`~ulidkeys.planning.checkpoints.Checkpoint` JSON.

Options are checked on the driver when the DataFrame is defined (``load()``), before any task,
with one call that shows the bucket or table is there; an error names the option (or, for a
row, the attribute) it is about. Needs ``pip install 'ulidkeys[spark]'`` (pyspark 4.2+ and pyarrow).
What it offers:

- :func:`register`: the two sources, once per session;
- :func:`read` and :func:`read_stream`: ``spark.read`` / ``spark.readStream`` of a source with
  the options checked first, so a mistake raises the library's own error;
- :func:`window_urls`: a window's object URLs, for Spark's own readers.
"""

from __future__ import annotations

from pyspark.sql import DataFrame, SparkSession

from ulidkeys.errors import InvalidType, InvalidValue, describe
from ulidkeys.spark.dynamodb import DYNAMODB_FORMAT, DynamoDBSource
from ulidkeys.spark.options import OBJECT_SCHEMA, SourceOptions, layout_of
from ulidkeys.spark.s3 import S3_FORMAT, S3Source, check_stream

__all__ = ["read", "read_stream", "register", "window_urls"]


def register(spark: SparkSession) -> None:
    """Register ``ulidkeys.s3`` and ``ulidkeys.dynamodb`` with ``spark`` (once per session)."""
    if not isinstance(spark, SparkSession):
        raise InvalidType(f"spark={describe(spark)} must be a pyspark.sql.SparkSession")
    spark.dataSource.register(S3Source)
    spark.dataSource.register(DynamoDBSource)


def window_urls(spark: SparkSession, *, scheme: str = "s3a", **options: str) -> list[str]:
    """The URLs (``s3a://bucket/key``) of a window's objects, listed by ``ulidkeys.s3`` on the
    executors with ``options``, oldest first: for ``spark.read.parquet(*urls)`` (or json, csv)
    on a cluster that reads S3 itself."""
    if scheme not in ("s3", "s3a", "s3n"):
        raise InvalidValue(f"scheme={scheme!r} must be s3, s3a or s3n")
    bucket = layout_of(SourceOptions(options))[0]
    frame = spark.read.format(S3_FORMAT).options(**options).load()
    rows = frame.select("key", "id_time").collect()
    rows.sort(key=lambda row: (row["id_time"], row["key"]))
    return [f"{scheme}://{bucket}/{row['key']}" for row in rows]


def read(spark: SparkSession, source: str, **options: str) -> DataFrame:
    """``spark.read.format(source).options(**options).load()`` with the options checked here
    first, so a mistake raises the library's own error in the calling process."""
    sources = {S3_FORMAT: S3Source, DYNAMODB_FORMAT: DynamoDBSource}
    if source not in sources:
        raise InvalidValue(f"source={source!r} must be one of {sorted(sources)}")
    checked = sources[source](options)
    if isinstance(checked, S3Source):
        checked.reader(OBJECT_SCHEMA)
    return spark.read.format(source).options(**options).load()


def read_stream(spark: SparkSession, **options: str) -> DataFrame:
    """``spark.readStream.format("ulidkeys.s3").options(**options).load()`` with the options
    checked here first, the stream's own rules included (no ``until``, no ``contents=lines``),
    which Spark lets a source check only when the query starts."""
    check_stream(SourceOptions(options))
    S3Source(options)
    return spark.readStream.format(S3_FORMAT).options(**options).load()
