"""Directory buckets (S3 Express, ``--x-s3``) and conditional-write conflicts, which moto does
not model: a botocore Stubber pins the exact requests, a fake bucket serves unordered pages."""

from __future__ import annotations

import itertools
from typing import Any

import boto3
import pytest
from botocore.stub import ANY, Stubber
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples
from s3support import T0, FakeDirectoryBucket, brute_force, keys_of, layouts, ulid_at

from ulidkeys.errors import InvalidValue, UnexpectedResponse, UnorderedListing, UploadConflict
from ulidkeys.planning.listings import plan_listing
from ulidkeys.planning.periods import DAY_MS as DAY
from ulidkeys.planning.periods import Period
from ulidkeys.s3 import Bucket, KeyLayout

BUCKET = "uploads--use1-az4--x-s3"
HOUR = 3_600_000


@pytest.fixture
def client() -> Any:
    return boto3.client(
        "s3", region_name="us-east-1", aws_access_key_id="testing", aws_secret_access_key="testing"
    )


def page(keys: list[str], token: str | None = None) -> dict[str, Any]:
    response: dict[str, Any] = {"Contents": [{"Key": k, "Size": 1} for k in keys]}
    response["IsTruncated"] = token is not None
    if token is not None:
        response["NextContinuationToken"] = token
    return response


def test_directory_listing_requests_slash_prefixes_without_start_after(client: Any) -> None:
    layout = KeyLayout("up/", shards=2, period="hour")
    start, end = T0 + HOUR // 2, T0 + HOUR + HOUR // 2  # 09:30 - 10:30: two hour folders

    def key(ms: int, rand: int) -> str:
        return layout.key_for(ulid_at(ms, rand))

    # shard = rand % 2; keys inside and outside the window, delivered out of order
    inside = [
        key(start, 0),
        key(start + 5, 2),
        key(end - 1, 4),
        key(T0 + HOUR, 6),
        key(start + 1, 1),
        key(end - 1, 3),
        key(T0 + HOUR + 9, 5),
    ]
    outside = [key(start - 1, 0), key(T0, 2), key(end, 1)]
    junk = ["up/00/dt=2024-05-17/hr=09/notes.txt"]
    stub = Stubber(client)
    # Plan order: one group per folder time, read one after the other, its shards together
    # (each chain's first page at once; a chain's next page when its reader gets there).
    expected_calls = [
        ("up/00/dt=2024-05-17/hr=09/", [inside[1], outside[0], inside[0], junk[0]], "t1"),
        ("up/01/dt=2024-05-17/hr=09/", [inside[4]], None),
        ("up/00/dt=2024-05-17/hr=09/", [outside[1]], None),  # page 2 of the first chain
        ("up/00/dt=2024-05-17/hr=10/", [inside[2], inside[3]], None),
        ("up/01/dt=2024-05-17/hr=10/", [outside[2], inside[6], inside[5]], None),
    ]
    for n, (prefix, keys, token) in enumerate(expected_calls):
        params = {"Bucket": BUCKET, "Prefix": prefix, "MaxKeys": 1000}
        if n == 2:
            params["ContinuationToken"] = "t1"
        stub.add_response("list_objects_v2", page(keys, token), params)
    with stub:
        # one worker makes the order of the stubbed calls deterministic
        listing = Bucket(client, BUCKET, layout).list_window(start, end, max_workers=1)
        got = keys_of(listing)
        stub.assert_no_pending_responses()
    assert got == brute_force(layout, inside + outside + junk, start, end)
    assert got == sorted(inside, key=lambda k: (str(layout.parse(k).ulid), k))
    assert listing.stats.calls == 5 and listing.stats.skipped == 1


def test_an_unordered_listing_under_a_general_bucket_name_raises() -> None:
    """A general-purpose listing that comes back out of order would make StartAfter and the
    stop bound drop keys silently; the executor refuses instead."""
    layout = KeyLayout("up/")
    keys = [layout.key_for(ulid_at(T0 + i, i)) for i in range(50)]
    fake = FakeDirectoryBucket(keys, seed=1)
    fake.list_objects_v2 = lambda **kw: {  # type: ignore[method-assign]
        "Contents": [{"Key": k} for k in reversed(keys)],
        "IsTruncated": False,
    }
    with pytest.raises(UnorderedListing, match=r"returned .* after .* one ascending chain") as e:
        list(Bucket(fake, "general-bucket", layout).list_window(T0, T0 + 50))
    assert "directory buckets" in str(e.value) and isinstance(e.value, UnexpectedResponse)


