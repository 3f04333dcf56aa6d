"""Writing under fresh keys: conditional ``put_object`` and presigned PUT/POST uploads.

``put_new`` sends ``IfNoneMatch="*"`` so S3 itself refuses to overwrite; on a conflict it
retries under another fresh key, so the body is never lost and no object is ever replaced.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ulidkeys.errors import InvalidValue, UploadConflict, aws_error, require_count
from ulidkeys.planning.layout import KeyLayout

#: Error codes meaning "another write got this key first": 412 when the object exists, 409
#: when a conflicting conditional write was still in flight (AWS only; moto never sends it).
CONFLICT_CODES = frozenset({"PreconditionFailed", "ConditionalRequestConflict"})

_RESERVED = ("Bucket", "Key", "Body", "IfNoneMatch", "IfMatch")


@dataclass(frozen=True)
class PresignedUpload:
    """A fresh key and what an uploader needs: URL, method, and headers (PUT) or fields (POST)."""

    key: str
    url: str
    method: str
    expires_in: int
    headers: dict[str, str] = field(default_factory=dict)
    fields: dict[str, str] = field(default_factory=dict)


def _is_conflict(error: Exception) -> bool:
    code, status = aws_error(error)
    return code in CONFLICT_CODES or status == 412


def _rewinder(body: Any) -> Callable[[], object] | None:
    """How to put ``body`` back to where it starts, or None if it cannot be read twice."""
    if isinstance(body, (bytes, bytearray, memoryview, str)):
        return lambda: None
    seekable = getattr(body, "seekable", None)
    if not (hasattr(body, "seek") and hasattr(body, "tell")) or (
        callable(seekable) and not seekable()
    ):
        return None
    start = body.tell()
    return lambda: body.seek(start)


def put_new(
    layout: KeyLayout,
    client: Any,
    bucket: str,
    body: Any,
    *,
    ext: str | None = None,
    attempts: int = 5,
    **put_kwargs: Any,
) -> str:
    """``put_object`` under a fresh key with ``IfNoneMatch="*"``; returns the key written.

    A conflict (412/409) means another writer holds that key: try again under a new key,
    rewinding a seekable body first (a body that cannot be rewound raises UploadConflict
    instead of sending what is left of it). Other errors propagate unchanged.
    """
    for name in _RESERVED:
        if name in put_kwargs:
            raise InvalidValue(f"put_new sets {name} itself; do not pass {name}=...")
    require_count(attempts, "attempts", 1)
    rewind = _rewinder(body)
    tried = []
    for _ in range(attempts):
        key = layout.new_key(ext)
        try:
            client.put_object(Bucket=bucket, Key=key, Body=body, IfNoneMatch="*", **put_kwargs)
        except Exception as error:  # botocore's ClientError; anything else is re-raised
            if not _is_conflict(error):
                raise
            tried.append(key)
            if rewind is None:
                raise UploadConflict(
                    f"put_new met a conflicting write on {key!r} and cannot retry: the body "
                    f"({type(body).__name__}) cannot be rewound, so a retry would upload what is "
                    "left of it; nothing was written - pass bytes or a seekable file"
                ) from error
            rewind()
            continue
        return key
    raise UploadConflict(
        f"put_new met a conflicting write on all {attempts} fresh keys it tried ({tried}); "
        "fresh ULIDs should never collide - check the clock and the random source"
    )


def presigned_put(
    layout: KeyLayout,
    client: Any,
    bucket: str,
    *,
    expires: int = 3600,
    content_type: str | None = None,
    ext: str | None = None,
) -> PresignedUpload:
    """A presigned PUT for a fresh key. ``If-None-Match: *`` is signed in, so the uploader
    must send it (see ``headers``) and S3 refuses to overwrite an existing object."""
    key = layout.new_key(ext)
    params: dict[str, Any] = {"Bucket": bucket, "Key": key, "IfNoneMatch": "*"}
    headers = {"If-None-Match": "*"}
    if content_type is not None:
        params["ContentType"] = content_type
        headers["Content-Type"] = content_type
    url = client.generate_presigned_url(
        "put_object", Params=params, ExpiresIn=_seconds(expires), HttpMethod="PUT"
    )
    return PresignedUpload(key=key, url=url, method="PUT", expires_in=expires, headers=headers)


def presigned_post(
    layout: KeyLayout,
    client: Any,
    bucket: str,
    *,
    expires: int = 3600,
    content_type: str | None = None,
    max_bytes: int | None = None,
    ext: str | None = None,
) -> PresignedUpload:
    """A presigned browser POST (URL + form fields) for a fresh key.

    POST policies cannot carry ``If-None-Match``: safety rests on the key's 80 random bits.
    ``max_bytes`` adds a ``content-length-range`` condition.
    """
    key = layout.new_key(ext)
    fields: dict[str, str] = {}
    conditions: list[Any] = []
    if content_type is not None:
        fields["Content-Type"] = content_type
        conditions.append({"Content-Type": content_type})
    if max_bytes is not None:
        require_count(max_bytes, "max_bytes")
        conditions.append(["content-length-range", 0, max_bytes])
    post = client.generate_presigned_post(
        bucket, key, Fields=fields, Conditions=conditions, ExpiresIn=_seconds(expires)
    )
    return PresignedUpload(
        key=key, url=post["url"], method="POST", expires_in=expires, fields=dict(post["fields"])
    )


def _seconds(expires: int) -> int:
    require_count(expires, "expires", 1, 604_800)  # seconds; SigV4's 7-day cap
    return expires
