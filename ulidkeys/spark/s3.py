"""``ulidkeys.s3`` for Spark: a window's objects (batch), one partition per time slice listed by
an executor, and what is new (streaming) with the library's consumer checkpoints as offsets."""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    InputPartition,
)
from pyspark.sql.streaming.datasource import SupportsTriggerAvailableNow
from pyspark.sql.types import (
    StructType,
)

from ulidkeys.clients import ClientSettings
from ulidkeys.engine.chains import Stats
from ulidkeys.engine.scheduling import Columns
from ulidkeys.engine.threads import pages
from ulidkeys.errors import InvalidValue, InvalidWindow
from ulidkeys.planning.checkpoints import Checkpoint, delivery_key, duration_ms
from ulidkeys.planning.listings import plan_listing
from ulidkeys.planning.plans import MAX_SLICES, Slice
from ulidkeys.s3 import Bucket, KeyLayout
from ulidkeys.s3.bucket import is_directory_bucket
from ulidkeys.spark.options import (
    CLIENT_OPTIONS,
    DEFAULT_PARTITIONS,
    LAYOUT_OPTIONS,
    LINE_SCHEMA,
    OBJECT_SCHEMA,
    OVERLAP_MS,
    SETTLE_MS,
    Piece,
    SourceOptions,
    answered,
    bucket_subject,
    layout_of,
    pieces,
)
from ulidkeys.timeinput import ms_to_datetime, now_ms

S3_FORMAT = "ulidkeys.s3"
#: The listing's columns (``Results.pages``' names) of a batch's object rows, in the order of
#: ``OBJECT_SCHEMA``'s columns (``id_ms`` becomes ``id_time``).
_OBJECT_COLUMNS = ("key", "size", "last_modified", "etag", "id_ms")
#: The listing's columns that name the objects a batch of lines reads.
_LINE_COLUMNS = ("key", "id_ms")


@dataclass(frozen=True)
class _Listing:
    """What an executor needs to list slices of one bucket: plain, picklable data."""

    settings: ClientSettings
    bucket: str
    layout: KeyLayout

    def open(self) -> Bucket:
        return Bucket(self.settings.s3(), self.bucket, self.layout)

    def probe(self, subject: str, given: SourceOptions) -> None:
        """One ``ListObjectsV2`` of at most one key under the layout's prefix (what the read's
        own calls need: the bucket, its region, the credentials, the endpoint), from the
        driver; a failure names the option it is about."""
        prefix = self.layout.prefix
        if is_directory_bucket(self.bucket):  # their prefixes end in '/'
            prefix = prefix[: prefix.rfind("/") + 1]
        client = self.settings.s3()
        answered(
            lambda: client.list_objects_v2(Bucket=self.bucket, Prefix=prefix, MaxKeys=1),
            subject,
            given,
        )

    def objects(self, piece: Slice) -> Iterator[tuple[str, dict[str, Any]]]:
        """``(delivery key, object)`` of one slice, as a consumer would name them."""
        bucket = self.open()
        plan = bucket.slice_plan(piece)
        for page in pages(plan, bucket.source, Stats(), max_workers=4):
            for position, obj in page:
                yield delivery_key(position), obj

    def column_pages(self, piece: Slice, columns: tuple[str, ...]) -> Iterator[Columns]:
        """One slice's objects as pages of ``columns`` (``Results.pages``), in the order
        :meth:`objects` gives them, with no dict per object."""
        bucket = self.open()
        listing = bucket.run(bucket.slice_plan(piece), max_workers=4, split=False)
        return listing.pages(columns=columns)

    def object_rows(self, piece: Slice) -> Iterator[tuple[Any, ...]]:
        """The rows (``OBJECT_SCHEMA``) of one slice's objects: the rows :func:`_object_row`
        makes of the objects' dicts, in their order, read as pages of columns."""
        for page in self.column_pages(piece, _OBJECT_COLUMNS):
            sizes = page["size"]
            if None in sizes:  # an object without a Size: 0, as _object_row reads it
                sizes = [0 if size is None else size for size in sizes]
            times = map(ms_to_datetime, page["id_ms"])
            yield from zip(
                page["key"], sizes, page["last_modified"], page["etag"], times, strict=True
            )


