"""Lambda handlers behind API Gateway (HTTP API, payload format 2.0): hand a browser a fresh key.

``post_handler`` answers with a presigned POST (URL + form fields: the browser sends the file as
a form); ``put_handler`` with a presigned PUT whose ``If-None-Match: *`` is signed in, so the URL
creates the object once and can never overwrite it. ``?ext=png`` picks the file type.
"""

from __future__ import annotations

import json
import os
from typing import Any

from ulidkeys.s3 import Bucket, KeyLayout, PresignedUpload

LAYOUT = KeyLayout("uploads/", shards=4, period="day", suffix=".jpg")
TYPES = {"jpg": "image/jpeg", "png": "image/png", "webp": "image/webp"}
MAX_BYTES = 10 * 1024 * 1024
EXPIRES_S = 300  # the browser uploads right away; a short-lived URL leaks less


def _answer(status: int, body: dict[str, Any]) -> dict[str, Any]:
    """An HTTP API (payload 2.0) response."""
    return {
        "statusCode": status,
        "headers": {"content-type": "application/json", "cache-control": "no-store"},
        "body": json.dumps(body),
    }


def _bucket(s3: Any) -> Bucket:
    if s3 is None:
        import boto3  # in Lambda, the runtime's boto3

        s3 = boto3.client("s3")
    return Bucket(s3, os.environ["BUCKET"], LAYOUT)


def _file_type(event: dict[str, Any]) -> str | None:
    """The requested extension (``?ext=``, default jpg), or None if it is not allowed."""
    ext = (event.get("queryStringParameters") or {}).get("ext", "jpg").lower()
    return ext if ext in TYPES else None


def _upload(event: dict[str, Any], make: Any) -> dict[str, Any]:
    ext = _file_type(event)
    if ext is None:
        return _answer(400, {"error": f"ext must be one of {', '.join(TYPES)}"})
    upload: PresignedUpload = make(ext)
    body = {
        "key": upload.key,
        "id": LAYOUT.parse(upload.key).id,  # what the client stores to find the file again
        "method": upload.method,
        "url": upload.url,
        "expires_in": upload.expires_in,
    }
    if upload.fields:
        body["fields"] = upload.fields  # form fields, sent before the file
    if upload.headers:
        body["headers"] = upload.headers  # signed in: the upload fails without them
    return _answer(200, body)


def post_handler(event: dict[str, Any], context: Any, *, s3: Any = None) -> dict[str, Any]:
    """``POST /uploads?ext=png`` -> a presigned POST form for a fresh key (at most 10 MiB)."""
    bucket = _bucket(s3)
    return _upload(
        event,
        lambda ext: bucket.presigned_post(
            expires=EXPIRES_S, content_type=TYPES[ext], max_bytes=MAX_BYTES, ext=ext
        ),
    )


def put_handler(event: dict[str, Any], context: Any, *, s3: Any = None) -> dict[str, Any]:
    """``PUT /uploads?ext=png`` -> a presigned PUT for a fresh key that never overwrites."""
    bucket = _bucket(s3)
    return _upload(
        event,
        lambda ext: bucket.presigned_put(expires=EXPIRES_S, content_type=TYPES[ext], ext=ext),
    )
