"""The asyncio twins only forward: their read methods are the sync adapters' own functions (one
source of behaviour), and each shell adds only how a plan or program is run. A twin that grows
its own copy of a reading method fails here before it can drift from the sync one."""

from __future__ import annotations

import pytest

from ulidkeys.aio import AsyncBatchWriter, AsyncBucket, AsyncTable
from ulidkeys.aio import execution as aio_execution
from ulidkeys.dynamodb import BatchWriter, Table
from ulidkeys.engine import execution
from ulidkeys.s3 import Bucket

S3_READS = ("plan_window", "list_window", "list_slice", "slice_plan", "latest", "consume")
DYNAMODB_READS = (
    "plan_window",
    "plan",
    "query_window",
    "query_slice",
    "slice_plan",
    "latest",
    "latest_plan",
    "consume",
)


@pytest.mark.parametrize(
    ("sync", "twin", "names"),
    [(Bucket, AsyncBucket, S3_READS), (Table, AsyncTable, DYNAMODB_READS)],
    ids=["s3", "dynamodb"],
)
def test_a_twin_reads_with_the_sync_adapters_functions(
    sync: type, twin: type, names: tuple[str, ...]
) -> None:
    copies = [name for name in names if getattr(twin, name, None) is not getattr(sync, name)]
    assert not copies, f"{twin.__name__} writes its own {copies}; inherit the sync code"


def test_the_batch_writers_share_the_queue_and_its_constructor() -> None:
    for name in ("_setup", "_put_steps", "_delete_steps", "_flush_steps", "pending", "clear"):
        assert getattr(AsyncBatchWriter, name, None) is getattr(BatchWriter, name), name


def test_both_shells_stream_with_one_schedule() -> None:
    assert execution.stream.__func__ is aio_execution.stream.__func__  # type: ignore[attr-defined]
