"""Writing under fresh keys: conditional ``put_object`` and presigned PUT/POST uploads.

``put_new`` sends ``IfNoneMatch="*"`` so S3 itself refuses to overwrite; a conflict that is its
own earlier attempt (a lost reply) counts as written, any other one retries under a fresh key.
Presigned uploads are signed with SigV4 on the regional host whatever the caller's client
(:mod:`ulidkeys.s3.signing`), so the headers they promise are really signed in.
"""

from __future__ import annotations

import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ulidkeys.engine.operations import Program, Send
from ulidkeys.engine.threads import outcome
from ulidkeys.errors import (
    InvalidKeyPart,
    InvalidType,
    InvalidValue,
    UploadConflict,
    aws_error,
    describe,
    require_count,
    require_int,
    require_str,
    retried,
)
from ulidkeys.planning.layout import KeyLayout
from ulidkeys.s3.signing import MAX_EXPIRES, signer

#: Error codes meaning "another write got this key first": 412 when the object exists, 409
#: when a conflicting conditional write was still in flight (AWS only; moto never sends it).
CONFLICT_CODES = frozenset({"PreconditionFailed", "ConditionalRequestConflict"})

_RESERVED = ("Bucket", "Key", "Body", "IfNoneMatch", "IfMatch")

#: Object metadata (``x-amz-meta-ulidkeys-put-token``) holding a random token per ``put_new``
#: call: after a lost reply, the object found under the key is this call's own write exactly
#: when it carries this call's token.
TOKEN_METADATA = "ulidkeys-put-token"

#: A body that cannot seek (a pipe, a socket) is copied to a temporary file first, in memory up
#: to this many bytes and on disk beyond, so botocore can checksum it and every retry resends
#: all of it.
SPOOL_MEMORY = 8 * 1024 * 1024
#: The largest object one PutObject takes (5 GiB); a longer stream needs a multipart upload.
MAX_PUT_BYTES = 5 * 1024**3
#: The size limit a presigned POST's policy carries unless the caller passes ``max_bytes``
#: (100 MiB): a form handed to a browser should not accept whatever its holder sends.
#: ``max_bytes=None`` lifts it to S3's own single-upload limit (:data:`MAX_PUT_BYTES`).
DEFAULT_POST_MAX_BYTES = 100 * 1024**2


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


def _spool(body: Any) -> Any:
    """A rewindable copy of a body that can be read only once (a pipe, a socket)."""
    if not callable(getattr(body, "read", None)):
        raise InvalidValue(
            f"body={describe(body)} is neither bytes/str nor a readable file object; pass bytes "
            "or a file opened in binary mode"
        )
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY)  # noqa: SIM115 (returned)
    try:
        shutil.copyfileobj(body, spool)
        size = spool.tell()
        if size > MAX_PUT_BYTES:
            raise InvalidValue(
                f"body {describe(body)} holds more than {MAX_PUT_BYTES} bytes, the most one "
                "PutObject takes; upload it with client.upload_fileobj (multipart)"
            )
        spool.seek(0)
    except BaseException:
        spool.close()
        raise
    return spool


