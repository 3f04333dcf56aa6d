"""What the command line prints: rows as text, JSON or JSON Lines (numbers exact), and
one-line reports on stderr; stdout guarded so that a full disk or a closed descriptor is one
line too (:class:`OutputFailed`), and a closed pipe stays a ``BrokenPipeError``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
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


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``1 key``, ``2,000 keys``: the count with thousands separators (as the progress line
    shows it) and the noun in the singular for one."""
    if count == 1:
        return f"1 {noun}"
    return f"{count:,} {plural or noun + 's'}"


def report(line: str) -> None:
    print(line, file=sys.stderr)


# --- stdout --------------------------------------------------------------------------------------


class OutputFailed(Exception):
    """stdout cannot take what the command prints (a full disk, a closed descriptor): the
    command exits 1 with this one line. A closed pipe is not this: it stays a
    ``BrokenPipeError``, which ends the command quietly (``| head``)."""


class GuardedStdout:
    """``sys.stdout`` while a command runs: writes and flushes as the stream's, but an
    ``OSError`` other than a closed pipe becomes :class:`OutputFailed` (the command's own
    files raise their own errors, so a full stdout is told apart from them), and a stdout
    that is not there at all (``>&-``: Python starts with ``sys.stdout`` None) fails the
    first write the same way."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        with _output_errors():
            if self.stream is None:
                raise OutputFailed("cannot write the output: stdout is closed")
            return int(self.stream.write(text))

    def flush(self) -> None:
        with _output_errors():
            if self.stream is not None:
                self.stream.flush()

    def __getattr__(self, name: str) -> Any:  # fileno, isatty, encoding, ...: the stream's
        return getattr(self.stream, name)


@contextlib.contextmanager
def _output_errors() -> Iterator[None]:
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise OutputFailed(f"cannot write the output: {reason}") from error


@contextlib.contextmanager
def guarded_stdout() -> Iterator[GuardedStdout]:
    """``sys.stdout`` as a :class:`GuardedStdout` for the block, the stream itself after."""
    stream = sys.stdout
    guarded = GuardedStdout(stream)
    sys.stdout = guarded
    try:
        yield guarded
    finally:
        sys.stdout = stream
