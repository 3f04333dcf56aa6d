"""Shared helpers for the id tests: run a generator from several threads at once."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def in_threads(make: Callable[[], T], threads: int = 8, each: int = 2000) -> list[list[T]]:
    """What ``make()`` returned, ``each`` times in each of ``threads`` threads started together."""
    results: list[list[T]] = [[] for _ in range(threads)]
    barrier = threading.Barrier(threads)

    def work(out: list[T]) -> None:
        barrier.wait()  # all threads call make() at the same time
        out.extend(make() for _ in range(each))

    workers = [threading.Thread(target=work, args=(out,)) for out in results]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return results
