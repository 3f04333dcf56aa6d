"""DynamoDB query plans: an entity + a time window -> the exact ``Query`` calls, as plain data.

Each call selects ``lo <= SK < hi`` as ``BETWEEN lo AND key_before(hi)`` (a Number sort key as
``BETWEEN lo AND hi - 1``); a plan groups calls by time bucket, in result order, and the calls
of one group (shards) are merged by position by the shared executor.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from ulidkeys.errors import (
    InvalidCursor,
    InvalidQuery,
    InvalidType,
    InvalidValue,
    InvalidWindow,
    describe,
    require_bool,
    require_count,
)
from ulidkeys.ids.protocol import id_ceiling, id_range
from ulidkeys.planning.keyschemas import BUCKET, DERIVED, SHARD
from ulidkeys.planning.plans import (
    MAX_CALLS,
    PAST_ALL_KEYS,
    Cursor,
    KeyRun,
    Located,
    Plan,
    Position,
    Strategy,
    resolve_window,
)
from ulidkeys.planning.sortkeys import key_after, key_before, show_key
from ulidkeys.planning.templates import KeySchema
from ulidkeys.timeinput import TimeInput, format_ms

if TYPE_CHECKING:  # an entity makes its plans with this module (Entity.plan_window)
    from ulidkeys.planning.entity import Entity


@dataclass(frozen=True)
class QueryCall:
    """One ``Query``: ``pk_attr = partition AND sk_attr BETWEEN lo AND <the largest key < hi>``.

    ``lo``/``hi`` are strings, or ints for a Number sort key.
    """

    partition: str
    lo: Any  # inclusive
    hi: Any  # exclusive: the half-open end the caller means
    pk_attr: str
    sk_attr: str
    index: str | None = None
    newest_first: bool = False
    ordered: bool = True  # DynamoDB returns a partition's items in sort key order
    stop_at: str | None = None  # BETWEEN already ends the range
    span: tuple[int, int] | None = None  # the id times covered, when it may be cut in slices
    owns: tuple[str, str] | None = None  # the ids of a time slice (BETWEEN holds just those)

    @property
    def hi_inclusive(self) -> Any:
        """The largest legal sort key below ``hi``: the exact inclusive end for ``BETWEEN``."""
        return self.hi - 1 if isinstance(self.hi, int) else key_before(self.hi)

    def request(self, table_name: str | None = None, *, typed: bool = True) -> dict[str, Any]:
        """``client.query`` arguments: typed values (``{"S": ...}``) for a low-level client,
        plain ones (``typed=False``) for a ``Table`` or the resource's client."""

        def value(v: Any) -> Any:
            if not typed:
                return v
            return {"N": str(v)} if isinstance(v, int) else {"S": v}

        args: dict[str, Any] = {
            "KeyConditionExpression": "#pk = :pk AND #sk BETWEEN :lo AND :hi",
            "ExpressionAttributeNames": {"#pk": self.pk_attr, "#sk": self.sk_attr},
            "ExpressionAttributeValues": {
                ":pk": value(self.partition),
                ":lo": value(self.lo),
                ":hi": value(self.hi_inclusive),
            },
            "ScanIndexForward": not self.newest_first,
        }
        if self.index is not None:
            args["IndexName"] = self.index
        if table_name is not None:
            args = {"TableName": table_name, **args}
        return args

    def explain(self) -> str:
        where = "table" if self.index is None else f"index={self.index}"
        order = "newest first" if self.newest_first else "oldest first"
        return (
            f"Query {where}: {self.pk_attr} = {self.partition!r} AND {self.sk_attr} BETWEEN "
            f"{_show(self.lo)} AND {_show(self.hi_inclusive)}  "
            f"[= {self.lo!r} <= {self.sk_attr} < {self.hi!r}, {order}]"
        )

    def __str__(self) -> str:
        return self.explain()


