"""Writes that never overwrite or lose an item: ``put_new`` and a retrying batch writer.

``put_new`` puts with ``attribute_not_exists`` on the partition key and a per-call token, so an
existing item is kept (ItemAlreadyExists) unless it is the call's own write. :class:`BatchWriter`
sends 25 requests per ``BatchWriteItem`` and re-sends ``UnprocessedItems`` until none are left.
"""

from __future__ import annotations

import math
import random
import secrets
import time
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any, ClassVar

from ulidkeys.dynamodb.clients import Target
from ulidkeys.engine.operations import Pause, Program, Send
from ulidkeys.engine.threads import outcome
from ulidkeys.errors import (
    InvalidKeyField,
    InvalidType,
    InvalidValue,
    ItemAlreadyExists,
    UnprocessedItemsLeft,
    aws_error,
    describe,
    require_count,
    retried,
)

Key = tuple[str, ...]

#: Most requests one ``BatchWriteItem`` call takes.
BATCH_SIZE = 25

#: The attribute ``put_new`` stores with every item: a random token per call, so that after a
#: lost reply the item found under the key is known to be this call's own write.
TOKEN_ATTRIBUTE = "ulidkeys_put_token"

_jitter = random.SystemRandom()


def put_new(
    target: Target, item: Mapping[str, Any], *, key_attrs: tuple[str, str]
) -> dict[str, Any]:
    """Put ``item`` (plain Python values) unless an item with its primary key exists.

    Returns the item as written: ``item`` plus :data:`TOKEN_ATTRIBUTE`, a random token of
    this call. Idempotent across botocore's retries: when a retried put fails its condition on
    an item holding this call's token (the first put landed, its reply was lost), one
    consistent GetItem shows it and the write counts as done. Any other existing item raises
    ItemAlreadyExists (carrying the key); the stored item is left as it was.
    """
    steps = put_new_steps(target, item, key_attrs=key_attrs)
    return outcome(steps, client=target.client)


def put_new_steps(
    target: Target, item: Mapping[str, Any], *, key_attrs: tuple[str, str]
) -> Program[dict[str, Any]]:
    """:func:`put_new` as steps, for either driver (``item`` is checked at once)."""
    if TOKEN_ATTRIBUTE in item:
        raise InvalidKeyField(
            f"item has the attribute {TOKEN_ATTRIBUTE!r}, which put_new sets itself; leave it out"
        )
    return _put_item(target, item, key_attrs)


def _put_item(
    target: Target, item: Mapping[str, Any], key_attrs: tuple[str, str]
) -> Program[dict[str, Any]]:
    name = target.table_name
    pk_attr = key_attrs[0]
    written = {**item, TOKEN_ATTRIBUTE: secrets.token_hex(16)}
    try:
        yield Send(
            "put_item",
            {
                "TableName": name,
                "Item": target.item(written),
                "ConditionExpression": "attribute_not_exists(#pk)",
                "ExpressionAttributeNames": {"#pk": pk_attr},
            },
        )
    except Exception as error:
        if aws_error(error)[0] != "ConditionalCheckFailedException":
            raise
        key = {attr: item[attr] for attr in key_attrs if attr in item}
        if retried(error) and (yield from _stored_token(target, key)) == written[TOKEN_ATTRIBUTE]:
            return written
        raise ItemAlreadyExists(
            f"an item with key {describe(key)} already exists in {name}; put_new never "
            "overwrites (the stored item is unchanged) - make a new id or update it explicitly",
            key,
        ) from None
    return written


def _stored_token(target: Target, key: Mapping[str, Any]) -> Program[object]:
    """The put token of the item stored under ``key`` (None without one), read consistently."""
    response = yield Send(
        "get_item",
        {
            "TableName": target.table_name,
            "Key": target.item(key),
            "ConsistentRead": True,
            "ProjectionExpression": "#t",
            "ExpressionAttributeNames": {"#t": TOKEN_ATTRIBUTE},
        },
    )
    stored = response.get("Item")
    return None if not stored else target.to_plain(stored).get(TOKEN_ATTRIBUTE)


