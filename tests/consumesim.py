"""Simulated writers and a scheduled consumer for the consume tests (S3 and DynamoDB).

Writers name objects with skewed clocks and make them visible after a PUT delay; the consumer
runs every simulated minute. No sleeping: time is a number the test moves.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ulidkeys import base32

MINUTE = 60_000


@dataclass(frozen=True)
class Write:
    """One object: its id (made at the writer's clock) and when it became visible."""

    id: str
    ms: int
    visible: int

    @property
    def lateness(self) -> int:
        return self.visible - self.ms


def writes(
    seed: int,
    start: int,
    end: int,
    count: int,
    *,
    skew_ms: int = 5_000,
    delay_ms: int = 20_000,
    late_share: float = 0.0,
    late_delay_ms: int = 0,
) -> list[Write]:
    """``count`` writes made in ``[start, end)`` by writers whose clocks are off by up to
    ``skew_ms`` either way, visible up to ``delay_ms`` later (``late_share`` of them up to
    ``late_delay_ms``)."""
    rng = random.Random(seed)
    made = []
    for _ in range(count):
        real = rng.randrange(start, end)
        id_ms = real + rng.randint(-skew_ms, skew_ms)
        slow = rng.random() < late_share
        delay = rng.randint(0, late_delay_ms if slow else delay_ms)
        id_text = base32.encode_time(id_ms) + base32.encode_random(rng.getrandbits(80))
        made.append(Write(id_text, id_ms, real + delay))
    return sorted(made, key=lambda w: w.visible)


@dataclass
class Clock:
    """The simulated time (epoch ms) handed to ``consume(now=...)``."""

    ms: int

    def __call__(self) -> int:
        return self.ms


@dataclass
class Schedule:
    """Runs a consumer at ``clock`` times, making writes visible as their time comes."""

    pending: list[Write]
    arrive: Callable[[list[Write]], object]
    clock: Clock
    runs: list[list[Any]] = field(default_factory=list)

    def advance_to(self, ms: int) -> None:
        self.clock.ms = ms
        due = [w for w in self.pending if w.visible <= ms]
        self.pending = [w for w in self.pending if w.visible > ms]
        if due:
            self.arrive(due)

    def run_every(
        self, first: int, last: int, run: Callable[[], Iterable[Any]], interval: int = MINUTE
    ) -> list[Any]:
        """``run()`` at ``first, first + interval, ... <= last``; every item, in run order."""
        delivered: list[Any] = []
        at = first
        while at <= last:
            self.advance_to(at)
            items = list(run())
            self.runs.append(items)
            delivered += items
            at += interval
        return delivered
