"""Directory buckets (S3 Express, ``--x-s3``) and conditional-write conflicts, which moto does
not model: a botocore Stubber pins the exact requests, a fake bucket serves unordered pages."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.stub import ANY, Stubber
from hypothesis import given, settings
from hypothesis import strategies as st
from s3support import T0, FakeDirectoryBucket, brute_force, layouts, ulid_at

from ulidkeys.errors import InvalidValue, UnorderedListing, UploadConflict
from ulidkeys.s3 import KeyLayout

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
    expected_calls = [  # plan order (shard, then folder); a chain's next page comes last
        ("up/00/dt=2024-05-17/hr=09/", [inside[1], outside[0], inside[0], junk[0]], "t1"),
        ("up/00/dt=2024-05-17/hr=10/", [inside[2], inside[3]], None),
        ("up/01/dt=2024-05-17/hr=09/", [inside[4]], None),
        ("up/01/dt=2024-05-17/hr=10/", [outside[2], inside[6], inside[5]], None),
        ("up/00/dt=2024-05-17/hr=09/", [outside[1]], None),  # page 2 of the first chain
    ]
    for n, (prefix, keys, token) in enumerate(expected_calls):
        params = {"Bucket": BUCKET, "Prefix": prefix, "MaxKeys": 1000}
        if n == 4:
            params["ContinuationToken"] = "t1"
        stub.add_response("list_objects_v2", page(keys, token), params)
    with stub:
        # one worker makes the order of the stubbed calls deterministic
        listing = layout.list_window(client, BUCKET, start, end, max_workers=1)
        got = [obj["Key"] for obj in listing]
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
    with pytest.raises(UnorderedListing, match="out of order"):
        list(layout.list_window(fake, "general-bucket", T0, T0 + 50))


@settings(max_examples=60)
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
    end = start + length
    full = [o["Key"] for o in layout.list_window(fake, BUCKET, start, end)]
    assert full == brute_force(layout, keys, start, end)
    if full:
        i = int(cut * (len(full) - 1))
        rest = [o["Key"] for o in layout.list_window(fake, BUCKET, start, end, after=full[i])]
        assert rest == full[i + 1 :]


def test_directory_latest_and_periods() -> None:
    layout = KeyLayout("up/", shards=3, period="hour", suffix=".png")
    times = [T0 - 50 * HOUR + 475_111 * i for i in range(400)]  # ~8 min apart
    keys = [layout.key_for(ulid_at(t, i)) for i, t in enumerate(times)]
    fake = FakeDirectoryBucket(keys, seed=5, page=50)
    before = T0 - 30 * HOUR
    got = [o["Key"] for o in layout.latest(fake, BUCKET, 25, before=before)]
    assert got == brute_force(layout, keys, 0, before)[::-1][:25]
    found = layout.periods(fake, BUCKET, T0 - 49 * HOUR, T0 - 47 * HOUR)
    hours = sorted({t - t % HOUR for t in times if T0 - 49 * HOUR <= t - t % HOUR < T0 - 47 * HOUR})
    assert [p.start_ms for p in found] == hours and len(hours) == 2


def test_put_new_retries_on_409_and_412_under_a_new_key(client: Any) -> None:
    layout = KeyLayout("in/", shards=4)
    stub = Stubber(client)
    params = {"Bucket": "b", "Key": ANY, "Body": b"data", "IfNoneMatch": "*"}
    stub.add_client_error(
        "put_object", "ConditionalRequestConflict", "", 409, expected_params=params
    )
    stub.add_client_error("put_object", "PreconditionFailed", "", 412, expected_params=params)
    stub.add_response("put_object", {"ETag": '"e"'}, params)
    with stub:
        key = layout.put_new(client, "b", b"data")
        stub.assert_no_pending_responses()
    assert layout.fits(key)


def test_put_new_gives_up_and_other_errors_propagate(client: Any) -> None:
    layout = KeyLayout("in/")
    stub = Stubber(client)
    for _ in range(2):
        stub.add_client_error("put_object", "ConditionalRequestConflict", "", 409)
    stub.add_client_error("put_object", "AccessDenied", "", 403)
    with stub:
        with pytest.raises(UploadConflict, match="all 2 fresh keys"):
            layout.put_new(client, "b", b"x", attempts=2)
        with pytest.raises(Exception, match="AccessDenied"):
            layout.put_new(client, "b", b"x")
        stub.assert_no_pending_responses()  # AccessDenied was not retried


def test_hour_layouts_read_whole_days_as_one_day_folder() -> None:
    layout = KeyLayout("up/", shards=2, period="hour")
    midnight = T0 - 9 * HOUR  # 2024-05-17T00:00:00Z
    start, end = midnight + 22 * HOUR, midnight + 24 * HOUR * 2 + 2 * HOUR  # 22:00 .. +2d 02:00
    plan = layout.plan_window(start, end, directory_bucket=True)
    prefixes = [call.prefix for call in plan.calls]
    per_shard = [
        "dt=2024-05-17/hr=22/",
        "dt=2024-05-17/hr=23/",
        "dt=2024-05-18/",  # covered completely: one chain instead of 24
        "dt=2024-05-19/hr=00/",
        "dt=2024-05-19/hr=01/",
    ]
    assert prefixes == [f"up/{shard:02d}/{folder}" for shard in (0, 1) for folder in per_shard]
    assert all(not call.ordered and call.start_after is None for call in plan.calls)


def test_directory_plans_with_too_many_folders_are_refused() -> None:
    layout = KeyLayout("up/", shards=16, period="day")
    with pytest.raises(InvalidValue, match="more than 10,000"):
        layout.plan_window(0, T0, directory_bucket=True)


class _Stream:
    """A body that can be read once (a socket, a pipe): no seek, no tell."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def read(self, size: int = -1) -> bytes:
        data, self.data = self.data, b""
        return data


def test_put_new_rewinds_a_file_body_between_attempts() -> None:
    import io

    from botocore.exceptions import ClientError

    class FirstKeyTaken:
        """Reads each body as S3 would; answers 412 to the first put."""

        def __init__(self) -> None:
            self.bodies: list[bytes] = []

        def put_object(self, Body: Any, **_: Any) -> dict[str, Any]:
            self.bodies.append(Body.read())
            if len(self.bodies) == 1:
                error = {"Code": "PreconditionFailed", "Message": "taken"}
                meta = {"HTTPStatusCode": 412}
                raise ClientError({"Error": error, "ResponseMetadata": meta}, "PutObject")
            return {"ETag": '"e"'}

    body = io.BytesIO(b"xxdata")
    body.seek(2)  # the upload starts where the caller's file position is
    client = FirstKeyTaken()
    KeyLayout("in/").put_new(client, "b", body)
    assert client.bodies == [b"data", b"data"]


def test_put_new_does_not_resend_a_body_it_cannot_rewind(client: Any) -> None:
    layout = KeyLayout("in/")
    stub = Stubber(client)
    stub.add_client_error("put_object", "PreconditionFailed", "", 412)
    with stub, pytest.raises(UploadConflict, match="cannot be rewound"):
        layout.put_new(client, "b", _Stream(b"data"))
    stub.assert_no_pending_responses()
