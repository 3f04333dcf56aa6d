"""The S3 layer through moto's HTTP server (``endpoint_url``), as user code runs it: real
requests, real signatures, presigned uploads sent with urllib."""

from __future__ import annotations

import socket
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto.server import ThreadedMotoServer
from s3support import T0, brute_force, ulid_at

from ulidkeys.s3 import KeyLayout

HOUR = 3_600_000


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield boto3.client(
            "s3",
            endpoint_url=f"http://127.0.0.1:{port}",
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )
    finally:
        server.stop()


@pytest.fixture
def bucket(client: Any) -> str:
    name = f"srv-{uuid.uuid4().hex[:12]}"
    client.create_bucket(Bucket=name)
    return name


def test_put_new_then_list_window_latest_and_periods(client: Any, bucket: str) -> None:
    layout = KeyLayout("uploads/", shards=3, period="hour", suffix=".txt")
    keys = [layout.put_new(client, bucket, f"body {i}".encode()) for i in range(5)]
    # plus keys at chosen times, uploaded as a user would with put_object
    timed = [layout.key_for(ulid_at(T0 + i * 600_000, i)) for i in range(12)]
    for key in timed:
        client.put_object(Bucket=bucket, Key=key, Body=b"x")
    start, end = T0 + 1_200_000, T0 + HOUR + 1_200_000
    listing = layout.list_window(client, bucket, start, end)
    got = [obj["Key"] for obj in listing]
    assert got == brute_force(layout, keys + timed, start, end) and len(got) == 6
    assert all(obj["Size"] == 1 for obj in layout.list_window(client, bucket, start, end))
    newest = [o["Key"] for o in layout.latest(client, bucket, 3)]
    assert newest == brute_force(layout, keys + timed, 0, 2**47)[::-1][:3]
    assert set(newest) <= set(keys)
    assert client.get_object(Bucket=bucket, Key=keys[0])["Body"].read() == b"body 0"
    folders = [p.folder for p in layout.periods(client, bucket, T0, T0 + 2 * HOUR)]
    assert folders == ["dt=2024-05-17/hr=09/", "dt=2024-05-17/hr=10/"]


def test_presigned_put_uploads_once_and_never_overwrites(client: Any, bucket: str) -> None:
    layout = KeyLayout("incoming/", suffix=".bin")
    upload = layout.presigned_put(client, bucket, expires=300, content_type="application/x-test")
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
    upload = layout.presigned_post(
        client, bucket, expires=300, content_type="text/plain", max_bytes=100, ext="txt"
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
