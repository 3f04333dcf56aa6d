"""examples/upload_lambda.py and examples/s3_event_lambda.py through moto's HTTP server: API
Gateway events (HTTP API, payload 2.0) get presigned uploads that really upload over HTTP, and
the S3 notifications those uploads cause (delivered to SQS by moto) are read back by the
S3-event handler."""

from __future__ import annotations

import json
import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
import requests
from faults import moto_server, s3_client

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))

import s3_event_lambda
import upload_lambda

LAYOUT = upload_lambda.LAYOUT


def api_event(method: str, query: dict[str, str] | None = None) -> dict[str, Any]:
    """An API Gateway HTTP API request as Lambda receives it (payload format version 2.0)."""
    raw_query = "&".join(f"{k}={v}" for k, v in (query or {}).items())
    return {
        "version": "2.0",
        "routeKey": f"{method} /uploads",
        "rawPath": "/uploads",
        "rawQueryString": raw_query,
        "headers": {"accept": "application/json", "host": "abc123.execute-api.aws"},
        **({"queryStringParameters": query} if query else {}),
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "abc123",
            "domainName": "abc123.execute-api.us-east-1.amazonaws.com",
            "domainPrefix": "abc123",
            "http": {
                "method": method,
                "path": "/uploads",
                "protocol": "HTTP/1.1",
                "sourceIp": "203.0.113.7",
                "userAgent": "pytest",
            },
            "requestId": "c6af9ac6-7b61-11e6-9a41-93e8deadbeef",
            "routeKey": f"{method} /uploads",
            "stage": "$default",
            "time": "17/May/2024:09:00:00 +0000",
            "timeEpoch": 1_715_936_400_000,
        },
        "isBase64Encoded": False,
    }


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with moto_server() as url:
        yield url


