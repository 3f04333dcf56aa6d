"""An entity's key schemas: the table's and each secondary index's (:class:`Index`), built from
their key templates with their checks (attribute names, where derived placeholders may go,
``numeric_sk``), the check that no key attribute is written from two templates, and what a
table holding them looks like (``create_table`` arguments, DynamoDB's key size limits).

:class:`~ulidkeys.planning.entity.Entity` declares its schemas through these and derives every
key, parse and query plan from them. Pure: no boto3, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ulidkeys.errors import InvalidKeyField, InvalidKeyTemplate, KeyAttributeClash, describe
from ulidkeys.ids.protocol import IdScheme
from ulidkeys.planning.templates import KeySchema, KeyTemplate

#: Placeholders filled by the entity itself, from the item's id, never by the caller's keys().
BUCKET, SHARD = "bucket", "shard"
DERIVED = (BUCKET, SHARD)

#: DynamoDB's largest key attribute values, in UTF-8 bytes: a partition key of 2,048 and a sort
#: key of 1,024 (tables and indexes alike); a longer one is refused at write time.
MAX_PARTITION_KEY_BYTES = 2048
MAX_SORT_KEY_BYTES = 1024


@dataclass(frozen=True)
class Index:
    """A global (or local) secondary index: its key templates and attribute names.

    ``pk_attr``/``sk_attr`` default to ``<IndexName>PK``/``<IndexName>SK`` (``GSI1PK``, ...).
    A ``sparse`` index is left out of :meth:`Entity.keys` when its fields are not given.
    """

    pk: str
    sk: str
    pk_attr: str | None = None
    sk_attr: str | None = None
    sparse: bool = False


def build_schema(
    index: str | None,
    pk: str,
    sk: str,
    pk_attr: str,
    sk_attr: str,
    sparse: bool,
    numeric_sk: bool,
    *,
    scheme: IdScheme,
    separator: str,
    id_field: str,
) -> KeySchema:
    """The key schema of the table (``index`` None) or of an index, its templates parsed and
    checked: attribute names given and distinct, no derived placeholder in the sort key, and
    ``numeric_sk`` only for ``sk="{id}"`` alone with a numeric scheme."""
    where = "table" if index is None else f"index {index}"
    for attr_name, attr in (("pk_attr", pk_attr), ("sk_attr", sk_attr)):
        if not isinstance(attr, str) or not attr:
            raise InvalidKeyTemplate(f"{where}: {attr_name}={describe(attr)} must be a name")
    if pk_attr == sk_attr:
        raise InvalidKeyTemplate(f"{where}: pk_attr and sk_attr are both {pk_attr!r}")
    pattern = scheme.pattern
    pk_template = KeyTemplate(pk, separator, id_field, pattern)
    sk_template = KeyTemplate(sk, separator, id_field, pattern)
    for derived in DERIVED:
        if derived in sk_template.fields:
            raise InvalidKeyTemplate(
                f"{where}: {{{derived}}} belongs in a partition key template, not in sk={sk!r}"
            )
    if numeric_sk and (
        sk_template.fields != (id_field,) or sk_template.literals != ("", "") or not scheme.numeric
    ):
        raise InvalidKeyTemplate(
            f"{where}: numeric_sk=True needs sk='{{{id_field}}}' alone and a numeric "
            f"id scheme (Snowflake-style), not sk={sk!r} with {scheme.name}"
        )
    return KeySchema(index, pk_template, sk_template, pk_attr, sk_attr, sparse, numeric_sk)


def check_shared_attributes(
    schema: KeySchema, spec: Index, table: KeySchema, indexes: Iterable[KeySchema]
) -> None:
    """Refuse a key attribute of the index ``schema`` (declared as ``spec``) already written
    from another template by the ``table`` or the ``indexes`` declared before it.

    ``keys()`` puts every schema's keys in one item, so an attribute named by the table and
    an index (or by two indexes) gets one value: it may be shared only when both write the
    very same value - the same template and the same type. Then an index may read the
    table's own attributes (``pk_attr="PK"`` with the table's pk template, or the inverted
    index ``pk_attr="SK", sk_attr="PK"`` with the table's templates swapped); any other
    sharing would return the index's key in place of the table's, and a ``put_item`` of
    ``keys()`` would write the item to the wrong partition.
    """
    for setting, attr, template, given in (
        ("pk_attr", schema.pk_attr, schema.pk, spec.pk_attr),
        ("sk_attr", schema.sk_attr, schema.sk, spec.sk_attr),
    ):
        for other in (table, *indexes):
            for role, other_attr, other_template in (
                ("partition", other.pk_attr, other.pk),
                ("sort", other.sk_attr, other.sk),
            ):
                numeric = role == "sort" and other.numeric_sk
                if other_attr != attr or (other_template == template and not numeric):
                    continue
                owner = "the table's" if other.index is None else f"index {other.index}'s"
                held = (
                    "a Number (numeric_sk=True), where an index key is a string"
                    if numeric
                    else f"{other_template.text!r}, where the index writes {template.text!r}"
                )
                inverted = (
                    f"an inverted index reads the table's: pk_attr={table.sk_attr!r}, "
                    f"sk_attr={table.pk_attr!r} with pk={table.sk.text!r}, "
                    f"sk={table.pk.text!r}"
                    if not table.numeric_sk
                    else f"not the table's Number sort key {table.sk_attr!r}"
                )
                reason = (
                    f"is {owner} {role} key attribute, written from {held}: keys() would "
                    "return one key in place of the other, and a put_item of them would "
                    "write the item to the wrong partition. Give the index attributes of "
                    f"its own (by default {schema.index}PK / {schema.index}SK), or share an "
                    f"attribute only with the same template ({inverted})"
                )
                default = "" if given else " (the default)"
                raise KeyAttributeClash(
                    f"index {schema.index}: {setting}={attr!r}{default} {reason}",
                    index=schema.index or "",
                    setting=setting,
                    attr=attr,
                    defaulted=not given,
                    reason=reason,
                )


def telling_attrs(schema: KeySchema, schemas: Iterable[KeySchema]) -> tuple[tuple[str, ...], bool]:
    """The attributes whose presence tells that an item holds the index ``schema``'s keys
    (``schemas``: all of the entity's), and whether it takes all of them (True) or any one.

    An attribute it shares with the table or another index is there anyway, so only its own
    tell, any one of them (the other is written with it). An index of shared attributes only
    tells by those it shares with other indexes, and only when all of them are there (one alone
    may be another index's; DynamoDB indexes an item only with every key attribute). One on the
    table's attributes alone is on every item (no attributes)."""
    attrs = (schema.pk_attr, schema.sk_attr)
    schemas = tuple(schemas)
    shared = {a for s in schemas if s is not schema for a in (s.pk_attr, s.sk_attr)}
    own = tuple(a for a in attrs if a not in shared)
    if own:
        return own, False
    # only shared attributes: the table's are on every item, so only those shared with other
    # indexes tell (the same values, by the clash rule); none left: the index is always there
    table = {a for s in schemas if s.index is None for a in (s.pk_attr, s.sk_attr)}
    return tuple(a for a in attrs if a not in table), True


def table_definition(
    table_name: str, table: KeySchema, indexes: dict[str, KeySchema]
) -> dict[str, Any]:
    """The ``create_table`` arguments of a table with these key schemas (an entity's).

    Key attributes named as declared (strings, or a Number sort key with ``numeric_sk``),
    every GSI with an ``ALL`` projection, on-demand billing (what
    :meth:`Entity.table_definition <ulidkeys.planning.entity.Entity.table_definition>` gives).
    """

    def key_schema(schema: KeySchema) -> list[dict[str, str]]:
        return [
            {"AttributeName": schema.pk_attr, "KeyType": "HASH"},
            {"AttributeName": schema.sk_attr, "KeyType": "RANGE"},
        ]

    types: dict[str, str] = {}
    for schema in (table, *indexes.values()):
        types.setdefault(schema.pk_attr, "S")
        types.setdefault(schema.sk_attr, "N" if schema.numeric_sk else "S")
    definition: dict[str, Any] = {
        "TableName": table_name,
        "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": key_schema(table),
        "AttributeDefinitions": [
            {"AttributeName": a, "AttributeType": t} for a, t in types.items()
        ],
    }
    if indexes:
        definition["GlobalSecondaryIndexes"] = [
            {
                "IndexName": name,
                "KeySchema": key_schema(schema),
                "Projection": {"ProjectionType": "ALL"},
            }
            for name, schema in indexes.items()
        ]
    return definition


def fits(key: str, schema: KeySchema, kind: str) -> str:
    """``key`` if DynamoDB takes it as the ``kind`` ("partition"/"sort") key of ``schema``;
    else InvalidKeyField naming the attribute, its size and the limit (checked here, up
    front, as S3 layouts check S3's: DynamoDB would refuse the write)."""
    limit = MAX_PARTITION_KEY_BYTES if kind == "partition" else MAX_SORT_KEY_BYTES
    size = len(key.encode("utf-8"))
    if size > limit:
        attr = schema.pk_attr if kind == "partition" else schema.sk_attr
        raise InvalidKeyField(
            f"{kind} key {attr}={describe(key)} of the {schema.label} is {size} bytes of UTF-8; "
            f"DynamoDB takes at most {limit}: shorten the fields that fill it"
        )
    return key
