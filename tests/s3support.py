"""Shared helpers for the S3 tests: strategies, a brute-force answer, fake and recording clients,
and ``fill_bucket`` (writes straight into moto's in-process backend)."""

from __future__ import annotations

import bisect
import hashlib
import itertools
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import boto3
from hypothesis import strategies as st
from moto import mock_aws
from periodsupport import layout_periods_or_none
from profiles import untraced

from ulidkeys import base32
from ulidkeys.s3 import KeyLayout

T0 = 1_715_936_400_000  # 2024-05-17T09:00:00Z
_bucket_numbers = itertools.count()
DEFAULT_ACCOUNT = "123456789012"

layouts = st.builds(
    KeyLayout,
    prefix=st.sampled_from(["", "uploads/", "tenant/acme/", "img-", "é/ü"]),
    shards=st.sampled_from([None, None, 1, 3, 16]),
    period=layout_periods_or_none,
    suffix=st.sampled_from(["", "", ".jpg", "/meta.json"]),
)


def ulid_at(ms: int, randomness: int) -> str:
    return base32.encode_time(ms) + base32.encode_random(randomness)


def order(layout: KeyLayout, key: str) -> tuple[str, str]:
    """Where a key stands in a listing: ``(id text, key)``."""
    return layout.parse(key).id, key


def brute_force(layout: KeyLayout, keys: Iterable[str], start: int, end: int) -> list[str]:
    """The expected answer: keys that fit, with id time in [start, end), in (id, key) order."""
    timestamp = layout.scheme.timestamp_ms
    chosen = [
        k for k in set(keys) if layout.fits(k) and start <= timestamp(layout.parse(k).id) < end
    ]
    return sorted(chosen, key=lambda k: order(layout, k))


def keys_of(listing: Iterable[dict[str, Any]]) -> list[str]:
    return [obj["Key"] for obj in listing]


def new_bucket(client: Any) -> str:
    name = f"bucket-{next(_bucket_numbers)}"
    client.create_bucket(Bucket=name)
    return name


@contextmanager
def moto_client() -> Iterator[Any]:
    """An S3 client of an in-process moto (fake credentials, us-east-1)."""
    with mock_aws():
        yield boto3.client(
            "s3",
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )


def fill_bucket(
    bucket: str, keys: Iterable[str], body: bytes = b"", account_id: str = DEFAULT_ACCOUNT
) -> int:
    """Create ``keys`` in a moto bucket that already exists, straight in moto's backend.

    ``put_object`` through boto3 costs ~1 ms a key on moto (signing, XML, HTTP emulation);
    this skips all of that. Must run inside ``mock_aws`` or against a ThreadedMotoServer in
    this process. Returns the number of keys written.
    """
    from moto.s3.models import s3_backends

    backend = s3_backends[account_id]["global"]
    count = 0
    for key in keys:
        backend.put_object(bucket, key, body, disable_notification=True)
        count += 1
    return count


