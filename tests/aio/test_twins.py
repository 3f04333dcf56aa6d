"""The asyncio twins only forward: their read methods are the sync adapters' own functions (one
source of behaviour), and each shell adds only how a plan or program is run. A twin that grows
its own copy of a reading method fails here before it can drift from the sync one."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, cast

import pytest

from ulidkeys.aio import AsyncBatchWriter, AsyncBucket, AsyncTable
from ulidkeys.aio.dynamodb import async_target
from ulidkeys.dynamodb import BatchWriter, Table
from ulidkeys.s3 import Bucket

ROOT = Path(__file__).resolve().parent.parent.parent
S3_READS = ("plan_window", "list_window", "list_slice", "slice_plan", "latest", "consume", "run")
DYNAMODB_READS = (
    "plan_window",
    "query_window",
    "query_slice",
    "slice_plan",
    "latest",
    "consume",
    "run",
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
    for name in ("__init__", "_put_steps", "_delete_steps", "_flush_steps", "pending", "clear"):
        assert getattr(AsyncBatchWriter, name, None) is getattr(BatchWriter, name), name


def test_each_batch_writer_backs_off_with_its_own_sleep_unless_given_one() -> None:
    """One constructor: the asyncio twin's backoff awaits ``asyncio.sleep``, the thread one's
    blocks in ``time.sleep``, and a ``sleep=`` given replaces either."""
    target = async_target(cast(Any, object()), "app")
    assert AsyncBatchWriter(target, key_attrs=("PK", "SK"))._sleep is asyncio.sleep
    assert BatchWriter(target, key_attrs=("PK", "SK"))._sleep is time.sleep
    given = BatchWriter(target, key_attrs=("PK", "SK"), sleep=print)
    assert given._sleep is print


def test_the_thread_shell_is_generated_from_the_asyncio_shell() -> None:
    """ulidkeys/engine/threads.py is tasks.py with the asyncio words replaced (make twins)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "unasync.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