def _show(value: Any) -> str:
    return str(value) if isinstance(value, int) else show_key(value)


def successor(text: str) -> str:
    """The smallest text above every text that starts with ``text`` (never empty)."""
    return text[:-1] + chr(ord(text[-1]) + 1)


def _too_many_calls(entity: Entity, start_ms: int) -> InvalidQuery:
    """The refusal of a window over more buckets and shards than :data:`MAX_CALLS` calls."""
    since = "the epoch (no since given)" if start_ms <= 0 else format_ms(start_ms)
    buckets = f"{entity.period.size} buckets and shards" if entity.period else "shards"
    return InvalidQuery(
        f"this window needs more than {MAX_CALLS} Query calls over {entity.name}'s "
        f"{buckets}: it starts at {since}; query a narrower window (a later since)"
    )


class WindowPlanner:
    """What plans a window's ``Query`` calls - an :class:`~ulidkeys.planning.entity.Entity`,
    a :class:`~ulidkeys.planning.collection.Collection`, and a table bound to either - with one
    :meth:`plan_window`; each says only how it plans a :class:`QueryWindow` (``_plan``)."""

    def plan_window(
        self,
        since: TimeInput | None = None,
        until: TimeInput | None = None,
        *,
        newest_first: bool = False,
        limit: int | None = None,
        index: str | None = None,
        after: object = None,
        cursor: str | None = None,
        **fields: object,
    ) -> Plan[QueryCall]:
        """The ``Query`` calls for the items whose id time is in ``[since, until)``: plain
        data, printable (``.explain()``), made without a client.

        ``since`` defaults to the epoch, ``until`` to now; with ``cursor=`` and neither, the
        cursor's window is resumed just past its last item. ``after=`` (an item, key or id seen
        last) resumes just past it. ``fields`` are the key fields of the partition (``org=
        "acme"``); ``index`` names a GSI. A collection's plan has one chain per sort key prefix
        (and per bucket and shard), merged in id-time order; it refuses ``index`` (a collection
        is read from the table). ``Table.plan_window`` is its entity's (or collection's) plan,
        the one ``Table.query_window`` runs.
        """
        start, end = resolve_window(since, until, cursor)
        return self._plan(
            QueryWindow(start, end, newest_first, limit, index, after, cursor, fields)
        )

    def _plan(self, query: QueryWindow) -> Plan[QueryCall]:
        """The plan of a window query, its window resolved."""
        raise NotImplementedError


@dataclass(frozen=True)
class QueryWindow:
    """A window query with its window resolved: the items whose id time is in ``[start_ms,
    end_ms)``, read as :meth:`WindowPlanner.plan_window`'s options say (``fields``: the key
    fields). Made, it has passed the checks that need neither the entity nor the window:
    ``limit`` a count, ``newest_first`` a bool, at most one of ``after`` and ``cursor``."""

    start_ms: int
    end_ms: int
    newest_first: bool = False
    limit: int | None = None
    index: str | None = None
    after: object = None
    cursor: str | None = None
    fields: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        require_count(self.limit, "limit", 0, optional=True)
        require_bool(self.newest_first, "newest_first")
        if self.after is not None and self.cursor is not None:
            raise InvalidQuery("pass after= or cursor=, not both")
        if not isinstance(self.fields, Mapping):
            raise InvalidType(f"fields={describe(self.fields)} must map field names to values")

    def resumed(
        self,
        scope: str,
        newest_first: bool,
        what: str,
        is_position_of: Callable[[Position], bool],
        position_after: Callable[[object], Position],
    ) -> Position | None:
        """Where the query's calls resume (None: from the start of the window): past the
        ``cursor``, which must be of this ``scope`` and end at a key of ``what`` in the window
        (``is_position_of``), or past ``after`` (``position_after`` reads and checks it).
        ``newest_first`` is the order of the keys read."""
        start_ms, end_ms = self.start_ms, self.end_ms
        if self.cursor is not None:
            position = Cursor.decode(self.cursor).check(scope, newest_first, start_ms, end_ms)
            if not is_position_of(position):
                raise InvalidCursor(
                    f"cursor={describe(self.cursor)} does not end at a key of {what} in its "
                    "window; pass a query's .cursor"
                )
            return position
        if self.after is None:
            return None
        position = position_after(self.after)
        if newest_first and position[1] == PAST_ALL_KEYS:
            position = (position[0], "")  # a bare id: below every key of that id
        return position

    def plan(
        self,
        groups: Sequence[tuple[QueryCall, ...]],
        strategy: Strategy,
        scope: str,
        title: str,
        newest_first: bool,
        after: Position | None,
    ) -> Plan[QueryCall]:
        """The plan of this query's calls (``groups``), with the query's window and limit:
        ``newest_first`` is the order of the keys read, ``after`` the position the calls
        resume past (an entity's and a collection's planner make it alike)."""
        return Plan(
            groups=tuple(groups),
            start_ms=self.start_ms,
            end_ms=self.end_ms,
            strategy=strategy,
            scope=scope,
            title=title,
            newest_first=newest_first,
            limit=self.limit,
            after=after,
        )


