"""S3 writes under faults (issue 14): a PutObject whose reply is lost is retried by botocore
and must still store exactly one object, under the key put_new returns - through moto's HTTP
server and in-process moto."""

from __future__ import annotations

import urllib.parse
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from faults import lose_replies, moto_server, s3_client
from moto import mock_aws

from ulidkeys.s3 import Bucket, KeyLayout
from ulidkeys.s3.writing import TOKEN_METADATA

LAYOUT = KeyLayout("up/", period="day", suffix=".bin")


@pytest.fixture(scope="module")
def server_client() -> Iterator[Any]:
    with moto_server() as endpoint:
        yield s3_client(endpoint)


@pytest.fixture(params=["server", "in-process"])
def client(request: pytest.FixtureRequest) -> Iterator[Any]:
    if request.param == "server":
        yield s3_client(request.getfixturevalue("server_client").meta.endpoint_url)
        return
    with mock_aws():
        yield s3_client(None)


def _bucket(client: Any) -> Bucket:
    name = f"faults-{uuid.uuid4().hex[:12]}"
    client.create_bucket(Bucket=name)
    return Bucket(client, name, LAYOUT)


@pytest.mark.parametrize("body", [b"payload", "file"])
def test_put_new_survives_a_lost_reply_without_an_orphan(
    client: Any, body: Any, tmp_path: Any
) -> None:
    bucket = _bucket(client)
    sent = lose_replies(client, "PutObject")
    if body == "file":
        path = tmp_path / "body"
        path.write_bytes(b"payload")
        with path.open("rb") as handle:
            key = bucket.put_new(handle)
    else:
        key = bucket.put_new(body)
    assert len(sent) == 2  # the lost one and botocore's retry, which met the first (412)
    listed = [obj["Key"] for obj in bucket.list_window(0, 2**47)]
    assert listed == [key]
    stored = client.get_object(Bucket=bucket.name, Key=key)
    assert stored["Body"].read() == b"payload" and TOKEN_METADATA in stored["Metadata"]


def test_put_new_still_moves_on_from_another_writers_object(client: Any) -> None:
    """The token check does not turn a real conflict into a success: when another writer takes
    the key before a retried PUT, the retry's 412 is theirs and put_new tries a fresh key."""
    bucket = _bucket(client)
    taken: list[str] = []

    def someone_else_first(request: Any, **_: Any) -> None:
        if not taken:
            path = urllib.parse.unquote(urllib.parse.urlsplit(request.url).path)
            key = path.split(bucket.name + "/", 1)[-1].lstrip("/")
            taken.append(key)
            other.put_object(Bucket=bucket.name, Key=key, Body=b"theirs")

    other = s3_client(client.meta.endpoint_url)  # without the test's hooks
    # handlers registered first run first: theirs is written before ours is sent
    client.meta.events.register_first("before-send.s3.PutObject", someone_else_first)
    sent = lose_replies(client, "PutObject")
    key = bucket.put_new(b"mine")
    assert len(sent) == 3 and key != taken[0] and LAYOUT.fits(taken[0])
    assert client.get_object(Bucket=bucket.name, Key=taken[0])["Body"].read() == b"theirs"
    assert client.get_object(Bucket=bucket.name, Key=key)["Body"].read() == b"mine"
