"""The S3 suites run on both executors, the thread shell (boto3) and the asyncio shell
(aiobotocore, ``ulidkeys.aio``), against moto's HTTP server: exact windows against a brute-force
answer, resume from cursors, ``latest``, early close (no request after it), racing ``put_new``.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from aiobotocore.session import get_session
from aiosupport import CREDENTIALS, MODES, RequestCounter, Shell, shells
from hypothesis import given, settings
from hypothesis import strategies as st
from periodsupport import layout_periods_or_none
from profiles import examples
from s3support import T0, brute_force, fill_bucket, keys_of, layouts, ulid_at

from ulidkeys.aio import AsyncBucket
from ulidkeys.ids import ULID_SCHEME
from ulidkeys.s3 import Bucket, KeyLayout

HOUR = 3_600_000
DAY = 86_400_000


@pytest.fixture(scope="module")
def both() -> Iterator[dict[str, Shell]]:
    with shells() as made:
        yield made


def bucket_of(shell: Shell, layout: KeyLayout, keys: Sequence[str] = ()) -> Bucket | AsyncBucket:
    """A fresh bucket holding ``keys``, bound for the shell's executor."""
    name = f"aio-{uuid.uuid4().hex[:16]}"
    shell.sync_clients["s3"].create_bucket(Bucket=name)
    fill_bucket(name, keys)
    if shell.is_async:
        return AsyncBucket(shell.client("s3"), name, layout)
    return Bucket(shell.client("s3"), name, layout)


def random_keys(layout: KeyLayout, rng: random.Random, n: int, lo: int, hi: int) -> list[str]:
    return [layout.key_for(ulid_at(rng.randrange(lo, hi), rng.getrandbits(80))) for _ in range(n)]


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=examples(6))
@given(
    layout=layouts,
    seed=st.integers(0, 2**32),
    n=st.integers(0, 1000),
    start=st.integers(-HOUR, 2 * DAY),
    length=st.sampled_from([1, 60_000, HOUR, DAY, 3 * DAY]),
)
def test_list_window_matches_brute_force(
    both: dict[str, Shell], mode: str, layout: KeyLayout, seed: int, n: int, start: int, length: int
) -> None:
    shell = both[mode]
    rng = random.Random(seed)
    start += T0
    end = start + length
    keys = random_keys(layout, rng, n, T0 - HOUR, T0 + 2 * DAY)
    top = (1 << 80) - 1
    for t, r in [(start - 1, top), (start, 0), (start, top), (end - 1, top), (end, 0)]:
        keys.append(layout.key_for(ulid_at(t, r)))
    keys += [layout.prefix + "junk"]
    listed = bucket_of(shell, layout, keys)
    with RequestCounter(shell.client("s3"), "s3.ListObjectsV2") as counter:
        taken = shell.take(lambda: listed.list_window(start, end))
    assert keys_of(taken.items) == brute_force(layout, keys, start, end)
    assert taken.stats.calls == counter.sent
    assert taken.stats.returned == len(taken.items)


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=examples(5))
@given(
    layout=layouts,
    seed=st.integers(0, 2**32),
    n=st.integers(1, 800),
    want=st.integers(0, 30),
    spread=st.sampled_from([10, 60_000, DAY, 20 * DAY]),
)
def test_latest_matches_brute_force(
    both: dict[str, Shell], mode: str, layout: KeyLayout, seed: int, n: int, want: int, spread: int
) -> None:
    shell = both[mode]
    keys = random_keys(layout, random.Random(seed), n, T0 - spread, T0)
    listed = bucket_of(shell, layout, keys)
    before = T0 - spread // 3
    taken = shell.take(lambda: listed.latest(want, until=before))
    assert keys_of(taken.items) == brute_force(layout, keys, 0, before)[::-1][:want]


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=examples(4))
@given(
    kinds=st.lists(st.sampled_from([".jpg", ".png", ".tar.jpg"]), max_size=30),
    want=st.integers(0, 10),
    seed=st.integers(0, 2**32),
    directory=st.booleans(),
)
def test_latest_with_a_suffix_on_both_shells(
    both: dict[str, Shell], mode: str, kinds: list[str], want: int, seed: int, directory: bool
) -> None:
    """The one latest program, with a suffix, in either shell: the newest of exactly that
    suffix, however many newer keys carry another one (general and directory buckets)."""
    shell = both[mode]
    layout = KeyLayout("up/", shards=2, period="day" if seed % 2 else None, suffix=".jpg")
    rng = random.Random(seed)
    keys = [
        layout.key_for(ulid_at(T0 - DAY + i * 997_000, rng.getrandbits(80)), ext=kind)
        for i, kind in enumerate(kinds)
    ]
    listed = bucket_of(shell, layout, keys)
    if directory:  # the same keys read the way a directory bucket is read
        listed.directory = True
    taken = shell.take(lambda: listed.latest(want, until=T0 + DAY, suffix=".jpg"))
    newest_first = [k for k in keys if layout.split(k)[1] == ".jpg"]
    newest_first.sort(key=lambda k: layout.split(k)[0], reverse=True)  # by id, newest first
    assert keys_of(taken.items) == newest_first[:want]


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=examples(3))
@given(
    layout=st.builds(
        KeyLayout,
        prefix=st.sampled_from(["", "c/"]),
        shards=st.sampled_from([2, 5, 16]),
        period=layout_periods_or_none,
    ),
    seed=st.integers(0, 2**32),
    n=st.integers(0, 600),
    stops=st.lists(st.integers(0, 200), max_size=3),
    want=st.integers(1, 150),
)
def test_cursors_resume_listings_and_latest_exactly(
    both: dict[str, Shell],
    mode: str,
    layout: KeyLayout,
    seed: int,
    n: int,
    stops: list[int],
    want: int,
) -> None:
    """Stop after k items, resume from ``.cursor``, repeat: the pieces are the answer; and
    ``latest(n)`` then ``latest(n, cursor=...)`` gives the next older ones."""
    shell = both[mode]
    start, end = T0, T0 + DAY
    keys = random_keys(layout, random.Random(seed), n, T0 - HOUR, T0 + DAY + HOUR)
    listed = bucket_of(shell, layout, keys)
    expected = brute_force(layout, keys, start, end)
    got: list[str] = []
    cursor: str | None = None
    for k in [*stops, None]:
        taken = shell.take(
            lambda c=cursor: (
                listed.list_window(start, end) if c is None else listed.list_window(cursor=c)
            ),
            k,
        )
        got += keys_of(taken.items)
        cursor = taken.cursor or cursor
    assert got == expected
    newest: list[str] = []
    taken = shell.take(lambda: listed.latest(want, since=start, until=end))
    for _ in range(3):
        newest += keys_of(taken.items)
        if len(taken.items) < want:
            break
        taken = shell.take(lambda c=taken.cursor: listed.latest(want, cursor=c))
    assert newest == expected[::-1][: len(newest)]
    assert len(newest) == min(len(expected), 3 * want)