@pytest.fixture
def s3(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    client = s3_client(endpoint)
    name = f"uploads-{uuid.uuid4().hex[:12]}"
    client.create_bucket(Bucket=name)
    monkeypatch.setenv("BUCKET", name)
    return client


def s3_bucket() -> str:
    """The bucket the handlers write to: set for each test, as Lambda's configuration would."""
    return os.environ["BUCKET"]


def answer(response: dict[str, Any]) -> dict[str, Any]:
    assert response["headers"]["content-type"] == "application/json"
    body: dict[str, Any] = json.loads(response["body"])
    return body


def test_post_handler_hands_out_a_form_that_uploads(s3: Any) -> None:
    response = upload_lambda.post_handler(api_event("POST", {"ext": "png"}), None, s3=s3)
    assert response["statusCode"] == 200
    body = answer(response)
    assert body["method"] == "POST" and body["fields"]["key"] == body["key"]
    parts = LAYOUT.parse(body["key"])
    assert parts.suffix == ".png" and parts.id == body["id"]
    sent = requests.post(
        body["url"],
        data=body["fields"],
        files={"file": ("cat.png", b"\x89PNG fake", "image/png")},
        timeout=10,
    )
    assert sent.status_code in (200, 201, 204), sent.text
    stored = s3.get_object(Bucket=s3_bucket(), Key=body["key"])
    assert stored["Body"].read() == b"\x89PNG fake" and stored["ContentType"] == "image/png"


def test_put_handler_hands_out_a_url_that_creates_once(s3: Any) -> None:
    body = answer(upload_lambda.put_handler(api_event("PUT"), None, s3=s3))
    assert body["method"] == "PUT" and "fields" not in body
    assert body["headers"] == {"If-None-Match": "*", "Content-Type": "image/jpeg"}
    assert LAYOUT.parse(body["key"]).suffix == ".jpg"
    first = requests.put(body["url"], data=b"first", headers=body["headers"], timeout=10)
    assert first.status_code == 200, first.text
    again = requests.put(body["url"], data=b"second", headers=body["headers"], timeout=10)
    assert again.status_code == 412  # the URL cannot replace what it created
    assert s3.get_object(Bucket=s3_bucket(), Key=body["key"])["Body"].read() == b"first"


def test_handlers_refuse_types_they_do_not_serve(s3: Any) -> None:
    for handler in (upload_lambda.post_handler, upload_lambda.put_handler):
        response = handler(api_event("POST", {"ext": "exe"}), None, s3=s3)
        assert response["statusCode"] == 400
        assert "ext must be one of jpg, png, webp" in answer(response)["error"]
    assert "Contents" not in s3.list_objects_v2(Bucket=s3_bucket())


def test_s3_events_of_real_uploads_are_read_back(s3: Any, endpoint: str) -> None:
    sqs = boto3.client(
        "sqs",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    queue = sqs.create_queue(QueueName=f"uploads-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    s3.put_bucket_notification_configuration(
        Bucket=s3_bucket(),
        NotificationConfiguration={
            "QueueConfigurations": [{"QueueArn": arn, "Events": ["s3:ObjectCreated:*"]}]
        },
    )
    post = answer(upload_lambda.post_handler(api_event("POST"), None, s3=s3))
    requests.post(post["url"], data=post["fields"], files={"file": b"one"}, timeout=10)
    put = answer(upload_lambda.put_handler(api_event("PUT", {"ext": "webp"}), None, s3=s3))
    requests.put(put["url"], data=b"two", headers=put["headers"], timeout=10)
    s3.put_object(Bucket=s3_bucket(), Key="other/readme.txt", Body=b"not an upload")
    issued = [post["key"], put["key"]]

    events = []
    while True:
        got = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10, WaitTimeSeconds=0)
        if not got.get("Messages"):
            break
        events += [json.loads(message["Body"]) for message in got["Messages"]]
    results = [s3_event_lambda.handler(event, None) for event in events]
    uploads = [u for result in results for u in result["uploads"]]
    assert [u["key"] for u in uploads] == issued
    for upload, key in zip(uploads, issued, strict=True):
        parts = LAYOUT.parse(key)
        assert (upload["id"], upload["shard"], upload["day"]) == (
            parts.id,
            parts.shard,
            parts.period,
        )
        assert upload["bucket"] == s3_bucket()
        assert 0 <= upload["upload_delay_ms"] < 60_000
    ignored = [text for result in results for text in result["ignored"]]
    assert len(ignored) == 1 and "other/readme.txt" in ignored[0]


def test_s3_event_handler_reads_the_documented_event_shape(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A notification as AWS documents it (event version 2.1): keys URL-encoded, removals and
    keys of other layouts skipped."""
    key = "uploads/02/dt=2024-05-17/01HY2WF4M0XKQ6J3WB5S8Z7DQA.jpg"
    parts = LAYOUT.parse(key)

    def record(event_name: str, encoded_key: str) -> dict[str, Any]:
        return {
            "eventVersion": "2.1",
            "eventSource": "aws:s3",
            "awsRegion": "us-east-1",
            "eventTime": "2024-05-17T09:00:01.500Z",
            "eventName": event_name,
            "userIdentity": {"principalId": "AWS:AIDAEXAMPLE"},
            "requestParameters": {"sourceIPAddress": "203.0.113.7"},
            "responseElements": {"x-amz-request-id": "C3D13FE58DE4C810", "x-amz-id-2": "FMyUVURI"},
            "s3": {
                "s3SchemaVersion": "1.0",
                "configurationId": "uploads",
                "bucket": {
                    "name": "photos",
                    "ownerIdentity": {"principalId": "A3NL1KOZZKExample"},
                    "arn": "arn:aws:s3:::photos",
                },
                "object": {
                    "key": encoded_key,
                    "size": 1024,
                    "eTag": "d41d8cd98f00b204e9800998ecf8427e",
                    "sequencer": "0055AED6DCD90281E5",
                },
            },
        }

    encoded = key.replace("=", "%3D")  # as S3 sends it
    event = {
        "Records": [
            record("ObjectCreated:Post", encoded),
            record("ObjectRemoved:Delete", encoded),
            record("ObjectCreated:Put", "uploads/readme+first.txt"),
        ]
    }
    result = s3_event_lambda.handler(event, None)
    assert result["uploads"] == [
        {
            "bucket": "photos",
            "key": key,
            "id": "01HY2WF4M0XKQ6J3WB5S8Z7DQA",
            "issued_at": parts.ulid.datetime.isoformat(),
            "shard": parts.shard,
            "day": "dt=2024-05-17/",
            "bytes": 1024,
            "upload_delay_ms": 1_715_936_401_500 - parts.ms,
        }
    ]
    assert len(result["ignored"]) == 1 and "uploads/readme first.txt" in result["ignored"][0]
    assert json.loads(capsys.readouterr().out) == result["uploads"][0]
