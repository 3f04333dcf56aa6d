"""Filling a moto (``mock_aws``) bucket fast, for tests, benchmarks and demos.

``put_object`` through boto3 costs ~1 ms a key on moto (request signing, XML, HTTP emulation);
writing straight into moto's in-process backend skips all of that. Test/demo use only.
"""

from __future__ import annotations

from collections.abc import Iterable

DEFAULT_ACCOUNT = "123456789012"


def fill_bucket(
    bucket: str, keys: Iterable[str], body: bytes = b"", account_id: str = DEFAULT_ACCOUNT
) -> int:
    """Create ``keys`` (empty bodies by default) in a moto bucket that already exists.

    Must run inside ``mock_aws`` (or against a ThreadedMotoServer in this process). Returns
    the number of keys written.
    """
    from moto.s3.models import s3_backends

    backend = s3_backends[account_id]["global"]
    count = 0
    for key in keys:
        backend.put_object(bucket, key, body, disable_notification=True)
        count += 1
    return count