@settings(max_examples=examples(60))
@given(
    layout=layouts,
    seed=st.integers(0, 1000),
    times=st.lists(st.integers(T0 - 2 * HOUR, T0 + 80 * HOUR), max_size=120),
    start=st.integers(T0 - HOUR, T0 + 26 * HOUR),
    length=st.sampled_from([0, 1, 60_000, HOUR, 7 * HOUR, 49 * HOUR]),
    page_size=st.integers(1, 20),
    cut=st.floats(0, 1),
)
def test_directory_listing_and_resume_are_exact(
    layout: KeyLayout,
    seed: int,
    times: list[int],
    start: int,
    length: int,
    page_size: int,
    cut: float,
) -> None:
    keys = [layout.key_for(ulid_at(t, (seed * 7919 + i) % (1 << 80))) for i, t in enumerate(times)]
    keys += [layout.key_for(ulid_at(start, 0)), layout.key_for(ulid_at(start + length, 0))]
    keys += [layout.prefix + "zz/top", layout.prefix + "odd"]
    fake = FakeDirectoryBucket(keys, seed, page_size)
    bucket = Bucket(fake, BUCKET, layout)
    end = start + length
    full = keys_of(bucket.list_window(start, end))
    assert full == brute_force(layout, keys, start, end)
    if full:
        i = int(cut * (len(full) - 1))
        rest = keys_of(bucket.list_window(start, end, after=full[i]))
        assert rest == full[i + 1 :]
        listing = bucket.list_window(start, end)
        with listing:
            assert keys_of(itertools.islice(listing, i + 1)) == full[: i + 1]
        assert listing.cursor is not None
        assert keys_of(bucket.list_window(cursor=listing.cursor)) == rest


def test_directory_latest_and_periods() -> None:
    layout = KeyLayout("up/", shards=3, period="hour", suffix=".png")
    times = [T0 - 50 * HOUR + 475_111 * i for i in range(400)]  # ~8 min apart
    keys = [layout.key_for(ulid_at(t, i)) for i, t in enumerate(times)]
    fake = FakeDirectoryBucket(keys, seed=5, page=50)
    bucket = Bucket(fake, BUCKET, layout)
    before = T0 - 30 * HOUR
    latest = bucket.latest(25, until=before)
    got = keys_of(latest)
    newest = brute_force(layout, keys, 0, before)[::-1]
    assert got == newest[:25]
    # latest(n, cursor=...) goes on with the next older ones, across day folders
    older = keys_of(bucket.latest(100, cursor=latest.cursor))
    assert older == newest[25:125] and len(older) == 100
    first = bucket.latest(130, until=before)
    assert keys_of(first) == newest[:130]
    assert keys_of(bucket.latest(100, cursor=first.cursor)) == newest[130:] != []
    found = bucket.periods(T0 - 49 * HOUR, T0 - 47 * HOUR)
    hours = sorted({t - t % HOUR for t in times if T0 - 49 * HOUR <= t - t % HOUR < T0 - 47 * HOUR})
    assert [p.start_ms for p in found] == hours and len(hours) == 2


def test_put_new_retries_on_409_and_412_under_a_new_key(client: Any) -> None:
    layout = KeyLayout("in/", shards=4)
    stub = Stubber(client)
    params = {"Bucket": "b", "Key": ANY, "Body": b"data", "IfNoneMatch": "*", "Metadata": ANY}
    stub.add_client_error(
        "put_object", "ConditionalRequestConflict", "", 409, expected_params=params
    )
    stub.add_client_error("put_object", "PreconditionFailed", "", 412, expected_params=params)
    stub.add_response("put_object", {"ETag": '"e"'}, params)
    with stub:
        key = Bucket(client, "b", layout).put_new(b"data")
        stub.assert_no_pending_responses()
    assert layout.fits(key)


def test_put_new_gives_up_and_other_errors_propagate(client: Any) -> None:
    layout = KeyLayout("in/")
    stub = Stubber(client)
    for _ in range(2):
        stub.add_client_error("put_object", "ConditionalRequestConflict", "", 409)
    stub.add_client_error("put_object", "AccessDenied", "", 403)
    bucket = Bucket(client, "b", layout)
    with stub:
        with pytest.raises(UploadConflict, match="all 2 fresh keys"):
            bucket.put_new(b"x", attempts=2)
        with pytest.raises(Exception, match="AccessDenied"):
            bucket.put_new(b"x")
        stub.assert_no_pending_responses()  # AccessDenied was not retried


def test_hour_layouts_read_whole_days_as_one_day_folder() -> None:
    layout = KeyLayout("up/", shards=2, period="hour")
    midnight = T0 - 9 * HOUR  # 2024-05-17T00:00:00Z
    start, end = midnight + 22 * HOUR, midnight + 24 * HOUR * 2 + 2 * HOUR  # 22:00 .. +2d 02:00
    plan = plan_listing(layout, start, end, directory_bucket=True)
    prefixes = [[call.prefix for call in group] for group in plan.groups]
    folders = [
        "dt=2024-05-17/hr=22/",
        "dt=2024-05-17/hr=23/",
        "dt=2024-05-18/",  # covered completely: one chain instead of 24
        "dt=2024-05-19/hr=00/",
        "dt=2024-05-19/hr=01/",
    ]
    # one group per folder, one chain per shard in it
    assert prefixes == [[f"up/{shard:02d}/{folder}" for shard in (0, 1)] for folder in folders]
    assert all(not call.ordered and call.start_after is None for call in plan.calls)
    assert Bucket(FakeDirectoryBucket([]), BUCKET, layout).plan_window(start, end) == plan


