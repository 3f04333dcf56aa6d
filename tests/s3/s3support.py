"""Shared helpers for the S3 tests: strategies, a brute-force answer, a call-recording client."""

from __future__ import annotations

import hashlib
import itertools
import threading
from typing import Any

from hypothesis import strategies as st

from ulidkeys import base32
from ulidkeys.s3 import KeyLayout

T0 = 1_715_936_400_000  # 2024-05-17T09:00:00Z
_bucket_numbers = itertools.count()

layouts = st.builds(
    KeyLayout,
    prefix=st.sampled_from(["", "uploads/", "tenant/acme/", "img-", "é/ü"]),
    shards=st.sampled_from([0, 0, 1, 3, 16]),
    period=st.sampled_from([None, "day", "hour"]),
    suffix=st.sampled_from(["", "", ".jpg", "/meta.json"]),
)


def ulid_at(ms: int, randomness: int) -> str:
    return base32.encode_time(ms) + base32.encode_random(randomness)


def order(layout: KeyLayout, key: str) -> tuple[str, str]:
    return str(layout.parse(key).ulid), key


def brute_force(layout: KeyLayout, keys: list[str], start: int, end: int) -> list[str]:
    """The expected answer: keys that fit, with ULID time in [start, end), in (ULID, key) order."""
    chosen = [
        k for k in set(keys) if layout.fits(k) and start <= layout.parse(k).ulid.timestamp_ms < end
    ]
    return sorted(chosen, key=lambda k: order(layout, k))


def new_bucket(client: Any) -> str:
    name = f"bucket-{next(_bucket_numbers)}"
    client.create_bucket(Bucket=name)
    return name


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

    Keys in UTF-8 byte order, ``StartAfter`` exclusive, at most ``MaxKeys`` (<= 1,000) keys a
    page, and ``page`` (smaller) to put page boundaries everywhere in small key sets.
    """

    def __init__(self, keys: list[str], page: int = 1000) -> None:
        self.keys = sorted(set(keys), key=lambda k: k.encode())
        self.page = page
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def list_objects_v2(self, **kwargs: Any) -> dict[str, Any]:
        with self._lock:
            self.requests.append(kwargs)
        assert set(kwargs) <= {"Bucket", "MaxKeys", "Prefix", "StartAfter", "ContinuationToken"}
        assert 1 <= kwargs["MaxKeys"] <= 1000
        prefix = kwargs.get("Prefix", "")
        after = kwargs.get("ContinuationToken", kwargs.get("StartAfter", ""))
        chosen = [k for k in self.keys if k.encode() > after.encode() and k.startswith(prefix)]
        size = min(self.page, kwargs["MaxKeys"])
        page = chosen[:size]
        result: dict[str, Any] = {
            "Contents": [{"Key": k, "Size": 0} for k in page],
            "IsTruncated": len(chosen) > size,
            "KeyCount": len(page),
        }
        if len(chosen) > size:
            result["NextContinuationToken"] = page[-1]
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