class Recorder:
    """Wraps a boto3 client, records every ListObjectsV2 request and checks S3's rules."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []

    def list_objects_v2(self, **kwargs: Any) -> Any:
        assert 1 <= kwargs["MaxKeys"] <= 1000, kwargs
        with self._lock:
            self.requests.append(kwargs)
        return self._client.list_objects_v2(**kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


class FakeS3:
    """ListObjectsV2 of a general-purpose bucket in memory, with AWS's rules.

    Keys in UTF-8 byte order, ``StartAfter`` exclusive, at most ``MaxKeys`` (<= 1,000) keys and
    common prefixes a page (``Delimiter`` rolls keys up into CommonPrefixes, in order), and
    ``page`` (smaller) to put page boundaries everywhere in small key sets.
    """

    def __init__(self, keys: list[str], page: int = 1000) -> None:
        self.keys: list[str] = []
        self._encoded: list[bytes] = []  # the keys' UTF-8, to find where a page starts
        self.page = page
        self.requests: list[dict[str, Any]] = []
        self.responses: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self.put(keys)

    def put(self, keys: Iterable[str]) -> None:
        """Add keys (they are listed from the next request on)."""
        with self._lock:
            self.keys = sorted(set(self.keys).union(keys), key=lambda k: k.encode())
            self._encoded = [k.encode() for k in self.keys]

    @untraced  # as moto's answers: the package's code never runs in it
    def list_objects_v2(self, **kwargs: Any) -> dict[str, Any]:
        with self._lock:
            self.requests.append(kwargs)
            keys, encoded = self.keys, self._encoded
        allowed = {"Bucket", "MaxKeys", "Prefix", "StartAfter", "ContinuationToken", "Delimiter"}
        assert set(kwargs) <= allowed
        assert 1 <= kwargs["MaxKeys"] <= 1000
        prefix = kwargs.get("Prefix", "")
        delimiter = kwargs.get("Delimiter")
        token = kwargs.get("ContinuationToken")
        after = token[2:] if token is not None else kwargs.get("StartAfter", "")
        size = min(self.page, kwargs["MaxKeys"])
        # The keys after StartAfter (or the token) under the prefix, in key order: those of a
        # prefix are one run in UTF-8 byte order. One entry past the page says it is truncated.
        start = max(
            bisect.bisect_right(encoded, after.encode()),
            bisect.bisect_left(encoded, prefix.encode()),
        )
        entries: list[tuple[str, str]] = []  # ("Key" or "Prefix", text), in key order
        for k in itertools.islice(keys, start, None):
            if not k.startswith(prefix) or len(entries) > size:
                break
            cut = k.find(delimiter, len(prefix)) if delimiter else -1
            if cut < 0:
                entries.append(("Key", k))
                continue
            rolled = k[: cut + len(delimiter)]
            # a common prefix is an entry of its own: not after StartAfter (or the common
            # prefix the last page ended with), it is not listed again, as moto and S3 do
            if rolled.encode() > after.encode() and entries[-1:] != [("Prefix", rolled)]:
                entries.append(("Prefix", rolled))
        page = entries[:size]
        result: dict[str, Any] = {
            "Contents": [{"Key": k, "Size": 0} for kind, k in page if kind == "Key"],
            "IsTruncated": len(entries) > size,
            "KeyCount": len(page),
        }
        if delimiter:
            result["CommonPrefixes"] = [{"Prefix": p} for kind, p in page if kind == "Prefix"]
        if len(entries) > size:
            kind, text = page[-1]
            result["NextContinuationToken"] = kind[0] + ":" + text
        with self._lock:
            self.responses.append(result)
        return result


class FakeDirectoryBucket:
    """ListObjectsV2 of an S3 Express directory bucket: pages in no particular order, no
    ``StartAfter``, and only prefixes that end in '/' (the rules moto does not model)."""

    def __init__(self, keys: list[str], seed: int = 0, page: int = 1000) -> None:
        self.keys = list(dict.fromkeys(keys))
        self.seed = seed
        self.page = page
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    @untraced
    def list_objects_v2(self, **kwargs: Any) -> dict[str, Any]:
        assert "StartAfter" not in kwargs, "directory buckets reject StartAfter"
        prefix = kwargs.get("Prefix", "")
        assert prefix == "" or prefix.endswith("/"), f"directory buckets reject Prefix={prefix!r}"
        assert 1 <= kwargs["MaxKeys"] <= 1000
        with self._lock:
            self.requests.append(kwargs)
            chosen = [k for k in self.keys if k.startswith(prefix)]
            entries: list[tuple[str, str]] = []
            seen: set[str] = set()
            for key in chosen:
                cut = key.find("/", len(prefix)) if kwargs.get("Delimiter") == "/" else -1
                if cut < 0:
                    entries.append(("Key", key))
                elif key[: cut + 1] not in seen:
                    seen.add(key[: cut + 1])
                    entries.append(("Prefix", key[: cut + 1]))
            # a scrambled order that is stable across the pages of one listing
            order = sorted(
                entries, key=lambda e: hashlib.md5(f"{self.seed}{e[1]}".encode()).digest()
            )
            start = int(kwargs.get("ContinuationToken", "0"))
            size = min(self.page, kwargs["MaxKeys"])
            page = order[start : start + size]
        result: dict[str, Any] = {
            "Contents": [{"Key": k, "Size": 0} for kind, k in page if kind == "Key"],
            "CommonPrefixes": [{"Prefix": p} for kind, p in page if kind == "Prefix"],
            "IsTruncated": start + size < len(order),
        }
        if result["IsTruncated"]:
            result["NextContinuationToken"] = str(start + size)
        return result
