"""Hostile input to the S3 adapter, against moto: arguments of the wrong type or shape are
refused with a ``ulidkeys.errors`` exception naming them (never a traceback from botocore,
never a quiet empty answer), and a bucket full of keys that do not fit the layout lists exactly
what a brute-force reading of the whole bucket says."""

from __future__ import annotations

import asyncio
import base64
import io
import itertools
import json
import random
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import boto3
import pytest
from aiobotocore.session import get_session
from hypothesis import given, settings
from hypothesis import strategies as st
from moto import mock_aws
from profiles import examples
from s3support import T0, brute_force, fill_bucket, keys_of, moto_client, ulid_at

from ulidkeys.aio import AsyncBucket
from ulidkeys.emit.manifests import parse_manifest, write_manifest
from ulidkeys.errors import InvalidKeyPart, InvalidType, InvalidValue
from ulidkeys.s3 import Bucket, KeyLayout
from ulidkeys.s3.checkpoints import S3CheckpointStore

DAY = 86_400_000
MAX_MS = 2**48 - 1
NAME = "hostile"


@pytest.fixture(scope="module")
def s3() -> Iterator[Any]:
    with moto_client() as client:
        client.create_bucket(Bucket=NAME)
        yield client


def emptied(client: Any) -> Bucket:
    listed = client.list_objects_v2(Bucket=NAME).get("Contents", [])
    for obj in listed:
        client.delete_object(Bucket=NAME, Key=obj["Key"])
    return Bucket(client, NAME, KeyLayout("up/"))


# --- latest(suffix=): a suffix no key can end in is refused, the ext= spelling is found --------


@pytest.mark.parametrize("suffix", ["jpg", ".jpg"])
def test_latest_finds_a_suffix_spelled_as_put_new_takes_ext(s3: Any, suffix: str) -> None:
    # put_new(ext="jpg") writes ".jpg": latest(suffix="jpg") answered [] while they stood there
    bucket = emptied(s3)
    jpgs = [bucket.put_new(b"x", ext="jpg") for _ in range(3)]
    bucket.put_new(b"x", ext="png")
    assert keys_of(bucket.latest(2, suffix=suffix)) == sorted(jpgs, reverse=True)[:2]


@pytest.mark.parametrize("suffix", ["/", "a b", "\n", ".", "/meta.json", "x" * 40, "\u202e.jpg"])
def test_latest_refuses_a_suffix_no_key_of_the_layout_ends_in(s3: Any, suffix: str) -> None:
    bucket = emptied(s3)
    bucket.put_new(b"x")
    with pytest.raises(InvalidKeyPart, match="suffix="):
        list(bucket.latest(1, suffix=suffix))


def test_the_layout_suffix_itself_is_a_suffix_filter(s3: Any) -> None:
    layout = KeyLayout("up/", suffix="/meta.json")
    assert layout.suffix_filter("/meta.json") == "/meta.json"
    assert layout.suffix_filter("json") == ".json"
    with pytest.raises(InvalidKeyPart):
        layout.suffix_filter("")  # every key of it has text after the id


# --- presigned uploads: a content type the uploader cannot send back is refused -----------

BAD_CONTENT_TYPES = [
    ("text/plain\r\nX-Evil: 1", InvalidValue),
    ("text/plain\n", InvalidValue),
    ("", InvalidValue),
    (" text/plain", InvalidValue),
    ("text/é", InvalidValue),
    ("text/\x00", InvalidValue),
    (5, InvalidType),
    (b"text/plain", InvalidType),
]


@pytest.mark.parametrize("method", ["presigned_put", "presigned_post"])
@pytest.mark.parametrize(("content_type", "error"), BAD_CONTENT_TYPES)
def test_presigned_content_type_must_be_a_sendable_header(
    s3: Any, method: str, content_type: object, error: type[Exception]
) -> None:
    bucket = Bucket(s3, NAME, KeyLayout("up/"))
    with pytest.raises(error, match="content_type="):
        getattr(bucket, method)(content_type=content_type)


@pytest.mark.parametrize("method", ["presigned_put", "presigned_post"])
def test_the_async_twin_refuses_the_same_content_types(method: str) -> None:
    async def sign() -> None:
        session = get_session()
        async with session.create_client(
            "s3",
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        ) as client:
            bucket = AsyncBucket(client, NAME, KeyLayout("up/"))
            await getattr(bucket, method)(content_type="text/plain\r\nX-Evil: 1")

    with pytest.raises(InvalidValue, match="content_type="):
        asyncio.run(sign())


PREFIXES = ["up/", "é/ü x/", "a+b=c/", "a%20b/", "t~!$&'()*,;:@/", "q?x#y/", "日本/"]


