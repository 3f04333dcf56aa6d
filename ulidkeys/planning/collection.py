"""Collections: several entities of one partition (an org's posts, comments and likes) read as
one stream in id-time order, each item tagged with its kind.

Pure (no boto3, no I/O). The kinds are grouped by the sort key text before their id: a prefix
per kind (``Post#{id}``, ``Comment#{id}``) is one ``Query`` chain per kind, merged by position;
the id first (``{id}#Post``, ``{id}#Comment``) is one chain for them all. A chain's keys are
read once, by :meth:`Collection.read_entries`: each is of exactly one declared kind of that
chain, of another chain's kind (left to that chain), or of no declared kind (skipped and
counted in ``stats.skipped``, never taken for a declared one).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ulidkeys.errors import (
    InvalidKeyTemplate,
    InvalidQuery,
    InvalidType,
    InvalidValue,
    KeyMismatch,
    describe,
)
from ulidkeys.ids.protocol import id_range
from ulidkeys.planning.entity import Entity
from ulidkeys.planning.plans import (
    MAX_CALLS,
    PAST_ALL_KEYS,
    Located,
    Plan,
    Position,
    scope_of,
)
from ulidkeys.planning.queries import (
    QueryCall,
    QueryWindow,
    WindowPlanner,
    check_after_fields,
    plan_query,
    successor,
)
from ulidkeys.planning.sortkeys import key_after


class CollectionItem:
    """One item of a collection's answer: ``kind`` (its entity's name), ``item`` (the plain
    item as DynamoDB holds it) and ``fields`` (the entity's parse of it: ``{"org": "acme",
    "id": "01HX..."}``, read when asked)."""

    __slots__ = ("entity", "item", "kind")

    def __init__(self, entity: Entity, item: dict[str, Any]) -> None:
        self.entity, self.kind, self.item = entity, entity.name, item

    @property
    def fields(self) -> dict[str, Any]:
        """The key fields of the item, parsed by its entity (KeyMismatch if they disagree)."""
        return self.entity.parse(self.item)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CollectionItem):
            return NotImplemented
        return (self.kind, self.item) == (other.kind, other.item)

    __hash__ = None  # type: ignore[assignment]  # the item is a dict

    def __repr__(self) -> str:
        return f"CollectionItem({self.kind}, {self.item!r})"


@dataclass(frozen=True)
class KindCall(QueryCall):
    """A ``Query`` of a collection: the chain of the kinds whose sort keys start with
    ``prefix`` before the id (``kinds``, by name)."""

    prefix: str = ""
    kinds: tuple[str, ...] = ()

    def explain(self) -> str:
        return f"{super().explain()} [kinds: {', '.join(self.kinds)}]"

    def __str__(self) -> str:
        return self.explain()


#: What :meth:`Collection.read_entries` makes of a key: ``(sort key, located)``; ``located``
#: is ``(id, time, sort key)`` for a key of a declared kind, ``()`` for one of no kind.
KindKey = tuple[str, tuple[()] | Located]


class Collection(WindowPlanner):
    """Entities sharing a partition key, queried as one time-ordered stream.

    ``Collection(post, comment, like, name="activity")`` - every entity has the same
    partition key template and attribute names, id scheme, ``bucket`` and ``shards``; each
    sort key holds the id after literal text only (``Post#{id}``, or ``{id}#Post`` with the id
    first) and more may follow it (``Post#{id}#{lang}``). Kinds are named by their entity's
    ``name`` (distinct). Bound to a table (``Table(client, activity)``) it reads like an
    entity: ``query_window``, ``latest``, cursors, slices, ``consume``; each item comes as a
    :class:`CollectionItem`. Ids sort across kinds by ``(id, sort key)``, so items of one
    millisecond come in the same order every time.
    """

    def __init__(self, *entities: Entity, name: str | None = None) -> None:
        if not entities:
            raise InvalidKeyTemplate("Collection() needs its entities: Collection(post, comment)")
        for entity in entities:
            if not isinstance(entity, Entity):
                raise InvalidType(
                    f"{describe(entity)} is not an Entity; a collection holds entities"
                )
        names = [entity.name for entity in entities]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise InvalidKeyTemplate(
                f"entities named {', '.join(map(repr, twice))} more than once: a collection "
                "tags items by kind, so give each entity its own name=..."
            )
        if name is not None and (not isinstance(name, str) or not name):
            raise InvalidType(f"name={describe(name)} must be a non-empty str")
        first = entities[0]
        for entity in entities:
            _check_kind(first, entity)
        self.entities: dict[str, Entity] = dict(zip(names, entities, strict=True))
        self.name = name or "+".join(names)
        self.scheme, self.period, self.shards = first.scheme, first.period, first.shards
        self.table = first.table  # the partition key template and the attribute names
        # the chains: kinds grouped by the sort key text before their id, in sort order
        chains: dict[str, list[str]] = {}
        for entity in entities:
            chains.setdefault(entity.table.sk.literals[0], []).append(entity.name)
        self.chains: dict[str, tuple[str, ...]] = {
            prefix: tuple(chains[prefix]) for prefix in sorted(chains)
        }
        templates = [entity.table.sk.text for entity in entities]
        if len(set(templates)) != len(templates):
            raise InvalidKeyTemplate(
                f"collection {self.name}: two kinds have the same sort key template, so their "
                "items could not be told apart"
            )
        quick = getattr(self.scheme, "canonical_time", None) or self.scheme.timestamp_ms
        self._timestamp: Callable[[str], int] = quick
        # per chain: the matchers of its kinds, and of every other kind (left to its chain)
        self._matchers = {
            prefix: (
                [(self.entities[k], self.entities[k].table.sk.regex.fullmatch) for k in kinds],
                [e.table.sk.regex.fullmatch for e in entities if e.name not in kinds],
            )
            for prefix, kinds in self.chains.items()
        }

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kinds' names, as declared."""
        return tuple(self.entities)

    @property
    def design(self) -> str:
        """``"id first"`` (one chain), ``"prefix per kind"`` or ``"mixed"``."""
        if list(self.chains) == [""]:
            return "id first"
        return "mixed" if "" in self.chains else "prefix per kind"

    def __repr__(self) -> str:
        return f"Collection({self.name}: {', '.join(self.kinds)}; {self.design})"

    def __eq__(self, other: object) -> bool:
        return (
            type(self) is type(other)
            and isinstance(other, Collection)
            and (self.name, list(self.entities.items()))
            == (other.name, list(other.entities.items()))
        )

    def __hash__(self) -> int:
        return hash((self.name, self.kinds))

    def __getstate__(self) -> dict[str, Any]:
        return {"entities": tuple(self.entities.values()), "name": self.name}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(*state["entities"], name=state["name"])  # type: ignore[misc]

    def scope(self, values: Mapping[str, str]) -> str:
        """What a query of the collection with these partition fields is over (for cursors)."""
        return scope_of(
            "dynamodb-collection",
            *(self.entities[k].scope(self.entities[k].table, values) for k in self.kinds),
        )

    def key_attrs(self) -> tuple[str, str]:
        return (self.table.pk_attr, self.table.sk_attr)

    # --- items ----------------------------------------------------------------------------
    def entity_of(self, item: Mapping[str, Any]) -> Entity:
        """The entity whose sort key template ``item``'s sort key fits (KeyMismatch if none)."""
        if not isinstance(item, Mapping):
            raise InvalidType(f"item={describe(item)} must be a mapping of attribute names")
        raw = item.get(self.table.sk_attr)
        text = raw.get("S") if isinstance(raw, Mapping) else raw
        fitting = [
            entity
            for entity in self.entities.values()
            if isinstance(text, str) and entity.table.sk.regex.fullmatch(text)
        ]
        if len(fitting) != 1:
            which = "no kind" if not fitting else " and ".join(e.name for e in fitting)
            raise KeyMismatch(
                f"{self.table.sk_attr}={describe(raw)} fits {which} of collection {self.name} "
                f"(sort keys: {', '.join(e.table.sk.text for e in self.entities.values())})"
            )
        return fitting[0]

    def parse(self, item: Mapping[str, Any]) -> dict[str, Any]:
        """The field values of an item of any kind (its entity's :meth:`Entity.parse`)."""
        return self.entity_of(item).parse(item)

    def check_item(self, item: Mapping[str, Any]) -> dict[str, Any]:
        """An item about to be written, checked by its kind's entity."""
        return self.entity_of(item).check_item(item)

    def read_entries(
        self, call: KindCall, entries: Sequence[tuple[Any, Any]]
    ) -> list[tuple[KindKey, Any]]:
        """A page of ``call``'s chain, read once: each ``(sort key, item)`` becomes
        ``((sort key, (id, time, sort key)), CollectionItem)`` for a key of one of the chain's
        kinds, ``((sort key, ()), item)`` for a key of no declared kind (skipped); keys of
        another chain's kind are left out (that chain gives them). A key that fits two kinds
        raises KeyMismatch: it would be taken for one of them at random."""
        own, others = self._matchers[call.prefix]
        timestamp = self._timestamp
        out: list[tuple[KindKey, Any]] = []
        for key, item in entries:
            if key.__class__ is not str:
                out.append(((str(key), ()), item))
                continue
            found: tuple[Entity, Any] | None = None
            for entity, match in own:
                hit = match(key)
                if hit is not None:
                    if found is not None:
                        raise KeyMismatch(
                            f"sort key {key!r} fits both {found[0].name} and {entity.name} of "
                            f"collection {self.name}; make their sort key templates differ "
                            "in literal text"
                        )
                    found = (entity, hit)
            if found is None:
                if not any(match(key) for match in others):
                    out.append(((key, ()), item))
                continue
            entity, hit = found
            id_text = hit[entity.id_field]
            out.append(((key, (id_text, timestamp(id_text), key)), CollectionItem(entity, item)))
        return out

    def position_of(self, after: object) -> Position:
        """Where ``after=`` (an item or key of any kind, a :class:`CollectionItem`, or an id)
        stands in a query."""
        if isinstance(after, CollectionItem):
            after = after.item
        if isinstance(after, Mapping):
            entity = self.entity_of(after)
            return entity.position_of(after, entity.table)
        try:
            return self.entities[self.kinds[0]].id_text(after, "after"), PAST_ALL_KEYS
        except InvalidValue:  # InvalidKeyField: not an id of the scheme
            raise InvalidQuery(
                f"after={describe(after)} is not an item, a key or an id of collection {self.name}"
            ) from None

    # --- queries --------------------------------------------------------------------------
    def refuse_index(self, index: object) -> None:
        """A collection is read on the table's keys: ``index=`` is refused."""
        if index is not None:
            raise InvalidQuery(
                f"index={describe(index)}: collection {self.name} is queried on the table's keys; "
                "query an index through its entity"
            )

    def _plan(self, query: QueryWindow) -> Plan[QueryCall]:
        self.refuse_index(query.index)
        return plan_collection(self, query)


def _check_kind(first: Entity, entity: Entity) -> None:
    """An entity can join ``first``'s collection: same partition, id before literal text."""
    where = f"entity {entity.name}"
    same = (
        (entity.table.pk.text, first.table.pk.text, "partition key template"),
        (entity.table.pk_attr, first.table.pk_attr, "partition key attribute"),
        (entity.table.sk_attr, first.table.sk_attr, "sort key attribute"),
        (entity.scheme.name, first.scheme.name, "id scheme"),
        (entity.period, first.period, "bucket"),
        (entity.shards, first.shards, "shards"),
    )
    for mine, theirs, what in same:
        if mine != theirs:
            raise InvalidKeyTemplate(
                f"{where} has {what} {mine!r} but {first.name} has {theirs!r}: a collection's "
                "entities share one partition"
            )
    if not entity.timed or entity.newest_first_keys or entity.table.numeric_sk:
        raise InvalidKeyTemplate(
            f"{where}: a collection reads ids by time from string sort keys in ascending time "
            "(no ticket ids, newest_first_keys or numeric_sk)"
        )
    sk = entity.table.sk
    if sk.fields_before(entity.id_field):
        raise InvalidKeyTemplate(
            f"{where}: its sort key {sk.text!r} has fields before {{{entity.id_field}}}; in a "
            "collection the id follows literal text only (Post#{id}, or {id}#Post)"
        )


def plan_collection(collection: Collection, query: QueryWindow) -> Plan[QueryCall]:
    """The calls for a collection's items whose id time is in ``[start_ms, end_ms)``: each
    partition's (bucket's and shard's) chains, one per sort key prefix, in one group merged
    by position; ``after`` or ``cursor`` resumes every chain just past that position. A
    collection is read on the table's keys: ``index`` is refused before (``Collection``)."""
    start_ms, end_ms, fields = query.start_ms, query.end_ms, query.fields
    newest_first = query.newest_first
    kinds = collection.entities
    first = kinds[collection.kinds[0]]
    values = first.query_values(first.table, fields)
    scope = collection.scope(values)

    def position_after(after: object) -> Position:
        position = collection.position_of(after)
        if isinstance(after, CollectionItem):
            after = after.item
        if isinstance(after, Mapping):
            check_after_fields(collection.entity_of(after), after, values)
        return position

    position = query.resumed(
        scope,
        newest_first,
        f"collection {collection.name}",
        lambda at: _is_position_of(collection, at, start_ms, end_ms),
        position_after,
    )
    # each chain's calls, as its first kind's entity plans them (one group per bucket)
    planned = [
        (prefix, names, plan_query(kinds[names[0]], QueryWindow(start_ms, end_ms, fields=fields)))
        for prefix, names in collection.chains.items()
    ]
    groups: list[tuple[QueryCall, ...]] = []
    count = 0
    for parts in zip(*(plan.groups for _prefix, _names, plan in planned), strict=True):
        group: list[QueryCall] = []
        for (prefix, names, _plan), calls in zip(planned, parts, strict=True):
            for call in calls:
                lo, hi = call.lo, call.hi
                if position is not None:
                    lo, hi = _past(position, prefix, lo, hi, newest_first)
                if lo >= hi:
                    continue
                group.append(
                    KindCall(
                        partition=call.partition,
                        lo=lo,
                        hi=hi,
                        pk_attr=call.pk_attr,
                        sk_attr=call.sk_attr,
                        newest_first=newest_first,
                        span=None if newest_first else call.span,
                        prefix=prefix,
                        kinds=names,
                    )
                )
        count += len(group)
        if count > MAX_CALLS:
            raise InvalidQuery(
                f"this window needs more than {MAX_CALLS} Query calls over collection "
                f"{collection.name}'s kinds, buckets and shards; query a narrower window"
            )
        if group:
            groups.append(tuple(group))
    if newest_first:
        groups.reverse()
    strategy = CollectionQuery(collection, tuple(fields.items()), newest_first)
    title = f"{collection.name} (collection of {', '.join(collection.kinds)})"
    return query.plan(groups, strategy, scope, title, newest_first, position)


def _is_position_of(collection: Collection, position: Position, start_ms: int, end_ms: int) -> bool:
    """Whether ``position`` is one the collection's query of ``[start_ms, end_ms)`` gives."""
    id_text, key = position
    fitting = [(e, found) for e in collection.entities.values() if (found := e.table.sk.match(key))]
    if len(fitting) != 1:
        return False
    entity, found = fitting[0]
    try:
        ms = collection.scheme.timestamp_ms(id_text)
    except (InvalidValue, InvalidType):
        return False
    return found[entity.id_field] == id_text and start_ms <= ms < end_ms


def _past(position: Position, prefix: str, lo: str, hi: str, newest_first: bool) -> tuple[str, str]:
    """Narrow the chain ``[lo, hi)`` of keys ``prefix + id + ...`` to those past ``position``
    in result order: positions ``(id, key)`` order as the chain's keys do, so exactly the keys
    above (oldest first) or below (newest first) one bound."""
    id_text, key = position
    first = prefix + id_text  # the chain's keys of that id are [first, successor(first))
    following = successor(first)
    if newest_first:
        bound = first if key <= first else following if key >= following else key
        return lo, min(hi, bound)
    if key < first:
        bound = first
    elif key >= following:
        bound = following
    else:
        bound = key_after(key)
    return max(lo, bound), hi


@dataclass(frozen=True)
class CollectionQuery:
    """The strategy of a collection's plan: keys come read (:meth:`Collection.read_entries`),
    so locating one is taking what was read."""

    collection: Collection
    fields: tuple[tuple[str, object], ...]
    newest_first: bool
    locate_run = None
    splittable: bool = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "splittable", not self.newest_first)

    def locate(self, key: Any) -> Located | None:
        """The id, time and sort key of a read key (None: of no declared kind)."""
        return key[1] or None

    def slice_call(self, call: KindCall, lo_ms: int, hi_ms: int) -> KindCall | None:
        """The call restricted to the ids of ``[lo_ms, hi_ms)`` (None when that is empty)."""
        lo_id, hi_id = id_range(self.collection.scheme, lo_ms, hi_ms)
        lo, hi = max(call.lo, call.prefix + lo_id), min(call.hi, call.prefix + hi_id)
        if lo >= hi:
            return None
        return replace(call, lo=lo, hi=hi, span=(lo_ms, hi_ms), owns=(lo_id, hi_id))

    def trim_call(self, call: KindCall, below_id: str) -> KindCall:
        """The call itself: a chain cut in time slices is ended by the executor, at its first
        item past the cut. Narrowing its ``BETWEEN`` could put the key it continues from
        (``ExclusiveStartKey``: the last key of its last page, or of a page in flight) past the
        new end - a key of an undeclared kind, whose time the cut was not placed after - which
        DynamoDB refuses as a starting key outside the query's bounds."""
        return call

    def replan(self, start_ms: int, end_ms: int, cursor: str | None) -> Plan[QueryCall]:
        """The same query over another window (a slice of this one)."""
        query = QueryWindow(
            start_ms, end_ms, self.newest_first, cursor=cursor, fields=dict(self.fields)
        )
        return plan_collection(self.collection, query)
