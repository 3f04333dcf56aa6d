"""Listing plans: a key layout + a time window -> the ListObjectsV2 call chains that list it.

Pure functions returning frozen dataclasses, so a plan can be printed (``ulidkeys range
--explain``) and tested without AWS; ``ulidkeys.s3.listing.execute`` runs it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ulidkeys import base32
from ulidkeys.errors import InvalidKeyPart, InvalidValue, describe, require_int
from ulidkeys.s3.layout import DAY_MS, HOUR_MS, PERIOD_LIMIT_MS, PERIOD_MS, KeyLayout
from ulidkeys.timewindow import TimeWindow

#: Keys per ListObjectsV2 page: S3's own cap. moto would send more if asked, which would hide
#: pagination bugs, so no plan ever asks for more.
MAX_KEYS = 1000
#: A plan with more call chains than this is refused: it would mostly read empty folders.
MAX_CALLS = 10_000

#: Verdicts of :meth:`WindowPlan.judge` for keys that are not returned.
SKIP = "skip"  # the key does not fit the layout
OUTSIDE = "outside"  # it fits, but its time is outside the window (or not after the cursor)

_ZEROS = "0" * base32.RANDOM_LENGTH
_ONES = "Z" * base32.RANDOM_LENGTH


@dataclass(frozen=True)
class ListCall:
    """One ListObjectsV2 call chain: a first call, then ContinuationToken pages.

    ``ordered`` chains (general-purpose buckets) stop at the first key ``>= stop_at``;
    unordered ones (directory buckets) are read to the end, filtered and sorted.
    """

    prefix: str
    start_after: str | None = None
    stop_at: str | None = None
    ordered: bool = True
    delimiter: str | None = None
    max_keys: int = MAX_KEYS

    def request(self, bucket: str, token: str | None = None) -> dict[str, Any]:
        """The keyword arguments of ``client.list_objects_v2`` for the first or a later page."""
        kwargs: dict[str, Any] = {"Bucket": bucket, "MaxKeys": self.max_keys}
        if self.prefix:
            kwargs["Prefix"] = self.prefix
        if self.delimiter is not None:
            kwargs["Delimiter"] = self.delimiter
        if token is not None:
            kwargs["ContinuationToken"] = token
        elif self.start_after is not None:
            kwargs["StartAfter"] = self.start_after
        return kwargs

    def describe(self) -> str:
        """One line: the request and when the chain ends."""
        args = [f"Prefix={self.prefix!r}"]
        if self.start_after is not None:
            args.append(f"StartAfter={self.start_after!r}")
        if self.delimiter is not None:
            args.append(f"Delimiter={self.delimiter!r}")
        args.append(f"MaxKeys={self.max_keys}")
        if not self.ordered:
            end = "read every page (unordered), keep keys in the window, sort"
        elif self.stop_at is None:
            end = "follow pages to the end of the prefix"
        else:
            end = f"stop at the first key >= {self.stop_at!r}"
        return f"ListObjectsV2 {' '.join(args)}; {end}"


@dataclass(frozen=True)
class WindowPlan:
    """The call chains that list a window of a layout, and the per-key test applied to results."""

    layout: KeyLayout
    window: TimeWindow
    calls: tuple[ListCall, ...]
    after: str | None = None
    directory_bucket: bool = False
    _after_order: tuple[str, str] | None = field(default=None, repr=False, compare=False)

    def judge(self, key: str) -> tuple[str, str] | str:
        """``(ulid, key)`` (the merge order) for a key in the answer, else SKIP or OUTSIDE."""
        ulid, _suffix, ms, reason = self.layout.split(key)
        if reason is not None:
            return SKIP
        if not self.window.start_ms <= ms < self.window.end_ms:
            return OUTSIDE
        order = (ulid, key)
        if self._after_order is not None and order <= self._after_order:
            return OUTSIDE
        return order

    def describe(self) -> str:
        """A header line, then one numbered line per call chain."""
        kind = "directory bucket" if self.directory_bucket else "general-purpose bucket"
        head = f"{self.layout} window {self.window} ({kind}): {len(self.calls)} call chain(s)"
        if self.after is not None:
            head += f", resuming after {self.after!r}"
        lines = [head]
        lines += [f"  {n}. {call.describe()}" for n, call in enumerate(self.calls, 1)]
        if not self.calls:
            lines.append("  (no calls: nothing can be in this window)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.describe()


def common_prefix(a: str, b: str) -> str:
    """The longest string both start with (character by character, not by path segment)."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return a[:n]


def _cursor(layout: KeyLayout, after: str | None) -> tuple[str, str, int] | None:
    """``(ulid, key, ms)`` of a resume cursor, which must be a key of the layout."""
    if after is None:
        return None
    if not isinstance(after, str):
        raise InvalidKeyPart(f"after={describe(after)} must be a key (str) returned by a listing")
    ulid, _suffix, ms, reason = layout.split(after)
    if reason is not None:
        raise InvalidKeyPart(
            f"after={describe(after)} is not a key of {layout} ({reason}); pass the Key of the "
            "last object the listing returned"
        )
    return ulid, after, ms