@pytest.mark.parametrize("prefix", PREFIXES)
def test_presigned_urls_and_policies_read_back_to_the_key(s3: Any, prefix: str) -> None:
    bucket = Bucket(s3, NAME, KeyLayout(prefix, period="day"))
    content_type = 'text/plain; charset="utf-8"'
    put = bucket.presigned_put(content_type=content_type)
    url = urlsplit(put.url)
    assert unquote(url.path) == "/" + put.key  # virtual-hosted: the path is the key
    assert parse_qs(url.query)["X-Amz-SignedHeaders"] == ["content-type;host;if-none-match"]
    assert put.headers == {"If-None-Match": "*", "Content-Type": content_type}
    post = bucket.presigned_post(content_type=content_type, max_bytes=0)
    policy = json.loads(base64.b64decode(post.fields["policy"]))
    assert {"key": post.key} in policy["conditions"]
    assert {"Content-Type": content_type} in policy["conditions"]
    assert ["content-length-range", 0, 0] in policy["conditions"]
    assert post.fields["key"] == post.key and post.fields["Content-Type"] == content_type
    assert all(isinstance(value, str) for value in post.fields.values())


# --- put_new: Metadata must be what S3 can send as headers --------------------------------


@pytest.mark.parametrize(
    ("metadata", "error"),
    [
        ({"a": 1}, InvalidType),
        ({1: "a"}, InvalidType),
        ({"a": None}, InvalidType),
        ({"a": "x\r\ny"}, InvalidValue),
        ({"a\n": "x"}, InvalidValue),
    ],
)
def test_put_new_refuses_metadata_headers_cannot_carry(
    s3: Any, metadata: dict[Any, Any], error: type[Exception]
) -> None:
    bucket = emptied(s3)
    with pytest.raises(error, match="Metadata"):
        bucket.put_new(b"x", Metadata=metadata)
    assert "Contents" not in s3.list_objects_v2(Bucket=NAME)  # nothing written


def test_put_new_keeps_string_metadata(s3: Any) -> None:
    bucket = emptied(s3)
    key = bucket.put_new(b"x", Metadata={"owner": "ana", "note": "a b=c"})
    stored = s3.head_object(Bucket=NAME, Key=key)["Metadata"]
    assert stored["owner"] == "ana" and stored["note"] == "a b=c"


# --- flags are bools: text would be read by its truth --------------------------------------


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda c: Bucket(c, NAME, KeyLayout("up/"), directory="no"), "directory"),
        (lambda c: Bucket(c, NAME, KeyLayout("up/"), directory=0), "directory"),
        (lambda c: Bucket(c, NAME, KeyLayout("up/"), fast_pages="no"), "fast_pages"),
        (lambda c: Bucket(c, NAME, KeyLayout("up/")).list_window(T0, split="false"), "split"),
        (lambda c: Bucket(c, NAME, KeyLayout("up/")).list_window(T0, split=None), "split"),
    ],
)
def test_flags_given_as_anything_but_a_bool_are_refused(s3: Any, call: Any, name: str) -> None:
    with pytest.raises(InvalidType, match=f"{name}="):
        call(s3)


# --- a bucket full of keys that do not fit: every answer is the brute-force one ------------


_buckets = itertools.count()


def hostile_bucket(client: Any, keys: set[str]) -> tuple[str, list[str]]:
    """A new bucket holding ``keys``, and every key its full listing gives (what brute force
    reads: the bucket, not what the test meant to put in it)."""
    name = f"hostile-{next(_buckets)}"
    client.create_bucket(Bucket=name)
    fill_bucket(name, keys)
    pages = client.get_paginator("list_objects_v2").paginate(Bucket=name)
    return name, [obj["Key"] for page in pages for obj in page.get("Contents", [])]


def hostile_keys(layout: KeyLayout, rng: random.Random) -> set[str]:
    """Keys of the layout at the edges of time and of the test windows, and beside each one
    the lookalikes a bucket collects: lowercase or overflowing ids, ids one character short
    or long, non-Crockford letters, extra folders, a longer folder that starts with the prefix,
    suffixes that are no extension."""
    keys: set[str] = set()
    times = [0, 1, T0 - 1, T0, T0 + 1, T0 + DAY - 1, T0 + DAY, MAX_MS - 1, MAX_MS]
    for ms in times:
        for random_bits in (0, rng.getrandbits(80), 2**80 - 1):
            try:
                key = layout.key_for(ulid_at(ms, random_bits), ext=rng.choice([None, ".jpg"]))
            except InvalidKeyPart:  # a time no period folder names (past 9999)
                keys.add(f"up/dt=10889-08-02/{ulid_at(ms, random_bits)}")
                continue
            ulid = layout.parse(key).id
            head, tail = key.split(ulid)
            keys |= {
                key,
                head + ulid.lower() + tail,
                head + "8" + ulid[1:] + tail,
                head + ulid[:25] + tail,
                head + ulid + "X" + tail,
                head + ulid[:5] + "U" + ulid[6:] + tail,
                head + "sub/" + ulid + tail,
                head + ulid + tail + "/more",
                head + ulid + tail + "~",
                head + ulid + "é" + tail,
                key + ".bak",
                "up2/" + key[len("up/") :],
            }
    return keys


