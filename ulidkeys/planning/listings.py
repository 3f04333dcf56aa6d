"""S3 listing plans: a key layout + a time window -> the ListObjectsV2 call chains that list it.

Pure functions returning plain data (:class:`ListCall` in a :class:`~ulidkeys.planning.plans.Plan`),
so a plan can be printed (``ulidkeys ls --explain``) and tested without AWS; the shared
executor runs it through the S3 adapter.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ulidkeys.errors import (
    InvalidCursor,
    InvalidKeyPart,
    InvalidSlice,
    InvalidValue,
    describe,
    require_bool,
    require_count,
    require_int,
)
from ulidkeys.ids.protocol import id_ceiling, id_range
from ulidkeys.planning.periods import Period
from ulidkeys.planning.plans import MAX_CALLS, Cursor, KeyRun, Located, Plan, Position, scope_of

if TYPE_CHECKING:  # a layout makes its plans with this module (KeyLayout.plan_window)
    from ulidkeys.planning.layout import KeyLayout

#: Keys per ListObjectsV2 page: S3's own cap. moto would send more if asked, which would hide
#: pagination bugs, so no plan ever asks for more.
MAX_KEYS = 1000
#: Smallest page a chain with expected_keys asks for once its estimate is used up.
MIN_TAIL_KEYS = 100


@dataclass(frozen=True)
class ListCall:
    """One ListObjectsV2 call chain: a first call, then ContinuationToken pages.

    ``ordered`` chains (general-purpose buckets) stop at the first key ``>= stop_at``;
    unordered ones (directory buckets) are read to the end, filtered and sorted. S3 takes no
    end key, so a page larger than the keys left also carries keys past ``stop_at``: with
    ``expected_keys`` (what the caller expects the chain to read, margin included) each page
    asks only for what is still expected, and at least :data:`MIN_TAIL_KEYS`.
    ``shard`` and ``span`` (the id times ``[lo, hi)`` the chain covers) let the executor cut
    it into time slices (:func:`slice_call`); a slice also carries ``owns``, the ids
    ``[lo_id, hi_id)`` it answers for, so that keys on either side of its edges are given by
    exactly one slice.
    """

    prefix: str
    start_after: str | None = None
    stop_at: str | None = None
    ordered: bool = True
    delimiter: str | None = None
    max_keys: int = MAX_KEYS
    expected_keys: int | None = None
    shard: int | None = None
    span: tuple[int, int] | None = None
    owns: tuple[str, str] | None = None

    def page_size(self, read: int = 0) -> int:
        """``MaxKeys`` of the page after ``read`` keys of the chain."""
        if self.expected_keys is None:
            return self.max_keys
        return min(self.max_keys, max(MIN_TAIL_KEYS, self.expected_keys - read))

    def request(self, bucket: str, token: str | None = None, read: int = 0) -> dict[str, Any]:
        """The keyword arguments of ``client.list_objects_v2`` for the first or a later page
        (after ``read`` keys)."""
        kwargs: dict[str, Any] = {"Bucket": bucket, "MaxKeys": self.page_size(read)}
        if self.prefix:
            kwargs["Prefix"] = self.prefix
        if self.delimiter is not None:
            kwargs["Delimiter"] = self.delimiter
        if token is not None:
            kwargs["ContinuationToken"] = token
        elif self.start_after is not None:
            kwargs["StartAfter"] = self.start_after
        return kwargs

    def explain(self) -> str:
        """One line: the request and when the chain ends."""
        args = [f"Prefix={self.prefix!r}"]
        if self.start_after is not None:
            args.append(f"StartAfter={self.start_after!r}")
        if self.delimiter is not None:
            args.append(f"Delimiter={self.delimiter!r}")
        args.append(f"MaxKeys={self.page_size()}")
        if self.expected_keys is not None:
            args.append(f"(~{self.expected_keys} keys expected)")
        if not self.ordered:
            end = "read every page (unordered), keep keys in the window, sort"
        elif self.stop_at is None:
            end = "follow pages to the end of the prefix"
        else:
            end = f"stop at the first key >= {self.stop_at!r}"
        return f"ListObjectsV2 {' '.join(args)}; {end}"


def chain_keys(expected: tuple[int, float] | None, shards: int) -> int | None:
    """The keys a consumer's chain is expected to read: those it already knows in the overlap,
    the new ones expected, and three standard deviations of those (arrivals vary like a
    Poisson count).

    S3 takes no end key, so 1,000-key pages would also carry the settle zone and whatever
    follows it, transferred for nothing; pages sized to the window keep most of those out, and
    the margin keeps an extra call rare.
    """
    if expected is None:
        return None
    known, new = expected[0] / shards, expected[1] / shards
    return math.ceil(known + new + 3 * math.sqrt(new)) + 8


def common_prefix(a: str, b: str) -> str:
    """The longest string both start with (character by character, not by path segment)."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return a[:n]


