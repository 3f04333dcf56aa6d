"""Entities: key templates declared once (``pk="Org#{org}"``, ``sk="Post#{id}"``, GSIs), from
which every key, parse and query of an item type is derived - no hand-built key strings.

This module is pure (no boto3); the query and write methods hand over to ``plan``, ``query``
and ``write``, which import boto3 only when they run.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import ulidkeys
from ulidkeys.dynamodb.buckets import Bucketing
from ulidkeys.dynamodb.plan import QueryCall, QueryPlan, plan_latest, plan_window
from ulidkeys.dynamodb.query import QueryStats, run_plan
from ulidkeys.dynamodb.template import BUCKET, DERIVED, SHARD, KeySchema, KeyTemplate
from ulidkeys.dynamodb.write import BatchWriter, put_new
from ulidkeys.errors import (
    InvalidKeyField,
    InvalidKeyTemplate,
    InvalidQuery,
    InvalidULID,
    InvalidWindow,
    KeyMismatch,
    describe,
)
from ulidkeys.timeinput import TimeInput
from ulidkeys.timewindow import TimeWindow
from ulidkeys.ulid import ULID


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


class Entity:
    """One item type of a single-table design, e.g. posts of an org.

    ``Entity(pk="Org#{org}", sk="Post#{id}")`` - ``id`` (``id_field``) holds the item's ULID.
    ``bucket="day"`` (hour/day/month/year, UTC) fills a ``{bucket}`` placeholder of a partition
    key from the ULID's time; ``shards=N`` fills ``{shard}`` with ``randomness % N``; window
    queries then fan out over every bucket and shard the window touches. Field values are
    rejected (never escaped) when empty or when they contain ``separator``.
    """

    def __init__(
        self,
        pk: str,
        sk: str,
        *,
        name: str | None = None,
        id_field: str = "id",
        pk_attr: str = "PK",
        sk_attr: str = "SK",
        gsi: Mapping[str, Index] | None = None,
        separator: str = "#",
        bucket: str | None = None,
        shards: int | None = None,
    ) -> None:
        self.name = name or "Entity"
        self.id_field = id_field
        self.separator = separator
        self.table = self._schema(None, pk, sk, pk_attr, sk_attr, False)
        self.name = name or self.table.sk.literals[0].split(separator, 1)[0] or "Entity"
        self.indexes: dict[str, KeySchema] = {}
        for index_name, spec in (gsi or {}).items():
            if not isinstance(spec, Index):
                raise InvalidKeyTemplate(
                    f"gsi[{index_name!r}]={describe(spec)} must be an Index(pk=..., sk=...)"
                )
            self.indexes[index_name] = self._schema(
                index_name,
                spec.pk,
                spec.sk,
                spec.pk_attr or f"{index_name}PK",
                spec.sk_attr or f"{index_name}SK",
                spec.sparse,
            )
        self.bucketing = None if bucket is None else Bucketing(bucket)
        if shards is not None and (isinstance(shards, bool) or not isinstance(shards, int)):
            raise InvalidKeyTemplate(f"shards={describe(shards)} must be an int >= 1")
        if shards is not None and shards < 1:
            raise InvalidKeyTemplate(f"shards={shards} must be >= 1")
        self.shards = shards
        self._check_derived_fields()
        self.fields: tuple[str, ...] = tuple(
            dict.fromkeys(f for s in self.schemas() for f in (*s.pk.fields, *s.sk.fields))
        )

    def _schema(
        self, index: str | None, pk: str, sk: str, pk_attr: str, sk_attr: str, sparse: bool
    ) -> KeySchema:
        where = "table" if index is None else f"index {index}"
        for attr_name, attr in (("pk_attr", pk_attr), ("sk_attr", sk_attr)):
            if not isinstance(attr, str) or not attr:
                raise InvalidKeyTemplate(f"{where}: {attr_name}={describe(attr)} must be a name")
        if pk_attr == sk_attr:
            raise InvalidKeyTemplate(f"{where}: pk_attr and sk_attr are both {pk_attr!r}")
        pk_template = KeyTemplate(pk, self.separator, self.id_field)
        sk_template = KeyTemplate(sk, self.separator, self.id_field)
        for derived in DERIVED:
            if derived in sk_template.fields:
                raise InvalidKeyTemplate(
                    f"{where}: {{{derived}}} belongs in a partition key template, not in sk={sk!r}"
                )
        return KeySchema(index, pk_template, sk_template, pk_attr, sk_attr, sparse)

    def _check_derived_fields(self) -> None:
        pk_fields = {f for s in self.schemas() for f in s.pk.fields}
        for derived, setting, option in (
            (BUCKET, self.bucketing, "bucket='day'"),
            (SHARD, self.shards, "shards=N"),
        ):
            if (derived in pk_fields) != (setting is not None):
                raise InvalidKeyTemplate(
                    f"entity {self.name}: a {{{derived}}} placeholder in a partition key and "
                    f"{option} go together; give both or neither"
                )
        if self.id_field not in {f for s in self.schemas() for f in (*s.pk.fields, *s.sk.fields)}:
            raise InvalidKeyTemplate(
                f"entity {self.name}: no template has the ULID field {{{self.id_field}}}"
            )

    def schemas(self) -> Iterator[KeySchema]:
        yield self.table
        yield from self.indexes.values()

    def schema(self, index: str | None = None) -> KeySchema:
        """The table's key schema, or that of the index named ``index``."""
        if index is None:
            return self.table
        found = self.indexes.get(index)
        if found is None:
            known = ", ".join(map(repr, self.indexes)) or "none"
            raise InvalidQuery(f"index={index!r} is not an index of {self.name} (known: {known})")
        return found

    def __repr__(self) -> str:
        return f"Entity({self.name}: {self.table.pk}/{self.table.sk})"

    # --- field values ---------------------------------------------------------------------
    def table_definition(self, table_name: str) -> dict[str, Any]:
        """The ``create_table`` arguments of a table that can hold this entity.

        String key attributes named as declared, every GSI with an ``ALL`` projection,
        on-demand billing: ``dynamodb.create_table(**post.table_definition("app"))``. Other
        entities of a single table share these attributes when their names match.
        """

        def key_schema(schema: KeySchema) -> list[dict[str, str]]:
            return [
                {"AttributeName": schema.pk_attr, "KeyType": "HASH"},
                {"AttributeName": schema.sk_attr, "KeyType": "RANGE"},
            ]

        attributes = dict.fromkeys(a for s in self.schemas() for a in (s.pk_attr, s.sk_attr))
        definition: dict[str, Any] = {
            "TableName": table_name,
            "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": key_schema(self.table),
            "AttributeDefinitions": [
                {"AttributeName": a, "AttributeType": "S"} for a in attributes
            ],
        }
        if self.indexes:
            definition["GlobalSecondaryIndexes"] = [
                {
                    "IndexName": name,
                    "KeySchema": key_schema(schema),
                    "Projection": {"ProjectionType": "ALL"},
                }
                for name, schema in self.indexes.items()
            ]
        return definition

    def field_value(self, name: str, value: object) -> str:
        """The key text of one field value, validated: non-empty, no separator, ULID canonical."""
        if name == self.id_field:
            if isinstance(value, ULID):
                return str(value)
            if isinstance(value, str):
                try:
                    return str(ULID.parse(value))
                except InvalidULID as error:
                    raise InvalidKeyField(f"field {name}={describe(value)}: {error}") from None
            raise InvalidKeyField(
                f"field {name}={describe(value)} must be a ULID or ULID text, "
                f"not {type(value).__name__}"
            )
        if isinstance(value, ULID):
            return str(value)
        if isinstance(value, int) and not isinstance(value, bool):
            text = str(value)
        elif isinstance(value, str):
            text = value
        else:
            raise InvalidKeyField(
                f"field {name}={describe(value)} has type {type(value).__name__}; key fields take "
                "str, int or ULID"
            )
        if not text:
            raise InvalidKeyField(f"field {name}='' is empty; key fields must be non-empty")
        if self.separator in text:
            raise InvalidKeyField(
                f"field {name}={describe(text)} contains the separator {self.separator!r}; "
                "ulidkeys rejects it rather than escaping, so that keys parse back unambiguously"
            )
        return text

    def _values(self, given: Mapping[str, object], allow_derived: bool) -> dict[str, str]:
        values: dict[str, str] = {}
        for name, value in given.items():
            if name not in self.fields:
                raise InvalidKeyField(
                    f"{name}={describe(value)} is not a field of {self.name} "
                    f"(fields: {', '.join(f for f in self.fields if f not in DERIVED)})"
                )
            if name in DERIVED and not allow_derived:
                raise InvalidKeyField(
                    f"{name}={describe(value)}: {{{name}}} is derived from the ULID, do not pass it"
                )
            values[name] = self.field_value(name, value)
        return values

    def _derive(self, values: dict[str, str]) -> None:
        """Fill ``bucket`` and ``shard`` from the ULID in ``values``."""
        ulid = ULID.parse(values[self.id_field])
        if self.bucketing is not None:
            values[BUCKET] = self.bucketing.label(ulid.timestamp_ms)
        if self.shards is not None:
            values[SHARD] = str(ulid.randomness % self.shards)

    # --- keys -----------------------------------------------------------------------------
    def keys(self, **fields: object) -> dict[str, str]:
        """Every key attribute of a new item: ``{"PK": "Org#acme", "SK": "Post#01HX..."}``.

        A fresh ULID fills ``id`` when it is not given. Index keys are included; a sparse
        index whose fields are not all given is left out.
        """
        values = self._values(fields, allow_derived=False)
        values.setdefault(self.id_field, ulidkeys.new())
        return self._render(values, self.schemas())

    def key(self, **fields: object) -> dict[str, str]:
        """The table's primary key (pk and sk only) of an existing item; ``id`` is required."""
        if self.id_field not in fields:
            raise InvalidKeyField(f"key() needs the item's {self.id_field}=")
        return self._render(self._values(fields, allow_derived=False), [self.table])

    def _render(self, values: dict[str, str], schemas: Iterable[KeySchema]) -> dict[str, str]:
        self._derive(values)
        keys: dict[str, str] = {}
        for schema in schemas:
            missing = [f for f in (*schema.pk.fields, *schema.sk.fields) if f not in values]
            if missing:
                if schema.sparse:
                    continue
                raise InvalidKeyField(
                    f"{self.name} keys of the {schema.label} need field(s) {', '.join(missing)}"
                )
            keys[schema.pk_attr] = schema.pk.render(values)
            keys[schema.sk_attr] = schema.sk.render(values)
        return keys

    def parse(self, item: Mapping[str, Any]) -> dict[str, Any]:
        """The field values of an item (or key): ``{"org": "acme", "id": ULID(...)}``.

        Reads the table keys and any index keys present; raises KeyMismatch when a key does
        not fit its template or the keys disagree with each other.
        """
        values: dict[str, str] = {}
        for schema in self.schemas():
            present = [a for a in (schema.pk_attr, schema.sk_attr) if a in item]
            if schema.index is not None and not present:
                continue
            for attr, template in ((schema.pk_attr, schema.pk), (schema.sk_attr, schema.sk)):
                text = _string(item.get(attr))
                found = None if text is None else template.match(text)
                if found is None:
                    raise KeyMismatch(
                        f"{attr}={describe(item.get(attr))} does not fit {self.name}'s "
                        f"{schema.label} template {template.text!r}"
                    )
                for name, value in found.items():
                    if values.setdefault(name, value) != value:
                        raise KeyMismatch(
                            f"{self.name} item has {name}={value!r} in {attr} but "
                            f"{values[name]!r} elsewhere"
                        )
        expected = {self.id_field: values[self.id_field]}
        self._derive(expected)
        for name in DERIVED:
            if name in values and values[name] != expected[name]:
                raise KeyMismatch(
                    f"{self.name} item has {name}={values[name]!r} but its ULID "
                    f"{values[self.id_field]} belongs in {name} {expected[name]!r}"
                )
        return {
            name: ULID.parse(value) if name == self.id_field else value
            for name, value in values.items()
            if name not in DERIVED
        }

    def ulid_of(self, item_or_id: object, index: str | None = None) -> ULID:
        """The ULID of an item, a key, a ULID or ULID text (what ``after=`` accepts)."""
        if isinstance(item_or_id, ULID):
            return item_or_id
        if isinstance(item_or_id, str):
            return ULID.parse(self.field_value(self.id_field, item_or_id))
        if isinstance(item_or_id, Mapping):
            for schema in (
                self.schema(index),
                self.table,
            ):  # the index's sort key, else the table's
                text = _string(item_or_id.get(schema.sk_attr))
                found = None if text is None else schema.sk.match(text)
                if found is not None and self.id_field in found:
                    return ULID.parse(found[self.id_field])
            raise KeyMismatch(
                f"{describe(dict(item_or_id))} has no sort key that fits {self.name}'s "
                "templates; pass an item of the entity, its key or its ULID"
            )
        raise InvalidKeyField(
            f"{describe(item_or_id)} is not an item, a key or a ULID of {self.name}"
        )

    def cursor(self, after: object, schema: KeySchema, prefix: str) -> tuple[ULID, str | None]:
        """What ``after=`` resumes past: its ULID, and its sort key after ``prefix`` when the
        sort key has fields after the ULID (``Doc#{id}#{lang}``): then several items share one
        ULID, and resuming past the whole ULID would skip those not yet returned."""
        ulid = self.ulid_of(after, schema.index)
        if isinstance(after, Mapping) and schema.sk.fields[-1] != self.id_field:
            text = _string(after.get(schema.sk_attr))
            if text is not None and text.startswith(prefix) and schema.sk.match(text):
                return ulid, text[len(prefix) :]
        return ulid, None

    # --- queries (pure plans; boto3 only in the executors) ----------------------------------
    def query_values(self, schema: KeySchema, fields: Mapping[str, object]) -> dict[str, str]:
        """Validated query fields: the partition key's and the sort key's before the ULID."""
        if self.id_field not in schema.sk.fields:
            raise InvalidQuery(
                f"the {schema.label} of {self.name} has no {{{self.id_field}}} in its sort key "
                f"{schema.sk.text!r}, so it cannot be queried by time"
            )
        allowed = (*schema.pk.fields, *schema.sk.fields_before(self.id_field))
        for name in fields:
            if name not in allowed:
                raise InvalidQuery(
                    f"{name}= is not a query field of the {schema.label} of {self.name}; "
                    f"pass {', '.join(f for f in allowed if f not in DERIVED)}"
                )
        values = self._values(fields, allow_derived=True)
        missing = [f for f in allowed if f not in values and f not in DERIVED]
        if missing:
            raise InvalidQuery(
                f"a query of the {schema.label} of {self.name} needs {', '.join(missing)}="
            )
        return values

    def plan(
        self,
        since: TimeInput,
        until: TimeInput | None = None,
        *,
        newest_first: bool = False,
        limit: int | None = None,
        index: str | None = None,
        after: object = None,
        **fields: object,
    ) -> QueryPlan:
        """The Query calls for the items whose ULID time is in ``[since, until)``."""
        return plan_window(
            self,
            TimeWindow(since, until),
            newest_first=newest_first,
            limit=limit,
            index=index,
            after=after,
            fields=fields,
        )

    def _single_call(self, plan: QueryPlan) -> QueryCall:
        calls = plan.calls
        if not calls:
            raise InvalidWindow(
                "the window selects nothing, so there is no key condition; skip the query "
                "(query_window() makes no call for it)"
            )
        if len(calls) > 1:
            raise InvalidQuery(
                f"{self.name} spreads this window over {len(calls)} partitions (buckets/shards); "
                "pass bucket=/shard= to pick one, or use plan()/query_window()"
            )
        return calls[0]

    def key_condition(
        self,
        since: TimeInput,
        until: TimeInput | None = None,
        *,
        index: str | None = None,
        **fields: object,
    ) -> Any:
        """A ``boto3.dynamodb.conditions`` condition selecting exactly the window's keys."""
        plan = plan_window(self, TimeWindow(since, until), index=index, fields=fields)
        return self._single_call(plan).condition()

    def query_args(
        self,
        since: TimeInput,
        until: TimeInput | None = None,
        *,
        index: str | None = None,
        newest_first: bool = False,
        **fields: object,
    ) -> dict[str, Any]:
        """Low-level ``client.query`` arguments (typed values) for exactly the window's keys."""
        plan = plan_window(
            self, TimeWindow(since, until), index=index, newest_first=newest_first, fields=fields
        )
        return self._single_call(plan).request()

    def query_window(
        self,
        table_or_client: Any,
        since: TimeInput,
        until: TimeInput | None = None,
        *,
        newest_first: bool = False,
        limit: int | None = None,
        index: str | None = None,
        after: object = None,
        table_name: str | None = None,
        page_size: int | None = None,
        max_workers: int = 8,
        stats: QueryStats | None = None,
        **fields: object,
    ) -> Iterator[dict[str, Any]]:
        """The entity's items whose ULID time is in ``[since, until)``, as plain Python values.

        Takes a ``Table`` resource or a low-level client (then ``table_name=`` is required).
        ``after=`` (an item, key or ULID seen last) resumes the window just past it. Items in
        the range whose sort key does not fit the template (children such as
        ``Post#<ULID>#Comment#...``) are read by DynamoDB but skipped and not counted.
        """
        plan = self.plan(
            since, until, newest_first=newest_first, limit=limit, index=index, after=after, **fields
        )
        return run_plan(
            plan,
            table_or_client,
            table_name=table_name,
            page_size=page_size,
            max_workers=max_workers,
            stats=stats,
        )

    def latest(
        self,
        table_or_client: Any,
        n: int,
        *,
        since: TimeInput | None = None,
        index: str | None = None,
        table_name: str | None = None,
        max_workers: int = 8,
        stats: QueryStats | None = None,
        **fields: object,
    ) -> list[dict[str, Any]]:
        """The ``n`` newest items, newest first.

        A bucketed entity needs ``since=`` to bound how many buckets are walked back from now.
        """
        plan = plan_latest(self, n, since=since, index=index, fields=fields)
        return list(
            run_plan(
                plan,
                table_or_client,
                table_name=table_name,
                max_workers=max_workers,
                stats=stats,
            )
        )

    # --- writes ---------------------------------------------------------------------------
    def put_new(
        self,
        table_or_client: Any,
        item: Mapping[str, Any],
        *,
        table_name: str | None = None,
    ) -> dict[str, Any]:
        """Write ``item`` only if no item has its key (raises ItemAlreadyExists, keeps the old)."""
        self.parse(item)  # its keys must fit the templates: no hand-built keys
        return put_new(table_or_client, item, key_attrs=self.key_attrs(), table_name=table_name)

    def batch_writer(
        self, table_or_client: Any, *, table_name: str | None = None, **options: Any
    ) -> BatchWriter:
        """A :class:`BatchWriter` that checks every item against this entity's templates."""
        return BatchWriter(
            table_or_client,
            table_name=table_name,
            key_attrs=self.key_attrs(),
            check=self.parse,
            **options,
        )

    def key_attrs(self) -> tuple[str, str]:
        return (self.table.pk_attr, self.table.sk_attr)


def _string(value: object) -> str | None:
    """A string attribute as plain text, from a plain or a typed (``{"S": ...}``) value."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and set(value) == {"S"} and isinstance(value["S"], str):
        return value["S"]
    return None