def _ordered_call(
    layout: KeyLayout,
    shard: int | None,
    start: int,
    end: int,
    cursor: tuple[str, str, int] | None,
) -> ListCall | None:
    """One chain over a shard's keys of ``[start, end)``, across all its period folders.

    Within a shard, keys sort by period folder (fixed width, chronological) and then ULID, so
    the whole window is one contiguous key range and one chain lists it.
    """
    lo = layout.path(shard, start) + base32.encode_time(start) + _ZEROS
    hi_incl = layout.path(shard, end - 1) + base32.encode_time(end - 1) + _ONES
    # Every key of the window, cut after its ULID, lies in [lo, hi_incl], so it shares their
    # common prefix.
    prefix = common_prefix(lo, hi_incl)
    # lo ends in "0", the smallest ULID character, and every ULID character is >= "0": no key
    # that fits lies in (lo[:-1], lo), so StartAfter=lo[:-1] lists from lo (inclusive) on,
    # whatever follows the ULID.
    start_after = lo[:-1]
    if cursor is not None:
        ulid, key, ms = cursor
        own = layout.shard_of(ulid) == shard
        start_after = max(start_after, key if own else layout.path(shard, ms) + ulid)
    stop_at = None
    if layout.period is None or end < PERIOD_LIMIT_MS:
        stop_at = layout.path(shard, end) + base32.encode_time(end) + _ZEROS
        if start_after >= stop_at:
            return None
    return ListCall(prefix=prefix, start_after=start_after, stop_at=stop_at)


def _directory_folder_starts(layout: KeyLayout, start: int, end: int) -> list[tuple[int, int]]:
    """``(folder_start_ms, folder_ms)`` of the '/'-ending folders to read for ``[start, end)``.

    Hour layouts read a whole day folder (``dt=.../``, one chain instead of 24) for every day the
    window covers completely, and hour folders only for the partly covered days at its ends.
    """
    if layout.period is None:
        return [(start, 0)]
    step = PERIOD_MS[layout.period]
    folders: list[tuple[int, int]] = []
    folder = start - start % step
    while folder < end:
        if step == HOUR_MS and folder % DAY_MS == 0 and folder + DAY_MS <= end and folder >= start:
            folders.append((folder, DAY_MS))
            folder += DAY_MS
        else:
            folders.append((folder, step))
            folder += step
    return folders


def _directory_calls(
    layout: KeyLayout,
    shard: int | None,
    start: int,
    end: int,
    cursor: tuple[str, str, int] | None,
) -> list[ListCall]:
    """Directory buckets: one unordered chain per '/'-ending folder that can hold the window."""
    calls = []
    for folder, span in _directory_folder_starts(layout, start, end):
        if span and cursor is not None and folder + span <= cursor[2]:
            continue  # the whole folder is before the cursor
        path = layout.path(shard, folder)
        if span == DAY_MS and layout.period == "hour":
            path = path[: -len("hr=00/")]  # the day folder holding all 24 hour folders
        calls.append(ListCall(prefix=path[: path.rfind("/") + 1], ordered=False))
    return calls


def plan_window(
    layout: KeyLayout,
    window: TimeWindow,
    *,
    after: str | None = None,
    directory_bucket: bool = False,
    max_keys: int = MAX_KEYS,
) -> WindowPlan:
    """The plan listing exactly the keys of ``layout`` whose ULID time is in ``window``.

    ``after`` (a key the listing returned) resumes after that key. ``directory_bucket``
    plans for S3 Express buckets (unordered, no StartAfter, '/'-ending prefixes only).
    ``max_keys`` (1..1000) is the page size of every call.
    """
    require_int(max_keys, "max_keys")
    if not 1 <= max_keys <= MAX_KEYS:
        raise InvalidValue(f"max_keys={max_keys} must be 1..{MAX_KEYS} (S3's page cap)")
    cursor = _cursor(layout, after)
    start, end = window.start_ms, window.end_ms
    if layout.period is not None:
        end = min(end, PERIOD_LIMIT_MS)
    calls: list[ListCall] = []
    if start < end:
        for shard in range(layout.shards) if layout.shards else [None]:
            if directory_bucket:
                calls += _directory_calls(layout, shard, start, end, cursor)
            elif (call := _ordered_call(layout, shard, start, end, cursor)) is not None:
                calls.append(call)
    if len(calls) > MAX_CALLS:
        raise InvalidValue(
            f"listing {window} needs {len(calls):,} call chains (more than {MAX_CALLS:,}): a "
            "directory bucket is read folder by folder; narrow the window, use fewer shards, or "
            "find the folders that hold data first with layout.periods()"
        )
    calls = [replace(call, max_keys=max_keys) for call in calls]
    return WindowPlan(
        layout=layout,
        window=window,
        calls=tuple(calls),
        after=after,
        directory_bucket=directory_bucket,
        _after_order=None if cursor is None else cursor[:2],
    )
