"""Shared helpers for the DynamoDB tests (no tests here): tables, a page recorder, brute force.

The recorder hooks botocore's ``after-call`` event, so it sees every Query response the
library received - independent of the library's own ``stats``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ulidkeys.dynamodb import Entity
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
) -> None:
    """A pay-per-request table keyed ``keys`` (strings), with GSIs ``name -> (pk, sk)``."""
    attributes = set(keys) | {a for pair in indexes.values() for a in pair}
    args: dict[str, Any] = {
        "TableName": name,
        "KeySchema": [
            {"AttributeName": keys[0], "KeyType": "HASH"},
            {"AttributeName": keys[1], "KeyType": "RANGE"},
        ],
        "AttributeDefinitions": [
            {"AttributeName": a, "AttributeType": "S"} for a in sorted(attributes)
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


@dataclass
class Page:
    scanned: int
    count: int
    sort_keys: list[str]
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
        keys = []
        for item in parsed.get("Items", []):
            value = item[self.sk_attr]
            keys.append(value["S"] if isinstance(value, dict) else value)
        self.pages.append(
            Page(parsed["ScannedCount"], parsed["Count"], keys, "LastEvaluatedKey" in parsed)
        )

    def read_keys(self) -> list[str]:
        return [key for page in self.pages for key in page.sort_keys]

    def clear(self) -> None:
        self.pages.clear()


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
    sk_attr: str = "SK",
    **fields: object,
) -> list[str]:
    """Sort keys of the entity's items with the given fields and ULID time in the window."""
    chosen = []
    for item in items:
        if entity.schema().sk.match(item["SK"]) is None:
            continue  # children and other item types
        parsed = entity.parse(item)
        if any(str(parsed.get(k)) != str(v) for k, v in fields.items()):
            continue
        if start_ms <= parsed[entity.id_field].timestamp_ms < end_ms:
            chosen.append(item[sk_attr])
    chosen.sort(reverse=newest_first)
    return chosen if limit is None else chosen[:limit]
