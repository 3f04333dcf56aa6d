"""What the command line prints: rows as text, JSON or JSON Lines (numbers exact), and
one-line reports on stderr.
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any

Row = Mapping[str, Any]

# --- output ----------------------------------------------------------------------------------


def json_text(value: Any) -> str:
    """JSON of an item as the services return it, numbers exact: a DynamoDB number (Decimal) is
    a JSON number with all its digits, a set a sorted list, binary base64, a time ISO-8601."""
    if isinstance(value, Decimal):
        return str(value)  # '1486', '-0.5', '1.5E+3': all JSON numbers (DynamoDB has no NaN)
    if isinstance(value, Mapping):
        fields = sorted((str(k), v) for k, v in value.items())
        return "{" + ", ".join(f"{json.dumps(k)}: {json_text(v)}" for k, v in fields) + "}"
    if isinstance(value, (set, frozenset)):
        return json_text(sorted(value, key=json_text))
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(json_text(v) for v in value) + "]"
    if isinstance(value, (bytes, bytearray)) or isinstance(getattr(value, "value", None), bytes):
        raw = bytes(value if isinstance(value, (bytes, bytearray)) else value.value)
        return json.dumps(base64.b64encode(raw).decode())
    if isinstance(value, datetime):
        return json.dumps(iso_time(value))
    return json.dumps(value, default=str)


def iso_time(value: datetime) -> str:
    """``2024-05-17T09:00:01Z``: UTC, a ``Z`` instead of ``+00:00``."""
    return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def emit(rows: Iterable[Row], output: str, text: Callable[[Row], str]) -> int:
    """Print ``rows`` as text lines, JSON Lines or one JSON array (streamed); return the count."""
    write = sys.stdout.write
    count = 0
    for row in rows:
        if output == "text":
            write(text(row) + "\n")
        elif output == "jsonl":
            write(json_text(row) + "\n")
        else:
            write(("[\n  " if count == 0 else ",\n  ") + json_text(row))
        count += 1
    if output == "json":
        write("[]\n" if count == 0 else "\n]\n")
    return count


def report(line: str) -> None:
    print(line, file=sys.stderr)
