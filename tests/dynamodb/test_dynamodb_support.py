"""Shared helpers for the DynamoDB tests (no tests here): tables, recorders, brute force.

The recorders see what DynamoDB was asked and answered, independently of the library's own
``stats``: :class:`PageRecorder` hooks botocore's ``after-call`` event (every Query response
a boto3 client received), :class:`RecordingClient` wraps a client and keeps each request with
its response (and can change the answers, as AWS may send them but moto never does).
:func:`brute_force` is the answer computed without the library's planner or executor: every
stored item of the entity, filtered by fields and id time, in result order.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ulidkeys.dynamodb import BatchWriter, Entity
from ulidkeys.dynamodb.clients import Target
from ulidkeys.ulid import ULID

FAKE_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}
os.environ.update(FAKE_ENV)


def create_table(
    client: Any,
    name: str,
    indexes: Mapping[str, tuple[str, str]] = {},
    keys: tuple[str, str] = ("PK", "SK"),
    numbers: Iterable[str] = (),
) -> None:
    """A pay-per-request table keyed ``keys``, with GSIs ``name -> (pk, sk)``; key attributes
    are strings except those named in ``numbers``."""
    attributes = set(keys) | {a for pair in indexes.values() for a in pair}
    numeric = set(numbers)
    args: dict[str, Any] = {
        "TableName": name,
        "KeySchema": [
            {"AttributeName": keys[0], "KeyType": "HASH"},
            {"AttributeName": keys[1], "KeyType": "RANGE"},
        ],
        "AttributeDefinitions": [
            {"AttributeName": a, "AttributeType": "N" if a in numeric else "S"}
            for a in sorted(attributes)
        ],
        "BillingMode": "PAY_PER_REQUEST",
    }
    if indexes:
        args["GlobalSecondaryIndexes"] = [
            {
                "IndexName": index,
                "KeySchema": [
                    {"AttributeName": pk, "KeyType": "HASH"},
                    {"AttributeName": sk, "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
            for index, (pk, sk) in indexes.items()
        ]
    client.create_table(**args)


def put_items(
    table_or_client: Any,
    items: Iterable[Mapping[str, Any]],
    table_name: str | None = None,
    key_attrs: tuple[str, str] = ("PK", "SK"),
) -> None:
    """Write items straight into a table, in batches (children and look-alikes too, which an
    entity's writer refuses)."""
    target = Target.resolve(table_or_client, table_name)
    with BatchWriter(target, key_attrs=key_attrs) as writer:
        for item in items:
            writer.put(item)


def delete_items(
    table_or_client: Any,
    items: Iterable[Mapping[str, Any]],
    table_name: str | None = None,
    key_attrs: tuple[str, str] = ("PK", "SK"),
) -> None:
    """Delete stored items again: moto reads a whole table for every Query, so tests that
    write many items keep their module's table small."""
    target = Target.resolve(table_or_client, table_name)
    with BatchWriter(target, key_attrs=key_attrs) as writer:
        for item in items:
            writer.delete(item)


def plain(value: Any) -> Any:
    """An attribute value as plain Python: ``{"S": x}`` -> x, ``{"N": "5"}`` -> Decimal(5)."""
    if isinstance(value, Mapping) and len(value) == 1:
        ((kind, inner),) = value.items()
        if kind == "S":
            return inner
        if kind == "N":
            return Decimal(inner)
    return value


@dataclass
class Page:
    scanned: int
    count: int
    sort_keys: list[Any]
    more: bool


@dataclass
class PageRecorder:
    """Records every Query response of a client: counts and the sort keys DynamoDB read."""

    sk_attr: str = "SK"
    pages: list[Page] = field(default_factory=list)

    def attach(self, client: Any) -> PageRecorder:
        client.meta.events.register("after-call.dynamodb.Query", self._record)
        return self

    def _record(self, parsed: Mapping[str, Any], **_: Any) -> None:
        keys = [plain(item[self.sk_attr]) for item in parsed.get("Items", [])]
        self.pages.append(
            Page(parsed["ScannedCount"], parsed["Count"], keys, "LastEvaluatedKey" in parsed)
        )

    def read_keys(self) -> list[Any]:
        return [key for page in self.pages for key in page.sort_keys]

    def clear(self) -> None:
        self.pages.clear()


@dataclass
class Exchange:
    """One Query a :class:`RecordingClient` passed on (or answered itself)."""

    args: dict[str, Any]
    response: dict[str, Any]
    injected: bool = False

    @property
    def partition(self) -> Any:
        return plain(self.args["ExpressionAttributeValues"][":pk"])


class RecordingClient:
    """A DynamoDB client wrapper that records every Query (arguments and answer).

    ``answer`` (if given) sees each request and the real client and returns the response to
    hand back, so a test can send what AWS sends and moto does not (empty pages that still
    carry a ``LastEvaluatedKey``). Everything else - ``meta`` too, so the library sees the
    wrapped client's form - is the wrapped client's.
    """

    def __init__(
        self,
        client: Any,
        answer: Callable[[Any, dict[str, Any]], tuple[dict[str, Any], bool]] | None = None,
    ) -> None:
        self.client = client
        self.answer = answer
        self.exchanges: list[Exchange] = []

    def query(self, **args: Any) -> dict[str, Any]:
        if self.answer is None:
            response, injected = self.client.query(**args), False
        else:
            response, injected = self.answer(self.client, args)
        self.exchanges.append(Exchange(args, response, injected))
        return response

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)

    def sort_keys(self, sk_attr: str = "SK") -> list[Any]:
        return [plain(i[sk_attr]) for e in self.exchanges for i in e.response.get("Items", [])]

    def clear(self) -> None:
        self.exchanges.clear()


def ulid_at(ms: int, kind: str) -> ULID:
    """The smallest, the largest or a random ULID of millisecond ``ms``."""
    return {"min": ULID.min_for, "max": ULID.max_for, "rand": ULID.new}[kind](ms)


def leading_ulid(sort_key: str, prefix: str) -> ULID:
    """The ULID right after ``prefix`` in a sort key (parents and children alike)."""
    assert sort_key.startswith(prefix), sort_key
    text = sort_key[len(prefix) : len(prefix) + 26]
    ulid = ULID.parse(text)
    assert str(ulid) == text, f"{sort_key!r} does not hold a canonical ULID"
    return ulid


def brute_force(
    entity: Entity,
    items: Iterable[Mapping[str, Any]],
    start_ms: int,
    end_ms: int,
    *,
    newest_first: bool = False,
    limit: int | None = None,
    index: str | None = None,
    **fields: object,
) -> list[Any]:
    """Table sort keys of the entity's items with the given fields and id time in the window,
    in result order: by (id, sort key of the table or ``index``), reversed newest first."""
    schema = entity.schema(index)
    table_sk = entity.table.sk_attr
    chosen = []
    for item in items:
        raw = item.get(schema.sk_attr)
        if raw is None:
            continue  # not in this (sparse) index
        text = str(raw) if not schema.numeric_sk else entity.scheme.from_int(int(raw))
        found = schema.sk.match(text)
        if found is None:
            continue  # children and other item types
        parsed = entity.parse(item)
        if any(str(parsed.get(k)) != str(v) for k, v in fields.items()):
            continue
        id_text = found[entity.id_field]
        if start_ms <= entity.scheme.timestamp_ms(id_text) < end_ms:
            chosen.append(((id_text, text), item[table_sk]))
    chosen.sort(key=lambda pair: pair[0], reverse=newest_first)
    keys = [key for _, key in chosen]
    return keys if limit is None else keys[:limit]