def plan_query(entity: Entity, query: QueryWindow) -> Plan[QueryCall]:
    """The calls for ``entity``'s items whose id time is in the query's ``[start_ms, end_ms)``.

    ``after`` (an item, key or id seen last) or ``cursor`` resumes just past it in result
    order. A bucketed entity visits only the buckets the window touches. With
    ``newest_first_keys`` the keys run backwards in time, so newest first is an ascending
    Query and the plan's own order (``Plan.newest_first``: the order of the keys) is the
    opposite of ``newest_first``.
    """
    start_ms, end_ms, index, fields = query.start_ms, query.end_ms, query.index, query.fields
    asked = later_buckets_first = query.newest_first
    newest_first = asked != entity.newest_first_keys  # descending keys, from here on
    schema = entity.schema(index)
    values = entity.query_values(schema, fields)
    scope = entity.scope(schema, values)
    prefix = schema.sk.prefix_before(entity.id_field, values)

    def position_after(after: object) -> Position:
        position = entity.position_of(after, schema)
        check_after_fields(entity, after, values)
        return position

    position = query.resumed(
        scope,
        newest_first,
        f"{entity.name}'s {schema.label}",
        lambda at: _is_position_of(entity, schema, prefix, at, start_ms, end_ms),
        position_after,
    )
    scheme = entity.scheme
    # Ascending keys in ascending order can be cut in time slices (BETWEEN sub-ranges);
    # newest first, or keys that run backwards in time, are read in one chain.
    splittable = not newest_first and not entity.newest_first_keys
    strategy = EntityQuery(entity, index, tuple(fields.items()), asked, prefix, splittable)
    bound = strategy.bound
    lo, hi = (bound(i) for i in id_range(scheme, *entity.key_window(start_ms, end_ms)))
    if position is not None:
        lo, hi = _past(position, lo, hi, newest_first, schema, entity, prefix)

    shards: list[str | None] = [values.get(SHARD)]
    if SHARD in schema.pk.fields and SHARD not in values:
        assert entity.shards is not None
        if entity.shards > MAX_CALLS:  # told before a list of them is made, not after
            raise InvalidQuery(
                f"{entity.name}'s shards={entity.shards} would take more than {MAX_CALLS} "
                "Query calls for any window: give the shard field to query one shard"
            )
        shards = [str(n) for n in range(entity.shards)]

    # (bucket label, sort key range, time span) of each partition's calls
    spans: list[tuple[str | None, Any, Any, tuple[int, int]]] = [
        (values.get(BUCKET), lo, hi, (start_ms, end_ms))
    ]
    if BUCKET in schema.pk.fields and BUCKET not in values:
        assert entity.period is not None
        spans = []
        calls = 0
        for first, following in entity.period.spans(start_ms, end_ms):
            first_id, next_id = id_range(scheme, *entity.key_window(first, following))
            span_lo, span_hi = max(lo, bound(first_id)), min(hi, bound(next_id))
            calls += len(shards) if span_lo < span_hi else 0
            if calls > MAX_CALLS:  # refused as it is found, not after listing every bucket
                raise _too_many_calls(entity, start_ms)
            span_ms = (max(first, start_ms), min(following, end_ms))
            spans.append((entity.period.label(first), span_lo, span_hi, span_ms))
    groups: list[tuple[QueryCall, ...]] = []
    count = 0
    for label, span_lo, span_hi, span_ms in spans:
        if span_lo >= span_hi:
            continue  # nothing of this bucket is in the window (or past the cursor)
        count += len(shards)
        if count > MAX_CALLS:
            raise _too_many_calls(entity, start_ms)
        group = []
        for shard in shards:
            partition_values = dict(values)
            if label is not None:
                partition_values[BUCKET] = label
            if shard is not None:
                partition_values[SHARD] = shard
            group.append(
                QueryCall(
                    partition=schema.pk.render(partition_values),
                    lo=span_lo,
                    hi=span_hi,
                    pk_attr=schema.pk_attr,
                    sk_attr=schema.sk_attr,
                    index=schema.index,
                    newest_first=newest_first,
                    span=span_ms if splittable else None,
                )
            )
        groups.append(tuple(group))
    if later_buckets_first:
        groups.reverse()
    title = f"{entity.name} ({schema.label}" + (
        ", newest-first keys)" if entity.newest_first_keys else ")"
    )
    return query.plan(groups, strategy, scope, title, newest_first, position)


