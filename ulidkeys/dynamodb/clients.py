"""Where DynamoDB requests go: a ``Table`` resource, the resource's client, or a plain client.

A ``Table`` and its resource's client (``table.meta.client``) serialize plain Python values
themselves (boto3 hooks that onto the client); a plain client takes typed ones
(``{"S": ...}``). :class:`Target` asks the client which it is, by looking for the hook boto3
uses, so every form sends the right request and items come back as plain values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union, cast

from ulidkeys.clientevents import handlers_of, hierarchical_emitter
from ulidkeys.errors import InvalidQuery, InvalidType, InvalidValue, UnsupportedClient, describe

if TYPE_CHECKING:
    from types_boto3_dynamodb.client import DynamoDBClient
    from types_boto3_dynamodb.service_resource import Table as TableResource

#: What a Table accepts: a ``Table`` resource, its ``.meta.client``, or ``boto3.client(...)``.
TableOrClient = Union["TableResource", "DynamoDBClient"]


#: DynamoDB's table names (3 to 255 of these characters), and a table's ARN, which names one too.
_TABLE_NAME = re.compile(r"[A-Za-z0-9_.-]{3,255}")
_TABLE_ARN = re.compile(r"arn:[a-z0-9-]+:dynamodb:[a-z0-9-]+:[0-9]{12}:table/[A-Za-z0-9_.-]{3,255}")


def check_table_name(name: str, what: str = "table_name") -> str:
    """``name`` if DynamoDB can take it as a table (a name or a table's ARN), else InvalidValue:
    DynamoDB's own refusal is a ValidationException, which reads like a query's mistake."""
    if _TABLE_NAME.fullmatch(name) or _TABLE_ARN.fullmatch(name):
        return name
    raise InvalidValue(
        f"{what}={name!r} names no DynamoDB table: a table name is 3 to 255 characters of "
        "A-Z, a-z, 0-9, '_', '-' and '.' (or give the table's ARN)"
    )


def speaks_plain_values(client: DynamoDBClient) -> bool:
    """Whether a DynamoDB client serializes plain values (a resource's client) or wants typed
    ones (``boto3.client("dynamodb")``).

    boto3 makes a resource's client serialize by registering its ``TransformationInjector``'s
    ``inject_attribute_value_input`` on ``before-parameter-build.dynamodb``: the client is
    asked whether a ``Query`` reaches that handler, by reading its event system
    (:mod:`ulidkeys.clientevents`), not by emitting anything (a user's own handlers see no
    request the library did not send). A client that cannot be asked raises
    UnsupportedClient: guessing wrong would send ``{"S": ...}`` maps as values and silently
    match nothing.
    """
    from boto3.dynamodb.transform import TransformationInjector  # boto3: an optional extra

    serializer = TransformationInjector.inject_attribute_value_input
    try:
        client.meta.service_model.operation_model("Query")
        emitter = hierarchical_emitter(client.meta.events)
        handlers = None if emitter is None else handlers_of(emitter, QUERY_PARAMETERS)
    except Exception as error:
        raise _not_asked(client) from error
    if handlers is None:
        raise _not_asked(client)
    return any(getattr(handler, "__func__", None) is serializer for handler in handlers)


#: The event boto3 serializes a resource's request values on, for a Query.
QUERY_PARAMETERS = "before-parameter-build.dynamodb.Query"


def _not_asked(client: object) -> UnsupportedClient:
    return UnsupportedClient(
        f"{describe(client)} is not a boto3 DynamoDB client whose value handling can be "
        "checked; pass boto3.resource('dynamodb').Table(name), its .meta.client, or "
        "boto3.client('dynamodb')"
    )


def item_key(key: object, reserved: Iterable[str]) -> dict[str, str]:
    """The primary key of one fixed item (a checkpoint, a ticket counter), e.g.
    ``{"PK": "Consumer#thumbs", "SK": "Checkpoint"}``: a mapping of the table's key attributes
    to non-empty strings, none of them named like the item's ``reserved`` attributes."""
    if (
        not isinstance(key, Mapping)
        or not key
        or not all(isinstance(v, str) and v for v in key.values())
        or set(reserved) & set(key)
    ):
        raise InvalidValue(
            f"key={describe(key)} must map the table's key attributes to non-empty strings "
            f"(not named {', '.join(map(repr, reserved))})"
        )
    return dict(key)


@dataclass(frozen=True)
class Target:
    """A client, the table name, and whether the client speaks plain (resource) values."""

    client: DynamoDBClient
    table_name: str
    plain: bool
    _serializer: Any = field(default=None, repr=False, compare=False)
    _deserializer: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def resolve(cls, table_or_client: TableOrClient, table_name: str | None = None) -> Target:
        """The target of a ``Table`` resource, or of a client + ``table_name``."""
        resource_name = getattr(table_or_client, "table_name", None)
        client = getattr(getattr(table_or_client, "meta", None), "client", None)
        if isinstance(resource_name, str) and client is not None:
            if table_name is not None and table_name != resource_name:
                raise InvalidQuery(
                    f"table_name={table_name!r} disagrees with the Table resource {resource_name!r}"
                )
            return cls(client, resource_name, True, _checker())
        if not callable(getattr(table_or_client, "query", None)):
            raise UnsupportedClient(
                f"{describe(table_or_client)} is neither a boto3 DynamoDB Table resource nor a "
                "DynamoDB client"
            )
        if not isinstance(table_name, str) or not table_name:
            raise InvalidQuery(
                "table_name= is required with a DynamoDB client (a Table resource knows its own "
                "name)"
            )
        check_table_name(table_name)
        client = cast("DynamoDBClient", table_or_client)  # not a Table: it has no table_name
        if speaks_plain_values(client):
            return cls(client, table_name, True, _checker())
        # Only plain clients need conversion, and only they need boto3 to be importable here.
        from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

        return cls(client, table_name, False, TypeSerializer(), TypeDeserializer())

    @property
    def deserializer(self) -> Any:
        """The boto3 TypeDeserializer a plain client's items are converted with (None for a
        client that answers plain values: boto3 converts them on the client)."""
        return self._deserializer

    def value(self, value: Any) -> Any:
        """One attribute value as this client wants it."""
        return value if self.plain else self._serializer.serialize(value)

    def item(self, item: Mapping[str, Any]) -> dict[str, Any]:
        """A plain item as this client wants it (numbers as ``int`` or ``Decimal``).

        Every value is serialized here, for a client that serializes itself too: a value
        DynamoDB cannot store (a float, NaN, a number of over 38 digits, an empty set) is
        refused naming its attribute, not deep inside boto3 or by the service.
        """
        if self._serializer is None:  # a Target built by hand, without a serializer
            return dict(item)
        serialize = self._serializer.serialize
        typed = {}
        for name, value in item.items():
            try:
                typed[name] = serialize(value)
            except TypeError as error:
                raise InvalidType(f"attribute {name!r}={describe(value)}: {error}") from None
            except ArithmeticError:  # decimal's Inexact/Overflow: more digits than it keeps
                raise InvalidValue(
                    f"attribute {name!r}={describe(value)} is a number DynamoDB cannot store "
                    "exactly (at most 38 significant digits, magnitude 1e-130 .. 1e126)"
                ) from None
            if _has_empty_set(typed[name]):
                raise InvalidValue(
                    f"attribute {name!r}={describe(value)} holds an empty set; DynamoDB "
                    "stores no empty sets (leave the attribute out)"
                )
        return dict(item) if self.plain else typed

    def to_plain(self, item: Mapping[str, Any]) -> dict[str, Any]:
        """An item this client returned, as plain Python values (numbers become ``Decimal``).

        A plain client's items are typed maps; anything else means the client was not what it
        seemed, and is refused rather than misread.
        """
        if self.plain:
            return dict(item)
        deserialize = self._deserializer.deserialize
        try:
            return {name: deserialize(value) for name, value in item.items()}
        except (TypeError, ValueError, AttributeError) as error:
            raise UnsupportedClient(
                f"the client returned {describe(dict(item))}, which is not a typed DynamoDB item"
            ) from error


def _checker() -> Any:
    """The serializer a client that serializes values itself is checked with (boto3's own,
    so the two agree on what can be stored)."""
    from boto3.dynamodb.types import TypeSerializer

    return TypeSerializer()


def _has_empty_set(typed: Mapping[str, Any]) -> bool:
    """Whether a typed value (``{"SS": [...]}``, ``{"M": {...}}``, ...) holds an empty set."""
    ((kind, value),) = typed.items()
    if kind in ("SS", "NS", "BS"):
        return not value
    if kind == "M":
        return any(_has_empty_set(inner) for inner in value.values())
    if kind == "L":
        return any(_has_empty_set(inner) for inner in value)
    return False
