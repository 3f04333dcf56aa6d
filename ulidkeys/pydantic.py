"""Pydantic v2 types for ids of every scheme the library knows: ``IdStr("uuid7")`` (or a scheme
object) is a ``str`` field validated by that scheme's rules and stored in its canonical text, with
the scheme's pattern in the JSON schema; ``ULIDStr``, ``UUID7Str``, ... are the common ones.

Needs pydantic (``pip install 'ulidkeys[pydantic]'``). For ULID *values* (not text) the
``ulidkeys.ULID`` class itself is a pydantic type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic_core import PydanticCustomError, core_schema

from ulidkeys.errors import UlidkeysError
from ulidkeys.ids.interop import coerce_id
from ulidkeys.ids.protocol import IdScheme
from ulidkeys.ids.registry import scheme_named

if TYPE_CHECKING:
    from pydantic.json_schema import JsonSchemaValue


@dataclass(frozen=True)
class IdText:
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
    return Annotated[str, IdText(chosen)]


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

__all__ = ["IdStr", "IdText", "KSUIDStr", "ObjectIdStr", "SnowflakeStr", "ULIDStr", "UUID7Str"]
