"""Where requests go: a boto3 ``Table`` resource or a low-level client plus a table name.

A ``Table`` resource's client serializes plain Python values itself (boto3 registers that on
it), a bare client takes typed ones (``{"S": ...}``); :class:`Target` hides the difference, so
one code path sends every request and items come back as plain values either way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ulidkeys.errors import InvalidQuery, InvalidType, describe


@dataclass(frozen=True)
class Target:
    """A client, the table name, and whether the client speaks plain (resource) values."""

    client: Any
    table_name: str
    plain: bool

    @classmethod
    def resolve(cls, table_or_client: Any, table_name: str | None = None) -> Target:
        """The target of a ``Table`` resource, or of a low-level client + ``table_name``."""
        resource_name = getattr(table_or_client, "table_name", None)
        client = getattr(getattr(table_or_client, "meta", None), "client", None)
        if isinstance(resource_name, str) and client is not None:
            if table_name is not None and table_name != resource_name:
                raise InvalidQuery(
                    f"table_name={table_name!r} disagrees with the Table resource {resource_name!r}"
                )
            return cls(client, resource_name, plain=True)
        if not callable(getattr(table_or_client, "query", None)):
            raise InvalidType(
                f"{describe(table_or_client)} is neither a boto3 DynamoDB Table resource nor a "
                "low-level DynamoDB client"
            )
        if not isinstance(table_name, str) or not table_name:
            raise InvalidQuery(
                "table_name= is required with a low-level DynamoDB client (a Table resource "
                "knows its own name)"
            )
        return cls(table_or_client, table_name, plain=False)

    def value(self, value: Any) -> Any:
        """One attribute value as this client wants it."""
        if self.plain:
            return value
        from boto3.dynamodb.types import TypeSerializer

        return TypeSerializer().serialize(value)

    def item(self, item: Mapping[str, Any]) -> dict[str, Any]:
        """A plain item as this client wants it (numbers as ``int`` or ``Decimal``)."""
        if self.plain:
            return dict(item)
        from boto3.dynamodb.types import TypeSerializer

        serialize = TypeSerializer().serialize
        return {name: serialize(value) for name, value in item.items()}

    def to_plain(self, item: Mapping[str, Any]) -> dict[str, Any]:
        """An item this client returned, as plain Python values (numbers become ``Decimal``)."""
        if self.plain:
            return dict(item)
        from boto3.dynamodb.types import TypeDeserializer

        deserialize = TypeDeserializer().deserialize
        return {name: deserialize(value) for name, value in item.items()}

    def string(self, item: Mapping[str, Any], attr: str) -> str | None:
        """The string attribute ``attr`` of a returned item (None if absent or not a string)."""
        value = item.get(attr)
        if not self.plain and isinstance(value, Mapping):
            value = value.get("S")
        return value if isinstance(value, str) else None


def error_code(error: BaseException) -> str | None:
    """The AWS error code of a botocore ``ClientError`` (None for anything else)."""
    response = getattr(error, "response", None)
    if isinstance(response, Mapping):
        code = response.get("Error", {}).get("Code")
        return code if isinstance(code, str) else None
    return None