@pytest.mark.parametrize(("limit", "workers"), [(95, 8), (1, 8), (None, 3), (None, 6)])
def test_directory_listings_hold_one_day_folder_at_a_time(limit: int | None, workers: int) -> None:
    """A directory bucket lists each folder in no order, so a folder is read whole before any
    of it is returned: the plan has one group per day (its shards side by side), and the
    executor does not read a later day before the earlier one is consumed. Without a limit,
    later days start early, but only their first page and only while chains are idle."""
    layout = KeyLayout("d/", shards=3, period="day")
    day = Period("day")
    midnight = T0 - 9 * HOUR  # 2024-05-17T00:00:00Z
    start, end = midnight + 5 * HOUR, midnight + 4 * DAY + 7 * HOUR  # five days, two partial
    plan = plan_listing(layout, start, end, directory_bucket=True, limit=limit)
    folders = [day.folder(midnight + n * DAY) for n in range(5)]
    assert [[call.prefix for call in group] for group in plan.groups] == [
        [f"d/{shard:02d}/{folder}" for shard in range(3)] for folder in folders
    ]
    assert plan.limit == limit
    keys = [layout.key_for(ulid_at(midnight + n * 1_531_017, n)) for n in range(300)]  # 5 days
    fake = FakeDirectoryBucket(keys, seed=3, page=7)
    expected = brute_force(layout, keys, start, end)[:limit]
    listing = Bucket(fake, BUCKET, layout).run(plan, max_workers=workers)
    got = []
    for obj in listing:
        got.append(obj["Key"])
        current = layout.parse(obj["Key"]).ms // DAY
        with fake._lock:
            requested = [day.parse_folder(r["Prefix"][len("d/00/") :]) for r in fake.requests]
        later = [ms // DAY for ms in requested if ms is not None and ms // DAY > current]
        if workers <= 3 or limit is not None:
            assert later == [], "a later day was read before this one was consumed"
        else:  # 6 workers, 3 shards: the next day's first pages may be in flight, no more
            assert len(later) <= 3 and set(later) <= {current + 1}
    assert got == expected and len(got) == (limit or len(got))
    last_day = layout.parse(got[-1]).ms // DAY
    assert all(day.parse_folder(r["Prefix"][5:]) // DAY <= last_day for r in fake.requests)


def test_directory_plans_with_too_many_folders_are_refused() -> None:
    layout = KeyLayout("up/", shards=16, period="day")
    with pytest.raises(InvalidValue, match="more than 10,000"):
        plan_listing(layout, 0, T0, directory_bucket=True)
    with pytest.raises(InvalidValue, match="more than 10,000"):
        Bucket(FakeDirectoryBucket([]), BUCKET, layout).list_window(0, T0)


class _Stream:
    """A body that can be read once (a socket, a pipe): no seek, no tell."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def read(self, size: int = -1) -> bytes:
        data, self.data = self.data, b""
        return data


class FirstKeyTaken:
    """Reads each body as S3 would; answers 412 to the first put."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    def put_object(self, Body: Any, **_: Any) -> dict[str, Any]:
        from botocore.exceptions import ClientError

        self.bodies.append(Body.read())
        if len(self.bodies) == 1:
            error = {"Code": "PreconditionFailed", "Message": "taken"}
            meta = {"HTTPStatusCode": 412}
            raise ClientError({"Error": error, "ResponseMetadata": meta}, "PutObject")
        return {"ETag": '"e"'}

    def list_objects_v2(self, **_: Any) -> dict[str, Any]:
        raise AssertionError("put_new does not list")


def test_put_new_rewinds_a_file_body_between_attempts() -> None:
    import io

    body = io.BytesIO(b"xxdata")
    body.seek(2)  # the upload starts where the caller's file position is
    client = FirstKeyTaken()
    Bucket(client, "b", KeyLayout("in/")).put_new(body)
    assert client.bodies == [b"data", b"data"]


def test_put_new_never_resends_part_of_a_body_it_cannot_rewind() -> None:
    """A one-read body is copied to a temporary file first (issue 14 item 5), so the retry
    after a conflict sends all of it again, never what is left of it."""
    client = FirstKeyTaken()
    Bucket(client, "b", KeyLayout("in/")).put_new(_Stream(b"data"))
    assert client.bodies == [b"data", b"data"]