@pytest.mark.parametrize(
    "layout",
    [KeyLayout("up/", period="day"), KeyLayout("up/", shards=3), KeyLayout("up/", suffix=".j")],
    ids=str,
)
def test_windows_and_latest_of_a_hostile_bucket_are_the_brute_force_answer(
    layout: KeyLayout,
) -> None:
    with mock_aws():
        client = boto3.client("s3", region_name="us-east-1")
        name, keys = hostile_bucket(client, hostile_keys(layout, random.Random(7)))
        bucket = Bucket(client, name, layout)
        windows = [(0, MAX_MS + 1), (T0, T0 + 1), (T0, T0 + DAY), (T0 - 1, T0 + DAY + 1)]
        windows += [(MAX_MS, MAX_MS + 1), (T0 + 1, T0 + 1)]
        for start, end in windows:
            expected = brute_force(layout, keys, start, end)
            assert keys_of(bucket.list_window(start, end)) == expected
            assert keys_of(bucket.list_window(start, end, split=False)) == expected
            for n in (1, 4, len(expected) + 1):
                newest = keys_of(bucket.latest(n, since=start, until=end))
                assert newest == expected[::-1][:n]
        everything = brute_force(layout, keys, 0, MAX_MS + 1)
        listing = bucket.list_window(0, MAX_MS + 1)
        first = keys_of(itertools.islice(listing, 5))
        rest = keys_of(bucket.list_window(cursor=listing.cursor))
        assert first + rest == everything
        assert keys_of(bucket.list_window(0, MAX_MS + 1, after=everything[4])) == everything[5:]


# --- bucket names botocore would refuse at the first request; manifests that read back ----


@pytest.mark.parametrize("name", ["a/b", "a b", "a\r\nb", "a,b", "", "é", "a" * 256])
def test_a_bucket_name_botocore_refuses_is_refused_when_bound(s3: Any, name: str) -> None:
    with pytest.raises(InvalidValue, match="name="):
        Bucket(s3, name, KeyLayout("up/"))


@pytest.mark.parametrize("name", ["a/b", "a b", "a\nb", ""])
def test_a_checkpoint_store_refuses_the_same_bucket_names(s3: Any, name: str) -> None:
    with pytest.raises(InvalidValue, match="bucket="):
        S3CheckpointStore(s3, name, "checkpoints/one.json")


def test_an_access_point_arn_is_a_bucket_name(s3: Any) -> None:
    arn = "arn:aws:s3:us-east-1:123456789012:accesspoint/photos"
    assert Bucket(s3, arn, KeyLayout("up/")).name == arn


@pytest.mark.parametrize("bucket", ["a,b", "a\nb", "", "a b", "a/b"])
def test_a_manifest_refuses_a_bucket_column_that_would_not_read_back(bucket: str) -> None:
    with pytest.raises(InvalidValue, match="bucket="):
        write_manifest([{"Key": "up/k"}], bucket, io.StringIO())


def test_manifest_lines_read_back_to_every_hostile_key(s3: Any) -> None:
    keys = hostile_keys(KeyLayout("up/", period="day"), random.Random(3))
    keys |= {"up/a,b", "up/a\nb", "up/a b+c%20", "up/\u2028", "up/日本"}
    out = io.StringIO()
    assert write_manifest([{"Key": k} for k in sorted(keys)], NAME, out) == len(keys)
    lines = out.getvalue().splitlines(keepends=True)
    assert len(lines) == len(keys)
    assert [key for _, key in parse_manifest(lines)] == sorted(keys)
    assert {bucket for bucket, _ in parse_manifest(lines)} == {NAME}


@settings(max_examples=examples(10), deadline=None)
@given(
    seed=st.integers(0, 2**32),
    share=st.floats(0.05, 1.0),
    edges=st.lists(st.sampled_from([0, 1, T0 - 1, T0, T0 + 1, T0 + DAY, MAX_MS]), min_size=2),
    n=st.integers(0, 6),
)
def test_random_hostile_buckets_list_the_brute_force_answer(
    seed: int, share: float, edges: list[int], n: int
) -> None:
    layout = KeyLayout("up/", shards=2, period="hour")
    rng = random.Random(seed)
    chosen = {key for key in hostile_keys(layout, rng) if rng.random() < share}
    start, end = min(edges), max(edges)
    with mock_aws():
        client = boto3.client("s3", region_name="us-east-1")
        name, keys = hostile_bucket(client, chosen)
        bucket = Bucket(client, name, layout)
        expected = brute_force(layout, keys, start, end)
        assert keys_of(bucket.list_window(start, end)) == expected
        assert keys_of(bucket.latest(n, since=start, until=end)) == expected[::-1][:n]


@pytest.mark.parametrize("piece", ["x", None, {"index": 0}, '{"ulidkeys_slice":1}'])
def test_list_slice_refuses_what_is_not_a_slice(s3: Any, piece: object) -> None:
    bucket = Bucket(s3, NAME, KeyLayout("up/"))
    with pytest.raises(InvalidType, match="piece="):
        bucket.list_slice(piece)  # type: ignore[arg-type]
