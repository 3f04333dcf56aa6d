"""Incremental consumers: each run yields what is new since the stored checkpoint, once.

The run logic is written once here for both services and both shells, with no I/O but the
checkpoint store's: a run's window and plan (:func:`open_run`), what it has delivered
(:class:`Delivery`), where checkpoints are kept (:class:`CheckpointStore`). The adapters only
say how they list a window (:class:`Listing`); the shells' ``Consumption`` and
``AsyncConsumption`` feed a run's entries to its delivery. The checkpoint value and window
arithmetic are in :mod:`ulidkeys.planning.checkpoints`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from ulidkeys.engine.chains import Stats
from ulidkeys.engine.scheduling import check_workers
from ulidkeys.errors import (
    CheckpointConflict,
    InvalidType,
    InvalidValue,
    describe,
    folder_problem,
)
from ulidkeys.ids.protocol import IdScheme
from ulidkeys.planning.checkpoints import (
    Checkpoint,
    RunWindow,
    advance,
    delivery_key,
    duration_ms,
    expected_items,
    run_window,
)
from ulidkeys.planning.plans import Plan, Position
from ulidkeys.timeinput import TimeInput, now_ms, to_ms

try:  # POSIX: serialize commits of one file between processes (released when one dies)
    import fcntl
except ImportError:  # pragma: no cover - Windows: commits still compare the sequence
    fcntl = None  # type: ignore[assignment]

ConsumptionT = TypeVar("ConsumptionT")

#: Defaults: wait 30 s before listing a time (most uploads are visible by then), and re-list
#: 60 s below the watermark for the ones that were not.
SETTLE_MS = 30_000
OVERLAP_MS = 60_000


# --- where checkpoints are kept -----------------------------------------------------------


class CheckpointStore(Protocol):
    """Loads a checkpoint with a version token and stores a new one only over that version."""

    def load(self) -> tuple[Checkpoint | None, Any]:
        """``(checkpoint, token)``; ``(None, None)`` when nothing was stored yet."""
        ...

    def save(self, checkpoint: Checkpoint, token: Any) -> Any:
        """Store ``checkpoint`` if the stored one is still the ``token`` version (None: if
        none is stored); return the new token, or raise CheckpointConflict."""
        ...


def conflict(where: str, expected: str) -> CheckpointConflict:
    """The one message of a lost race, whichever store saw it."""
    return CheckpointConflict(
        f"the checkpoint {where} was committed by another consumer since this one loaded it "
        f"({expected}); nothing was stored - run again from the stored checkpoint"
    )


class MemoryStore:
    """A checkpoint held in memory (tests, or a caller that persists ``.checkpoint`` itself)."""

    def __init__(self, checkpoint: Checkpoint | None = None) -> None:
        self.checkpoint = checkpoint

    def load(self) -> tuple[Checkpoint | None, Any]:
        cp = self.checkpoint
        return cp, None if cp is None else cp.sequence

    def save(self, checkpoint: Checkpoint, token: Any) -> Any:
        current = None if self.checkpoint is None else self.checkpoint.sequence
        if current != token:
            raise conflict("in memory", f"expected commit #{token}, found #{current}")
        self.checkpoint = checkpoint
        return checkpoint.sequence


class FileStore:
    """A checkpoint in a local JSON file, replaced atomically (temp file + ``os.replace``).

    A commit re-reads the file and stores only over the sequence it loaded; on POSIX it holds
    an exclusive lock on ``<file>.lock`` meanwhile, so two processes of one host never both win.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        if not isinstance(path, (str, os.PathLike)) or not str(path):
            raise InvalidType(f"path={describe(path)} must be a file path")
        self.path = Path(path)
        # checked now, not at the first commit (after the run's items were handled): the file
        # and its lock are made in its folder
        if self.path.is_dir():
            raise InvalidValue(f"path={str(path)!r} is a folder: name a file in it")
        problem = folder_problem(self.path.parent)
        if problem is not None:
            raise InvalidValue(f"path={str(path)!r}: {problem}")

    def __repr__(self) -> str:
        return f"FileStore({str(self.path)!r})"

    def load(self) -> tuple[Checkpoint | None, Any]:
        try:
            text = self.path.read_bytes()
        except FileNotFoundError:
            return None, None
        checkpoint = Checkpoint.from_json(text, source=f"checkpoint file {str(self.path)!r}")
        return checkpoint, checkpoint.sequence

    def save(self, checkpoint: Checkpoint, token: Any) -> Any:
        lock_path = self.path.with_name(self.path.name + ".lock")
        with open(lock_path, "a+b") as lock:
            if fcntl is not None:
                fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            current = self.load()[1]
            if current != token:
                raise conflict(repr(str(self.path)), f"expected #{token}, found #{current}")
            handle, temp = tempfile.mkstemp(
                prefix=self.path.name + ".", suffix=".tmp", dir=self.path.parent
            )
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    out.write(checkpoint.to_json())
                    out.flush()
                    os.fsync(out.fileno())
                os.replace(temp, self.path)  # readers see the old file or the new, never half
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
                raise
        return checkpoint.sequence


