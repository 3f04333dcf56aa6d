"""Lambda handler for S3 event notifications (``s3:ObjectCreated:*``): read each new key back.

The key holds the upload's id, and the id its time: ``LAYOUT.parse`` gives id, shard, day
folder and the moment the key was handed out, so the handler can tell how long the browser took
to upload without any lookup. Keys S3 sends are URL-encoded (``dt%3D2024-05-17``).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from urllib.parse import unquote_plus

from upload_lambda import LAYOUT  # the layout the keys were made with

from ulidkeys.errors import KeyMismatch


def upload_of(record: dict[str, Any]) -> dict[str, Any]:
    """One S3 event record -> what the key says about the upload (KeyMismatch if it is not a
    key of LAYOUT)."""
    key = unquote_plus(record["s3"]["object"]["key"])
    parts = LAYOUT.parse(key)
    stored = datetime.fromisoformat(record["eventTime"].replace("Z", "+00:00"))
    return {
        "bucket": record["s3"]["bucket"]["name"],
        "key": key,
        "id": parts.id,
        "issued_at": parts.ulid.datetime.isoformat(),
        "shard": parts.shard,
        "day": parts.period,
        "bytes": record["s3"]["object"].get("size"),
        # from handing out the key to S3 storing the object: slow clients, expired URLs
        "upload_delay_ms": round(stored.timestamp() * 1000) - parts.ms,
    }


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Log one JSON line per upload; keys that are not ours are counted, never fatal."""
    uploads, ignored = [], []
    for record in event.get("Records", []):
        if not record.get("eventName", "").startswith("ObjectCreated:"):
            continue
        try:
            upload = upload_of(record)
        except KeyMismatch as error:
            ignored.append(str(error))
            continue
        print(json.dumps(upload))
        uploads.append(upload)
    return {"uploads": uploads, "ignored": ignored}
