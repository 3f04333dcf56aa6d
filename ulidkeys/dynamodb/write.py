"""Writes that never overwrite or lose an item: ``put_new`` and a retrying batch writer.

``put_new`` puts with ``attribute_not_exists`` on the partition key and a per-call token, so an
existing item is kept (ItemAlreadyExists) unless it is the call's own write. :class:`BatchWriter`
sends 25 requests per ``BatchWriteItem`` and re-sends ``UnprocessedItems`` until none are left.
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any

from ulidkeys.dynamodb.clients import Target
from ulidkeys.errors import (
    InvalidKeyField,
    ItemAlreadyExists,
    UnprocessedItemsLeft,
    aws_error,
    describe,
    retried,
)

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
    if TOKEN_ATTRIBUTE in item:
        raise InvalidKeyField(
            f"item has the attribute {TOKEN_ATTRIBUTE!r}, which put_new sets itself; leave it out"
        )
    name = target.table_name
    pk_attr = key_attrs[0]
    written = {**item, TOKEN_ATTRIBUTE: secrets.token_hex(16)}
    try:
        target.client.put_item(
            TableName=name,
            Item=target.item(written),
            ConditionExpression="attribute_not_exists(#pk)",
            ExpressionAttributeNames={"#pk": pk_attr},
        )
    except Exception as error:
        if aws_error(error)[0] != "ConditionalCheckFailedException":
            raise
        key = {attr: item[attr] for attr in key_attrs if attr in item}
        if retried(error) and _stored_token(target, key) == written[TOKEN_ATTRIBUTE]:
            return written
        raise ItemAlreadyExists(
            f"an item with key {describe(key)} already exists in {name}; put_new never "
            "overwrites (the stored item is unchanged) - make a new id or update it explicitly",
            key,
        ) from None
    return written


def _stored_token(target: Target, key: Mapping[str, Any]) -> object:
    """The put token of the item stored under ``key`` (None without one), read consistently."""
    response = target.client.get_item(
        TableName=target.table_name,
        Key=target.item(key),
        ConsistentRead=True,
        ProjectionExpression="#t",
        ExpressionAttributeNames={"#t": TOKEN_ATTRIBUTE},
    )
    stored = response.get("Item")
    return None if not stored else target.to_plain(stored).get(TOKEN_ATTRIBUTE)


class BatchWriter:
    """Buffered ``BatchWriteItem`` puts and deletes that lose nothing.

    Every ``UnprocessedItems`` answer is re-sent after an exponential backoff with jitter
    (``base_delay`` doubling up to ``max_delay``; reset whenever a retry makes progress) until
    none are left. With ``max_attempts`` set, a batch that makes no progress that many times
    in a row raises UnprocessedItemsLeft holding every unwritten request. A put or delete of a
    key already waiting in the buffer flushes it first, because one ``BatchWriteItem`` may not
    name a key twice. Use as a context manager (flushes on exit) or call :meth:`flush`.
    """

    def __init__(
        self,
        target: Target,
        *,
        key_attrs: tuple[str, str],
        check: Callable[[Mapping[str, Any]], object] | None = None,
        base_delay: float = 0.05,
        max_delay: float = 5.0,
        max_attempts: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.target = target
        self.table_name = self.target.table_name
        self.key_attrs = key_attrs
        self._check = check
        self._base_delay, self._max_delay = base_delay, max_delay
        self._max_attempts = max_attempts
        self._sleep = sleep
        self._buffer: list[dict[str, Any]] = []
        self._keys: set[tuple[Any, ...]] = set()
        self.calls = 0  # BatchWriteItem calls made
        self.retries = 0  # of them, re-sends of unprocessed items

    def put(self, item: Mapping[str, Any]) -> None:
        """Queue a put of ``item`` (plain Python values)."""
        if self._check is not None:
            self._check(item)
        self._add(item, {"PutRequest": {"Item": self.target.item(item)}})

    def delete(self, key: Mapping[str, Any]) -> None:
        """Queue a delete of the item with primary key ``key`` (plain values)."""
        if self._check is not None:
            self._check(key)
        only_key = self.target.item({attr: key[attr] for attr in self.key_attrs})
        self._add(key, {"DeleteRequest": {"Key": only_key}})

    def _add(self, item: Mapping[str, Any], request: dict[str, Any]) -> None:
        key = tuple(str(item.get(attr)) for attr in self.key_attrs)
        if key in self._keys:
            self.flush()
        self._keys.add(key)
        self._buffer.append(request)
        if len(self._buffer) >= BATCH_SIZE:
            self.flush()

    def flush(self) -> None:
        """Write everything buffered; returns when DynamoDB has processed every request.

        A failed call leaves its requests (and their keys) buffered, so the buffer can hold
        more than one batch: it is sent 25 at a time.
        """
        while self._buffer:
            requests, self._buffer = self._buffer[:BATCH_SIZE], self._buffer[BATCH_SIZE:]
            self._send(requests)
        self._keys = set()

    def _send(self, requests: list[dict[str, Any]]) -> None:
        """One batch, re-sent until nothing is unprocessed."""
        stalled = 0
        while requests:
            self.calls += 1
            try:
                response = self.target.client.batch_write_item(
                    RequestItems={self.table_name: requests}
                )
            except Exception:
                self._buffer = requests + self._buffer  # keep them for a later flush
                raise
            left = response.get("UnprocessedItems", {}).get(self.table_name, [])
            if not left:
                return
            self.retries += 1
            stalled = 0 if len(left) < len(requests) else stalled + 1
            if self._max_attempts is not None and stalled >= self._max_attempts:
                raise UnprocessedItemsLeft(
                    f"{len(left)} request(s) to {self.table_name} were still unprocessed after "
                    f"{stalled} attempts without progress; .requests holds them all",
                    [self._plain_request(r) for r in left],
                )
            ceiling = min(self._max_delay, self._base_delay * 2**stalled)
            self._sleep(_jitter.uniform(ceiling / 2, ceiling))
            requests = left

    def _plain_request(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """A write request with its item/key as plain values (for error reports)."""
        if "PutRequest" in request:
            return {"PutRequest": {"Item": self.target.to_plain(request["PutRequest"]["Item"])}}
        return {"DeleteRequest": {"Key": self.target.to_plain(request["DeleteRequest"]["Key"])}}

    def __enter__(self) -> BatchWriter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.flush()
