"""Incremental consumers on S3 (moto, simulated time): every key exactly once despite clock skew
and slow uploads, crashes re-deliver only what was not committed, one racer's commit wins,
damaged checkpoints are refused."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from consumesim import MINUTE, Clock, Schedule, Write, writes
from moto import mock_aws
from s3support import T0, FakeDirectoryBucket, FakeS3, Recorder, fill_bucket, new_bucket

from ulidkeys.errors import CheckpointConflict, InvalidCheckpoint, InvalidType, InvalidValue
from ulidkeys.planning.checkpoints import FORMAT, Checkpoint
from ulidkeys.planning.listings import MIN_TAIL_KEYS, chain_keys, plan_listing
from ulidkeys.s3 import (
    Bucket,
    FileStore,
    KeyLayout,
    LateArrival,
    ListCall,
    MemoryStore,
    S3CheckpointStore,
)

SETTLE, OVERLAP = 30_000, 60_000
SINCE = T0 - 10_000  # before every id of the writers (their clocks run up to 5 s behind)
LAYOUT = KeyLayout("uploads/", shards=4, period="hour", suffix=".jpg")


@pytest.fixture
def s3() -> Iterator[Any]:
    with mock_aws():
        session = boto3.session.Session(region_name="us-east-1")
        # LastModified left as text: botocore's date parsing is most of a listed key's cost
        # here, and these tests list tens of thousands of keys.
        factory = session._session.get_component("response_parser_factory")
        factory.set_parser_defaults(timestamp_parser=str)
        yield session.client("s3")


@pytest.fixture(params=["in memory", pytest.param("moto", marks=pytest.mark.slow)])
def world(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Where the simulations run: an in-memory ListObjectsV2 (FakeS3, with S3's listing rules)
    in the loop a contributor waits on, and moto with the slow runs (the adapter's contract)."""
    if request.param == "in memory":
        yield FakeS3([])
    else:
        yield request.getfixturevalue("s3")


def setup(s3: Any, made: list[Write], layout: KeyLayout = LAYOUT) -> tuple[Bucket, Schedule]:
    """A bucket on ``s3`` (a moto client or a FakeS3) and the schedule its writes arrive on."""
    if isinstance(s3, FakeS3):
        bucket = Bucket(s3, "in-memory", layout)  # type: ignore[arg-type]

        def arrive(due: list[Write]) -> None:
            s3.put(layout.key_for(w.id) for w in due)

    else:
        bucket = Bucket(s3, new_bucket(s3), layout)

        def arrive(due: list[Write]) -> None:
            fill_bucket(bucket.name, (layout.key_for(w.id) for w in due))

    return bucket, Schedule(made, arrive, Clock(T0))


def consumer(bucket: Bucket, store: Any, clock: Clock, **options: Any) -> Any:
    def run() -> list[str]:
        run = bucket.consume(
            store, since=SINCE, settle=SETTLE, overlap=OVERLAP, now=clock, **options
        )
        keys = [obj["Key"] for obj in run]
        run.commit()
        return keys

    return run


def simulate(
    s3: Any, made: list[Write], minutes: int, store: MemoryStore | None = None
) -> tuple[dict[str, Write], list[str], Schedule, list[LateArrival]]:
    """Writes arrive as they become visible; the consumer runs every minute for ``minutes``."""
    bucket, schedule = setup(s3, made)
    late: list[LateArrival] = []
    run = consumer(bucket, store or MemoryStore(), schedule.clock, on_late=late.append)
    delivered = schedule.run_every(T0 + MINUTE, T0 + minutes * MINUTE, run)
    assert len(delivered) == len(set(delivered))  # never twice
    for items in schedule.runs:
        assert items == sorted(items, key=lambda k: (LAYOUT.parse(k).id, k))  # time order
    return {LAYOUT.key_for(w.id): w for w in made}, delivered, schedule, late


def test_every_key_exactly_once_with_skew_and_slow_uploads(world: Any) -> None:
    # 3,000 keys over 30 minutes, writer clocks +-5 s, PUTs visible up to 20 s late.
    store = MemoryStore()
    made, delivered, schedule, late = simulate(
        world, writes(1, T0, T0 + 30 * MINUTE, 3_000), 33, store
    )
    assert sorted(delivered) == sorted(made)  # none lost
    assert late == []  # lateness <= 25 s < settle: nothing even reached the overlap
    assert store.checkpoint is not None and store.checkpoint.sequence == len(schedule.runs)