# --- one run ------------------------------------------------------------------------------


@dataclass(frozen=True)
class LateArrival:
    """An item found below the previous run's watermark that it had not delivered: it became
    visible more than ``settle`` after its id time. ``depth_ms`` is how far below the
    watermark its id time lies; an item ``overlap_ms - depth_ms`` later still would have been
    below the listed window and never seen, so depths near the overlap call for a larger one."""

    position: Position
    ms: int
    depth_ms: int
    overlap_ms: int


@dataclass
class ConsumeStats(Stats):
    """:class:`~ulidkeys.engine.chains.Stats` of a run, plus ``repeated`` (read again in the
    overlap, already delivered) and ``late`` (delivered from below the previous watermark,
    deepest ``late_depth_ms``)."""

    repeated: int = 0
    late: int = 0
    late_depth_ms: int = 0


def _ms_reader(scheme: IdScheme) -> Callable[[str], int]:
    """The id time of a remembered delivery key (the id is its first ``length`` characters)."""
    length, timestamp = scheme.length, scheme.timestamp_ms
    return lambda key: timestamp(key[:length])


def _clock(now: Callable[[], TimeInput] | None) -> int:
    if now is None:
        return now_ms()
    if not callable(now):
        raise InvalidType(
            f"now={describe(now)} must be a callable returning the time (epoch ms or an aware "
            "datetime), e.g. lambda: clock.ms"
        )
    return to_ms(now(), "now()")


@dataclass(frozen=True)
class Listing:
    """How an adapter lists a consumer's window: ``plan_for(start, end, expected)`` plans it
    (``expected`` is :func:`~ulidkeys.planning.checkpoints.expected_items`, for page sizes),
    ``source`` fetches its pages, ``scheme`` reads the ids; ``owner`` names the adapter in a
    scope error."""

    plan_for: Callable[[int, int, tuple[int, float] | None], Plan[Any]]
    source: Any
    scheme: IdScheme
    owner: str


@dataclass(frozen=True)
class Run:
    """One consumer run as worked out before any listing request (by both shells): the plan
    of its window and where it came from. :func:`open_run` makes it."""

    plan: Plan[Any]
    source: Any  # the adapter's PageSource (the asyncio twin wraps it)
    scheme: IdScheme
    store: CheckpointStore
    base: Checkpoint | None
    token: Any
    window: RunWindow
    on_late: Callable[[LateArrival], object] | None
    max_workers: int


class Delivery:
    """What a run has delivered, without I/O: which listed items are new (:meth:`deliver`),
    the stats, the checkpoint after them, and its commit. ``Consumption`` and its asyncio
    twin only feed it the listed entries."""

    def __init__(self, run: Run) -> None:
        self.stats = ConsumeStats()
        self.window = run.window
        self.plan = run.plan  # what the run lists: printable before any request is sent
        self.store, self.base, self._token = run.store, run.base, run.token
        self._scope, self._scheme, self._on_late = run.plan.scope, run.scheme, run.on_late
        self._sequence = 0 if run.base is None else run.base.sequence
        self._seen = frozenset() if run.base is None else run.base.delivered
        self._delivered: list[str] = []
        self._reached: int | None = None  # the id time of the last item yielded
        self._finished = False

    def deliver(self, position: Position) -> bool:
        """Whether the listed item at ``position`` is new (then it counts as delivered); False
        for one an earlier run delivered (read again in the overlap)."""
        stats, window = self.stats, self.window
        key = delivery_key(position)
        if key in self._seen:
            stats.repeated += 1
            return False
        ms = self._scheme.timestamp_ms(position[0])
        if ms < window.watermark_ms:
            depth = window.watermark_ms - ms
            stats.late += 1
            stats.late_depth_ms = max(stats.late_depth_ms, depth)
            if self._on_late is not None:
                self._on_late(LateArrival(position, ms, depth, window.overlap_ms))
        self._delivered.append(key)
        self._reached = ms
        stats.returned += 1
        return True

    def exhausted(self) -> None:
        """Every item of the window was listed: the watermark may move to its end."""
        self._finished = True
        self._reached = self.window.end_ms

    @property
    def finished(self) -> bool:
        """Whether every item of the window was yielded (then the watermark advances)."""
        return self._finished

    @property
    def checkpoint(self) -> Checkpoint:
        """The checkpoint to store after the items yielded so far: the watermark moves to the
        window's end once the run is exhausted, else to the id time of the last item yielded."""
        moved = advance(
            self.base,
            self._scope,
            self.window,
            self._delivered,
            self._reached,
            _ms_reader(self._scheme),
        )
        return dataclasses.replace(moved, sequence=self._sequence + 1)

    def _store(self) -> Checkpoint:
        """Store :attr:`checkpoint` over the version this run loaded (the shells' ``commit``)."""
        checkpoint = self.checkpoint
        self._token = self.store.save(checkpoint, self._token)
        self._sequence = checkpoint.sequence
        return checkpoint