@dataclass(frozen=True)
class EntityQuery:
    """The strategy of a query plan (:func:`plan_query`): the entity, index and key fields
    queried, the order asked, and the sort key text before the id."""

    entity: Entity
    index: str | None
    fields: tuple[tuple[str, object], ...]
    newest_first: bool  # as asked (the plan's own order is that of the keys)
    prefix: str
    splittable: bool = False
    # read from the entity once: locate() runs for every item a query returns
    _schema: KeySchema = field(init=False, repr=False, compare=False)
    _timestamp: Callable[[str], int] = field(init=False, repr=False, compare=False)
    _match: Callable[[str], re.Match[str] | None] = field(init=False, repr=False, compare=False)
    _text_only: bool = field(init=False, repr=False, compare=False)
    _id_field: str = field(init=False, repr=False, compare=False)
    _locate_run: Callable[[list[Any]], KeyRun | None] | None = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        entity = self.entity
        schema = entity.schema(self.index)
        object.__setattr__(self, "_schema", schema)
        object.__setattr__(self, "_match", schema.sk.regex.fullmatch)
        object.__setattr__(self, "_text_only", not schema.numeric_sk)
        object.__setattr__(self, "_id_field", entity.id_field)
        # the template's id group is the scheme's canonical pattern, so a matched id's time can
        # be read without validating it again (as S3 layouts do)
        scheme = entity.scheme
        quick = getattr(scheme, "canonical_time", None) or scheme.timestamp_ms
        timestamp = entity.key_time if entity.newest_first_keys else quick
        object.__setattr__(self, "_timestamp", timestamp)
        object.__setattr__(self, "_locate_run", self._run_locator())

    @property
    def locate_run(self) -> Callable[[list[Any]], KeyRun | None] | None:
        """:meth:`locate` for a page of sort keys at once (see :meth:`_run_locator`)."""
        return self._locate_run

    def _run_locator(self) -> Callable[[list[Any]], KeyRun | None] | None:
        """The test of :meth:`locate` for a page of sort keys at once, given them in strictly
        ascending order: ``(ids, first ms, last ms)`` when every one of them fits, else None
        (then :meth:`locate` reads each key and says which ones do not). None for a query it
        cannot read so: a Number sort key, keys whose ids run backwards in time, a template
        with fields after the id, a scheme without bulk checks.

        Each check runs in C over the whole page, with no Python step per key, and the
        verdicts are :meth:`locate`'s (a property test holds them equal). Every key of a page
        lies between two keys that start with the query's :attr:`prefix` (the first and the
        last, checked), so every key starts with it; when every key is also exactly as long
        as the prefix, an id and the template's text after the id, and ends with that text,
        they differ in the id only: the first key's match by the template (checked once, its
        id where the others' ids are) is every key's once their ids are canonical. Ids then
        ascend with the keys: the first and the last give the times."""
        entity, schema = self.entity, self._schema
        scheme = entity.scheme
        all_canonical = getattr(scheme, "all_canonical", None)
        time_of = getattr(scheme, "canonical_time", None)
        template = schema.sk
        if (
            all_canonical is None
            or time_of is None
            or schema.numeric_sk
            or entity.newest_first_keys
            or template.fields[-1] != self._id_field
        ):
            return None
        prefix, suffix, match, id_field = (
            self.prefix,
            template.literals[-1],
            self._match,
            self._id_field,
        )
        start = len(prefix)
        end = start + scheme.length
        width = end + len(suffix)
        id_of, tail_of = itemgetter(slice(start, end)), itemgetter(slice(end, None))

        def locate_run(keys: list[Any]) -> KeyRun | None:
            if not keys:
                return None
            try:
                joined = "".join(keys)  # a TypeError for any key not a str
            except TypeError:
                return None
            first, last = keys[0], keys[-1]
            if len(joined) != width * len(keys) or not first.startswith(prefix):
                return None
            if not last.startswith(prefix):
                return None
            if suffix and set(map(tail_of, keys)) != {suffix}:
                return None
            ids = list(map(id_of, keys))
            if not all_canonical(ids):
                return None
            found = match(first)
            if found is None or found.start(id_field) != start:
                return None
            return ids, time_of(ids[0]), time_of(ids[-1])

        return locate_run

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__post_init__()

    def bound(self, id_text: str) -> Any:
        """The sort key bound of an id-space bound (the ceiling: above every id)."""
        if not self._schema.numeric_sk:
            return self.prefix + id_text
        scheme = self.entity.scheme
        if id_text == id_ceiling(scheme):
            return scheme.to_int(scheme.max_for(scheme.max_ms)) + 1
        return scheme.to_int(id_text)

    def locate(self, value: Any) -> Located | None:
        """The plan's reading of a returned sort key: the id, its time, the key as text."""
        text = (
            value
            if value.__class__ is str and self._text_only
            else self.entity.sort_key_text(self._schema, value)
        )
        if text is None:
            return None
        found = self._match(text)
        if found is None:
            return None
        id_text = found[self._id_field]
        return id_text, self._timestamp(id_text), text

    def slice_call(self, call: QueryCall, lo_ms: int, hi_ms: int) -> QueryCall | None:
        """The call restricted to the ids of ``[lo_ms, hi_ms)`` (None when that is empty)."""
        lo_id, hi_id = id_range(self.entity.scheme, lo_ms, hi_ms)
        part_lo, part_hi = max(call.lo, self.bound(lo_id)), min(call.hi, self.bound(hi_id))
        if part_lo >= part_hi:
            return None
        return replace(call, lo=part_lo, hi=part_hi, span=(lo_ms, hi_ms), owns=(lo_id, hi_id))

    def trim_call(self, call: QueryCall, below_id: str) -> QueryCall:
        """The call ending below the id ``below_id`` (its next page stops at the slice cut)."""
        return replace(call, hi=min(call.hi, self.bound(below_id)))

    def replan(self, start_ms: int, end_ms: int, cursor: str | None) -> Plan[QueryCall]:
        """The same query over another window (a slice of this one)."""
        query = QueryWindow(
            start_ms,
            end_ms,
            self.newest_first,
            index=self.index,
            cursor=cursor,
            fields=dict(self.fields),
        )
        return plan_query(self.entity, query)


