"""The program vocabulary: the operations a program yields (:class:`Collect`, :class:`Drive`,
:class:`Fetch`, :class:`Give`) and the :data:`Program` type. Programs (``latest``, the survey,
folder walks) are written once; the thread and asyncio shells carry their operations out.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from ulidkeys.engine.chains import Ordered, Steps
from ulidkeys.planning.plans import Plan

# (Give); what it returns is the run's result. The thread shell
# (``ulidkeys.engine.execution.run_program``) and the asyncio shell
# (``ulidkeys.aio.execution.run_program``)
# carry them out, so what ``latest`` does (folders, searches, re-listings) is written once.


@dataclass(frozen=True)
class Collect:
    """List ``plan`` to its end; the answer is its entries, in result order."""

    plan: Plan[Any]


@dataclass(frozen=True)
class Drive:
    """Run a page-step coroutine (:func:`search_back`, :func:`race`); the answer is its
    result."""

    steps: Steps


@dataclass(frozen=True)
class Fetch:
    """Send one request of a call chain, continuing at ``token`` (None: its first), for at most
    ``limit`` items if given; the answer is the :class:`Page` (counted in the run's stats as a
    call and what it read)."""

    call: Any
    token: Any = None
    limit: int | None = None


@dataclass(frozen=True)
class Give:
    """Hand these entries to the caller, in this order (no answer)."""

    entries: list[Ordered]


Operation = Collect | Drive | Fetch | Give
#: A program gets the answer to each operation it yields; it returns when it is done.
Program = Generator[Operation, Any, object]
