"""The in-memory ListObjectsV2 the planner and engine tests list from (``FakeS3``) answers as
S3 does: the same pages as moto for the same keys and requests, tokens followed to the end."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples
from s3support import FakeS3, fill_bucket, moto_client

_PIECES = st.sampled_from(["a", "b", "a/", "b/", "é", "/", "-", "z", "~", "0"])
_KEYS = st.lists(
    st.lists(_PIECES, min_size=1, max_size=5).map("".join).filter(lambda k: not k.endswith("/")),
    max_size=40,
    unique=True,
)


def _pages(client: Any, request: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Every page of a listing, as (keys, common prefixes, truncated, count), the listing's
    own continuation tokens followed."""
    pages, token = [], None
    while True:
        asked = dict(request, **({"ContinuationToken": token} if token else {}))
        if token:
            asked.pop("StartAfter", None)
        answer = client.list_objects_v2(**asked)
        pages.append(
            (
                [o["Key"] for o in answer.get("Contents", [])],
                [p["Prefix"] for p in answer.get("CommonPrefixes", [])],
                answer["IsTruncated"],
                answer["KeyCount"],
            )
        )
        token = answer.get("NextContinuationToken")
        if not answer["IsTruncated"]:
            return pages


@settings(max_examples=examples(40), deadline=None)
@given(
    _KEYS,
    st.lists(_PIECES, max_size=2).map("".join),
    st.one_of(st.none(), st.lists(_PIECES, max_size=3).map("".join)),
    st.sampled_from([None, "/"]),
    st.integers(1, 7),
)
def test_fake_pages_are_motos_pages(
    keys: list[str], prefix: str, start_after: str | None, delimiter: str | None, max_keys: int
) -> None:
    request: dict[str, Any] = {"Bucket": "fake-bucket", "MaxKeys": max_keys, "Prefix": prefix}
    if start_after:
        request["StartAfter"] = start_after
    if delimiter:
        request["Delimiter"] = delimiter
    with moto_client() as client:
        client.create_bucket(Bucket="fake-bucket")
        fill_bucket("fake-bucket", keys)
        assert _pages(FakeS3(keys), request) == _pages(client, request)
