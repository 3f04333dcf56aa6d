"""S3 locations as a user types them: ``s3://BUCKET/PREFIX``, bucket names and key prefixes.

Checked before any call (and by ``--explain``, which calls nothing), with the fix in the
message: one rule for every command that takes a bucket or a prefix.
"""

from __future__ import annotations

import re

from ulidkeys.errors import InvalidKeyPart, InvalidLayout, InvalidValue, describe, require_str
from ulidkeys.planning.layout import KeyLayout

# General-purpose buckets: 3-63 of a-z 0-9 . - (the upper case and '_' botocore lets through,
# of buckets made in us-east-1 before 2018, are refused with a word on why); directory buckets
# end in '--<zone id>--x-s3'.
_BUCKET_RE = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")
_DIRECTORY_RE = re.compile(r"[a-z0-9][a-z0-9-]*--[a-z0-9-]+--x-s3")
_IP_RE = re.compile(r"[0-9]+(\.[0-9]+){3}")
BUCKET_RULE = (
    "3-63 lowercase letters, digits, '.' and '-', starting and ending with a letter or digit"
)
# S3's reserved names (its bucket naming rules): no bucket of either kind starts with these
# (moto's server fails on an 'xn--' name, punycode to its host parser, with no clear word).
_RESERVED_PREFIXES = ("xn--", "sthree-", "amzn-s3-demo-")
# The reserved suffixes S3 never reads as a bucket: a Multi-Region Access Point is named by its
# ARN, and '--x-s3' is a directory bucket's, in its form only. The other reserved suffixes
# ('-s3alias', '--ol-s3', '--table-s3') name access point aliases and S3 Tables locations,
# which S3 reads in place of a bucket name (ListObjectsV2 included), so they are taken.
_RESERVED_SUFFIXES = {
    ".mrap": "a Multi-Region Access Point's, named by its ARN, which ulidkeys does not take",
    "--x-s3": "a directory bucket's, named NAME--ZONE-ID--x-s3 (e.g. photos--use1-az4--x-s3)",
}


def _reserved(name: str) -> str | None:
    """Which of S3's reserved forms ``name`` has (None: none of them)."""
    for prefix in _RESERVED_PREFIXES:
        if name.startswith(prefix):
            return f"no bucket name starts with {prefix!r} (S3 reserves it)"
    for suffix, whose in _RESERVED_SUFFIXES.items():
        if name.endswith(suffix) and not _DIRECTORY_RE.fullmatch(name):
            return f"the suffix {suffix!r} is {whose}"
    if _IP_RE.fullmatch(name):
        return "a bucket name is not formatted as an IP address (e.g. 192.168.5.4)"
    return None


def check_bucket_name(name: str) -> str:
    """``name`` if S3 could have a bucket of that name, else InvalidValue naming the rule.

    S3's reserved prefixes and names formatted as IP addresses are refused; so is a name ending
    ``--x-s3`` (what :func:`~ulidkeys.s3.bucket.is_directory_bucket` tells directory buckets
    by) unless it has a directory bucket's form ``NAME--ZONE-ID--x-s3``, and one ending
    ``.mrap``. Access point aliases (``-s3alias``, ``--ol-s3``) are taken: S3 lists through
    them.
    """
    if not require_str(name, "bucket"):
        raise InvalidValue("the bucket name is empty; write s3://BUCKET/PREFIX")
    if not (_DIRECTORY_RE.fullmatch(name) and len(name) <= 63) and (
        not _BUCKET_RE.fullmatch(name) or ".." in name
    ):
        legacy = " (capitals and '_' only in old us-east-1 names, which ulidkeys does not take)"
        odd = legacy if name != name.lower() or "_" in name else ""
        raise InvalidValue(
            f"{describe(name)} is not an S3 bucket name: a name is {BUCKET_RULE}{odd}"
        )
    reserved = _reserved(name)
    if reserved is not None:
        raise InvalidValue(f"{describe(name)} is not an S3 bucket name: {reserved}")
    return name


def split_s3_url(url: str) -> tuple[str, str]:
    """``s3://bucket/uploads/`` -> ``("bucket", "uploads/")``, the bucket name checked."""
    if not require_str(url, "location").startswith("s3://"):
        raise InvalidValue(f"{describe(url)} is not an S3 location; expected s3://BUCKET/PREFIX")
    bucket, _, prefix = url[len("s3://") :].partition("/")
    check_bucket_name(bucket)
    return bucket, prefix


def check_prefix(prefix: str, name: str = "prefix", location: str | None = None) -> str:
    """``prefix`` if it can start the keys of a layout; else InvalidValue with the fix.

    The layout's rules (no leading '/', no control characters, ...) apply, and a prefix may
    not end in a letter or digit: the id would follow it directly (``uploads01HY2...``), which
    is almost always a missing '/' (``s3://photos/uploads`` meant as the folder).
    """
    try:
        KeyLayout(prefix=prefix)
    except (InvalidLayout, InvalidKeyPart) as error:
        raise InvalidValue(f"{name} {describe(prefix)}: {error}") from None
    if prefix[-1:].isalnum():
        where = location or f"{name} {describe(prefix)}"
        fix = f"{location}/" if location is not None else f"{prefix}/"
        raise InvalidValue(
            f"{where} ends in a letter or digit, so ids would follow it directly "
            f"({prefix}01HY2...); for the folder write {fix} (or end the prefix with its "
            "separator, e.g. '-')"
        )
    return prefix