def check_after_fields(entity: Entity, after: object, values: Mapping[str, str]) -> None:
    """An item or key given as ``after=`` must hold the queried field values (its ``org`` is
    the query's ``org``): resuming at the id of an item of another partition would skip or
    repeat this partition's items without a word."""
    if not isinstance(after, Mapping):
        return
    for schema in entity.schemas():
        for attr, template in ((schema.pk_attr, schema.pk), (schema.sk_attr, schema.sk)):
            raw = after.get(attr)
            text = raw.get("S") if isinstance(raw, Mapping) else raw  # a typed value
            found = template.match(text) if isinstance(text, str) else None
            if found is None and attr == schema.pk_attr and attr in after:
                raise InvalidQuery(
                    f"after= has {attr}={describe(raw)}, which no {entity.name} item holds "
                    f"(template {template.text!r}); pass an item, key or id this query returned"
                )
            for name, value in (found or {}).items():
                if name in values and name not in DERIVED and values[name] != value:
                    raise InvalidQuery(
                        f"after= is an item or key with {name}={value!r} ({attr}={text!r}), "
                        f"but the query is of {name}={values[name]!r}; pass an item, key or "
                        "id this query returned"
                    )


def _is_position_of(
    entity: Entity, schema: KeySchema, prefix: str, position: Position, start_ms: int, end_ms: int
) -> bool:
    """Whether ``position`` is one a query of ``schema`` (with sort key ``prefix`` before the
    id) can return in ``[start_ms, end_ms)``: a canonical id in the window, and a sort key of
    that id which fits the template (a Number sort key's position key is the id itself)."""
    id_text, key = position
    scheme = entity.scheme
    try:
        if scheme.parse(id_text) != id_text:
            return False
        ms = entity.key_time(id_text)  # the real time, also of an inverted (newest-first) key
    except (InvalidValue, InvalidType):
        return False
    if not start_ms <= ms < end_ms:
        return False
    if schema.numeric_sk:
        return key == id_text
    found = schema.sk.match(key)
    return found is not None and found[entity.id_field] == id_text and key.startswith(prefix)