@dataclass(frozen=True)
class RunOptions:
    """What a consumer run is asked for: the arguments of ``consume``, as the sync and asyncio
    adapters hand them to :func:`open_run` (not yet checked)."""

    store: CheckpointStore
    since: TimeInput | None
    settle: object
    overlap: object
    now: Callable[[], TimeInput] | None
    on_late: Callable[[LateArrival], object] | None
    max_workers: int
    listing: dict[str, object]


class Consumes(Generic[ConsumptionT]):
    """:meth:`consume`, written once for ``Bucket``, ``Table`` and their asyncio twins; each
    says only how a run is opened and iterated (``_consumption``). ``ConsumptionT`` is a
    ``Consumption``, or for the twins an awaitable of an ``AsyncConsumption``."""

    def consume(
        self,
        store: CheckpointStore,
        *,
        since: TimeInput | None = None,
        settle: object = SETTLE_MS,
        overlap: object = OVERLAP_MS,
        now: Callable[[], TimeInput] | None = None,
        on_late: Callable[[LateArrival], object] | None = None,
        max_workers: int = 8,
        **listing: object,
    ) -> ConsumptionT:
        """What is new since the checkpoint in ``store``: the items not yet delivered whose id
        time is in ``[watermark - overlap, now - settle)``, oldest first. Iterate, then
        ``.commit()`` stores the advanced checkpoint (the asyncio twins: ``await`` it for a
        run, then ``async for`` the items and ``await run.commit()``). ``.plan`` is what the run
        lists, before any request is sent (the only I/O before iterating is ``store.load()``).

        ``since`` starts a consumer that has no stored checkpoint yet. ``settle`` and
        ``overlap`` (ms or ``timedelta``) bound the lateness tolerated: an item that becomes
        visible more than ``settle + overlap`` after its id time may never be delivered;
        ``on_late`` hears of every item found late (depths near ``overlap`` warn before that).
        ``now`` is the clock (a callable; tests pass simulated time). ``listing``: what the
        adapter needs to name the listing (DynamoDB: key fields, ``index``, ``page_size``).
        """
        options = RunOptions(store, since, settle, overlap, now, on_late, max_workers, listing)
        return self._consumption(options)

    def _consumption(self, options: RunOptions) -> ConsumptionT:
        """The adapter's run of :meth:`consume` (opened by :func:`open_run`)."""
        raise NotImplementedError


def open_run(listing: Listing, options: RunOptions) -> Run:
    """The checks, the checkpoint load and the plan of a consumer run (both shells'): the only
    I/O is ``store.load()``."""
    store, on_late, max_workers = options.store, options.on_late, options.max_workers
    check_workers(max_workers)
    settle_ms = duration_ms(options.settle, "settle")
    overlap_ms = duration_ms(options.overlap, "overlap")
    if on_late is not None and not callable(on_late):
        raise InvalidType(f"on_late={describe(on_late)} must be a callable taking a LateArrival")
    if not all(callable(getattr(store, name, None)) for name in ("load", "save")):
        raise InvalidType(
            f"store={describe(store)} must be a checkpoint store (FileStore, "
            "S3CheckpointStore, DynamoCheckpointStore, MemoryStore)"
        )
    clock = _clock(options.now)
    since = options.since
    since_ms = None if since is None else to_ms(since, "since", now=clock)
    base, token = store.load()
    window = run_window(base, clock, settle_ms, overlap_ms, since_ms)
    expected = expected_items(base, window, _ms_reader(listing.scheme))
    plan = listing.plan_for(window.start_ms, window.end_ms, expected)
    if base is not None:
        base.check_scope(plan.scope, listing.owner)
    return Run(
        plan, listing.source, listing.scheme, store, base, token, window, on_late, max_workers
    )
