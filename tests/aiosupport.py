"""Sync and async shells side by side for the tests: one moto HTTP server, boto3 and
aiobotocore clients of it, and :class:`Shell`, which runs a listing or a write either way and
hands back plain results, so one test body checks both executors.

aiobotocore cannot use moto's in-process mock; its client lives on an event loop in a
background thread for the whole module (:class:`Loop`), so examples do not pay for a client.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine, Iterator
from contextlib import AsyncExitStack, contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import boto3
import botocore
import pytest
from faults import moto_server

from ulidkeys.engine.chains import Stats
from ulidkeys.engine.threads import Results

try:
    from aiobotocore.session import get_session
except ImportError:  # the newest botocore: no aiobotocore release takes it yet
    get_session = None

#: Why the asyncio tests are skipped where aiobotocore is not installed (each aiobotocore
#: release pins the botocore releases it was built on, so the newest botocore often has none).
NO_AIOBOTOCORE = (
    f"aiobotocore is not installed beside botocore {botocore.__version__} (each aiobotocore "
    "release takes only the botocore releases it was built on): the asyncio shells are not "
    "tested here"
)


def requires_aiobotocore() -> None:
    """Skips the calling test, saying why, where aiobotocore is not installed."""
    if get_session is None:
        pytest.skip(NO_AIOBOTOCORE)


T = TypeVar("T")
MODES = ("sync", "async")
CREDENTIALS = {
    "region_name": "us-east-1",
    "aws_access_key_id": "testing",
    "aws_secret_access_key": "testing",
}


class Loop:
    """An event loop running in a daemon thread; :meth:`run` waits for a coroutine on it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = 60) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@dataclass
class Taken:
    """What a listing gave: its items (as far as taken), ``.cursor`` and ``.stats``."""

    items: list[Any]
    cursor: str | None
    stats: Stats


@dataclass
class Shell:
    """One of the two executors: ``mode`` is "sync" (boto3 clients, threads) or "async"
    (aiobotocore clients, tasks on :attr:`loop`)."""

    mode: str
    loop: Loop
    sync_clients: dict[str, Any]
    async_clients: dict[str, Any]

    @property
    def is_async(self) -> bool:
        return self.mode == "async"

    def client(self, service: str) -> Any:
        return (self.async_clients if self.is_async else self.sync_clients)[service]

    def do(self, value: Any) -> Any:
        """The value of a call: awaited on the loop when it is a coroutine."""
        if asyncio.iscoroutine(value):
            return self.loop.run(value)
        return value

    def take(self, make: Callable[[], Any], k: int | None = None) -> Taken:
        """Make a listing (``Results`` or ``AsyncResults``), take up to ``k`` items, close."""
        if not self.is_async:
            results: Results[Any] = make()
            with results:
                items = []
                for item in results:
                    items.append(item)
                    if k is not None and len(items) >= k:
                        break
            return Taken(items, results.cursor, results.stats)

        async def go() -> Taken:
            results = make()
            items = []
            async with results:
                while k is None or len(items) < k:
                    try:
                        items.append(await anext(results))
                    except StopAsyncIteration:
                        break
            return Taken(items, results.cursor, results.stats)

        return self.loop.run(go())


@contextmanager
def shells() -> Iterator[dict[str, Shell]]:
    """A moto server and both shells on it: ``{"sync": Shell, "async": Shell}`` (the test is
    skipped, saying why, where aiobotocore is not installed)."""
    requires_aiobotocore()
    assert get_session is not None
    with moto_server() as endpoint:
        loop = Loop()
        stack = AsyncExitStack()
        options = {**CREDENTIALS, "endpoint_url": endpoint}

        async def open_clients() -> dict[str, Any]:
            session = get_session()
            return {
                service: await stack.enter_async_context(session.create_client(service, **options))
                for service in ("s3", "dynamodb")
            }

        sync_clients = {service: boto3.client(service, **options) for service in ("s3", "dynamodb")}
        async_clients = loop.run(open_clients())
        try:
            yield {mode: Shell(mode, loop, sync_clients, async_clients) for mode in MODES}
        finally:
            loop.run(stack.aclose())
            loop.close()


class RequestCounter:
    """Counts the requests a client sends (botocore's ``before-send`` event, which
    aiobotocore emits too) for one operation, e.g. ``"s3.ListObjectsV2"``."""

    def __init__(self, client: Any, operation: str) -> None:
        self.client, self.event = client, f"before-send.{operation}"
        self.sent = 0
        self.lock = threading.Lock()

    def __call__(self, **_: Any) -> None:
        with self.lock:
            self.sent += 1

    def __enter__(self) -> RequestCounter:
        self.client.meta.events.register(self.event, self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.client.meta.events.unregister(self.event, self)
