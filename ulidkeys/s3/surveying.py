"""``survey(client, bucket, prefix)``: what a prefix holds and the layout that fits it, read in a
bounded number of ListObjectsV2 calls (the program is :mod:`ulidkeys.survey`; this maps it onto
a boto3 client)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ulidkeys.engine.chains import Stats
from ulidkeys.engine.threads import outcome
from ulidkeys.errors import InvalidValue, describe
from ulidkeys.planning.locations import check_prefix
from ulidkeys.s3.bucket import ListingSource
from ulidkeys.survey.common import DEFAULT_MAX_CALLS
from ulidkeys.survey.s3 import Survey, survey_program

if TYPE_CHECKING:
    from types_boto3_s3 import S3Client


def survey(
    client: S3Client,
    bucket: str,
    prefix: str = "",
    *,
    max_calls: int = DEFAULT_MAX_CALLS,
    fast_pages: bool = True,
) -> Survey:
    """What ``s3://bucket/prefix`` holds, in at most ``max_calls`` ListObjectsV2 calls: the
    shape of its keys and the :class:`~ulidkeys.planning.layout.KeyLayout` that fits them, the
    oldest and newest id times, how many keys there are (exact when the prefix is small enough
    to read whole, a range when whole shards were read, else unknown above the keys read), a
    histogram over time, and what a 1-hour and a 1-day window cost with that layout next to a
    full listing. A layout is suggested (``python``, ``config``) only for a prefix read whole."""
    if not isinstance(bucket, str) or not bucket:
        raise InvalidValue(f"bucket={describe(bucket)} must be a bucket name")
    check_prefix(prefix)
    stats = Stats()
    program = survey_program(bucket, prefix, stats, max_calls=max_calls)
    found: Survey = outcome(
        program, ListingSource(client, bucket, fast_pages=fast_pages), stats=stats
    )
    return found
