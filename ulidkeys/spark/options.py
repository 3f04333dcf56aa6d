"""The options of the ``ulidkeys.*`` Spark data sources, read with the library's checks (a bad
one is an error naming ``option("name")`` and its rule), and the partitions they hand Spark."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from botocore.exceptions import (
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    InvalidRegionError,
    NoCredentialsError,
    NoRegionError,
    ReadTimeoutError,
)
from botocore.utils import (
    is_valid_endpoint_url,
    is_valid_ipv6_endpoint_url,
    validate_region_name,
)
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
from ulidkeys.dynamodb import Collection, Entity
from ulidkeys.errors import (
    InvalidValue,
    InvalidWindow,
    ServiceError,
    UlidkeysError,
    aws_error,
    describe,
    require_count,
)
from ulidkeys.ids.registry import scheme_named
from ulidkeys.planning.locations import check_bucket_name, split_s3_url
from ulidkeys.planning.plans import Slice, fixed_window
from ulidkeys.s3 import KeyLayout
from ulidkeys.timeinput import format_ms, to_ms

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
#: The column a DynamoDB row's id time fills (when the schema has it; ``id_time_column``).
ID_TIME = "id_time"
#: The column of each row's kind, when the source reads a collection.
KIND_COLUMN = "kind"
#: The column of the attributes outside a DynamoDB schema, with ``others=keep``.
OTHERS_COLUMN = "_others"
DEFAULT_PARTITIONS = 16
SAMPLE_ITEMS = 100
SETTLE_MS, OVERLAP_MS = 30_000, 60_000  # the consumer's defaults (ulidkeys.engine.consuming)
LAYOUT_OPTIONS = ("location", "bucket", "prefix", "shards", "period", "suffix", "scheme")
ENTITY_OPTIONS = ("pk_attr", "sk_attr", "separator", "id_field", "bucket")
#: The options of both sources: where the clients connect, and the one call at load().
CLIENT_OPTIONS = ("region", "endpoint_url", "verify")

_T = TypeVar("_T")


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

    def flag(self, name: str, default: bool = False) -> bool:
        value = (self.text(name) or str(default)).lower()
        if value not in ("true", "false"):
            raise InvalidValue(f'option("{name}")={value!r} must be true or false')
        return value == "true"

    def choice(self, name: str, choices: Sequence[str], default: str) -> str:
        value = self.text(name, default) or default
        if value not in choices:
            raise InvalidValue(f'option("{name}")={value!r} must be one of {", ".join(choices)}')
        return value

    def settings(self) -> ClientSettings:
        """Where every executor's client connects (credentials: each executor's own), the
        endpoint's form and the region's checked as botocore checks them when it makes a client
        (on an executor, in a task, where its error would name no option)."""
        region, endpoint = self.text("region"), self.text("endpoint_url")
        if endpoint is not None and not (
            endpoint.lower().startswith(("http://", "https://"))
            and (is_valid_endpoint_url(endpoint) or is_valid_ipv6_endpoint_url(endpoint))
        ):
            raise InvalidValue(
                f'option("endpoint_url")={endpoint!r} is not a URL a client can connect to: '
                "write http:// or https://, a host and an optional port, e.g. "
                "http://127.0.0.1:5000"
            )
        if region is not None:
            try:
                validate_region_name(region)
            except InvalidRegionError:
                raise InvalidValue(
                    f'option("region")={region!r} is not a region name, e.g. us-east-1'
                ) from None
        return ClientSettings(region, endpoint)

    def since_ms(self, why: str) -> int:
        """``since`` (required), read now: a batch window's start or where a new stream starts."""
        since = self.required("since", why)
        return to_ms(since, 'option("since")')

    def window(self, why: str) -> tuple[int, int]:
        """``[since, until)`` in ms: fixed times, so the driver and every executor agree."""
        start, end = self._fixed("since", why), self._fixed("until", why)
        if start > end:
            raise InvalidWindow(
                f'option("since")={self.given["since"]!r} ({format_ms(start)}) is after '
                f'option("until")={self.given["until"]!r} ({format_ms(end)}): a window needs '
                "since <= until"
            )
        return start, end

    def _fixed(self, name: str, why: str) -> int:
        """One end of a window: a fixed time (the window [end, end) checks it alone)."""
        value, shown = self.text(name), f'option("{name}")'
        return fixed_window(value, value, why, (shown, shown))[0]

    @contextmanager
    def naming(self, *names: str) -> Iterator[None]:
        """Errors of the library raised inside say which of the options ``names`` they are
        about (a layout's or an entity's own error names its argument, not the option)."""
        try:
            yield
        except UlidkeysError as error:
            message = str(error)
            if 'option("' not in message:
                given = [f'option("{name}")={self.given[name]!r}' for name in names]
                error.args = (f"{', '.join(given) or 'the options'}: {message}",)
            raise

    def check_known(self, known: Sequence[str]) -> None:
        unknown = sorted(set(self.given) - set(known))
        if unknown:
            raise InvalidValue(
                f"unknown option(s) {', '.join(unknown)}; these sources take "
                f"{', '.join(sorted(known))}"
            )


