"""The options of the ``ulidkeys.*`` Spark data sources, read with the library's checks (a bad
one is an error naming ``option("name")`` and its rule), and the partitions they hand Spark."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pyspark.sql.datasource import (
    InputPartition,
)
from pyspark.sql.types import (
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from ulidkeys import config
from ulidkeys.clients import ClientSettings
from ulidkeys.dynamodb import Entity
from ulidkeys.errors import InvalidValue, describe, require_count
from ulidkeys.ids.registry import scheme_named
from ulidkeys.planning.locations import split_s3_url
from ulidkeys.planning.plans import Slice, fixed_window
from ulidkeys.s3 import KeyLayout

#: The rows of ``ulidkeys.s3``: one per object.
OBJECT_SCHEMA = StructType(
    [
        StructField("key", StringType(), False),
        StructField("size", LongType(), False),
        StructField("last_modified", TimestampType(), True),
        StructField("etag", StringType(), True),
        StructField("id_time", TimestampType(), False),
    ]
)
#: The rows of ``ulidkeys.s3`` with ``contents=lines``: one per line of each object.
LINE_SCHEMA = StructType(
    [
        StructField("key", StringType(), False),
        StructField("id_time", TimestampType(), False),
        StructField("line_number", LongType(), False),
        StructField("line", StringType(), False),
    ]
)
#: The column a DynamoDB row's id time fills (when the schema has it).
ID_TIME = "id_time"
DEFAULT_PARTITIONS = 16
SAMPLE_ITEMS = 100
SETTLE_MS, OVERLAP_MS = 30_000, 60_000  # the consumer's defaults (ulidkeys.engine.consuming)
LAYOUT_OPTIONS = ("location", "bucket", "prefix", "shards", "period", "suffix", "scheme")
ENTITY_OPTIONS = ("pk_attr", "sk_attr", "separator", "id_field", "bucket")


class SourceOptions:
    """A data source's options (strings, names case-insensitive), read with the library's checks:
    a bad one is an error naming ``option("name")`` and the rule."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.given = {str(name).lower(): value for name, value in options.items()}
        self.given.pop("path", None)  # load(path) is not an option of these sources

    def text(self, name: str, default: str | None = None) -> str | None:
        value = self.given.get(name, default)
        if value is not None and (not isinstance(value, str) or not value):
            raise InvalidValue(f'option("{name}")={describe(value)} must be a non-empty string')
        return value

    def required(self, name: str, why: str) -> str:
        value = self.text(name)
        if value is None:
            raise InvalidValue(f'option("{name}") is required: {why}')
        return value

    def count(self, name: str, default: int, low: int = 0, high: int | None = None) -> int:
        value = self.text(name)
        if value is None:
            return default
        try:
            number = int(value)
        except ValueError:
            raise InvalidValue(f'option("{name}")={value!r} must be a whole number') from None
        require_count(number, f'option("{name}")', low, high)
        return number

    def flag(self, name: str) -> bool:
        value = (self.text(name) or "false").lower()
        if value not in ("true", "false"):
            raise InvalidValue(f'option("{name}")={value!r} must be true or false')
        return value == "true"

    def settings(self) -> ClientSettings:
        """Where every executor's client connects (credentials: each executor's own)."""
        return ClientSettings(self.text("region"), self.text("endpoint_url"))

    def window(self, why: str) -> tuple[int, int]:
        """``[since, until)`` in ms: fixed times, so the driver and every executor agree."""
        return fixed_window(self.text("since"), self.text("until"), why)

    def check_known(self, known: Sequence[str]) -> None:
        unknown = sorted(set(self.given) - set(known))
        if unknown:
            raise InvalidValue(
                f"unknown option(s) {', '.join(unknown)}; these sources take "
                f"{', '.join(sorted(known))}"
            )


def layout_of(options: SourceOptions) -> tuple[str, KeyLayout]:
    """The bucket and layout: ``layout`` (a name in ulidkeys.toml, found as the CLI finds it or
    at ``config``), or ``location``/``bucket`` + ``prefix`` and the layout's settings."""
    named = options.text("layout")
    if named is not None:
        given = [name for name in LAYOUT_OPTIONS if name in options.given]
        if given:
            raise InvalidValue(
                f'option("layout")={named!r} names a layout: it takes no {", ".join(given)}'
            )
        found = config.load(options.text("config")).layout(named)
        return found.bucket_name, found.layout
    location = options.text("location")
    if location is not None:
        bucket, prefix = split_s3_url(location)
    else:
        bucket = options.required("bucket", "the bucket (or location=s3://bucket/prefix/)")
        prefix = options.text("prefix", "") or ""
    layout = KeyLayout(
        prefix=prefix,
        shards=options.count("shards", 0, 0) or None,
        period=options.text("period"),  # type: ignore[arg-type]  # KeyLayout checks it
        suffix=options.given.get("suffix", ""),
        scheme=scheme_named(options.text("scheme", "ulid") or "ulid"),
    )
    return bucket, layout


def entity_of(options: SourceOptions) -> tuple[str, Entity]:
    """The table and entity: ``entity`` (a name in ulidkeys.toml) or ``table`` + ``pk``/``sk``."""
    named = options.text("entity")
    if named is not None:
        found = config.load(options.text("config")).entity(named)
        return options.text("table", found.table_name) or found.table_name, found.entity
    table = options.required("table", "the DynamoDB table (or entity=, a name in ulidkeys.toml)")
    pk = options.required("pk", "the partition key template, e.g. Org#{org}")
    sk = options.required("sk", "the sort key template, e.g. Post#{id}")
    extra: dict[str, Any] = {name: options.text(name) for name in ENTITY_OPTIONS}
    entity = Entity(
        pk,
        sk,
        shards=options.count("shards", 0, 0) or None,
        scheme=scheme_named(options.text("scheme", "ulid") or "ulid"),
        newest_first_keys=options.flag("newest_first_keys"),
        **{name: value for name, value in extra.items() if value is not None},
    )
    return table, entity


def fields_of(options: SourceOptions) -> dict[str, str]:
    text = options.text("fields", "{}") or "{}"
    try:
        fields = json.loads(text)
    except ValueError:
        fields = None
    if not isinstance(fields, dict) or not all(isinstance(v, str) for v in fields.values()):
        raise InvalidValue(
            f'option("fields")={text!r} must be a JSON object of key field values, e.g. '
            '{"org": "acme"}'
        )
    return fields


class Piece(InputPartition):
    """One Spark partition: a slice of the window as JSON (plus, streaming, the two offsets)."""

    def __init__(self, piece: str, start: str = "", end: str = "") -> None:
        super().__init__(piece)
        self.piece, self.start, self.end = piece, start, end


def pieces(slices: list[Slice]) -> list[Piece]:
    return [Piece(piece.to_json()) for piece in slices]
