"""S3 Batch Operations CSV manifests: the objects of a window as ``bucket,key`` lines.

Format ``S3BatchOperations_CSV_20180820`` with fields ``["Bucket", "Key"]``; AWS requires the
manifest's contents URL-encoded, so each key is percent-encoded (UTF-8) and needs no CSV quoting.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any, Protocol
from urllib.parse import quote, unquote

from ulidkeys.errors import InvalidValue, describe

if TYPE_CHECKING:
    from types_boto3_s3 import S3Client

#: ``Manifest.Spec`` of an S3 Batch Operations ``CreateJob`` request for these files.
MANIFEST_SPEC: dict[str, Any] = {
    "Format": "S3BatchOperations_CSV_20180820",
    "Fields": ["Bucket", "Key"],
}
#: Manifests up to this size are built in memory, larger ones in a temporary file.
_SPOOL_BYTES = 8 << 20


def manifest_line(bucket: str, key: str) -> str:
    """One line: the bucket, a comma, the key percent-encoded (``/`` kept), a newline.

    Every character but ASCII letters, digits, ``_.-~`` and ``/`` is escaped (a space as
    ``%20``, ``+`` as ``%2B``, ``,`` as ``%2C``), so both ``unquote`` and ``unquote_plus``
    (what AWS's Lambda examples decode task keys with) give the key back.
    """
    return f"{bucket},{quote(key, safe='/')}\n"


class TextOut(Protocol):
    """Where manifest text goes: an open text file, ``sys.stdout``, a ``StringIO``."""

    def write(self, text: str, /) -> int: ...


#: What the Bucket column may hold (botocore's own rule for a bucket name): a comma, a space or
#: a line break in it would make lines :func:`parse_manifest` (and S3) read differently.
_BUCKET_COLUMN = re.compile(r"[A-Za-z0-9._-]{1,255}")


def write_manifest(objects: Iterable[Mapping[str, Any]], bucket: str, out: TextOut) -> int:
    """Write one line per object (its ``Key``) to ``out``; returns how many were written."""
    if not isinstance(bucket, str) or _BUCKET_COLUMN.fullmatch(bucket) is None:
        raise InvalidValue(
            f"bucket={describe(bucket)} is not a bucket name (letters, digits, '.', '_', '-'): "
            "a manifest line must read back as 'bucket,key'"
        )
    count = 0
    for obj in objects:
        out.write(manifest_line(bucket, obj["Key"]))
        count += 1
    return count


def parse_manifest(lines: Iterable[str]) -> Iterator[tuple[str, str]]:
    """``(bucket, key)`` of each line of a manifest written here (keys decoded); blank lines
    are skipped, anything else that is not ``bucket,encoded-key`` raises InvalidValue."""
    for number, line in enumerate(lines, 1):
        text = line.rstrip("\r\n")
        if not text:
            continue
        bucket, comma, key = text.partition(",")
        if not comma or not bucket or not key or "," in key:
            raise InvalidValue(
                f"manifest line {number} ({describe(text)}) is not 'bucket,url-encoded-key'"
            )
        yield bucket, unquote(key, errors="strict")


def put_manifest(
    client: S3Client,
    objects: Iterable[Mapping[str, Any]],
    bucket: str,
    target_bucket: str,
    target_key: str,
) -> tuple[int, dict[str, Any]]:
    """Write the manifest of ``objects`` (of ``bucket``) to ``s3://target_bucket/target_key``.

    Returns the object count and the ``Manifest`` argument of ``s3control.create_job``
    (``Spec`` and ``Location`` with the manifest's ARN and ETag). The manifest is spooled
    (in memory up to 8 MiB, then a temporary file) and sent in one PUT.
    """
    with tempfile.SpooledTemporaryFile(_SPOOL_BYTES, mode="w+b") as spool:
        count = write_manifest(objects, bucket, _TextSink(spool))
        spool.seek(0)
        response = client.put_object(
            Bucket=target_bucket, Key=target_key, Body=spool, ContentType="text/csv"
        )
    location = {
        "ObjectArn": f"arn:aws:s3:::{target_bucket}/{target_key}",
        "ETag": response["ETag"].strip('"'),  # CreateJob takes the ETag without its quotes
    }
    return count, {"Spec": MANIFEST_SPEC, "Location": location}


class _TextSink:
    """Text writes encoded as UTF-8 into a binary file (all ``write_manifest`` needs)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        return self.raw.write(text.encode())
