"""The S3 layer through moto's HTTP server (``endpoint_url``), as user code runs it: real
requests, real signatures, presigned uploads sent with urllib, and empty HTTP 200 answers (a
misbehaving proxy) that must stop a listing, never shorten it."""

from __future__ import annotations

import random
import threading
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.awsrequest import AWSResponse
from faults import moto_server, s3_client
from s3support import T0, brute_force, fill_bucket, keys_of, ulid_at

from ulidkeys.errors import UnexpectedResponse
from ulidkeys.s3 import Bucket, KeyLayout

HOUR = 3_600_000

#: moto's HTTP server in a thread of this process: the slow runs.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with moto_server() as endpoint:
        yield s3_client(endpoint)


@pytest.fixture
def bucket(client: Any) -> str:
    name = f"srv-{uuid.uuid4().hex[:12]}"
    client.create_bucket(Bucket=name)
    return name


def test_put_new_then_list_window_latest_and_periods(client: Any, bucket: str) -> None:
    layout = KeyLayout("uploads/", shards=3, period="hour", suffix=".txt")
    listed = Bucket(client, bucket, layout)
    keys = [listed.put_new(f"body {i}".encode()) for i in range(5)]
    # plus keys at chosen times, uploaded as a user would with put_object
    timed = [layout.key_for(ulid_at(T0 + i * 600_000, i)) for i in range(12)]
    for key in timed:
        client.put_object(Bucket=bucket, Key=key, Body=b"x")
    start, end = T0 + 1_200_000, T0 + HOUR + 1_200_000
    listing = listed.list_window(start, end)
    got = keys_of(listing)
    assert got == brute_force(layout, keys + timed, start, end) and len(got) == 6
    assert all(obj["Size"] == 1 for obj in listed.list_window(start, end))
    newest = keys_of(listed.latest(3))
    assert newest == brute_force(layout, keys + timed, 0, 2**47)[::-1][:3]
    assert set(newest) <= set(keys)
    assert client.get_object(Bucket=bucket, Key=keys[0])["Body"].read() == b"body 0"
    folders = [p.folder for p in listed.periods(T0, T0 + 2 * HOUR)]
    assert folders == ["dt=2024-05-17/hr=09/", "dt=2024-05-17/hr=10/"]