def layout_scope(layout: KeyLayout) -> str:
    return scope_of("s3", repr(layout))


def key_position(layout: KeyLayout, key: object, name: str = "after") -> Position:
    """The position of a key the layout made (what ``after=`` resumes past)."""
    if not isinstance(key, str):
        raise InvalidKeyPart(f"{name}={describe(key)} must be a key (str) returned by a listing")
    id_text, _suffix, _ms, reason = layout.split(key)
    if reason is not None:
        raise InvalidKeyPart(
            f"{name}={describe(key)} is not a key of {layout} ({reason}); pass the Key of an "
            "object the listing returned"
        )
    return id_text, key


def resume_position(
    layout: KeyLayout,
    start_ms: int,
    end_ms: int,
    newest_first: bool,
    after: str | None,
    cursor: str | None,
) -> Position | None:
    """Where a listing resumes: past ``after`` (a key) or a ``cursor`` of the same listing."""
    if after is not None and cursor is not None:
        raise InvalidValue("pass after= or cursor=, not both")
    if cursor is not None:
        position = Cursor.decode(cursor).check(layout_scope(layout), newest_first, start_ms, end_ms)
        id_text, _suffix, ms, reason = layout.split(position[1])
        if reason is not None or id_text != position[0] or not start_ms <= ms < end_ms:
            raise InvalidCursor(
                f"cursor={describe(cursor)} does not end at a key of {layout} in its window; "
                "pass a listing's .cursor"
            )
        return position
    return None if after is None else key_position(layout, after)


