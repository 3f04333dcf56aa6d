"""Where a shell's requests wait: a pool of threads (:class:`ThreadPool`) or of asyncio tasks
(:class:`TaskPool`) with the same methods, so the two shells read alike; and how many
connections a boto3 client keeps, with the warning when a run would have more requests in
flight than that (botocore's pool keeps 10 by default, and each request past it opens a
connection of its own, a TCP and TLS handshake, and closes it afterwards).
"""

from __future__ import annotations

import asyncio
import warnings
import weakref
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, TypeVar

from ulidkeys.errors import SmallConnectionPool

T = TypeVar("T")

#: botocore's (and aiobotocore's) ``max_pool_connections`` when a client is made without one.
DEFAULT_POOL = 10

# clients already warned about, so a loop of listings warns once (weak: clients come and go)
_warned: weakref.WeakSet[Any] = weakref.WeakSet()


def pool_size(client: object) -> int | None:
    """The connections ``client`` keeps open (None: not a botocore client)."""
    config = getattr(getattr(client, "meta", None), "config", None)
    if config is None:
        return None
    size = getattr(config, "max_pool_connections", None)
    return size if isinstance(size, int) else DEFAULT_POOL


def warn_crowded(client: object, size: int, in_flight: int) -> None:
    """Warn (once per client) that ``in_flight`` requests outnumber the ``size`` connections
    its pool keeps (the caller compares: it knows ``size`` from :func:`pool_size`)."""
    try:
        if client in _warned:
            return
        _warned.add(client)
    except TypeError:
        pass  # not weakly referable: warn every time rather than never
    warnings.warn(
        f"{in_flight} requests in flight (max_workers) but the client keeps {size} "
        "connections: each request past them opens and closes a connection of its own "
        "(urllib3 logs 'Connection pool is full'); make the client with "
        f"botocore.config.Config(max_pool_connections={in_flight})",
        SmallConnectionPool,
        stacklevel=4,
    )


class ThreadPool:
    """At most ``size`` blocking calls at once, on threads (none for a size of 1: a call then
    runs when submitted). ``client``: the boto3 client the calls go to, whose connection pool
    :meth:`crowded` checks."""

    def __init__(self, size: int, client: object = None) -> None:
        self.size = size
        self._executor = (
            None if size <= 1 else ThreadPoolExecutor(size, thread_name_prefix="ulidkeys")
        )
        self._client, self._connections = client, pool_size(client)

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """Start ``fn(*args)``; its handle."""
        if self._executor is not None:
            return self._executor.submit(fn, *args)
        future: Future[T] = Future()
        try:
            future.set_result(fn(*args))
        except BaseException as error:  # delivered by .result(), as a thread's would be
            future.set_exception(error)
        return future

    def result(self, handle: Future[T]) -> T:
        """What the call of ``handle`` returned (its exception raised)."""
        return handle.result()

    def first_done(self, handles: Iterable[Future[Any]]) -> set[Future[Any]]:
        """Wait until at least one of ``handles`` is done; the done ones."""
        return wait(handles, return_when=FIRST_COMPLETED).done

    def gather(self, handles: list[Future[T]]) -> list[T]:
        """What each call returned, in order (the first exception raised)."""
        return [handle.result() for handle in handles]

    def crowded(self, in_flight: int) -> None:
        """Warn when more requests are in flight than the client keeps connections for."""
        in_flight = min(in_flight, self.size)
        if self._connections is not None and in_flight > self._connections:
            warn_crowded(self._client, self._connections, in_flight)

    def close(self) -> None:
        """Cancel what has not started; calls in flight end on their own, unread."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)


class TaskPool:
    """At most ``size`` awaited calls at once, as asyncio tasks (a semaphore of ``size``)."""

    def __init__(self, size: int, client: object = None) -> None:
        self.size = size
        self._slots = asyncio.Semaphore(size)
        self._tasks: set[asyncio.Task[Any]] = set()

    def submit(self, fn: Callable[..., Awaitable[T]], *args: Any) -> asyncio.Task[T]:
        """Start ``await fn(*args)`` as a task once a slot is free; its handle."""
        task = asyncio.ensure_future(self._run(fn, args))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _run(self, fn: Callable[..., Awaitable[T]], args: tuple[Any, ...]) -> T:
        async with self._slots:
            return await fn(*args)

    async def result(self, handle: asyncio.Task[T]) -> T:
        """What the call of ``handle`` returned (its exception raised)."""
        return await handle

    async def first_done(self, handles: Iterable[asyncio.Task[Any]]) -> set[asyncio.Task[Any]]:
        """Wait until at least one of ``handles`` is done; the done ones."""
        done, _ = await asyncio.wait(set(handles), return_when=asyncio.FIRST_COMPLETED)
        return done

    async def gather(self, handles: list[asyncio.Task[T]]) -> list[T]:
        """What each call returned, in order (on the first exception the others are
        cancelled, then it is raised)."""
        try:
            return list(await asyncio.gather(*handles))
        except BaseException:
            for handle in handles:
                handle.cancel()
            await asyncio.gather(*handles, return_exceptions=True)
            raise

    def crowded(self, in_flight: int) -> None:
        """Nothing to warn of: aiobotocore's connector queues requests past its pool."""

    async def close(self) -> None:
        """Cancel every call in flight or waiting for a slot, and wait until they are gone."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