def _object_row(layout: KeyLayout, obj: Mapping[str, Any]) -> tuple[Any, ...]:
    key = obj["Key"]
    return (
        key,
        int(obj.get("Size", 0)),
        obj.get("LastModified"),
        obj.get("ETag"),
        ms_to_datetime(layout.parse(key).ms),
    )


def _line_rows(bucket: Bucket, key: str, ms: int) -> Iterator[tuple[Any, ...]]:
    """The lines of the object ``key`` (id time ``ms``), as ``spark.read.text`` reads them: a
    UTF-8 byte-order mark (written by Windows tools) is not part of the first line."""
    at = ms_to_datetime(ms)
    body = bucket.client.get_object(Bucket=bucket.name, Key=key)["Body"]
    for number, line in enumerate(body.iter_lines(), 1):
        if number == 1:
            line = line.removeprefix(codecs.BOM_UTF8)
        yield key, at, number, line.decode("utf-8", errors="replace")


_S3_OPTIONS = (
    "layout", "config", *LAYOUT_OPTIONS, "since", "until", "partitions", *CLIENT_OPTIONS,
    "contents", "settle", "overlap",
)  # fmt: skip
_BATCH = "spark.read.format('ulidkeys.s3')"


class S3Source(DataSource):
    """``ulidkeys.s3``: the objects of a window (batch) or what is new (streaming).

    Everything Spark lets a source check when it is defined (``load()``) is checked here, on
    the driver: every option's form, the window when ``until`` says it is a batch's (fixed
    ends, in order), and, with one ``ListObjectsV2`` of one key under the prefix, that the
    bucket is there and reachable. Spark does not tell a source at ``load()`` whether it is
    read as a batch or a stream: a batch read without ``until`` is refused when it is planned
    (its first action), a stream given ``until`` or ``contents=lines`` when it starts
    (:func:`ulidkeys.spark.read_stream` checks both in the calling process).
    """

    def __init__(self, options: MutableMapping[str, str]) -> None:
        super().__init__(options)
        given = SourceOptions(options)
        given.check_known(_S3_OPTIONS)
        bucket, layout = layout_of(given)
        self.listing = _Listing(given.settings(), bucket, layout)
        self.partitions = given.count("partitions", DEFAULT_PARTITIONS, 1, MAX_SLICES)
        self.lines = given.choice("contents", ("objects", "lines"), "objects") == "lines"
        self.since_ms = given.since_ms("where the window (or a new stream) starts")
        if given.text("until") is not None:  # a batch's window (a stream has no until)
            given.window(_BATCH)
        self.settle_ms = duration_ms(given.count("settle", SETTLE_MS), 'option("settle")')
        self.overlap_ms = duration_ms(given.count("overlap", OVERLAP_MS), 'option("overlap")')
        if given.flag("verify", True):
            self.listing.probe(bucket_subject(given, bucket), given)
        self.given = given

    @classmethod
    def name(cls) -> str:
        return S3_FORMAT

    def schema(self) -> StructType:
        return LINE_SCHEMA if self.lines else OBJECT_SCHEMA

    def reader(self, schema: StructType) -> S3Reader:
        if self.given.text("until") is None:
            raise InvalidWindow(
                f'{_BATCH} needs option("until"): a batch reads the window [since, until) '
                "(a stream, spark.readStream, takes no until)"
            )
        start, end = self.given.window(_BATCH)
        return S3Reader(self.listing, start, end, self.partitions, self.lines)

    def streamReader(self, schema: StructType) -> S3StreamReader:
        check_stream(self.given)
        return S3StreamReader(
            self.listing, self.since_ms, self.settle_ms, self.overlap_ms, self.partitions
        )


def check_stream(given: SourceOptions) -> None:
    """The rules of a stream's options Spark lets a source check only when the query starts."""
    if given.text("contents", "objects") == "lines":
        raise InvalidValue('option("contents")="lines" is for batch reads only')
    if given.text("until") is not None:
        raise InvalidValue('option("until") ends a window: a stream has none')


