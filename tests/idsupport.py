"""Shared helpers for the id tests (tests/ is on sys.path through its conftest): ids of a given
time with random bits, and a generator run from several threads at once."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import TypeVar

from ulidkeys.errors import InvalidId
from ulidkeys.ids import IdScheme
from ulidkeys.ids.registry import sortable_samples

T = TypeVar("T")

#: One scheme of every registered kind that sorts by time (a family such as TypeID by one
#: member): what the S3 and DynamoDB window tests run over; a new scheme file joins them.
SORTABLE: list[IdScheme] = list(sortable_samples())


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


def id_at(scheme: IdScheme, ms: int, rng: random.Random) -> str:
    """A valid id of ``scheme`` whose time is ``ms`` (floored to the resolution), with random
    bits below the time field: a draw between the ms's smallest and largest ids."""
    step = scheme.resolution_ms
    low = scheme.to_int(scheme.min_for(ms // step * step))
    high = scheme.to_int(scheme.max_for(ms // step * step))
    for _ in range(100):
        try:
            return scheme.from_int(rng.randint(low, high))
        except InvalidId:  # UUID version/variant bits in the drawn middle
            continue
    return scheme.min_for(ms // step * step)
