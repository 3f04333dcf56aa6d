"""Writes of several requests (conditional puts, batch writes) as I/O-free step generators.

A step generator yields :class:`Send` (one client call) or :class:`Pause` (a backoff) and gets
each answer back, or the call's exception thrown in; :func:`perform` runs it on a boto3 client
and :func:`perform_async` on an aiobotocore one, so the retry logic of each write exists once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Send:
    """One client call: ``client.<operation>(**params)``."""

    operation: str
    params: dict[str, Any]


@dataclass(frozen=True)
class Pause:
    """Wait ``seconds`` before the next step (a retry's backoff)."""

    seconds: float


Steps = Generator[Send | Pause, Any, T]


def perform(steps: Steps[T], client: Any, sleep: Callable[[float], object] = time.sleep) -> T:
    """Run a step generator on a blocking client; returns what the generator returns."""
    answer: Any = None
    failure: BaseException | None = None
    while True:
        try:
            step = steps.send(answer) if failure is None else steps.throw(failure)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        answer, failure = None, None
        if isinstance(step, Pause):
            sleep(step.seconds)
            continue
        try:
            answer = getattr(client, step.operation)(**step.params)
        except BaseException as error:  # the generator decides (it may keep state, re-raise)
            failure = error


async def perform_async(
    steps: Steps[T],
    client: Any,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
) -> T:
    """Run a step generator on an asyncio client (aiobotocore): :func:`perform`, awaiting."""
    answer: Any = None
    failure: BaseException | None = None
    while True:
        try:
            step = steps.send(answer) if failure is None else steps.throw(failure)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        answer, failure = None, None
        if isinstance(step, Pause):
            await sleep(step.seconds)
            continue
        try:
            answer = await getattr(client, step.operation)(**step.params)
        except BaseException as error:  # cancellation too: a batch goes back to its queue
            failure = error
