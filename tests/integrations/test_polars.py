"""``ulidkeys.polars`` against the real Polars (its own S3 reader, object_store) on moto's HTTP
server: the frame of a window holds exactly the rows of the objects whose id time is in it -
Parquet, NDJSON and CSV under a sharded hour-folder layout, objects at the window's bounds
included - with each row's key and id time; an empty window is an empty frame."""

from __future__ import annotations

import io
import random
import uuid
from collections.abc import Iterator
from datetime import datetime, timezone

import polars as pl
import pytest
from faults import moto_server, s3_client

from ulidkeys import ULID
from ulidkeys.errors import InvalidValue
from ulidkeys.polars import scan_window, storage_options, urls, window_frame
from ulidkeys.s3 import Bucket, KeyLayout

T0 = 1_715_904_000_000  # 2024-05-17T00:00:00Z
HOUR = 3_600_000


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with moto_server() as url:
        yield url


def body(frame: pl.DataFrame, format: str) -> bytes:
    out = io.BytesIO()
    {"parquet": frame.write_parquet, "ndjson": frame.write_ndjson, "csv": frame.write_csv}[format](
        out
    )
    return out.getvalue()


def filled(
    endpoint: str, format: str, seed: int
) -> tuple[Bucket, dict[str, tuple[int, pl.DataFrame]]]:
    """A bucket of objects at random times over 6 hours (some exactly on the hour), each a
    small frame of rows; the objects by key, with their times and frames."""
    client = s3_client(endpoint)
    name = f"frames-{uuid.uuid4().hex[:12]}"
    client.create_bucket(Bucket=name)
    layout = KeyLayout("data/", shards=2, period="hour", suffix=f".{format}")
    rng = random.Random(seed)
    objects = {}
    for index in range(24):
        ms = T0 + (rng.randrange(6) * HOUR if index % 4 == 0 else rng.randrange(6 * HOUR))
        key = layout.key_for(ULID.from_int((ms << 80) | rng.getrandbits(80)))
        frame = pl.DataFrame({"n": [index * 10 + k for k in range(3)], "label": [f"o{index}"] * 3})
        client.put_object(Bucket=name, Key=key, Body=body(frame, format))
        objects[key] = (ms, frame)
    return Bucket(client, name, layout), objects


@pytest.mark.parametrize("format", ["parquet", "ndjson", "csv"])
@pytest.mark.parametrize(("start_hour", "hours"), [(0, 6), (1, 2), (2, 1)])
def test_the_frame_holds_exactly_the_windows_rows(
    endpoint: str, format: str, start_hour: int, hours: int
) -> None:
    bucket, objects = filled(endpoint, format, seed=start_hour * 7 + hours)
    start, end = T0 + start_hour * HOUR, T0 + (start_hour + hours) * HOUR
    frame = scan_window(bucket, start, end, format=format).collect()
    inside = {key: item for key, item in objects.items() if start <= item[0] < end}
    expected = sorted(
        (int(n), label, key) for key, (_ms, rows) in inside.items() for n, label in rows.iter_rows()
    )
    got = sorted(
        zip(frame["n"].to_list(), frame["label"].to_list(), frame["_key"].to_list(), strict=True)
    )
    assert got == expected
    times = dict(zip(frame["_key"].to_list(), frame["_id_time"].to_list(), strict=True))
    for key, when in times.items():
        assert when == datetime.fromtimestamp(inside[key][0] / 1000, timezone.utc)
    assert frame.schema["_id_time"] == pl.Datetime("ms", "UTC")


def test_urls_and_storage_options_come_from_the_bucket(endpoint: str) -> None:
    bucket, objects = filled(endpoint, "parquet", seed=1)
    listed = urls(bucket, T0, T0 + 6 * HOUR)
    assert sorted(listed) == sorted(f"s3://{bucket.name}/{key}" for key in objects)
    options = storage_options(bucket)
    assert options["aws_endpoint_url"] == endpoint and options["aws_allow_http"] == "true"
    assert options["aws_access_key_id"] == "testing" and options["aws_region"] == "us-east-1"


def test_an_empty_window_is_an_empty_frame_and_reads_nothing(endpoint: str) -> None:
    bucket, _objects = filled(endpoint, "parquet", seed=2)
    frame = scan_window(bucket, T0 - 10 * HOUR, T0 - 9 * HOUR, options={"bogus": "unused"})
    collected = frame.collect()
    assert collected.height == 0 and collected.columns == ["_key", "_id_time"]


def test_bad_arguments_are_refused(endpoint: str) -> None:
    bucket, _objects = filled(endpoint, "csv", seed=3)
    with pytest.raises(InvalidValue, match="format"):
        scan_window(bucket, T0, T0 + HOUR, format="xlsx")  # type: ignore[arg-type]
    with pytest.raises(InvalidValue, match="time_column"):
        scan_window(bucket, T0, T0 + HOUR, time_column="")


@pytest.mark.parametrize(
    "columns",
    [("key", "size", "id_ms"), ("etag", "key"), ("key", "last_modified", "storage_class")],
)
def test_window_frame_is_the_listing_row_for_row(endpoint: str, columns: tuple[str, ...]) -> None:
    bucket, objects = filled(endpoint, "csv", seed=4)
    start, end = T0 + HOUR, T0 + 5 * HOUR
    frame = window_frame(bucket, start, end, columns=columns)
    listed = list(bucket.list_window(start, end))
    assert [obj["Key"] for obj in listed] == sorted(
        (key for key, (ms, _rows) in objects.items() if start <= ms < end),
        key=lambda key: (bucket.layout.parse(key).id, key),
    )
    members = {"key": "Key", "size": "Size", "etag": "ETag", "storage_class": "StorageClass"}
    assert frame.columns == list(columns) and frame.height == len(listed)
    for name in columns:
        if name == "id_ms":
            expected = [bucket.layout.parse(obj["Key"]).ms for obj in listed]
        elif name == "last_modified":
            expected = [obj["LastModified"].astimezone(timezone.utc) for obj in listed]
        else:
            expected = [obj[members[name]] for obj in listed]
        assert frame[name].to_list() == expected, name
    empty = window_frame(bucket, T0 - 10 * HOUR, T0 - 9 * HOUR, columns=columns)
    assert empty.height == 0 and empty.columns == list(columns)
    with pytest.raises(InvalidValue, match="'owner'"):
        window_frame(bucket, start, end, columns=("key", "owner"))