@pytest.mark.slow  # 4,800 keys on moto's server in both shells
@pytest.mark.parametrize("mode", MODES)
def test_closing_early_cancels_outstanding_requests(both: dict[str, Shell], mode: str) -> None:
    """16 shards of small pages: after 5 items the listing is closed. The asyncio shell has
    cancelled every request in flight or waiting for a slot, so none is sent after close; the
    thread shell sends no new one (a request a worker already started may still finish).
    Before the close, the time slices list at most MAX_AHEAD_PAGES pages a worker ahead of
    the caller: far less than half of the window's 480 pages."""
    shell = both[mode]
    layout = KeyLayout("close/", shards=16)
    keys = random_keys(layout, random.Random(7), 4800, T0, T0 + HOUR)
    listed = bucket_of(shell, layout, keys)
    plan = listed.plan_window(T0, T0 + HOUR, max_keys=10)  # ~30 pages a shard
    with RequestCounter(shell.client("s3"), "s3.ListObjectsV2") as counter:
        taken = shell.take(lambda: listed.run(plan, max_workers=4), 5)
        at_close = counter.sent
        time.sleep(0.3)
        after = counter.sent
    assert len(taken.items) == 5 and taken.stats.calls < 480 / 2
    if shell.is_async:
        assert after == at_close
    else:
        assert after <= at_close + 4  # at most one per worker, already started
    assert after <= taken.stats.calls  # every request sent was counted as sent, none later