_NETWORK_ERRORS = (
    EndpointConnectionError, ConnectTimeoutError, ConnectionClosedError, ReadTimeoutError,
)  # fmt: skip
#: What the one call at load() tells of an option, by AWS's error code.
_MISSING = {
    "NoSuchBucket": "no such bucket",
    "ResourceNotFoundException": "no such table (or index)",
}


def answered(call: Callable[[], _T], subject: str, options: SourceOptions) -> _T:
    """``call()``, the one call a source makes from the driver when it is defined (``load()``):
    a failure is the library's error naming the option it is about (``subject``, such as
    ``option("bucket")='events'``, or the endpoint), in place of a botocore traceback from an
    executor's task later. ``option("verify")="false"`` skips the call."""
    endpoint, region = options.given.get("endpoint_url"), options.given.get("region")
    where = (
        f'option("endpoint_url")={endpoint!r}'
        if endpoint
        else f'AWS in option("region")={region!r}'
        if region
        else "AWS"
    )
    try:
        return call()
    except NoRegionError:
        raise InvalidValue(
            f'{subject}: no AWS region is set on the driver; pass option("region") (or set '
            "AWS_DEFAULT_REGION on the driver and the executors)"
        ) from None
    except NoCredentialsError:
        raise ServiceError(
            f"{subject}: no AWS credentials found on the driver (the executors need theirs "
            'too); or skip the driver\'s check with option("verify", "false")'
        ) from None
    except _NETWORK_ERRORS as error:
        raise ServiceError(
            f"{where} could not be reached from the driver ({error}); check the endpoint "
            "and the network"
        ) from None
    except ClientError as error:
        code, status = aws_error(error)
        said = error.response.get("Error", {}).get("Message") or code or status
        what = _MISSING.get(code or "") or (
            f"{error.operation_name} was refused ({code or status}: {said})"
        )
        raise ServiceError(
            f'{subject}: {what}; check the name, option("region") and the credentials'
        ) from None


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
        with options.naming("layout", *[n for n in ("config",) if n in options.given]):
            found = config.load(options.text("config")).layout(named)
        return found.bucket_name, found.layout
    location = options.text("location")
    if location is not None:
        if "bucket" in options.given or "prefix" in options.given:
            raise InvalidValue(
                f'option("location")={location!r} names the bucket and the prefix: it takes no '
                'option("bucket") or option("prefix")'
            )
        with options.naming("location"):
            bucket, prefix = split_s3_url(location)
    else:
        bucket = options.required("bucket", "the bucket (or location=s3://bucket/prefix/)")
        prefix = options.given.get("prefix", "")  # "" (the default): the whole bucket
        if not isinstance(prefix, str):
            raise InvalidValue(f'option("prefix")={describe(prefix)} must be a string')
        with options.naming("bucket"):
            check_bucket_name(bucket)
    settings = [name for name in LAYOUT_OPTIONS[2:] if name in options.given]  # not the bucket
    with options.naming(*settings):
        layout = KeyLayout(
            prefix=prefix,
            shards=options.count("shards", 0, 0) or None,
            period=options.text("period"),  # KeyLayout checks it
            suffix=options.given.get("suffix", ""),
            scheme=scheme_named(options.text("scheme", "ulid") or "ulid"),
        )
    return bucket, layout


def bucket_subject(options: SourceOptions, bucket: str) -> str:
    """How an error names the option that gave the bucket."""
    for name in ("layout", "location", "bucket"):
        if name in options.given:
            shown = f'option("{name}")={options.given[name]!r}'
            return shown if name == "bucket" else f"{shown} (bucket {bucket!r})"
    return f"bucket {bucket!r}"


def entity_of(options: SourceOptions) -> tuple[str, Entity | Collection]:
    """The table and entity: ``entity`` (a name in ulidkeys.toml: an entity, or a collection,
    whose kinds are read together) or ``table`` + ``pk``/``sk``."""
    named = options.text("entity")
    if named is not None:
        with options.naming("entity", *[n for n in ("config",) if n in options.given]):
            declared = config.load(options.text("config"))
            if named in declared.collections:
                collection = declared.collection(named)
                table = options.text("table", collection.table_name) or collection.table_name
                return table, collection.collection
            found = declared.entity(named)
        return options.text("table", found.table_name) or found.table_name, found.entity
    table = options.required("table", "the DynamoDB table (or entity=, a name in ulidkeys.toml)")
    pk = options.required("pk", "the partition key template, e.g. Org#{org}")
    sk = options.required("sk", "the sort key template, e.g. Post#{id}")
    extra: dict[str, Any] = {name: options.text(name) for name in ENTITY_OPTIONS}
    entity_options = ("pk", "sk", *ENTITY_OPTIONS, "shards", "scheme", "newest_first_keys")
    settings = [name for name in entity_options if name in options.given]
    with options.naming(*settings):
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
