"""Entities: key templates declared once (``pk="Org#{org}"``, ``sk="Post#{id}"``, GSIs), from
which every key, parse and query plan of an item type is derived - no hand-built key strings.

Pure (no boto3, no I/O), written once for every id scheme (ULID by default); bound to a table
(``ulidkeys.dynamodb.Table``) it queries and writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from decimal import Decimal
from typing import Any

from ulidkeys.errors import (
    InvalidId,
    InvalidKeyField,
    InvalidKeyTemplate,
    InvalidQuery,
    InvalidType,
    InvalidValue,
    KeyMismatch,
    describe,
    require_bool,
)
from ulidkeys.ids.interop import coerce_id
from ulidkeys.ids.protocol import (
    IdScheme,
    has_no_time,
    invert_id,
    inverted_time,
    key_scheme,
    key_window,
    shard_of,
)
from ulidkeys.ids.ulids import ULID_SCHEME
from ulidkeys.planning.keyschemas import (
    BUCKET,
    DERIVED,
    SHARD,
    Index,
    build_schema,
    check_shared_attributes,
    fits,
    table_definition,
    telling_attrs,
)
from ulidkeys.planning.keytext import check_text
from ulidkeys.planning.layout import require_shards
from ulidkeys.planning.periods import PERIOD_NAMES, Period
from ulidkeys.planning.plans import PAST_ALL_KEYS, Plan, Position, scope_of
from ulidkeys.planning.queries import QueryCall, QueryWindow, WindowPlanner, plan_query
from ulidkeys.planning.templates import KeySchema
from ulidkeys.ulid import ULID


class Entity(WindowPlanner):
    """One item type of a single-table design, e.g. posts of an org.

    ``Entity(pk="Org#{org}", sk="Post#{id}")`` - ``id`` (``id_field``) holds the item's id,
    of ``scheme`` (ULID by default; any scheme of ``ulidkeys.ids`` whose text sorts by time, or
    :data:`~ulidkeys.dynamodb.TICKET`, whose ids hold no time: keys and writes, no windows).
    ``bucket="day"`` (any period of :data:`~ulidkeys.planning.periods.PERIOD_NAMES`: hour, day,
    ISO week, month, year; UTC) fills a ``{bucket}`` placeholder of a partition
    key from the id's time; ``shards=N`` fills ``{shard}`` from the id's random bits; window
    queries then fan out over every bucket and shard the window touches. ``numeric_sk=True``
    (with ``sk="{id}"`` and a numeric scheme such as Snowflake ids) stores the sort key as a
    DynamoDB Number. Field values are rejected (never escaped) when empty or when they contain
    ``separator``. ``newest_first_keys=True`` stores the id in every key with its time inverted
    (:func:`~ulidkeys.ids.protocol.invert_id`), so a plain ascending Query returns the newest first;
    ``parse`` gives back the original id and windows select by its real time.
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
        scheme: IdScheme = ULID_SCHEME,
        numeric_sk: bool = False,
        newest_first_keys: bool = False,
    ) -> None:
        self.scheme = key_scheme(scheme, InvalidKeyTemplate, timeless=True)
        #: Whether ids hold a time: tickets do not (keys only; no windows, buckets, inversion).
        self.timed = not has_no_time(scheme)
        if not isinstance(id_field, str) or not id_field.isidentifier():
            raise InvalidKeyTemplate(f"id_field={describe(id_field)} must be a field name")
        self.id_field = id_field
        self.separator = separator
        self.table = build_schema(
            None,
            pk,
            sk,
            pk_attr,
            sk_attr,
            False,
            numeric_sk,
            scheme=scheme,
            separator=separator,
            id_field=id_field,
        )
        self.name = name or self.table.sk.literals[0].split(separator, 1)[0] or "Entity"
        self.indexes: dict[str, KeySchema] = {}
        if gsi is not None and not isinstance(gsi, Mapping):
            raise InvalidKeyTemplate(
                f"gsi={describe(gsi)} must map index names to Index(pk=..., sk=...)"
            )
        for index_name, spec in (gsi or {}).items():
            if not isinstance(spec, Index):
                raise InvalidKeyTemplate(
                    f"gsi[{index_name!r}]={describe(spec)} must be an Index(pk=..., sk=...)"
                )
            schema = build_schema(
                index_name,
                spec.pk,
                spec.sk,
                spec.pk_attr or f"{index_name}PK",
                spec.sk_attr or f"{index_name}SK",
                spec.sparse,
                False,
                scheme=scheme,
                separator=separator,
                id_field=id_field,
            )
            check_shared_attributes(schema, spec, self.table, self.indexes.values())
            self.indexes[index_name] = schema
        if bucket is not None and not isinstance(bucket, str):
            named = ", ".join(map(repr, PERIOD_NAMES))
            raise InvalidType(f"bucket={describe(bucket)} must be one of {named}")
        try:
            self.period = None if bucket is None else Period(bucket)
        except InvalidValue as error:
            raise InvalidKeyTemplate(f"bucket: {error}") from None
        self.shards = require_shards(shards, InvalidKeyTemplate, "no {shard} part")
        self.newest_first_keys = require_bool(newest_first_keys, "newest_first_keys")
        if not self.timed and (self.period is not None or newest_first_keys):
            option = "newest_first_keys=True" if newest_first_keys else f"bucket={bucket!r}"
            raise InvalidKeyTemplate(
                f"{option} needs the id's time, and {scheme.name} ids hold none (they are "
                "counted up, not stamped)"
            )
        self._check_derived_fields()
        schemas = tuple(self.schemas())
        self._telling = {name: telling_attrs(s, schemas) for name, s in self.indexes.items()}
        self.fields: tuple[str, ...] = tuple(
            dict.fromkeys(f for s in self.schemas() for f in (*s.pk.fields, *s.sk.fields))
        )

    def _check_derived_fields(self) -> None:
        pk_fields = {f for s in self.schemas() for f in s.pk.fields}
        for derived, setting, option in (
            # the bucket given, else an example of one
            (BUCKET, self.period, f"bucket={self.period.size if self.period else 'day'!r}"),
            (SHARD, self.shards, "shards=N"),
        ):
            if (derived in pk_fields) != (setting is not None):
                raise InvalidKeyTemplate(
                    f"entity {self.name}: a {{{derived}}} placeholder in a partition key and "
                    f"{option} go together; give both or neither"
                )
        if self.id_field not in {f for s in self.schemas() for f in (*s.pk.fields, *s.sk.fields)}:
            raise InvalidKeyTemplate(
                f"entity {self.name}: no template has the id field {{{self.id_field}}}"
            )

    def schemas(self) -> Iterator[KeySchema]:
        yield self.table
        yield from self.indexes.values()

    def schema(self, index: str | None = None) -> KeySchema:
        """The table's key schema, or that of the index named ``index``."""
        if index is None:
            return self.table
        found = self.indexes.get(index) if isinstance(index, str) else None
        if found is None:
            known = ", ".join(map(repr, self.indexes)) or "none"
            raise InvalidQuery(
                f"index={describe(index)} is not an index of {self.name} (known: {known})"
            )
        return found

    # An entity is a value: two declared alike (or one pickled and read back) are equal, so
    # the plans made from them compare equal.
    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self) -> int:
        return hash((self.name, self.table))

    def __repr__(self) -> str:
        order = ", newest-first keys" if self.newest_first_keys else ""
        return f"Entity({self.name}: {self.table.pk}/{self.table.sk}, {self.scheme.name}{order})"

    def scope(self, schema: KeySchema, values: Mapping[str, str]) -> str:
        """What a query of ``schema`` with these field values is over (for cursors)."""
        return scope_of(
            "dynamodb",
            self.scheme.name,
            self.period,
            self.shards,
            schema.index,
            schema.pk,
            schema.sk,
            schema.pk_attr,
            schema.sk_attr,
            sorted(values.items()),
            self.newest_first_keys,
        )

    def key_attrs(self) -> tuple[str, str]:
        return (self.table.pk_attr, self.table.sk_attr)

    def table_definition(self, table_name: str) -> dict[str, Any]:
        """The ``create_table`` arguments of a table that can hold this entity.

        Key attributes named as declared (strings, or a Number sort key with ``numeric_sk``),
        every GSI with an ``ALL`` projection, on-demand billing:
        ``dynamodb.create_table(**post.table_definition("app"))``.
        """
        return table_definition(table_name, self.table, self.indexes)

    # --- field values ---------------------------------------------------------------------
    def id_text(self, value: object, name: str | None = None) -> str:
        """The canonical text of an id given as text, a number (numeric schemes) or an id
        object (``ULID``, ``uuid.UUID``, python-ulid, svix-ksuid, ``bson.ObjectId``)."""
        name = name or self.id_field
        try:
            return coerce_id(self.scheme, value, name)
        except (InvalidId, InvalidType) as error:
            raise InvalidKeyField(f"field {name}={describe(value)}: {error}") from None

    def field_value(self, name: str, value: object) -> str:
        """The key text of one field value, validated: non-empty, no separator, id canonical."""
        if name == self.id_field:
            return self.id_text(value, name)
        if isinstance(value, ULID):
            return str(value)
        if isinstance(value, int) and not isinstance(value, bool):
            # str() refuses ints past 4,300 digits; no key is anywhere near that long
            if value.bit_length() > 3300:
                raise InvalidKeyField(f"field {name}={describe(value)} is too large for a key")
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
        check_text(text, f"field {name}", InvalidKeyField)
        sep = self.separator
        # A value must end where the separator after it starts: with "::", "acme:" + "::x"
        # would read back as "acme" + ":x", so one key would name two items.
        if (text + sep).find(sep) != len(text):
            where = "contains" if sep in text else "ends with the start of"
            raise InvalidKeyField(
                f"field {name}={describe(text)} {where} the separator {sep!r}; ulidkeys rejects "
                "it rather than escaping, so that every key parses back to exactly one item"
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
                    f"{name}={describe(value)}: {{{name}}} is derived from the id, do not pass it"
                )
            values[name] = self.field_value(name, value)
        return values

    def _derive(self, values: dict[str, str]) -> None:
        """Fill ``bucket`` and ``shard`` from the id in ``values``."""
        id_text = values[self.id_field]
        if self.period is not None:
            values[BUCKET] = self.period.label(self.scheme.timestamp_ms(id_text))
        if self.shards is not None:
            values[SHARD] = str(shard_of(self.scheme, id_text, self.shards))

    def new_id(self) -> str:
        """A fresh id of the entity's scheme."""
        make = getattr(self.scheme, "new", None)
        if make is None:
            raise InvalidKeyField(
                f"the {self.scheme.name} scheme cannot make new ids here; pass {self.id_field}="
            )
        return str(make())

    # --- keys -----------------------------------------------------------------------------
    def keys(self, **fields: object) -> dict[str, Any]:
        """Every key attribute of a new item: ``{"PK": "Org#acme", "SK": "Post#01HX..."}``.

        A fresh id fills ``id`` when it is not given. Index keys are included; a sparse
        index whose fields are not all given is left out.
        """
        values = self._values(fields, allow_derived=False)
        if self.id_field not in values:
            values[self.id_field] = self.new_id()
        return self._render(values, self.schemas())

    def key(self, **fields: object) -> dict[str, Any]:
        """The table's primary key (pk and sk only) of an existing item; ``id`` is required."""
        if self.id_field not in fields:
            raise InvalidKeyField(f"key() needs the item's {self.id_field}=")
        return self._render(self._values(fields, allow_derived=False), [self.table])

    def key_window(self, start_ms: int, end_ms: int) -> tuple[int, int]:
        """The window of the times *in the keys* holding ``[start, end)``: itself, or the
        inverted window with ``newest_first_keys``."""
        return key_window(self.scheme, self.newest_first_keys, start_ms, end_ms)

    def key_time(self, key_id: str) -> int:
        """The real time of an id as the keys hold it."""
        ms = self.scheme.timestamp_ms(key_id)
        return inverted_time(self.scheme, ms) if self.newest_first_keys else ms

    def to_key_id(self, id_text: str) -> str:
        """An id as the keys hold it (inverted with ``newest_first_keys``); its own inverse."""
        return invert_id(self.scheme, id_text) if self.newest_first_keys else id_text

    def _render(self, values: dict[str, str], schemas: Iterable[KeySchema]) -> dict[str, Any]:
        self._derive(values)
        values[self.id_field] = self.to_key_id(values[self.id_field])
        keys: dict[str, Any] = {}
        for schema in schemas:
            missing = [f for f in (*schema.pk.fields, *schema.sk.fields) if f not in values]
            if missing:
                if schema.sparse:
                    continue
                raise InvalidKeyField(
                    f"{self.name} keys of the {schema.label} need field(s) {', '.join(missing)}"
                )
            keys[schema.pk_attr] = fits(schema.pk.render(values), schema, "partition")
            sk = fits(schema.sk.render(values), schema, "sort")
            keys[schema.sk_attr] = self.scheme.to_int(sk) if schema.numeric_sk else sk
        return keys

    def sort_key_text(self, schema: KeySchema, value: object) -> str | None:
        """A stored sort key as text (a Number sort key as its id's text); None if neither."""
        if isinstance(value, Mapping):  # a typed value from a low-level client
            value = value.get("N" if schema.numeric_sk else "S")
            if schema.numeric_sk and isinstance(value, str) and value.isascii() and value.isdigit():
                value = int(value)
        if schema.numeric_sk:
            if isinstance(value, (int, Decimal)) and not isinstance(value, bool):
                try:
                    return self.scheme.from_int(int(value))
                except (InvalidValue, InvalidType, ValueError, OverflowError):
                    return None
            return None
        return value if isinstance(value, str) else None

    def parse(self, item: Mapping[str, Any]) -> dict[str, Any]:
        """The field values of an item (or key): ``{"org": "acme", "id": "01HX..."}``.

        The id is its scheme's canonical text. Reads the table keys and any index keys
        present; raises KeyMismatch when a key does not fit its template or the keys
        disagree with each other.
        """
        if not isinstance(item, Mapping):
            raise InvalidType(f"item={describe(item)} must be a mapping of attribute names")
        values: dict[str, str] = {}
        for schema in self.schemas():
            if schema.index is not None and not self._index_present(schema, item):
                continue
            for attr, template in ((schema.pk_attr, schema.pk), (schema.sk_attr, schema.sk)):
                raw = item.get(attr)
                text = self.sort_key_text(schema, raw) if attr == schema.sk_attr else _string(raw)
                found = None if text is None else template.match(text)
                if found is None:
                    raise KeyMismatch(
                        f"{attr}={describe(raw)} does not fit {self.name}'s "
                        f"{schema.label} template {template.text!r}"
                    )
                for name, value in found.items():
                    if values.setdefault(name, value) != value:
                        raise KeyMismatch(
                            f"{self.name} item has {name}={value!r} in {attr} but "
                            f"{values[name]!r} elsewhere"
                        )
        try:
            values[self.id_field] = self.to_key_id(values[self.id_field])
            check = self.scheme.timestamp_ms if self.timed else self.scheme.parse
            check(values[self.id_field])
        except InvalidValue as error:
            raise KeyMismatch(f"{self.name} item: {error}") from None
        expected = {self.id_field: values[self.id_field]}
        self._derive(expected)
        for name in DERIVED:
            if name in values and values[name] != expected[name]:
                raise KeyMismatch(
                    f"{self.name} item has {name}={values[name]!r} but its id "
                    f"{values[self.id_field]} belongs in {name} {expected[name]!r}"
                )
        return {name: value for name, value in values.items() if name not in DERIVED}

    def check_item(self, item: Mapping[str, Any]) -> dict[str, Any]:
        """:meth:`parse` of a whole item about to be written: it must also hold the keys of
        every index that is not sparse (:meth:`keys` always makes them), or no query of that
        index would ever find it."""
        values = self.parse(item)
        for name, schema in self.indexes.items():
            if not schema.sparse and not self._index_present(schema, item):
                raise KeyMismatch(
                    f"{self.name} item has no {schema.pk_attr}/{schema.sk_attr} for the index "
                    f"{name!r} (not sparse), so its queries would miss it; make its keys with "
                    "Entity.keys()"
                )
        return values

    def _index_present(self, schema: KeySchema, item: Mapping[str, Any]) -> bool:
        """Whether ``item`` holds the keys of the index ``schema`` (a sparse one may be left
        out): any of its telling attributes is there, or all of them for an index of shared
        attributes only (:func:`telling_attrs`)."""
        telling, every = self._telling[schema.index or ""]
        found = (a in item for a in telling)
        return all(found) if every else any(found)

    def id_of(self, item_or_id: object, index: str | None = None) -> str:
        """The id (canonical text) of an item, a key, or an id (what ``after=`` accepts)."""
        return self.to_key_id(self.position_of(item_or_id, self.schema(index))[0])

    def position_of(self, after: object, schema: KeySchema) -> Position:
        """Where ``after=`` (an item, a key, an id) stands in a query of ``schema`` (its id as
        the keys hold it).

        An item or key resumes past that one sort key (items that share its id but sort later,
        such as ``Doc#{id}#{lang}`` siblings, still follow); a bare id resumes past every key
        of that id.
        """
        if isinstance(after, Mapping):
            for candidate in (schema, self.table):  # the index's sort key, else the table's
                text = self.sort_key_text(candidate, after.get(candidate.sk_attr))
                found = None if text is None else candidate.sk.match(text)
                if found is not None and self.id_field in found:
                    key = text if candidate is schema else PAST_ALL_KEYS
                    return found[self.id_field], key  # type: ignore[return-value]
            raise KeyMismatch(
                f"{describe(dict(after))} has no sort key that fits {self.name}'s "
                "templates; pass an item of the entity, its key or its id"
            )
        try:
            return self.to_key_id(self.id_text(after, "after")), PAST_ALL_KEYS
        except InvalidKeyField:
            raise InvalidKeyField(
                f"after={describe(after)} is not an item, a key or an id of {self.name}"
            ) from None

    # --- queries --------------------------------------------------------------------------
    def _plan(self, query: QueryWindow) -> Plan[QueryCall]:
        return plan_query(self, query)

    def query_values(self, schema: KeySchema, fields: Mapping[str, object]) -> dict[str, str]:
        """Validated query fields: the partition key's and the sort key's before the id."""
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


def _string(value: object) -> str | None:
    """A string attribute as plain text, from a plain or a typed (``{"S": ...}``) value."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and set(value) == {"S"} and isinstance(value["S"], str):
        return value["S"]
    return None