def test_lateness_within_settle_plus_overlap_is_caught_and_reported(world: Any) -> None:
    # A third of the uploads take up to 85 s: past settle (30 s), inside settle + overlap (90 s).
    traffic = writes(2, T0, T0 + 20 * MINUTE, 2_000, late_share=0.3, late_delay_ms=85_000)
    made, delivered, _, late = simulate(world, traffic, 25)
    assert sorted(delivered) == sorted(made)
    assert late and all(0 < event.depth_ms <= OVERLAP for event in late)
    assert len({event.position for event in late}) == len(late)


def test_lateness_beyond_the_overlap_is_reported_and_bounded(world: Any) -> None:
    traffic = writes(3, T0, T0 + 20 * MINUTE, 2_000, late_share=0.2, late_delay_ms=200_000)
    made, delivered, _, late = simulate(world, traffic, 26)
    lost = made.keys() - set(delivered)
    assert lost, "the test must push lateness past what the overlap can see"
    # The documented bound: anything visible within settle + overlap of its id time is
    # delivered; only later ones are lost.
    assert all(made[key].lateness > SETTLE + OVERLAP for key in lost)
    # and the late ones that were caught warned of it: some came from deep in the overlap
    assert max(event.depth_ms for event in late) > OVERLAP * 3 // 4


def test_a_crash_before_commit_redelivers_exactly_the_uncommitted(s3: Any) -> None:
    made = writes(4, T0, T0 + 5 * MINUTE, 600)
    bucket, schedule = setup(s3, made)
    store = MemoryStore()
    schedule.advance_to(T0 + 3 * MINUTE)
    first = bucket.consume(store, since=SINCE, settle=SETTLE, overlap=OVERLAP, now=schedule.clock)
    committed = [obj["Key"] for obj in first]
    first.commit()
    schedule.advance_to(T0 + 6 * MINUTE)

    def attempt() -> Any:
        return bucket.consume(store, settle=SETTLE, overlap=OVERLAP, now=schedule.clock)

    crashed = attempt()
    whole = [obj["Key"] for obj in crashed]  # processed, then the process died: no commit
    assert whole and not set(whole) & set(committed)
    assert [obj["Key"] for obj in attempt()] == whole  # the same items again, nothing more
    # committing part-way: the rest, exactly, on the next attempt
    partial = attempt()
    done = [next(partial)["Key"] for _ in range(100)]
    partial.commit()
    partial.close()
    assert done == whole[:100]
    rest = attempt()
    assert [obj["Key"] for obj in rest] == whole[100:]
    rest.commit()
    assert list(attempt()) == []


def test_checkpoint_survives_a_file_round_trip(s3: Any, tmp_path: Path) -> None:
    made = writes(5, T0, T0 + 4 * MINUTE, 400)
    bucket, schedule = setup(s3, made)
    path = tmp_path / "thumbs.checkpoint.json"
    delivered = schedule.run_every(
        T0 + MINUTE, T0 + 6 * MINUTE, consumer(bucket, FileStore(path), schedule.clock)
    )
    assert sorted(delivered) == sorted(LAYOUT.key_for(w.id) for w in made)
    stored = json.loads(path.read_text())
    assert stored["ulidkeys_checkpoint"] == FORMAT and stored["sequence"] == 6
    assert not list(tmp_path.glob("*.tmp"))  # the temp file was renamed into place
    # small: only the ids of the overlap zone, id onward
    assert all(entry.endswith(".jpg") and len(entry) == 30 for entry in stored["delivered"])


@pytest.mark.parametrize("first_commit", [True, False])
def test_racing_consumers_on_an_s3_checkpoint_one_wins(s3: Any, first_commit: bool) -> None:
    made = writes(6, T0, T0 + 5 * MINUTE, 500)
    bucket, schedule = setup(s3, made)
    store = S3CheckpointStore(s3, bucket.name, "checkpoints/thumbs.json")
    schedule.advance_to(T0 + 3 * MINUTE)
    if not first_commit:
        run = bucket.consume(store, since=SINCE, now=schedule.clock)
        list(run)
        run.commit()
        schedule.advance_to(T0 + 6 * MINUTE)
    a = bucket.consume(store, since=SINCE, now=schedule.clock)
    b = bucket.consume(store, since=SINCE, now=schedule.clock)
    got_a, got_b = [o["Key"] for o in a], [o["Key"] for o in b]
    assert got_a == got_b and got_a
    a.commit()
    with pytest.raises(CheckpointConflict, match="another consumer"):
        b.commit()
    assert list(bucket.consume(store, now=schedule.clock)) == []  # A's commit holds


