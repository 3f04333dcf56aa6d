"""A scheduled Lambda handler that processes every new upload once: consume, process, commit.

EventBridge invokes ``handler`` every minute. The checkpoint lives next to the uploads as an S3
object committed with conditional writes, so an overlapping invocation cannot advance it twice.
"""

from __future__ import annotations

import os
from typing import Any

from ulidkeys.s3 import Bucket, KeyLayout, S3CheckpointStore

LAYOUT = KeyLayout("uploads/", shards=4, period="day", suffix=".jpg")
CHECKPOINT_KEY = "checkpoints/thumbnails.json"
#: Stop taking new objects when less than this is left of the invocation: commit what is done.
RESERVE_MS = 10_000


def process(s3: Any, bucket: str, obj: dict[str, Any]) -> None:
    """The work per upload. At-least-once after a crash, so it must be idempotent: writing
    the same marker twice is harmless."""
    s3.put_object(Bucket=bucket, Key="processed/" + obj["Key"] + ".done", Body=b"")


def handler(
    event: dict[str, Any], context: Any, *, s3: Any = None, now: Any = None
) -> dict[str, Any]:
    """Process what is new since the last invocation; ``s3``/``now`` are for tests."""
    if s3 is None:
        import boto3  # in Lambda, the runtime's boto3

        s3 = boto3.client("s3")
    name = os.environ["BUCKET"]
    bucket = Bucket(s3, name, LAYOUT)
    store = S3CheckpointStore(s3, name, CHECKPOINT_KEY)
    # The first invocation starts at event["since"] (a deployment passes its start time);
    # later ones continue from the checkpoint and ignore it.
    run = bucket.consume(store, since=event.get("since"), settle=30_000, overlap=60_000, now=now)
    processed = 0
    with run:
        for obj in run:
            process(s3, name, obj)
            processed += 1
            remaining = getattr(context, "get_remaining_time_in_millis", None)
            if remaining is not None and remaining() < RESERVE_MS:
                break  # the commit below stores these; the next invocation takes the rest
    checkpoint = run.commit()
    return {
        "processed": processed,
        "finished": run.finished,
        "late": run.stats.late,
        "watermark_ms": checkpoint.watermark_ms,
    }