@pytest.mark.parametrize("mode", MODES)
def test_put_new_races_exactly_one_wins(
    both: dict[str, Shell], mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight writers start with the same key: S3 lets exactly one create it, the others move
    to fresh keys. moto checks If-None-Match and then writes without a lock, so its PUT
    handler is serialized here to model S3's atomic conditional write."""
    import moto.s3.responses

    shell = both[mode]
    lock = threading.Lock()
    original = moto.s3.responses.S3Response.put_object

    def atomic_put(self: Any) -> Any:
        with lock:
            return original(self)

    monkeypatch.setattr(moto.s3.responses.S3Response, "put_object", atomic_put)
    layout = KeyLayout("race/", shards=4)
    listed = bucket_of(shell, layout)
    contested = ulid_at(T0, 42)
    fresh = ULID_SCHEME.new
    handed = threading.Lock()
    given_out: set[int] = set()

    def first_contested(n: int) -> str:
        with handed:  # each writer's first key is the contested one, later ones fresh
            if n in given_out:
                return fresh()
            given_out.add(n)
            return contested

    written: dict[int, str] = {}
    if shell.is_async:
        current: dict[int, int] = {}

        async def writer(n: int) -> None:
            current[id(asyncio.current_task())] = n
            assert isinstance(listed, AsyncBucket)
            written[n] = await listed.put_new(f"body-{n}".encode())

        monkeypatch.setattr(
            ULID_SCHEME, "new", lambda: first_contested(current[id(asyncio.current_task())])
        )

        async def race() -> None:
            await asyncio.gather(*(writer(n) for n in range(8)))

        shell.loop.run(race())
    else:
        barrier = threading.Barrier(8)
        monkeypatch.setattr(ULID_SCHEME, "new", lambda: first_contested(threading.get_ident()))

        def run_writer(n: int) -> None:
            barrier.wait()
            assert isinstance(listed, Bucket)
            written[n] = listed.put_new(f"body-{n}".encode())

        threads = [threading.Thread(target=run_writer, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert len(written) == 8 and len(set(written.values())) == 8
    assert sum(key == layout.key_for(contested) for key in written.values()) == 1
    s3 = shell.sync_clients["s3"]
    for n, key in written.items():
        assert s3.get_object(Bucket=listed.name, Key=key)["Body"].read() == f"body-{n}".encode()


def test_async_listings_read_pages_with_the_fast_reader(both: dict[str, Shell]) -> None:
    """aiobotocore emits botocore's ``before-parse`` event: the reader handles its pages, and
    the objects are the ones aiobotocore's own parser gives (``fast_pages=False``)."""
    shell = both["async"]
    layout = KeyLayout("fast/", shards=2)
    keys = random_keys(layout, random.Random(3), 1500, T0, T0 + HOUR)
    fast = bucket_of(shell, layout, keys)
    assert isinstance(fast, AsyncBucket) and fast.source.fast_pages
    seen: list[bool] = []

    def spy(response_dict: dict[str, Any], **_: Any) -> None:
        seen.append(response_dict["body"] == b"")  # read already by the reader

    async def plain_listing() -> list[Any]:
        session = get_session()
        options = shell.async_clients["s3"].meta.endpoint_url
        async with session.create_client("s3", endpoint_url=options, **CREDENTIALS) as client:
            plain = AsyncBucket(client, fast.name, layout, fast_pages=False)
            assert not plain.source.fast_pages
            return [obj async for obj in plain.list_window(T0, T0 + HOUR)]

    shell.client("s3").meta.events.register("before-parse.s3.ListObjectsV2", spy)
    try:
        listed = shell.take(lambda: fast.list_window(T0, T0 + HOUR)).items
    finally:
        shell.client("s3").meta.events.unregister("before-parse.s3.ListObjectsV2", spy)
    assert seen and all(seen)
    parsed = shell.loop.run(plain_listing())
    assert keys_of(listed) == sorted(keys, key=lambda k: (layout.parse(k).id, k))
    assert listed == parsed
    assert all(isinstance(obj["LastModified"], datetime) for obj in listed)


def test_async_presigned_uploads_are_signed_like_the_sync_ones(both: dict[str, Shell]) -> None:
    """The same signing steps on aiobotocore (where signing is a coroutine): the PUT URL
    uploads once, then S3 refuses a second PUT (If-None-Match is signed in); the POST has the
    same fields as the sync bucket's."""
    shell = both["async"]
    layout = KeyLayout("signed/", suffix=".bin")
    listed = bucket_of(shell, layout)
    assert isinstance(listed, AsyncBucket)
    upload = shell.do(listed.presigned_put(expires=300, content_type="application/x-test"))
    assert layout.fits(upload.key) and upload.method == "PUT"
    assert upload.headers == {"If-None-Match": "*", "Content-Type": "application/x-test"}
    query = dict(parse_qsl(urlsplit(upload.url).query))
    assert query["X-Amz-Algorithm"] == "AWS4-HMAC-SHA256"
    assert query["X-Amz-SignedHeaders"] == "content-type;host;if-none-match"

    def send(body: bytes) -> int:
        request = urllib.request.Request(
            upload.url, data=body, method="PUT", headers=upload.headers
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return int(response.status)
        except urllib.error.HTTPError as error:
            return error.code

    assert send(b"first") == 200
    assert send(b"second") == 412
    stored = shell.sync_clients["s3"].get_object(Bucket=listed.name, Key=upload.key)
    assert stored["Body"].read() == b"first"
    post = shell.do(listed.presigned_post(expires=300, max_bytes=100, ext="txt"))
    twin = Bucket(shell.sync_clients["s3"], listed.name, layout).presigned_post(
        expires=300, max_bytes=100, ext="txt"
    )
    assert post.method == "POST" and post.fields["key"] == post.key and post.key.endswith(".txt")
    assert sorted(post.fields) == sorted(twin.fields) and post.url == twin.url