def test_presigned_put_uploads_once_and_never_overwrites(client: Any, bucket: str) -> None:
    layout = KeyLayout("incoming/", suffix=".bin")
    upload = Bucket(client, bucket, layout).presigned_put(
        expires=300, content_type="application/x-test"
    )
    assert layout.fits(upload.key) and upload.method == "PUT"
    assert upload.headers == {"If-None-Match": "*", "Content-Type": "application/x-test"}

    def send(body: bytes) -> int:
        request = urllib.request.Request(
            upload.url, data=body, method="PUT", headers=upload.headers
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return int(response.status)
        except urllib.error.HTTPError as error:
            return error.code

    assert send(b"first") == 200
    assert send(b"second") == 412  # the URL cannot replace what it created
    stored = client.get_object(Bucket=bucket, Key=upload.key)
    assert stored["Body"].read() == b"first"
    assert stored["ContentType"] == "application/x-test"


def test_presigned_post_uploads_a_form(client: Any, bucket: str) -> None:
    layout = KeyLayout("forms/", shards=2)
    upload = Bucket(client, bucket, layout).presigned_post(
        expires=300, content_type="text/plain", max_bytes=100, ext="txt"
    )
    assert upload.method == "POST" and upload.fields["key"] == upload.key
    assert upload.key.endswith(".txt") and layout.fits(upload.key)
    boundary = uuid.uuid4().hex
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'
        for name, value in upload.fields.items()
    ]
    body = (
        "".join(parts).encode()
        + (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n'
            "Content-Type: text/plain\r\n\r\nhello\r\n"
            f"--{boundary}--\r\n"
        ).encode()
    )
    request = urllib.request.Request(
        upload.url,
        data=body,
        method="POST",
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status in (200, 201, 204)
    assert client.get_object(Bucket=bucket, Key=upload.key)["Body"].read() == b"hello"


class _EmptyBody:
    def stream(self, **_: Any) -> Iterator[bytes]:
        yield b""


class EmptyAnswers:
    """A ``before-send`` handler: the chosen ListObjectsV2 requests (numbered from 1) are not
    sent; botocore gets HTTP 200 with an empty body instead, as from a misbehaving proxy."""

    def __init__(self, broken: set[int]) -> None:
        self.broken = broken
        self.sent = 0
        self.injected = 0
        self.lock = threading.Lock()

    def __call__(self, request: Any, **_: Any) -> AWSResponse | None:
        with self.lock:
            self.sent += 1
            if self.sent not in self.broken:
                return None
            self.injected += 1
        return AWSResponse(request.url, 200, {"Content-Length": "0"}, _EmptyBody())


@pytest.fixture
def empty_answers(client: Any) -> Iterator[EmptyAnswers]:
    handler = EmptyAnswers(set())
    client.meta.events.register("before-send.s3.ListObjectsV2", handler)
    try:
        yield handler
    finally:
        client.meta.events.unregister("before-send.s3.ListObjectsV2", handler)


def test_an_empty_200_answer_raises_instead_of_ending_the_listing(
    client: Any, bucket: str, empty_answers: EmptyAnswers
) -> None:
    layout = KeyLayout("e/", shards=2)
    keys = [layout.key_for(ulid_at(T0 + i, i)) for i in range(30)]
    fill_bucket(bucket, keys)
    listed = Bucket(client, bucket, layout)
    assert keys_of(listed.list_window(T0, T0 + 30)) == keys  # 2 requests, both answered
    empty_answers.broken = {3}
    parsed = client.list_objects_v2(Bucket=bucket, MaxKeys=1000)  # what botocore makes of it
    assert "IsTruncated" not in parsed and "Contents" not in parsed
    assert parsed["ResponseMetadata"]["HTTPStatusCode"] == 200
    empty_answers.broken = {5}  # the second chain's first page
    with pytest.raises(UnexpectedResponse, match="without IsTruncated"):
        list(listed.list_window(T0, T0 + 30, max_workers=1))
    assert empty_answers.injected == 2


@pytest.mark.parametrize("workers", [1, 8])
def test_listings_resume_exactly_after_empty_answers(
    client: Any, bucket: str, empty_answers: EmptyAnswers, workers: int
) -> None:
    """Random ListObjectsV2 requests come back empty: every listing that met one raises, and
    resuming from ``.cursor`` after each raise gives the exact rest, nothing lost or repeated."""
    layout = KeyLayout("r/", shards=3, period="hour", suffix=".txt")
    rng = random.Random(workers)
    keys = [
        layout.key_for(ulid_at(T0 + rng.randrange(2 * HOUR), rng.getrandbits(80)))
        for _ in range(900)
    ]
    fill_bucket(bucket, keys)
    start, end = T0 + 600_000, T0 + 6_000_000  # across the hour folders 09 and 10
    expected = brute_force(layout, keys, start, end)
    assert len(expected) > 500
    # every fourth request and a random tenth of the others: how many a listing meets must not
    # depend on the order the shards' requests are sent in
    empty_answers.broken = {n for n in range(1, 400) if n % 4 == 0 or rng.random() < 0.1}
    listed = Bucket(client, bucket, layout)
    got: list[str] = []
    cursor: str | None = None
    raised = 0
    for _attempt in range(200):
        plan = (
            listed.plan_window(start, end, max_keys=40)
            if cursor is None
            else listed.plan_window(cursor=cursor, max_keys=40)
        )
        listing = listed.run(plan, max_workers=workers)
        before = empty_answers.injected
        try:
            for obj in listing:  # one at a time: what came before the raise is kept
                got.append(obj["Key"])
        except UnexpectedResponse:
            raised += 1
            if workers == 1:  # sequential requests: this very listing met an empty answer
                assert empty_answers.injected > before
            cursor = listing.cursor or cursor
            continue
        if workers == 1:  # it ended on its own: it met no empty answer
            assert empty_answers.injected == before
        break
    else:
        raise AssertionError("the listing never got through")
    assert raised >= (3 if workers == 1 else 1)
    assert got == expected