def _own_write(bucket: str, key: str, token: str, error: Exception) -> Program[bool]:
    """Whether the object a conflict reports is this call's own write (its reply was lost).

    Only a request botocore sent more than once can meet its own write, so a conflict on the
    first send costs no extra call; otherwise one HEAD compares the stored token.
    """
    if not retried(error):
        return False
    try:
        head = yield Send("head_object", {"Bucket": bucket, "Key": key})
    except Exception as missing:  # the other object was deleted since: not ours either way
        if aws_error(missing)[1] == 404:
            return False
        raise
    return bool(head.get("Metadata", {}).get(TOKEN_METADATA) == token)


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

    Idempotent across botocore's retries: the object carries a per-call random token in its
    metadata (:data:`TOKEN_METADATA`), so when a retried PUT meets a 412/409 on an object that
    holds this call's token (the first PUT landed, its reply was lost) the key is returned as
    written. Any other conflict means another writer holds that key: try again under a new
    key, rewinding the body first. A body that cannot seek (a pipe) is copied to a temporary
    file first (:data:`SPOOL_MEMORY`), so checksums and retries can reread it. Other errors
    propagate unchanged; after one, an object may or may not exist (see README "Guarantees").
    """
    with put_new_steps(layout, bucket, body, ext=ext, attempts=attempts, **put_kwargs) as steps:
        return outcome(steps, client=client)


@contextmanager
def put_new_steps(
    layout: KeyLayout,
    bucket: str,
    body: Any,
    *,
    ext: str | None = None,
    attempts: int = 5,
    **put_kwargs: Any,
) -> Iterator[Program[str]]:
    """:func:`put_new` as steps (for either driver); a spooled copy of the body lives as long
    as the ``with`` block."""
    for name in _RESERVED:
        if name in put_kwargs:
            raise InvalidValue(f"put_new sets {name} itself; do not pass {name}=...")
    require_count(attempts, "attempts", 1)
    metadata = put_kwargs.pop("Metadata", None) or {}
    if not isinstance(metadata, dict) or TOKEN_METADATA in metadata:
        raise InvalidKeyPart(
            f"Metadata={describe(metadata)} must be a dict without {TOKEN_METADATA!r}, which "
            "put_new sets itself"
        )
    for name, value in metadata.items():
        if not isinstance(name, str) or not isinstance(value, str):
            raise InvalidType(
                f"Metadata={describe(metadata)} must map str to str: S3 sends each entry as an "
                f"x-amz-meta- header ({describe(name)}: {describe(value)} is not)"
            )
        if not (name + value).isprintable():
            raise InvalidValue(
                f"Metadata entry {describe(name)}: {describe(value)} holds a control character; "
                "an HTTP header cannot carry it"
            )
    token = secrets.token_hex(16)
    metadata = {**metadata, TOKEN_METADATA: token}
    rewind = _rewinder(body)
    spooled = None
    if rewind is None:
        body = spooled = _spool(body)
        rewind = _rewinder(body)
    try:
        yield _put_attempts(
            layout, bucket, body, rewind, token, ext, attempts, metadata, put_kwargs
        )
    finally:
        if spooled is not None:
            spooled.close()


def _put_attempts(
    layout: KeyLayout,
    bucket: str,
    body: Any,
    rewind: Callable[[], object] | None,
    token: str,
    ext: str | None,
    attempts: int,
    metadata: dict[str, str],
    put_kwargs: dict[str, Any],
) -> Program[str]:
    tried = []
    for _ in range(attempts):
        key = layout.new_key(ext)
        params = {"Bucket": bucket, "Key": key, "Body": body, "IfNoneMatch": "*"}
        try:
            yield Send("put_object", {**params, "Metadata": metadata, **put_kwargs})
        except Exception as error:  # botocore's ClientError; anything else is re-raised
            if not _is_conflict(error):
                raise
            if (yield from _own_write(bucket, key, token, error)):
                return key
            tried.append(key)
            if rewind is not None:
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
    """A presigned PUT for a fresh key, signed with SigV4 whatever ``client``'s own signature
    setting: ``If-None-Match: *`` (and ``Content-Type`` when given) are signed headers, so
    the uploader must send them as in ``headers`` and S3 refuses to overwrite an existing
    object, however often the URL is used before it expires (at most 7 days)."""
    steps = presigned_put_steps(layout, bucket, expires, content_type, ext)
    return outcome(steps, client=signer(client))


def presigned_put_steps(
    layout: KeyLayout, bucket: str, expires: int, content_type: str | None, ext: str | None
) -> Program[PresignedUpload]:
    """:func:`presigned_put` as steps (one signing call, local: no request is sent)."""
    _content_type(content_type)
    key = layout.new_key(ext)
    params: dict[str, Any] = {"Bucket": bucket, "Key": key, "IfNoneMatch": "*"}
    headers = {"If-None-Match": "*"}
    if content_type is not None:
        params["ContentType"] = content_type
        headers["Content-Type"] = content_type
    url = yield Send(
        "generate_presigned_url",
        {
            "ClientMethod": "put_object",
            "Params": params,
            "ExpiresIn": _seconds(expires),
            "HttpMethod": "PUT",
        },
    )
    return PresignedUpload(key=key, url=url, method="PUT", expires_in=expires, headers=headers)


def presigned_post(
    layout: KeyLayout,
    client: Any,
    bucket: str,
    *,
    expires: int = 3600,
    content_type: str | None = None,
    max_bytes: int | None = DEFAULT_POST_MAX_BYTES,
    ext: str | None = None,
) -> PresignedUpload:
    """A presigned browser POST (URL + form fields) for a fresh key, signed with SigV4.

    The policy pins the exact key (and ``Content-Type`` when given) and a
    ``content-length-range`` of ``0 .. max_bytes`` (default :data:`DEFAULT_POST_MAX_BYTES`;
    ``None``: S3's own 5 GiB). POST policies cannot carry ``If-None-Match``: safety against
    overwriting rests on the key's 80 fresh random bits, which no one can guess.
    """
    steps = presigned_post_steps(layout, bucket, expires, content_type, max_bytes, ext)
    return outcome(steps, client=signer(client))


def presigned_post_steps(
    layout: KeyLayout,
    bucket: str,
    expires: int,
    content_type: str | None,
    max_bytes: int | None,
    ext: str | None,
) -> Program[PresignedUpload]:
    """:func:`presigned_post` as steps (one signing call, local: no request is sent)."""
    _content_type(content_type)
    key = layout.new_key(ext)
    fields: dict[str, str] = {}
    conditions: list[Any] = []
    if content_type is not None:
        fields["Content-Type"] = content_type
        conditions.append({"Content-Type": content_type})
    limit = require_count(max_bytes, "max_bytes", 0, MAX_PUT_BYTES, optional=True)
    conditions.append(["content-length-range", 0, MAX_PUT_BYTES if limit is None else limit])
    post = yield Send(
        "generate_presigned_post",
        {
            "Bucket": bucket,
            "Key": key,
            "Fields": fields,
            "Conditions": conditions,
            "ExpiresIn": _seconds(expires),
        },
    )
    return PresignedUpload(
        key=key, url=post["url"], method="POST", expires_in=expires, fields=dict(post["fields"])
    )


def _content_type(value: object) -> None:
    """``content_type`` checked as a header value an uploader can send: it is signed into the
    URL (or pinned by the POST policy), so one no HTTP client sends back as given (CR/LF, other
    control or non-ASCII characters, empty or padded text) would make every upload fail."""
    if value is None:
        return
    text = require_str(value, "content_type")
    if not (text.isascii() and text.isprintable()) or not text or text != text.strip():
        raise InvalidValue(
            f"content_type={describe(value)} is not a header value an uploader can send back "
            "unchanged: pass a non-empty MIME type of printable ASCII without surrounding "
            "spaces (e.g. 'image/jpeg')"
        )


def _seconds(expires: int) -> int:
    """``expires`` checked against SigV4's limit: S3 refuses a URL valid for longer."""
    require_int(expires, "expires")
    if not 1 <= expires <= MAX_EXPIRES:
        raise InvalidValue(
            f"expires={describe(expires)} seconds is out of range: a SigV4 presigned URL is "
            f"valid for 1 .. {MAX_EXPIRES} seconds (7 days)"
        )
    return expires
