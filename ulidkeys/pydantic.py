"""Pydantic v2 types for ids of every scheme the library knows: ``IdStr("uuid7")`` (or a scheme
object) is a ``str`` field validated by that scheme's rules and stored in its canonical text, with
the scheme's pattern in the JSON schema; ``ULIDStr``, ``UUID7Str``, ... are the common ones.

Needs pydantic (``pip install 'ulidkeys[pydantic]'``). For ULID *values* (not text) the
``ulidkeys.ULID`` class itself is a pydantic type. What it offers:

- id fields: :func:`IdStr` (any scheme, by name or object) and the common ones
  :data:`ULIDStr`, :data:`UUID7Str`, :data:`KSUIDStr`, :data:`ObjectIdStr`,
  :data:`SnowflakeStr`;
- a model's keys: :func:`LayoutId` and :func:`s3_key` (the object key of a model),
  :func:`EntityId` and :func:`dynamodb_keys` (an item's key attributes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, get_args, get_origin

from pydantic import BaseModel, GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic_core import PydanticCustomError, core_schema

from ulidkeys.errors import InvalidType, InvalidValue, UlidkeysError, describe
from ulidkeys.ids.interop import coerce_id
from ulidkeys.ids.protocol import IdScheme, is_id_scheme
from ulidkeys.ids.registry import scheme_named
from ulidkeys.planning.entity import Entity
from ulidkeys.planning.layout import KeyLayout

if TYPE_CHECKING:
    from pydantic.json_schema import JsonSchemaValue


@dataclass(frozen=True)
class _IdText:
    """Pydantic metadata: the field holds the canonical text of an id of ``scheme``.

    Input may be the text in any spelling the scheme parses (a lowercase ULID, an unpadded
    Snowflake), a number for numeric schemes, or an id object (python-ulid, ``uuid.UUID``,
    ``bson.ObjectId``, svix-ksuid, ``ulidkeys.ULID``); the field's value is always the canonical
    text, which is also what JSON gets.
    """

    scheme: IdScheme

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            self._validate,
            serialization=core_schema.plain_serializer_function_ser_schema(str),
        )

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {
            "type": "string",
            "pattern": f"^{self.scheme.pattern}$",
            "minLength": self.scheme.length if not self.scheme.numeric else 1,
            "maxLength": self.scheme.length,
            "description": f"an id of the {self.scheme.name} scheme, canonical text",
        }

    def _validate(self, value: Any) -> str:
        try:
            return coerce_id(self.scheme, value, "value")
        except (UlidkeysError, ValueError, TypeError) as error:
            raise PydanticCustomError(
                "id_format",
                "not a {scheme} id: {reason}",
                {"scheme": self.scheme.name, "reason": str(error)},
            ) from None


def IdStr(scheme: str | IdScheme) -> Any:
    """The annotated ``str`` type of ids of ``scheme`` (a name ``ulidkeys schemes`` lists, e.g.
    ``"uuid7"``, ``"typeid:user"``, or an :class:`~ulidkeys.ids.IdScheme`)."""
    chosen = scheme_named(scheme) if isinstance(scheme, str) else scheme
    if not is_id_scheme(chosen):
        raise InvalidType(f"scheme={describe(scheme)} must be an id scheme or its name")
    return Annotated[str, _IdText(chosen)]


#: A ULID's canonical text (26 characters, uppercase).
ULIDStr = IdStr("ulid")
#: A UUIDv7's canonical text (36 characters, lowercase).
UUID7Str = IdStr("uuid7")
#: A KSUID (27 base62 characters).
KSUIDStr = IdStr("ksuid")
#: A MongoDB ObjectId (24 lowercase hex digits).
ObjectIdStr = IdStr("objectid")
#: A Twitter Snowflake in its key form (19 zero-padded digits; unpadded input is accepted).
SnowflakeStr = IdStr("twitter-snowflake")


# --- a model's keys --------------------------------------------------------------------------


@dataclass(frozen=True)
class _KeyedBy:
    """Pydantic metadata: the field is the id of a key layout (S3) or an entity (DynamoDB), so
    the model can give its key (:func:`s3_key`) or keys (:func:`dynamodb_keys`)."""

    target: KeyLayout | Entity


def LayoutId(layout: KeyLayout) -> Any:
    """The annotated ``str`` type of a field holding the id of ``layout``'s keys (validated by
    the layout's scheme; :func:`s3_key` makes the object key from it)."""
    if not isinstance(layout, KeyLayout):
        raise InvalidType(f"layout={describe(layout)} must be a KeyLayout")
    return Annotated[str, _IdText(layout.scheme), _KeyedBy(layout)]


def EntityId(entity: Entity) -> Any:
    """The annotated ``str`` type of a field holding the id of ``entity``'s items (validated by
    the entity's scheme; :func:`dynamodb_keys` makes the item's keys from it and the model's
    other fields named like the entity's key fields)."""
    if not isinstance(entity, Entity):
        raise InvalidType(f"entity={describe(entity)} must be an Entity")
    return Annotated[str, _IdText(entity.scheme), _KeyedBy(entity)]


def s3_key(model: BaseModel, ext: str | None = None) -> str:
    """The S3 key of a model whose id field is a :func:`LayoutId` (``ext`` replaces the
    layout's suffix, as in ``KeyLayout.key_for``)."""
    name, layout = _keyed(model, KeyLayout)
    assert isinstance(layout, KeyLayout)
    return layout.key_for(getattr(model, name), ext)


def dynamodb_keys(model: BaseModel) -> dict[str, Any]:
    """The key attributes (table and indexes) of a model whose id field is an
    :func:`EntityId`: the entity's other key fields are read from the model's fields of the same
    names; a missing one is an error naming it."""
    name, entity = _keyed(model, Entity)
    assert isinstance(entity, Entity)
    values: dict[str, Any] = {
        field: getattr(model, field)
        for field in entity.fields
        if field not in (entity.id_field, "bucket", "shard") and field in type(model).model_fields
    }
    values[entity.id_field] = getattr(model, name)
    return entity.keys(**values)


def _keyed(model: BaseModel, kind: type) -> tuple[str, KeyLayout | Entity]:
    if not isinstance(model, BaseModel):
        raise InvalidType(f"model={describe(model)} must be a pydantic model")
    what = "LayoutId(layout)" if kind is KeyLayout else "EntityId(entity)"
    for name, info in type(model).model_fields.items():
        # an optional field (``LayoutId(layout) | None``) keeps its metadata inside the union
        inner = [arg for arg in get_args(info.annotation) if get_origin(arg) is Annotated]
        metadata = [*info.metadata, *(meta for arg in inner for meta in arg.__metadata__)]
        for meta in metadata:
            if isinstance(meta, _KeyedBy) and isinstance(meta.target, kind):
                if getattr(model, name) is None:
                    raise InvalidValue(
                        f"{type(model).__name__}.{name} is None: a model without an id has no key"
                    )
                return name, meta.target
    raise InvalidType(f"{type(model).__name__} has no field annotated {what}")


__all__ = [
    "EntityId",
    "IdStr",
    "KSUIDStr",
    "LayoutId",
    "ObjectIdStr",
    "SnowflakeStr",
    "ULIDStr",
    "UUID7Str",
    "dynamodb_keys",
    "s3_key",
]