class S3Reader(DataSourceReader):
    """The batch reader: a partition per slice of ``[start_ms, end_ms)``."""

    def __init__(
        self, listing: _Listing, start_ms: int, end_ms: int, partitions: int, lines: bool
    ) -> None:
        self.listing, self.lines = listing, lines
        plan = plan_listing(listing.layout, start_ms, end_ms)
        self.slices = plan.slices(partitions) if end_ms > start_ms else []

    def partitions(self) -> list[Piece]:
        return pieces(self.slices) or [Piece("")]  # Spark wants at least one partition

    def read(self, partition: InputPartition) -> Iterator[tuple[Any, ...]]:
        assert isinstance(partition, Piece)  # what partitions() made
        if not partition.piece:
            return
        if not self.lines:
            yield from self.listing.object_rows(Slice.from_json(partition.piece))
            return
        bucket = self.listing.open()
        for page in self.listing.column_pages(Slice.from_json(partition.piece), _LINE_COLUMNS):
            for key, ms in zip(page["key"], page["id_ms"], strict=True):
                yield from _line_rows(bucket, key, ms)


class S3StreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """What is new, micro-batch by micro-batch; each offset is a consumer checkpoint.

    The driver lists only the tail of each batch's window (the ``overlap`` below its end, what
    the next checkpoint must remember); executors list the whole window in slices and keep the
    objects the two checkpoints say are this batch's: not delivered at the start, and either
    below the end checkpoint's floor or remembered by it. A batch replayed after a restart
    keeps the same objects, so every object is delivered once within the settle/overlap bound.
    """

    def __init__(
        self,
        listing: _Listing,
        since_ms: int,
        settle_ms: int,
        overlap_ms: int,
        partitions: int,
    ) -> None:
        self.listing, self.since_ms = listing, since_ms
        self.settle_ms, self.overlap_ms, self.count = settle_ms, overlap_ms, partitions
        self.scope = plan_listing(listing.layout, 0, 1).scope
        self.ms_of = listing.layout.scheme.timestamp_ms
        self.length = listing.layout.scheme.length
        self.target_ms: int | None = None  # Trigger.AvailableNow: nothing due after this

    def prepareForTriggerAvailableNow(self) -> None:
        """``trigger(availableNow=True)``: deliver what is due now, then stop."""
        self.target_ms = now_ms() - self.settle_ms

    def _checkpoint(self, offset: Mapping[str, Any]) -> Checkpoint:
        text = json.dumps(offset)
        return Checkpoint.from_json(text, source="offset").check_scope(self.scope, "ulidkeys.s3")

    def _ms(self, key: str) -> int:
        return self.ms_of(key[: self.length])

    def initialOffset(self) -> dict[str, Any]:
        first = Checkpoint(self.scope, self.since_ms, self.since_ms)
        return json.loads(first.to_json())  # type: ignore[no-any-return]

    def latestOffset(self, start: dict[str, Any], limit: object = None) -> dict[str, Any]:
        begin = self._checkpoint(start)
        end_ms = now_ms() - self.settle_ms
        if self.target_ms is not None:
            end_ms = min(end_ms, self.target_ms)
        if end_ms <= begin.watermark_ms:
            return start  # nothing is due yet
        floor = max(begin.floor_ms, end_ms - self.overlap_ms)
        kept = {key for key in begin.delivered if self._ms(key) >= floor}
        tail = plan_listing(self.listing.layout, floor, end_ms).slices(1)[0]
        kept.update(key for key, _obj in self.listing.objects(tail))
        end = Checkpoint(self.scope, end_ms, floor, frozenset(kept), begin.sequence + 1)
        return json.loads(end.to_json())  # type: ignore[no-any-return]

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> list[Piece]:
        begin, finish = self._checkpoint(start), self._checkpoint(end)
        if finish.watermark_ms <= begin.watermark_ms:
            return []
        plan = plan_listing(self.listing.layout, begin.floor_ms, finish.watermark_ms)
        texts = json.dumps(start), json.dumps(end)
        return [Piece(piece.to_json(), *texts) for piece in plan.slices(self.count)]

    def read(self, partition: InputPartition) -> Iterator[tuple[Any, ...]]:
        assert isinstance(partition, Piece)  # what partitions() made
        begin = Checkpoint.from_json(partition.start, source="offset")
        finish = Checkpoint.from_json(partition.end, source="offset")
        for key, obj in self.listing.objects(Slice.from_json(partition.piece)):
            if key in begin.delivered:
                continue
            if self._ms(key) < finish.floor_ms or key in finish.delivered:
                yield _object_row(self.listing.layout, obj)

    def commit(self, end: dict[str, Any]) -> None:
        """Spark keeps the offsets (its checkpoint location): nothing to store here."""