def test_racing_consumers_on_a_file_checkpoint_one_wins(s3: Any, tmp_path: Path) -> None:
    bucket, schedule = setup(s3, writes(7, T0, T0 + MINUTE, 50))
    schedule.advance_to(T0 + 2 * MINUTE)
    store = FileStore(tmp_path / "c.json")
    a = bucket.consume(store, since=SINCE, now=schedule.clock)
    b = bucket.consume(store, since=SINCE, now=schedule.clock)
    list(a), list(b)
    a.commit()
    with pytest.raises(CheckpointConflict):
        b.commit()


def test_a_file_checkpoint_checks_its_folder_when_made(tmp_path: Path) -> None:
    """A missing folder (or a folder given for the file) is refused when the store is made,
    as ``--checkpoint`` is, not at the first commit after the run's items were handled."""
    missing = tmp_path / "no-such-folder" / "c.json"
    with pytest.raises(InvalidValue, match="no-such-folder' does not exist") as refused:
        FileStore(missing)
    assert str(missing) in str(refused.value)
    with pytest.raises(InvalidValue, match="is a folder"):
        FileStore(tmp_path)
    (tmp_path / "plain").write_text("")
    with pytest.raises(InvalidValue, match="is not a folder"):
        FileStore(tmp_path / "plain" / "c.json")
    assert FileStore(tmp_path / "c.json").load() == (None, None)  # a new file: nothing yet


def _stored(s3: Any, bucket: Bucket, body: bytes) -> S3CheckpointStore:
    s3.put_object(Bucket=bucket.name, Key="cp.json", Body=body)
    return S3CheckpointStore(s3, bucket.name, "cp.json")


