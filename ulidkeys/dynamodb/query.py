"""Run a query plan with boto3: follow pages, fan out over buckets/shards, merge in order.

Shards of one bucket are queried concurrently and merged by sort key; buckets follow one
another in result order (prefetched concurrently when there is no limit, one at a time with a
limit so no bucket is read that the limit makes unnecessary). Empty pages after a
``LastEvaluatedKey`` are followed like any other.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ulidkeys.dynamodb.plan import QueryCall, QueryPlan
from ulidkeys.dynamodb.target import Target
from ulidkeys.errors import InvalidValue, describe


@dataclass(frozen=True)
class PageStats:
    """What one ``Query`` response reported, and how many of its items fit the template."""

    call: QueryCall
    scanned: int
    count: int
    kept: int
    more: bool  # a LastEvaluatedKey came with it


@dataclass
class QueryStats:
    """Pages, items read and items returned by one query (pass ``stats=`` to collect)."""

    pages: list[PageStats] = field(default_factory=list)
    returned: int = 0

    @property
    def calls(self) -> int:
        return len(self.pages)

    @property
    def scanned(self) -> int:
        return sum(page.scanned for page in self.pages)

    @property
    def count(self) -> int:
        return sum(page.count for page in self.pages)

    @property
    def read_per_item(self) -> float:
        """Items DynamoDB read per item returned (1.0 = nothing read and thrown away)."""
        if self.returned:
            return self.scanned / self.returned
        return math.inf if self.scanned else 0.0


class _Inline:
    """An executor that runs a task at once: a single partition needs no threads."""

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args))
        except BaseException as error:  # delivered by .result(), like a thread pool would
            future.set_exception(error)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        return None


@dataclass
class _Run:
    """Shared state of one running plan."""

    plan: QueryPlan
    target: Target
    page_size: int | None
    stats: QueryStats
    pool: Any
    yielded: int = 0

    def page_limit(self, scanned: int, kept: int) -> int | None:
        """``Limit`` for the next page: no more than the items still wanted, scaled up by the
        share of skipped children seen so far (so children do not cost a call each)."""
        wanted = None
        if self.plan.limit is not None:
            remaining = max(self.plan.limit - self.yielded, 1)
            wanted = math.ceil(remaining * (scanned + 1) / (kept + 1))
        if self.page_size is None:
            return wanted
        return self.page_size if wanted is None else min(wanted, self.page_size)

    def fetch(self, call: QueryCall, start_key: Any, limit: int | None) -> dict[str, Any]:
        args = call.request(self.target.table_name, typed=not self.target.plain)
        if start_key is not None:
            args["ExclusiveStartKey"] = start_key
        if limit is not None:
            args["Limit"] = limit
        response: dict[str, Any] = self.target.client.query(**args)
        return response

    def stream(self, call: QueryCall) -> Iterator[tuple[str, dict[str, Any]]]:
        """``(sort key, raw item)`` of the call's items that fit the template, page by page.

        The first page is requested at once (so the shards of a group run concurrently).
        """
        future = self.pool.submit(self.fetch, call, None, self.page_limit(0, 0))
        return self._pages(call, future)

    def _pages(self, call: QueryCall, future: Future[Any]) -> Iterator[tuple[str, dict[str, Any]]]:
        scanned = kept = 0
        sk_attr, match, string = self.plan.sk_attr, self.plan.template.match, self.target.string
        while True:
            page = future.result()
            items = page.get("Items", [])
            fitting = [
                (sk, raw)
                for raw in items
                if (sk := string(raw, sk_attr)) is not None and match(sk) is not None
            ]
            more = page.get("LastEvaluatedKey")
            self.stats.pages.append(
                PageStats(
                    call,
                    page.get("ScannedCount", len(items)),
                    page.get("Count", len(items)),
                    len(fitting),
                    bool(more),
                )
            )
            scanned, kept = scanned + len(items), kept + len(fitting)
            yield from fitting
            if not more:
                return
            future = self.pool.submit(self.fetch, call, more, self.page_limit(scanned, kept))

    def group(self, calls: tuple[QueryCall, ...]) -> Iterator[tuple[str, dict[str, Any]]]:
        streams = [self.stream(call) for call in calls]
        if len(streams) == 1:
            return streams[0]
        return heapq.merge(*streams, key=lambda pair: pair[0], reverse=self.plan.newest_first)


def run_plan(
    plan: QueryPlan,
    table_or_client: Any,
    *,
    table_name: str | None = None,
    page_size: int | None = None,
    max_workers: int = 8,
    stats: QueryStats | None = None,
) -> Iterator[dict[str, Any]]:
    """The plan's items in order, as plain Python values; an empty plan makes no call.

    ``page_size`` caps ``Limit`` per call (pages are also cut at 1 MB by DynamoDB);
    ``max_workers`` caps concurrent calls; ``stats`` collects per-page counts.
    """
    target = Target.resolve(table_or_client, table_name)
    if page_size is not None and (
        isinstance(page_size, bool) or not isinstance(page_size, int) or page_size < 1
    ):
        raise InvalidValue(f"page_size={describe(page_size)} must be an int >= 1 (or None)")
    if isinstance(max_workers, bool) or not isinstance(max_workers, int) or max_workers < 1:
        raise InvalidValue(f"max_workers={describe(max_workers)} must be an int >= 1")
    return _items(plan, target, page_size, max_workers, stats or QueryStats())


def _items(
    plan: QueryPlan,
    target: Target,
    page_size: int | None,
    max_workers: int,
    stats: QueryStats,
) -> Iterator[dict[str, Any]]:
    if plan.is_empty:
        return
    calls = len(plan.calls)
    pool: Any = _Inline() if calls == 1 else ThreadPoolExecutor(min(max_workers, calls))
    run = _Run(plan, target, page_size, stats, pool)
    # Without a limit every bucket is read anyway, so later buckets are started early (up to
    # max_workers calls in flight); with a limit a bucket is started only when it is needed.
    ahead = 0 if plan.limit is not None else max_workers
    started: list[tuple[int, Iterator[tuple[str, dict[str, Any]]]]] = []
    pending = list(plan.groups)
    try:
        while started or pending:
            in_flight = sum(size for size, _ in started)
            while pending and (not started or in_flight + len(pending[0]) <= ahead):
                in_flight += len(pending[0])
                calls_of_group = pending.pop(0)
                started.append((len(calls_of_group), run.group(calls_of_group)))
            for _sort_key, raw in started.pop(0)[1]:
                yield target.to_plain(raw)
                run.yielded += 1
                stats.returned += 1
                if plan.limit is not None and run.yielded >= plan.limit:
                    return
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