def _past(
    position: Position,
    lo: Any,
    hi: Any,
    newest_first: bool,
    schema: KeySchema,
    entity: Entity,
    prefix: str,
) -> tuple[Any, Any]:
    """Narrow ``[lo, hi)`` to what comes after ``position`` in result order.

    When the sort key ends with the id (``Post#{id}``), the whole id is passed, so its
    children (``Post#<id>#Comment#...``, other item types) are not even read; with fields after
    the id (``Doc#{id}#{lang}``) only that one key is passed.
    """
    id_text, key = position
    whole_id = key in (PAST_ALL_KEYS, "") or schema.sk.fields[-1] == entity.id_field
    if schema.numeric_sk:
        number = entity.scheme.to_int(id_text)
        return (lo, min(hi, number)) if newest_first else (max(lo, number + 1), hi)
    if newest_first:
        return lo, min(hi, prefix + id_text if whole_id else key)
    return max(lo, successor(prefix + id_text) if whole_id else key_after(key)), hi


def single_call(plan: Plan[QueryCall], entity: Entity) -> QueryCall:
    """The one call of a plan that has one (key conditions, query arguments)."""
    calls = plan.calls
    if not calls:
        raise InvalidWindow(
            "the window selects nothing, so there is no key condition; skip the query "
            "(Table.query_window() makes no call for it)"
        )
    if len(calls) > 1:
        raise InvalidQuery(
            f"{entity.name} spreads this window over {len(calls)} partitions (buckets/shards); "
            "pass bucket=/shard= to pick one, or run the plan with Table.query_window()"
        )
    return calls[0]
