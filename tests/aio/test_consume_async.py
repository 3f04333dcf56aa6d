"""Incremental consumers on both shells (boto3 threads, aiobotocore tasks) against moto's HTTP
server: simulated writers with skewed clocks and slow uploads, a consumer every simulated
minute, every key delivered exactly once, and the two shells deliver the same runs and store
the same checkpoints; runs stopped early and committed are resumed by the next run."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from aiosupport import Shell, shells
from consumesim import MINUTE, Clock, Schedule, Write, writes
from moto.core import DEFAULT_ACCOUNT_ID
from moto.s3.models import s3_backends

from ulidkeys.aio import AsyncBucket, AsyncTable
from ulidkeys.dynamodb import Entity, Table
from ulidkeys.s3 import Bucket, KeyLayout, MemoryStore

T0 = 1_715_936_400_000
SETTLE, OVERLAP = 30_000, 60_000
SINCE = T0 - 10_000
LAYOUT = KeyLayout("uploads/", shards=2, period="hour")
POST = Entity(pk="Org#{org}", sk="Post#{id}")
TABLE = "consume-async"


@pytest.fixture(scope="module")
def both() -> Iterator[dict[str, Shell]]:
    with shells() as made:
        made["sync"].sync_clients["dynamodb"].create_table(
            TableName=TABLE,
            KeySchema=[
                {"AttributeName": "PK", "KeyType": "HASH"},
                {"AttributeName": "SK", "KeyType": "RANGE"},
            ],
            AttributeDefinitions=[
                {"AttributeName": "PK", "AttributeType": "S"},
                {"AttributeName": "SK", "AttributeType": "S"},
            ],
            BillingMode="PAY_PER_REQUEST",
        )
        yield made


def run_once(
    shell: Shell, listed: Any, store: MemoryStore, clock: Clock, stop: int | None
) -> list[str]:
    """One consumer run on the shell: take up to ``stop`` items, commit; the ids delivered."""
    options = {"since": SINCE, "settle": SETTLE, "overlap": OVERLAP, "now": clock}
    if not shell.is_async:
        with listed.consume(store, **options) as run:
            items = []
            for item in run:
                items.append(item)
                if stop is not None and len(items) >= stop:
                    break
            run.commit()
        return [_id_of(item) for item in items]

    async def go() -> list[Any]:
        run = await listed.consume(store, **options)
        items = []
        async with run:
            async for item in run:
                items.append(item)
                if stop is not None and len(items) >= stop:
                    break
        await run.commit()
        return items

    return [_id_of(item) for item in shell.loop.run(go())]


def _id_of(item: dict[str, Any]) -> str:
    if "Key" in item:
        return str(LAYOUT.parse(item["Key"]).id)
    return str(POST.parse(item)["id"])


def simulate(
    shell: Shell, service: str, made: list[Write], minutes: int, stops: Callable[[int], int | None]
) -> tuple[list[list[str]], MemoryStore]:
    clock = Clock(T0)
    store = MemoryStore()
    if service == "s3":
        name = f"consume-{uuid.uuid4().hex[:12]}"
        shell.sync_clients["s3"].create_bucket(Bucket=name)
        sync_bucket = Bucket(shell.sync_clients["s3"], name, LAYOUT)

        def arrive(due: list[Write]) -> None:
            # straight into the backend of the moto server running in this process
            backend = s3_backends[DEFAULT_ACCOUNT_ID]["global"]
            for w in due:
                backend.put_object(name, LAYOUT.key_for(w.id), b"", disable_notification=True)

        listed: Any = (
            AsyncBucket(shell.client("s3"), name, LAYOUT) if shell.is_async else sync_bucket
        )
    else:
        org = f"acme-{uuid.uuid4().hex[:8]}"
        entity = POST
        sync_table = Table(shell.sync_clients["dynamodb"], entity, table_name=TABLE)

        def arrive(due: list[Write]) -> None:
            with sync_table.batch_writer() as writer:
                for w in due:
                    writer.put(entity.keys(org=org, id=w.id))

        listed = (
            AsyncTable(shell.client("dynamodb"), entity, table_name=TABLE)
            if shell.is_async
            else Table(shell.client("dynamodb"), entity, table_name=TABLE)
        )
        listed = _Org(listed, org)
    schedule = Schedule(made, arrive, clock)
    number = iter(range(10**6))
    schedule.run_every(
        T0 + MINUTE,
        T0 + minutes * MINUTE,
        lambda: run_once(shell, listed, store, clock, stops(next(number))),
    )
    return schedule.runs, store


class _Org:
    """A table whose consume() always names one org (each test run writes its own)."""

    def __init__(self, table: Any, org: str) -> None:
        self.table, self.org = table, org

    def consume(self, store: Any, **options: Any) -> Any:
        options["org"] = self.org
        return self.table.consume(store, **options)


@pytest.mark.parametrize("service", ["s3", "dynamodb"])
def test_both_shells_deliver_every_key_once_and_the_same_runs(
    both: dict[str, Shell], service: str
) -> None:
    # 300 writes over 8 minutes, clocks +-5 s, a fifth of them visible up to 70 s late (past
    # settle, inside settle + overlap); every third run stops after 7 items and commits.
    made = writes(11, T0, T0 + 8 * MINUTE, 300, late_share=0.2, late_delay_ms=70_000)
    results = {}
    for mode, shell in both.items():
        runs, store = simulate(shell, service, made, 11, lambda k: 7 if k % 3 == 1 else None)
        delivered = [i for run in runs for i in run]
        assert len(delivered) == len(set(delivered))  # never twice
        assert sorted(delivered) == sorted(w.id for w in made)  # none lost
        assert any(len(run) == 7 for run in runs[1::3])  # the stops did stop runs
        assert store.checkpoint is not None
        results[mode] = (runs, store.checkpoint.watermark_ms, store.checkpoint.sequence)
    assert results["sync"] == results["async"]