def test_damaged_foreign_or_newer_checkpoints_are_refused(s3: Any) -> None:
    bucket, schedule = setup(s3, writes(8, T0, T0 + MINUTE, 20))
    schedule.advance_to(T0 + 2 * MINUTE)
    good = bucket.consume(MemoryStore(), since=SINCE, now=schedule.clock)
    list(good)
    text = good.checkpoint.to_json()
    body = json.loads(text)
    cases = {
        "not JSON": b"{not json",
        "truncated": text[: len(text) // 2].encode(),
        "not a checkpoint": b'{"watermark": 5}',
        "newer format": json.dumps({**body, "ulidkeys_checkpoint": FORMAT + 1}).encode(),
        "string time": json.dumps({**body, "watermark_ms": "5"}).encode(),
        "floor above watermark": json.dumps({**body, "floor_ms": body["watermark_ms"] + 1}),
    }
    for name, raw in cases.items():
        store = _stored(s3, bucket, raw if isinstance(raw, bytes) else raw.encode())
        with pytest.raises(InvalidCheckpoint):
            bucket.consume(store, since=SINCE, now=schedule.clock)
        assert name
    with pytest.raises(InvalidCheckpoint, match="newer than"):
        Checkpoint.from_json(cases["newer format"])
    # a checkpoint of another layout: refused, never a fresh start
    other = Bucket(s3, bucket.name, KeyLayout("uploads/", shards=4, period="day", suffix=".jpg"))
    with pytest.raises(InvalidCheckpoint, match="another listing"):
        other.consume(MemoryStore(Checkpoint.from_json(text)), now=schedule.clock)


def test_bad_consume_arguments_name_the_input(s3: Any, tmp_path: Path) -> None:
    bucket, schedule = setup(s3, [])
    with pytest.raises(InvalidValue, match="since="):
        bucket.consume(MemoryStore(), now=schedule.clock)
    with pytest.raises(InvalidValue, match="overlap"):
        bucket.consume(MemoryStore(), since=SINCE, overlap=-1, now=schedule.clock)
    with pytest.raises(InvalidType, match="now="):
        bucket.consume(MemoryStore(), since=SINCE, now=T0)  # type: ignore[arg-type]
    with pytest.raises(InvalidValue, match="takes no org="):
        bucket.consume(MemoryStore(), since=SINCE, org="acme")
    with pytest.raises(InvalidType, match="store="):
        bucket.consume(str(tmp_path), since=SINCE)  # type: ignore[arg-type]


def test_pages_are_sized_to_the_window_from_the_checkpoint(s3: Any) -> None:
    made = writes(9, T0, T0 + 6 * MINUTE, 1_200, skew_ms=0, delay_ms=0)
    bucket, schedule = setup(s3, made)
    recorder = Recorder(s3)
    bucket = Bucket(recorder, bucket.name, LAYOUT)  # type: ignore[arg-type]
    store = MemoryStore()
    runs = []
    for minute in (2, 3, 4):
        schedule.advance_to(T0 + minute * MINUTE)
        run = bucket.consume(store, since=SINCE, now=schedule.clock)
        list(run)
        run.commit()
        runs.append(run.stats)
    first_run = recorder.requests[:4]
    assert all(r["MaxKeys"] == 1000 for r in first_run)  # nothing to estimate from yet
    later = recorder.requests[4:]
    assert len(later) == 8 and all(r["MaxKeys"] < 200 for r in later)  # one call per shard
    # ~50 keys a shard are expected (25 s of overlap zone known, 30 s new at 200/min)
    assert runs[-1].read - runs[-1].returned - runs[-1].repeated < runs[0].read // 2


def test_list_call_pages_ask_for_what_is_still_expected() -> None:
    call = ListCall("uploads/", expected_keys=2_350)
    assert [call.page_size(read) for read in (0, 1000, 2000, 2300, 5000)] == [
        1000,
        1000,
        350,
        MIN_TAIL_KEYS,
        MIN_TAIL_KEYS,
    ]
    assert ListCall("uploads/").page_size(5000) == 1000
    # a shard's share of the known overlap ids and of the new ones, plus 3 sigma of the new
    assert chain_keys((400, 400.0), 4) == 100 + 100 + 30 + 8
    assert chain_keys(None, 4) is None
    assert "~2350 keys expected" in call.explain()
    with pytest.raises(InvalidValue, match="expected_keys"):
        plan_listing(LAYOUT, T0, T0 + MINUTE, expected_keys=0)


def test_a_backlog_taken_in_small_committed_steps_keeps_the_checkpoint_small(s3: Any) -> None:
    # 20 minutes of uploads, then a consumer that may process only 150 objects a run.
    made = writes(10, T0, T0 + 20 * MINUTE, 900, skew_ms=0, delay_ms=0)
    bucket, schedule = setup(s3, made)
    schedule.advance_to(T0 + 21 * MINUTE)
    store = MemoryStore()
    delivered: list[str] = []
    watermarks = []
    while True:
        run = bucket.consume(store, since=SINCE, now=schedule.clock)
        with run:
            # range first: zip must not pull a 151st object it would then drop (an object
            # counts as delivered once it has been yielded)
            step = [obj["Key"] for _, obj in zip(range(150), run, strict=False)]
        if not step:
            break
        checkpoint = run.commit()
        delivered += step
        watermarks.append(checkpoint.watermark_ms)
        # only the ids of one overlap (60 s at ~45 keys a minute) are remembered
        assert len(checkpoint.delivered) <= 150
    assert sorted(delivered) == sorted(LAYOUT.key_for(w.id) for w in made)
    assert len(delivered) == len(made) and watermarks == sorted(watermarks)


def test_directory_buckets_are_consumed_folder_by_folder() -> None:
    # S3 Express lists unordered and without StartAfter: the run reads the window's folders,
    # sorts, and the checkpoint still delivers each key once.
    layout = KeyLayout("uploads/", shards=2, period="hour")
    made = writes(15, T0, T0 + 10 * MINUTE, 400)
    fake = FakeDirectoryBucket([], seed=3, page=50)
    bucket = Bucket(fake, "media--use1-az4--x-s3", layout)  # type: ignore[arg-type]
    schedule = Schedule(
        made, lambda due: fake.keys.extend(layout.key_for(w.id) for w in due), Clock(T0)
    )
    store = MemoryStore()

    def run() -> list[str]:
        consumption = bucket.consume(store, since=SINCE, now=schedule.clock)
        keys = [obj["Key"] for obj in consumption]
        consumption.commit()
        return keys

    delivered = schedule.run_every(T0 + MINUTE, T0 + 12 * MINUTE, run)
    assert sorted(delivered) == sorted(layout.key_for(w.id) for w in made)
    for items in schedule.runs:  # time order across shards
        assert items == sorted(items, key=lambda k: (layout.parse(k).id, k))
    assert all("StartAfter" not in request for request in fake.requests)