class BatchQueue:
    """What :class:`BatchWriter` and its asyncio twin (``ulidkeys.aio.AsyncBatchWriter``) share:
    the constructor, the queue of requests not known to be written and the steps that send
    them. ``check`` raises for a key or item that must not be written; ``check_put`` (default
    ``check``) for an item to put, which may need more than a key to delete; ``sleep`` is how a
    backoff waits (default ``time.sleep``; the asyncio twin awaits ``asyncio.sleep``)."""

    #: How a backoff waits when no ``sleep`` is given.
    _default_sleep: ClassVar[Callable[[float], Any]] = time.sleep

    def __init__(
        self,
        target: Target,
        *,
        key_attrs: tuple[str, str],
        check: Callable[[Mapping[str, Any]], object] | None = None,
        base_delay: float = 0.05,
        max_delay: float = 5.0,
        max_attempts: int | None = None,
        sleep: Callable[[float], Any] | None = None,
        check_put: Callable[[Mapping[str, Any]], object] | None = None,
    ) -> None:
        if (
            not isinstance(key_attrs, (tuple, list))
            or not all(isinstance(attr, str) and attr for attr in key_attrs)
            or not 1 <= len(set(key_attrs)) == len(key_attrs) <= 2
        ):
            raise InvalidValue(
                f"key_attrs={describe(key_attrs)} must be the names of the table's key "
                "attributes, partition key first, e.g. ('PK', 'SK')"
            )
        for name, delay in (("base_delay", base_delay), ("max_delay", max_delay)):
            if isinstance(delay, bool) or not isinstance(delay, (int, float)):
                raise InvalidType(f"{name}={describe(delay)} must be seconds (int or float)")
            if not 0 <= delay < math.inf:  # NaN fails too: a backoff must wait a real time
                raise InvalidValue(f"{name}={describe(delay)} must be finite seconds >= 0")
        require_count(max_attempts, "max_attempts", 1, optional=True)
        self.target = target
        # what a Pause step waits with: time.sleep, or an awaited sleep
        self._sleep = type(self)._default_sleep if sleep is None else sleep
        self.table_name = self.target.table_name
        self.key_attrs = tuple(key_attrs)
        self._check = check
        self._check_put = check if check_put is None else check_put
        self._base_delay, self._max_delay = base_delay, max_delay
        self._max_attempts = max_attempts
        # (primary key, request) in the order given: every request not known to be written
        self._buffer: list[tuple[Key, dict[str, Any]]] = []
        self.calls = 0  # BatchWriteItem calls made
        self.retries = 0  # of them, re-sends of unprocessed items

    @property
    def pending(self) -> list[dict[str, Any]]:
        """The queued requests not known to be written, in order, with plain values."""
        return [self._plain_request(request) for _, request in self._buffer]

    def clear(self) -> None:
        """Forget every queued request (after taking them from :attr:`pending`)."""
        self._buffer = []

    def _require_key(self, item: object, what: str) -> None:
        """``item`` must hold the table's key: a request without it would fail the whole
        batch it is sent in, and it has no key to tell it from another request by."""
        if not isinstance(item, Mapping):
            raise InvalidType(f"{what}={describe(item)} must be a mapping of attribute names")
        missing = [attr for attr in self.key_attrs if attr not in item]
        if missing:
            raise InvalidKeyField(
                f"{what}={describe(item)} has no {', '.join(missing)}: it needs the table's "
                f"key attributes {', '.join(self.key_attrs)}"
            )

    def _put_steps(self, item: Mapping[str, Any]) -> Program[None]:
        if self._check_put is not None:
            self._check_put(item)
        self._require_key(item, "item")
        yield from self._add(self._key(item), {"PutRequest": {"Item": self.target.item(item)}})

    def _delete_steps(self, key: Mapping[str, Any]) -> Program[None]:
        if self._check is not None:
            self._check(key)
        self._require_key(key, "key")
        only_key = self.target.item({attr: key[attr] for attr in self.key_attrs})
        yield from self._add(self._key(key), {"DeleteRequest": {"Key": only_key}})

    def _key(self, item: Mapping[str, Any]) -> Key:
        return tuple(str(item.get(attr)) for attr in self.key_attrs)

    def _add(self, key: Key, request: dict[str, Any]) -> Program[None]:
        entry = (key, request)
        if any(key == queued for queued, _ in self._buffer):
            try:
                yield from self._flush_steps()
            except BaseException:
                self._buffer.append(entry)  # queued after its namesake: flush() keeps them apart
                raise
        self._buffer.append(entry)
        if len(self._buffer) >= BATCH_SIZE:
            yield from self._flush_steps()

    def _flush_steps(self) -> Program[None]:
        while self._buffer:
            batch: list[tuple[Key, dict[str, Any]]] = []
            seen: set[Key] = set()
            for key, request in self._buffer:
                if len(batch) == BATCH_SIZE or key in seen:
                    break
                seen.add(key)
                batch.append((key, request))
            self._buffer = self._buffer[len(batch) :]
            yield from self._send(batch)

    def _send(self, batch: list[tuple[Key, dict[str, Any]]]) -> Program[None]:
        """One batch, re-sent until nothing is unprocessed."""
        stalled = 0
        while batch:
            self.calls += 1
            try:
                requests: list[Any] = [request for _, request in batch]
                response = yield Send(
                    "batch_write_item", {"RequestItems": {self.table_name: requests}}
                )
            except BaseException:
                self._buffer = batch + self._buffer  # keep them for a later flush
                raise
            left: list[Any] = response.get("UnprocessedItems", {}).get(self.table_name, [])
            if not left:
                return
            self.retries += 1
            stalled = 0 if len(left) < len(batch) else stalled + 1
            batch = [(self._key(self._plain_key(request)), request) for request in left]
            if self._max_attempts is not None and stalled >= self._max_attempts:
                self._buffer = batch + self._buffer
                raise UnprocessedItemsLeft(
                    f"{len(left)} request(s) to {self.table_name} were still unprocessed after "
                    f"{stalled} attempts without progress; .requests holds them, and they stay "
                    "queued for the next flush()",
                    [self._plain_request(r) for r in left],
                )
            ceiling = min(self._max_delay, self._base_delay * 2**stalled)
            yield Pause(_jitter.uniform(ceiling / 2, ceiling))

    def _plain_key(self, request: Mapping[str, Any]) -> dict[str, Any]:
        plain = self._plain_request(request)
        found: dict[str, Any] = (
            plain["PutRequest"]["Item"] if "PutRequest" in plain else plain["DeleteRequest"]["Key"]
        )
        return found

    def _plain_request(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """A write request with its item/key as plain values (for error reports)."""
        if "PutRequest" in request:
            return {"PutRequest": {"Item": self.target.to_plain(request["PutRequest"]["Item"])}}
        return {"DeleteRequest": {"Key": self.target.to_plain(request["DeleteRequest"]["Key"])}}


class BatchWriter(BatchQueue):
    """Buffered ``BatchWriteItem`` puts and deletes that lose nothing.

    Every ``UnprocessedItems`` answer is re-sent after an exponential backoff with jitter
    (``base_delay`` doubling up to ``max_delay``; reset whenever a retry makes progress) until
    none are left. With ``max_attempts`` set, a batch that makes no progress that many times
    in a row raises UnprocessedItemsLeft holding its unwritten requests. A put or delete of a
    key already waiting in the buffer flushes it first, because one ``BatchWriteItem`` may not
    name a key twice. Use as a context manager (flushes on exit) or call :meth:`flush`.

    After a raise: :meth:`put` / :meth:`delete` that raise while checking their argument
    (InvalidValue, InvalidType) queued nothing. Any other raise (from the flush the call
    started, or from :meth:`flush`) leaves the call's own request queued, with every request
    not known to be written, in order, in :attr:`pending`: call :meth:`flush` again to send
    them (never put the item again), or take them from :attr:`pending` and :meth:`clear`.
    """

    def put(self, item: Mapping[str, Any]) -> None:
        """Queue a put of ``item`` (plain Python values); see the class notes for raises."""
        outcome(self._put_steps(item), client=self.target.client, sleep=self._sleep)

    def delete(self, key: Mapping[str, Any]) -> None:
        """Queue a delete of the item with primary key ``key`` (plain values)."""
        outcome(self._delete_steps(key), client=self.target.client, sleep=self._sleep)

    def flush(self) -> None:
        """Write everything queued; returns when DynamoDB has processed every request.

        Sent in order, at most 25 per call and never one key twice in a call. A failed call
        leaves its requests queued (see :attr:`pending`) and raises.
        """
        outcome(self._flush_steps(), client=self.target.client, sleep=self._sleep)

    def __enter__(self) -> BatchWriter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.flush()
