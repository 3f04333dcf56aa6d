"""An in-memory S3 bucket answering ``list_objects_v2`` as AWS does (keys in UTF-8 byte order,
``StartAfter`` exclusive, ``Prefix``, ``Delimiter``'s common prefixes, at most 1,000 keys a
page), counting its calls: fast enough for property tests over buckets of tens of thousands of
keys, where moto re-sorts the whole bucket on every call."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from typing import Any


class StandInS3:
    """``list_objects_v2`` over a fixed set of keys; ``calls`` counts the requests, ``listed``
    holds every key the listings in key order (no ``Delimiter``) gave."""

    def __init__(self, keys: Iterable[str]) -> None:
        self.keys = sorted(set(keys), key=str.encode)
        self._encoded = [key.encode() for key in self.keys]
        self.calls = 0
        self.listed: set[str] = set()

    def list_objects_v2(
        self,
        *,
        Bucket: str,
        Prefix: str = "",
        StartAfter: str | None = None,
        ContinuationToken: str | None = None,
        Delimiter: str | None = None,
        MaxKeys: int = 1000,
    ) -> dict[str, Any]:
        assert 1 <= MaxKeys <= 1000, MaxKeys  # AWS never returns more than 1,000
        self.calls += 1
        encoded = self._encoded
        if ContinuationToken is not None:
            index = int(ContinuationToken)
        else:
            index = bisect_left(encoded, Prefix.encode())
            if StartAfter is not None:
                index = max(index, bisect_right(encoded, StartAfter.encode()))
        contents: list[dict[str, Any]] = []
        folders: list[dict[str, str]] = []
        while index < len(encoded) and len(contents) + len(folders) < MaxKeys:
            key = self.keys[index]
            if not key.startswith(Prefix):
                break
            at = key.find(Delimiter, len(Prefix)) if Delimiter else -1
            if at >= 0:
                folder = key[: at + len(Delimiter or "")]
                folders.append({"Prefix": folder})
                while index < len(encoded) and self.keys[index].startswith(folder):
                    index += 1
                continue
            contents.append({"Key": key, "Size": 0, "ETag": '"0"'})
            if Delimiter is None:
                self.listed.add(key)
            index += 1
        more = index < len(encoded) and self.keys[index].startswith(Prefix)
        answer: dict[str, Any] = {"IsTruncated": more, "KeyCount": len(contents) + len(folders)}
        if contents:
            answer["Contents"] = contents
        if folders:
            answer["CommonPrefixes"] = folders
        if more:
            answer["NextContinuationToken"] = str(index)
        return answer
