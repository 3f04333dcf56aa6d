"""Checkpoints of incremental consumers: how far a listing has been delivered, as a small value.

Pure (no I/O): the JSON form and its refusals, and the window arithmetic of one run
(``[watermark - overlap, now - settle)``) with the advance that follows it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ulidkeys.errors import InvalidCheckpoint, InvalidValue, describe, require_count
from ulidkeys.planning.plans import Position
from ulidkeys.timeinput import format_ms

#: The JSON format this ulidkeys writes and the newest it reads.
FORMAT = 1
_MARK = "ulidkeys_checkpoint"
_FIELDS = {_MARK, "scope", "watermark_ms", "floor_ms", "sequence", "delivered", "check"}


def _checksum(body: dict[str, object]) -> str:
    """A digest of every field but ``check``: a digit changed in storage (valid JSON, wrong
    watermark) is refused like any other damage, never resumed somewhere else."""
    fields = {name: value for name, value in body.items() if name != "check"}
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def delivery_key(position: Position) -> str:
    """What a checkpoint remembers of a delivered item: its key from the id on.

    Within one listing the text before the id is a function of the id (S3: the shard and period
    folders the layout derives from it; DynamoDB: the query's fixed sort-key prefix), so
    ``id + rest`` names one object as exactly as the whole key, in fewer characters.
    """
    id_text, key = position
    at = key.find(id_text)
    return key[at:] if at >= 0 else id_text + "\x00" + key


@dataclass(frozen=True)
class Checkpoint:
    """Where a consumer of one listing stands.

    Every item whose id time is below ``watermark_ms`` and that was visible at the last run has
    been delivered. ``delivered`` holds every item delivered with id time at or above
    ``floor_ms`` (the overlap zone below the watermark, and anything past it a partial run
    delivered), so re-listing from ``floor_ms`` on never delivers one twice. ``scope`` names the
    listing (layout or entity and fields); ``sequence`` counts commits (stores use it as the
    version a conditional write expects).

    One watermark serves every shard and time partition, exactly: a run lists all of them over
    the same window and yields their merge in id order, so when it stops, every item of every
    shard below the last id time yielded has been yielded. Per-shard watermarks would only
    matter if shards advanced separately, which this merge never does.
    """

    scope: str
    watermark_ms: int
    floor_ms: int
    delivered: frozenset[str] = field(default_factory=frozenset)
    sequence: int = 0

    # --- JSON ---------------------------------------------------------------------------------
    def to_json(self) -> str:
        body = {
            _MARK: FORMAT,
            "scope": self.scope,
            "watermark_ms": self.watermark_ms,
            "floor_ms": self.floor_ms,
            "sequence": self.sequence,
            "delivered": sorted(self.delivered),
        }
        body["check"] = _checksum(body)
        return json.dumps(body, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | bytes, *, source: str = "checkpoint") -> Checkpoint:
        """The checkpoint a :meth:`to_json` text holds; InvalidCheckpoint for anything else.

        Damaged or foreign JSON is refused, never read as "no checkpoint": a consumer that
        silently restarted from zero would deliver everything again.
        """
        try:
            body = json.loads(text)
        except (ValueError, UnicodeDecodeError) as error:
            raise InvalidCheckpoint(f"{source} is not JSON ({error}); it is damaged") from None
        if not isinstance(body, dict) or _MARK not in body:
            raise InvalidCheckpoint(
                f"{source}={describe(body)} is not a ulidkeys checkpoint (no {_MARK!r} field)"
            )
        version = body[_MARK]
        if type(version) is not int or version < 1:
            raise InvalidCheckpoint(f"{source} has format {describe(version)}; it is damaged")
        if version > FORMAT:
            raise InvalidCheckpoint(
                f"{source} has format {version}, newer than the {FORMAT} this ulidkeys reads; "
                "upgrade ulidkeys rather than restart the consumer"
            )
        delivered = body.get("delivered")
        ints = [body.get(name) for name in ("watermark_ms", "floor_ms", "sequence")]
        if (
            set(body) != _FIELDS
            or not isinstance(body["scope"], str)
            or any(type(value) is not int for value in ints)
            or not isinstance(delivered, list)
            or not all(isinstance(entry, str) and entry for entry in delivered)
            or body["floor_ms"] > body["watermark_ms"]
            or body["sequence"] < 0
        ):
            raise InvalidCheckpoint(
                f"{source} is damaged: it needs exactly the fields {sorted(_FIELDS)}, ints for "
                "the times and sequence (floor_ms <= watermark_ms) and a list of ids"
            )
        if body["check"] != _checksum(body):
            raise InvalidCheckpoint(
                f"{source} does not match its checksum: it was changed or damaged in storage "
                "(to start over, delete it and pass since=)"
            )
        return cls(
            body["scope"],
            body["watermark_ms"],
            body["floor_ms"],
            frozenset(delivered),
            body["sequence"],
        )

    def check_scope(self, scope: str, what: str) -> Checkpoint:
        """This checkpoint if it belongs to the listing ``scope``; else InvalidCheckpoint."""
        if scope != self.scope:
            raise InvalidCheckpoint(
                f"this checkpoint belongs to another listing than {what} (another layout, "
                "entity, index or key fields); give each consumer its own checkpoint"
            )
        return self


def duration_ms(value: object, name: str) -> int:
    """A non-negative duration given as milliseconds (int) or a ``timedelta``."""
    millis = getattr(value, "total_seconds", None)
    if callable(millis) and not isinstance(value, (int, float)):
        value = round(millis() * 1000)
    return require_count(value, name)  # type: ignore[return-value]


@dataclass(frozen=True)
class RunWindow:
    """One consumer run: list ``[start_ms, end_ms)``; ids below ``watermark_ms`` were due
    at the previous run, so a new one found there arrived late."""

    start_ms: int
    end_ms: int
    watermark_ms: int
    overlap_ms: int


def run_window(
    checkpoint: Checkpoint | None,
    now_ms: int,
    settle_ms: int,
    overlap_ms: int,
    since_ms: int | None,
) -> RunWindow:
    """The window of a run at ``now_ms``: from ``overlap`` below the watermark (never below
    what the checkpoint's delivered set covers) to ``now - settle`` (never below the
    watermark: a clock that went back only re-checks the overlap)."""
    if checkpoint is None:
        if since_ms is None:
            raise InvalidValue(
                "a consumer without a checkpoint needs since= (where its first run starts); "
                "every later run continues from the stored checkpoint"
            )
        watermark = floor = since_ms
    else:
        watermark, floor = checkpoint.watermark_ms, checkpoint.floor_ms
    start = max(floor, watermark - overlap_ms)
    end = max(watermark, now_ms - settle_ms)
    return RunWindow(start, end, watermark, overlap_ms)


def expected_items(
    checkpoint: Checkpoint | None, window: RunWindow, ms_of: Callable[[str], int]
) -> tuple[int, float] | None:
    """``(known, new)``: the window's items already delivered (the overlap zone's, exactly),
    and those expected past the watermark at the rate the checkpoint's ids show; None when
    the checkpoint remembers no stretch of time to tell a rate from."""
    if checkpoint is None or checkpoint.floor_ms >= checkpoint.watermark_ms:
        return None
    times = [ms_of(key) for key in checkpoint.delivered]
    known = sum(1 for ms in times if window.start_ms <= ms < window.watermark_ms)
    rate = sum(1 for ms in times if ms < checkpoint.watermark_ms) / (
        checkpoint.watermark_ms - checkpoint.floor_ms
    )
    return known, rate * (window.end_ms - window.watermark_ms)


def advance(
    checkpoint: Checkpoint | None,
    scope: str,
    window: RunWindow,
    delivered: Iterable[str],
    reached_ms: int | None,
    ms_of: Callable[[str], int],
) -> Checkpoint:
    """The checkpoint after a run delivered ``delivered``, every item of its window with an id
    time below ``reached_ms`` among them (the window's end once the run is exhausted).

    Runs yield in id order, so a run stopped part-way has still delivered everything below
    the time of the last item it yielded: the watermark moves there (never back), and ids
    more than the overlap below it are forgotten. A backlog taken in small committed steps
    thus keeps a small checkpoint and never re-reads what it already passed.
    """
    old = frozenset() if checkpoint is None else checkpoint.delivered
    floor = window.start_ms if checkpoint is None else checkpoint.floor_ms
    watermark = window.watermark_ms
    keys = old.union(delivered)
    if reached_ms is not None and reached_ms > watermark:
        watermark = min(reached_ms, window.end_ms)
        floor = max(floor, watermark - window.overlap_ms)
        keys = frozenset(key for key in keys if ms_of(key) >= floor)
    sequence = 0 if checkpoint is None else checkpoint.sequence
    return Checkpoint(scope, watermark, floor, keys, sequence)


def describe_checkpoint(checkpoint: Checkpoint) -> str:
    """One line for logs and the CLI."""
    return (
        f"watermark {format_ms(checkpoint.watermark_ms)}, {len(checkpoint.delivered)} ids "
        f"remembered from {format_ms(checkpoint.floor_ms)}, commit #{checkpoint.sequence}"
    )
