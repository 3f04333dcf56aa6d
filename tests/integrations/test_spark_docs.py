"""The Spark guide's examples run as written, in order, on a real SparkSession against moto's
HTTP server, so the page cannot drift from the API.

A page marked ``<!-- docs-test: spark-session -->`` (docs/howto/spark.md) is not run by
tests/test_docs.py (its blocks need Java and one session shared by all of them): this test
fills moto's server with what the page assumes (a bucket ``events``, a table ``app``) and runs
the page's blocks in a fresh Python process whose environment points boto3 at the server
(``AWS_ENDPOINT_URL``: a JVM keeps the environment it started with, so the executors see it
only if the process starts with it). That process is this file run as a script: it runs every
block in one namespace, checks each ``print(...)  # -> TEXT`` as tests/test_docs.py does, and
exits non-zero on the first difference.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import boto3
import pytest
from test_docs import DOCS, SPARK_SESSION, run_block

from ulidkeys import ULID
from ulidkeys.dynamodb import Entity
from ulidkeys.s3 import KeyLayout
from ulidkeys.timeinput import now_ms, to_ms

ROOT = Path(__file__).resolve().parents[2]
GUIDES = [doc for doc in DOCS if SPARK_SESSION in doc.read_text()]
#: What the page's examples assume: its S3 layout and its DynamoDB entity.
EVENTS = KeyLayout("raw/", shards=4, period="day")
POSTS = Entity(pk="Org#{org}", sk="Post#{id}")


def blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)


def run_page(page: Path) -> None:
    """Every block of ``page`` in one namespace, each ``# -> TEXT`` checked (as a script)."""
    namespace: dict[str, Any] = {"__name__": "docs"}
    for index, block in enumerate(blocks(page)):
        filename, started = f"{page.name} block {index}", time.monotonic()
        run_block(block, filename, namespace)
        sys.stdout.write(f"ran {filename} in {time.monotonic() - started:.1f} s\n")


def fill(endpoint: str) -> None:
    """The bucket and table the page reads: 6 objects in 2024-05-17 09:00-10:00 (two more just
    outside), 3 from the last day (the stream's), 5 posts of acme that day (one more at the
    window's end, one of another org)."""
    rng = random.Random(17)
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
    s3.create_bucket(Bucket="events")
    nine = to_ms("2024-05-17T09:00:00Z")
    now = now_ms()
    times = [nine + minute * 600_000 for minute in range(6)] + [nine - 1, nine + 3_600_000]
    times += [now - hours * 3_600_000 for hours in (3, 2, 1)]
    for ms in times:
        key = EVENTS.key_for(ULID.from_int((ms << 80) | rng.getrandbits(80)))
        s3.put_object(Bucket="events", Key=key, Body=b'{"event": 1}\n')
    dynamodb = boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1")
    dynamodb.create_table(**POSTS.table_definition("app"))
    midnight = to_ms("2024-05-17T00:00:00Z")
    posts = [("acme", midnight + hour * 3_600_000) for hour in (0, 3, 9, 15, 23)]
    posts += [("acme", midnight + 24 * 3_600_000), ("other", midnight + 3_600_000)]
    for number, (org, ms) in enumerate(posts):
        keys = POSTS.keys(org=org, id=ULID.from_int((ms << 80) | rng.getrandbits(80)))
        item = {name: {"S": value} for name, value in keys.items()}
        item |= {"title": {"S": f"post {number}"}, "likes": {"N": str(number * 7)}}
        dynamodb.put_item(TableName="app", Item=item)


def test_the_spark_guide_is_marked_and_runs_every_block() -> None:
    assert [page.name for page in GUIDES] == ["spark.md"]
    assert len(blocks(GUIDES[0])) >= 4 and not any(
        block.startswith("# not run") for block in blocks(GUIDES[0])
    )


@pytest.mark.slow
@pytest.mark.parametrize("page", GUIDES, ids=lambda page: page.name)
def test_the_spark_guide_runs_as_written(page: Path, worker_endpoint: str, tmp_path: Path) -> None:
    fill(worker_endpoint)
    environment = {
        **os.environ,
        "AWS_ENDPOINT_URL": worker_endpoint,  # the driver's and every executor's boto3
        "PYSPARK_PYTHON": sys.executable,
        "PYSPARK_DRIVER_PYTHON": sys.executable,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")]),  # test_docs
    }
    done = subprocess.run(
        [sys.executable, __file__, str(page)],
        cwd=tmp_path,  # the stream's checkpoint and sink are folders of the working directory
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
    )
    ran = [line for line in done.stdout.splitlines() if line.startswith("ran ")]
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-6000:]
    assert len(ran) == len(blocks(page))  # every block of the page


if __name__ == "__main__":
    run_page(Path(sys.argv[1]))