def _ordered_call(
    layout: KeyLayout, shard: int | None, start: int, end: int, after: Position | None
) -> ListCall | None:
    """One chain over a shard's keys of ``[start, end)``, across all its period folders.

    Within a shard, keys sort by period folder (fixed width, chronological) and then id, so
    the whole window is one contiguous key range and one chain lists it.
    """
    scheme = layout.scheme
    start, end = layout.key_window(start, end)  # newest-first keys hold inverted times
    lo_id, hi_id = id_range(scheme, start, end)
    if lo_id >= hi_id:
        return None  # no id of the scheme has its time in the window
    first_ms = scheme.timestamp_ms(lo_id)
    step = scheme.resolution_ms
    last_ms = min((end - 1) // step * step, layout.last_ms)
    lo = layout.path(shard, first_ms) + lo_id
    hi_incl = layout.path(shard, last_ms) + scheme.max_for(last_ms)
    # Every key of the window, cut after its id, lies in [lo, hi_incl]: it shares their prefix
    prefix = common_prefix(lo, hi_incl)
    # lo[:-1] sorts below lo and every key that starts with lo; the few keys between them
    # (ids of an earlier time sharing all but the last character) are judged and dropped.
    start_after = lo[:-1]
    if after is not None:
        id_text, key = after
        own = layout.shard_of(id_text) == shard
        at = layout.path(shard, scheme.timestamp_ms(id_text)) + id_text
        start_after = max(start_after, key if own else at)
    stop_at = None
    if hi_id == id_ceiling(scheme):
        if layout.partition is None:
            stop_at = layout.path(shard, 0) + hi_id
    elif scheme.timestamp_ms(hi_id) <= layout.last_ms:
        stop_at = layout.path(shard, scheme.timestamp_ms(hi_id)) + hi_id
    # else: the first id past the window is past the last period folder (year 9999), so no
    # key of the shard sorts after the window: the chain reads to the end of its prefix
    if stop_at is not None and start_after >= stop_at:
        return None
    return ListCall(prefix, start_after, stop_at, shard=shard, span=(start, end))


def slice_call(
    layout: KeyLayout, after: Position | None, call: ListCall, lo_ms: int, hi_ms: int
) -> ListCall | None:
    """The chain of ``call``'s shard restricted to the id times ``[lo_ms, hi_ms)`` (None when
    nothing can be there): ``StartAfter`` just below the smallest key of ``lo_ms``, a stop at
    the smallest key of ``hi_ms``, and past ``after`` like the whole chain."""
    part = _ordered_call(layout, call.shard, lo_ms, hi_ms, after)
    if part is None:
        return None
    lo_id, hi_id = id_range(layout.scheme, lo_ms, hi_ms)
    return replace(
        part, max_keys=call.max_keys, expected_keys=call.expected_keys, owns=(lo_id, hi_id)
    )


#: A folder a directory bucket reads whole: ``(first_ms, end_ms, period)`` (no period: the
#: layout's prefix, ``[start, end)`` of the window).
Folder = tuple[int, int, "Period | None"]


def _directory_folders(layout: KeyLayout, start: int, end: int) -> list[Folder]:
    """The '/'-ending folders to read for ``[start, end)``, oldest first.

    From the top folder level of the layout's period down: a folder the window covers whole is
    read as one (an hour layout reads a whole day folder ``dt=.../``, one chain instead of 24);
    one it covers in part is read by the folders of the next level inside it, down to the
    period's own level.
    """
    partition = layout.partition
    if partition is None:
        return [(start, end, None)]
    chain = partition.chain
    folders: list[Folder] = []

    def cover(depth: int, low: int, high: int) -> None:
        level = chain[depth]
        for first, following in level.spans(low, high):
            if depth == len(chain) - 1 or (start <= first and following <= end):
                folders.append((first, following, level))
            else:
                cover(depth + 1, max(first, low), min(following, high))

    cover(0, start, end)
    return folders


def _directory_group(layout: KeyLayout, folder: Folder, max_keys: int) -> tuple[ListCall, ...]:
    """Directory buckets: one unordered chain per shard for one '/'-ending folder."""
    first, _end, level = folder
    calls = []
    for shard in layout.shard_numbers():
        path = layout.prefix + layout.shard_folder(shard)
        if level is not None:
            path += level.folder(first)
        prefix = path[: path.rfind("/") + 1]
        calls.append(ListCall(prefix=prefix, ordered=False, max_keys=max_keys))
    return tuple(calls)


def _check_calls(count: int, bound: str = "") -> None:
    if count > MAX_CALLS:
        raise InvalidValue(
            f"listing this window needs {bound}{count:,} call chains (more than {MAX_CALLS:,}): a "
            "directory bucket is read folder by folder; narrow the window, use fewer shards, or "
            "find the folders that hold data first with Bucket.periods()"
        )


def plan_listing(
    layout: KeyLayout,
    start_ms: int,
    end_ms: int,
    *,
    after: str | None = None,
    cursor: str | None = None,
    directory_bucket: bool = False,
    max_keys: int = MAX_KEYS,
    newest_first: bool = False,
    limit: int | None = None,
    before: Position | None = None,
    title: str | None = None,
    expected_keys: int | None = None,
) -> Plan[ListCall]:
    """The plan listing exactly the keys of ``layout`` whose id time is in ``[start, end)``
    (epoch ms): what ``KeyLayout.plan_window`` makes of its time inputs, and what the engine
    plans with (newest first and ``limit`` for directory buckets, ``before``, ``title``).

    ``after`` (a key the listing returned) or ``cursor`` resumes past that key.
    ``directory_bucket`` plans for S3 Express buckets (unordered, no StartAfter, '/'-ending
    prefixes only; one folder time per group, so memory holds one folder per shard at a time).
    ``newest_first`` is for directory buckets only (a general bucket lists forwards: see
    ``Bucket.latest``). ``max_keys`` (1..1000) is the page size of every call;
    ``expected_keys`` (>= 1), if given, the keys each ordered chain is expected to read: its
    pages ask for no more than that (see :class:`ListCall`).
    """
    require_int(start_ms, "start_ms")
    require_int(end_ms, "end_ms")
    require_count(max_keys, "max_keys", 1, MAX_KEYS)
    require_count(expected_keys, "expected_keys", 1, optional=True)
    require_count(limit, "limit", 0, optional=True)
    require_bool(newest_first, "newest_first")
    require_bool(directory_bucket, "directory_bucket")
    if newest_first and not directory_bucket:
        raise InvalidValue("S3 lists a general-purpose bucket oldest first: use Bucket.latest()")
    position = resume_position(layout, start_ms, end_ms, newest_first, after, cursor)
    # the part of the window that keys of the layout can have times in
    start, end = max(start_ms, layout.first_ms), min(end_ms, layout.last_ms + 1)
    groups: list[tuple[ListCall, ...]] = []
    if start < end:
        if directory_bucket:
            shards = len(layout.shard_numbers())
            if layout.partition is not None:
                # Every top-level folder the window touches (past the cursor) is one folder or
                # more: a window of centuries is refused before its folders are even listed.
                lo, hi = start, end
                if position is not None:
                    past = layout.scheme.timestamp_ms(position[0])
                    lo, hi = (lo, min(hi, past + 1)) if newest_first else (max(lo, past), hi)
                top = layout.partition.top.spans(lo, hi)
                touched = sum(1 for _ in itertools.islice(top, MAX_CALLS // shards + 1))
                _check_calls(touched * shards, "at least ")
            folders = _directory_folders(layout, start, end)
            if position is not None:
                past = layout.scheme.timestamp_ms(position[0])
                folders = [  # drop the folders wholly before the cursor
                    folder
                    for folder in folders
                    if folder[2] is None
                    or not (folder[0] > past if newest_first else folder[1] <= past)
                ]
            _check_calls(len(folders) * shards)  # before the chains are built
            groups += [_directory_group(layout, folder, max_keys) for folder in folders]
            if newest_first:
                groups.reverse()
        else:
            calls = [
                _ordered_call(layout, shard, start, end, position)
                for shard in layout.shard_numbers()
            ]
            chains = tuple(
                replace(c, max_keys=max_keys, expected_keys=expected_keys)
                for c in calls
                if c is not None
            )
            if chains:
                groups.append(chains)
    _check_calls(sum(len(group) for group in groups))
    kind = "directory bucket" if directory_bucket else "general-purpose bucket"
    return Plan(
        groups=tuple(groups),
        start_ms=start_ms,
        end_ms=end_ms,
        strategy=LayoutListing(
            layout, position, directory_bucket, max_keys, newest_first, title, expected_keys
        ),
        scope=layout_scope(layout),
        title=title or f"{layout} ({kind})",
        newest_first=newest_first,
        limit=limit,
        after=position,
        before=before,
    )


@dataclass(frozen=True)
class LayoutListing:
    """The strategy of a window listing of one layout (:class:`~ulidkeys.planning.plans.Plan`):
    the layout and the listing's options, so a slice of the window is planned the same way."""

    layout: KeyLayout
    after: Position | None = None
    directory_bucket: bool = False
    max_keys: int = MAX_KEYS
    newest_first: bool = False
    title: str | None = None
    expected_keys: int | None = None

    @property
    def splittable(self) -> bool:
        # directory buckets list unordered; newest-first layouts hold inverted times in keys
        return not self.directory_bucket and not self.layout.newest_first

    # the layout's compiled key tests, made once per listing: they run for every listed key
    _locate: Callable[[str], Located | None] = field(init=False, repr=False, compare=False)
    _locate_run: Callable[[list[str]], KeyRun | None] | None = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "_locate", self.layout.locator())
        object.__setattr__(self, "_locate_run", self.layout.run_locator())

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("_locate", "_locate_run")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__post_init__()

    @property
    def locate(self) -> Callable[[str], Located | None]:
        return self._locate

    @property
    def locate_run(self) -> Callable[[list[str]], KeyRun | None] | None:
        return self._locate_run

    def slice_call(self, call: ListCall, lo_ms: int, hi_ms: int) -> ListCall | None:
        return slice_call(self.layout, self.after, call, lo_ms, hi_ms)

    def trim_call(self, call: ListCall, below_id: str) -> ListCall:
        return call  # a continuation token cannot be narrowed: the executor ends the chain

    def replan(self, start_ms: int, end_ms: int, cursor: str | None) -> Plan[ListCall]:
        return plan_listing(
            self.layout,
            start_ms,
            end_ms,
            cursor=cursor,
            directory_bucket=self.directory_bucket,
            max_keys=self.max_keys,
            newest_first=self.newest_first,
            title=self.title,
            expected_keys=self.expected_keys,
        )


# --- period folders that hold data -----------------------------------------------------------


def plan_folders(
    layout: KeyLayout,
    start_ms: int,
    end_ms: int,
    level: Period,
    *,
    within: list[int] | None = None,
    directory_bucket: bool = False,
) -> Plan[ListCall]:
    """``Delimiter='/'`` listings whose common prefixes are the ``level`` folders of
    ``[start, end)`` under each shard: a top-level period's folders in the window, or the
    folders of a nested level under its parent level's folders that start at ``within``. Each
    result is a folder, positioned by its start time.

    For a top level, general buckets start just before the first folder and stop after the
    last; directory buckets cannot, so they read the whole level and keep what is in the window.
    """
    start, end = max(start_ms, layout.first_ms), min(end_ms, layout.last_ms + 1)
    parent = level.parent
    calls: list[ListCall] = []
    if start < end:
        for shard in layout.shard_numbers():
            base = layout.prefix + layout.shard_folder(shard)
            if parent is not None:
                calls += [
                    ListCall(base + parent.folder(first), delimiter="/", ordered=False)
                    for first in within or ()
                ]
            elif directory_bucket:
                calls.append(ListCall(base[: base.rfind("/") + 1], delimiter="/", ordered=False))
            else:
                first = base + level.folder(start)
                last = base + level.folder(end - 1)
                prefix = common_prefix(first[:-1], last[:-1])  # never the whole folder
                # "dt=2024-05-17" sorts just before "dt=2024-05-17/"; "0" is the one after "/"
                calls.append(ListCall(prefix, first[:-1], last[:-1] + "0", delimiter="/"))
    return Plan(
        groups=(tuple(calls),) if calls else (),
        start_ms=level.floor(start) if start < end else start_ms,
        end_ms=end,
        strategy=FolderListing(layout, level),
        scope=layout_scope(layout),
        title=f"{layout}: {level} folders",
    )


@dataclass(frozen=True)
class FolderListing:
    """The strategy of a folder listing (:func:`plan_folders`): each result is a common prefix
    ending in a ``level`` folder, positioned by the folder's start time."""

    layout: KeyLayout
    level: Period
    splittable = False

    def locate(self, prefix: str) -> Located | None:
        layout = self.layout
        for shard in layout.shard_numbers():
            base = layout.prefix + layout.shard_folder(shard)
            if prefix.startswith(base) and prefix.endswith("/"):
                ms = self.level.parse_folder(prefix[len(base) :])
                if ms is not None:
                    return f"{ms:016d}", ms, prefix
        return None

    locate_run = None  # common prefixes: a page holds few, read one by one

    def slice_call(self, call: ListCall, lo_ms: int, hi_ms: int) -> ListCall | None:
        raise InvalidSlice("a folder listing is not cut in time slices")

    def trim_call(self, call: ListCall, below_id: str) -> ListCall:
        return call

    def replan(self, start_ms: int, end_ms: int, cursor: str | None) -> Plan[ListCall]:
        raise InvalidSlice("a folder listing cannot be sliced; slice the window's listing")
