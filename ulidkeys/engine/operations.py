"""The engine's one vocabulary: the operations a program yields to a shell, and the program type.

Everything that takes more than one request - ``latest``'s searches, folder walks, the survey,
conditional uploads, batch writes with their retries - is a generator that yields these
operations and is sent each answer back (or has the operation's exception thrown in). The
programs do no I/O; the thread shell and the asyncio shell (:mod:`ulidkeys.engine.threads`,
:mod:`ulidkeys.engine.tasks`) carry the operations out, so each program exists once.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ulidkeys.engine.chains import Ordered, Page, Stats
from ulidkeys.planning.plans import Plan

T = TypeVar("T")

#: One page request of a call chain: ``(call, token, limit)`` as a page source's ``fetch`` takes
#: them (``token`` None: the chain's first page; ``limit`` None: the service's page size).
Request = tuple[Any, Any, int | None]


@dataclass(frozen=True)
class Fetch:
    """Send these page requests together (concurrently, up to the shell's ``max_workers``);
    the answer is their :class:`~ulidkeys.engine.chains.Page` objects, in the same order."""

    requests: Sequence[Request]


@dataclass(frozen=True)
class Collect:
    """List ``plan`` to its end with the shell's schedule (concurrent chains, time slices, the
    merge); the answer is its ``(position, item)`` entries in result order."""

    plan: Plan[Any]


@dataclass(frozen=True)
class Give:
    """Hand these entries to the caller, in this order (the answer is None)."""

    entries: list[Ordered]


@dataclass(frozen=True)
class Send:
    """One client call, ``client.<operation>(**params)``; the answer is what it returns, or its
    exception is thrown into the program (which may retry, or let it rise)."""

    operation: str
    params: dict[str, Any]


@dataclass(frozen=True)
class Pause:
    """Wait ``seconds`` before the next operation (a retry's backoff); the answer is None."""

    seconds: float


Operation = Fetch | Collect | Give | Send | Pause
#: A program: yields operations, is sent their answers, returns its result.
Program = Generator[Operation, Any, T]


def fetch_one(
    call: Any, token: Any = None, limit: int | None = None, stats: Stats | None = None
) -> Generator[Operation, Any, Page]:
    """One raw page of a call chain (a program step: ``page = yield from fetch_one(...)``),
    counted in ``stats`` as a call and what it read. Chains driven by
    :class:`~ulidkeys.engine.chains.ChainState` count their own pages instead."""
    pages: list[Page] = yield Fetch(((call, token, limit),))
    page = pages[0]
    if stats is not None:
        stats.calls += 1
        stats.read += page.read
    return page
