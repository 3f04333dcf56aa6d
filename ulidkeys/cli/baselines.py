"""The alternatives the demo, the notebooks and the benchmarks measure the library against.

A full listing filtered on the client, ``Prefix`` + a ULID character as ``Delimiter`` (lossy),
and a timestamp attribute + ``FilterExpression``: each counts its calls and what it read. They
exist to be compared with ``list_window`` / ``query_window``, not to be used.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ulidkeys.errors import InvalidValue
from ulidkeys.planning.listings import MAX_KEYS, ListCall


@dataclass(frozen=True)
class Measured:
    """What an alternative returned (S3 keys or DynamoDB sort keys, in service order), the
    calls it made, and what those calls read: keys and common prefixes (S3), ScannedCount
    (DynamoDB), as ``Stats.read`` counts them."""

    keys: list[str]
    calls: int
    read: int


def _pages(client: Any, request: dict[str, Any]) -> Iterable[dict[str, Any]]:
    """Every ListObjectsV2 page of ``request`` (``MaxKeys`` <= 1,000 as on AWS)."""
    request = {"MaxKeys": MAX_KEYS, **request}
    while True:
        page: dict[str, Any] = client.list_objects_v2(**request)
        yield page
        if not page.get("IsTruncated"):
            return
        request["ContinuationToken"] = page["NextContinuationToken"]


def _measure_pages(pages: Iterable[dict[str, Any]]) -> Measured:
    keys: list[str] = []
    calls = read = 0
    for page in pages:
        calls += 1
        keys += [obj["Key"] for obj in page.get("Contents", [])]
        read += len(page.get("Contents", [])) + len(page.get("CommonPrefixes", []))
    return Measured(keys, calls, read)


def full_listing(client: Any, bucket: str, prefix: str = "") -> Measured:
    """Every key under ``prefix``: the window is then applied by the caller."""
    return _measure_pages(_pages(client, {"Bucket": bucket, "Prefix": prefix}))


def prefix_delimiter(client: Any, bucket: str, calls: Iterable[ListCall]) -> Measured:
    """The blog-post trick on each of a plan's calls: its ``Prefix``/``StartAfter`` plus
    ``Delimiter`` = the upper bound's next character, hoping S3 folds everything past the
    bound into one CommonPrefix. It also folds every earlier key holding that character."""
    pages: list[dict[str, Any]] = []
    for call in calls:
        if call.stop_at is None or len(call.stop_at) <= len(call.prefix):
            raise InvalidValue(f"calls: {call.explain()} has no upper bound to delimit at")
        request = {**call.request(bucket), "Delimiter": call.stop_at[len(call.prefix)]}
        pages += _pages(client, request)
    return _measure_pages(pages)


def filter_expression(
    client: Any,
    table: str,
    key: tuple[str, str],
    attribute: str,
    start_ms: int,
    end_ms: int,
    sort_key: str = "SK",
) -> Measured:
    """The common DynamoDB alternative: Query the whole partition ``key`` = (name, value) and
    keep ``start_ms <= attribute < end_ms`` with a FilterExpression. DynamoDB reads (and bills)
    every item of the partition. ``client`` is a plain ``boto3.client("dynamodb")``."""
    request: dict[str, Any] = {
        "TableName": table,
        "KeyConditionExpression": "#pk = :pk",
        "FilterExpression": "#ts >= :start AND #ts < :end",
        "ExpressionAttributeNames": {"#pk": key[0], "#ts": attribute},
        "ExpressionAttributeValues": {
            ":pk": {"S": key[1]},
            ":start": {"N": str(start_ms)},
            ":end": {"N": str(end_ms)},
        },
    }
    keys: list[str] = []
    calls = read = 0
    while True:
        page = client.query(**request)
        calls += 1
        read += page["ScannedCount"]
        keys += [item[sort_key]["S"] for item in page["Items"]]
        if "LastEvaluatedKey" not in page:
            return Measured(keys, calls, read)
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
