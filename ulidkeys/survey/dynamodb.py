"""What one partition of a DynamoDB table holds, read in at most a budget of Query calls: its
sort key templates and their shares, and for the main kind with an id its count (exact when read
whole, else unknown above the items read), oldest and newest items, and the entity that queries
it. I/O-free (run by a shell of ``ulidkeys.engine``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Generator
from dataclasses import dataclass, replace
from typing import Any

from ulidkeys.engine.chains import Page, Stats
from ulidkeys.engine.operations import Operation, fetch_one
from ulidkeys.errors import UlidkeysError, require_count
from ulidkeys.ids.registry import scheme_named
from ulidkeys.planning.collection import Collection
from ulidkeys.planning.entity import Entity
from ulidkeys.planning.queries import QueryCall
from ulidkeys.survey.common import (
    DEFAULT_MAX_CALLS,
    MIN_CALLS,
    Findings,
    exact_counts,
    first_pages,
    read_note,
    times_dict,
    updated,
)
from ulidkeys.survey.counts import Count
from ulidkeys.survey.shapes import ids_at_end
from ulidkeys.survey.sortkeyshapes import (
    PERIOD,
    SortKeyShape,
    pk_template,
    sort_key_kinds,
    sort_key_shape,
)
from ulidkeys.survey.suggestions import entity_toml_of, layout_name

#: Items read at the newest end of the main kind's range (children and other kinds sort among
#: them).
END_ITEMS = 25
#: The widest sort key range: every string sort key lies in it.
_LOWEST, _ABOVE_ALL = "\x00", "\U0010ffff"


@dataclass(frozen=True)
class PartitionSurvey(Findings):
    """What :func:`partition_survey_program` found in one partition of a table.

    ``kinds`` are the sort key templates read (``Post#{id}``, children such as
    ``Post#{id}#Comment#{id2}``, keys without ids) with their counts among the items read;
    ``main`` the most frequent one with an id, whose items the counts, times and histogram are
    about. ``entity`` is the ``Entity(...)`` to declare (Python) and ``config`` its
    ``[entities.NAME]`` table - given only when that entity queries this very partition.
    ``collection`` is the ``Collection(...)`` of every kind with an id of the main kind's
    scheme, when there are several and the partition was read whole (``config`` then declares
    them all and the collection); never from part of a partition, where kinds not read may
    exist.
    """

    kinds: tuple[SortKeyShape, ...] = ()
    main: SortKeyShape | None = None
    entity: str | None = None
    collection: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The survey as JSON-safe data."""
        return {
            "location": self.location,
            "calls": self.calls,
            "max_calls": self.max_calls,
            "exact": self.exact,
            "sort_keys": [
                {"template": kind.template, "scheme": kind.scheme, "items": kind.count}
                for kind in self.kinds
            ],
            "main": None if self.main is None else self.main.template,
            **times_dict(self, "items"),
            "entity": self.entity,
            "collection": self.collection,
            "config": self.config,
            "notes": list(self.notes),
        }


def _sort_keys(page: Page) -> list[str]:
    return [key for key, _item in page.entries if isinstance(key, str)]


def partition_survey_program(
    table: str,
    partition: str,
    stats: Stats,
    *,
    pk_attr: str = "PK",
    sk_attr: str = "SK",
    separator: str = "#",
    max_calls: int = DEFAULT_MAX_CALLS,
    page_items: int | None = None,
) -> Generator[Operation, Any, PartitionSurvey]:
    """The survey of the items of one partition (``pk_attr = partition``) in at most
    ``max_calls`` Query calls: pages from its lowest sort key on (every call but one; a
    partition that ends within them is read whole and every count is exact), its sort key
    templates and their shares, and for the most frequent one with an id its oldest item (the
    first read) and newest item (one call from the top of its range). ``page_items`` limits
    the pages (None: DynamoDB's 1 MB pages)."""
    require_count(max_calls, "max_calls", MIN_CALLS)
    require_count(page_items, "page_items", 1, optional=True)
    location = f"dynamodb://{table} {pk_attr}={partition!r}"
    whole_range = QueryCall(partition, _LOWEST, _ABOVE_ALL, pk_attr, sk_attr)
    sort_keys, token, found = yield from first_pages(
        PartitionSurvey, location, whole_range, max_calls, stats, _sort_keys, page_items
    )
    whole = token is None
    if not sort_keys:
        note = "no item with a string sort key in this partition" + ("" if whole else " read")
        return updated(found, stats, notes=(note,))
    shapes = [sort_key_shape(key, separator) for key in sort_keys]
    kinds = tuple(sort_key_kinds(shapes))
    main = next((kind for kind in kinds if kind.scheme is not None), None)
    found = replace(found, kinds=kinds, main=main)
    notes = [read_note(stats, whole, len(sort_keys), "items")]
    if main is None or main.scheme is None:
        return _ids_inside(found, sort_keys, separator, whole, stats, notes)
    scheme = scheme_named(main.scheme)
    declared, why_not = _declaration(
        partition, main, scheme.name, separator, table, pk_attr, sk_attr
    )
    if why_not:
        notes.append(f"no entity suggested: {why_not}")
    id_at = main.template.split(separator).index("{id}")
    # sort key order is id order only without a period before the id (``Year#2023#<id>``
    # orders by the year's text first): then the first item is not surely the oldest
    by_id = PERIOD not in main.template

    def kind_time(key: str, template: str) -> int | None:
        """The id time of a sort key of the main kind (None: another kind)."""
        return (
            scheme.timestamp_ms(key.split(separator)[id_at]) if template == main.template else None
        )

    times = [
        ms
        for key, (template, _) in zip(sort_keys, shapes, strict=True)
        if (ms := kind_time(key, template)) is not None
    ]
    members = _collection_kinds(kinds, main)
    if len(members) > 1 and declared and whole:
        made = _collection_declaration(
            partition, members, scheme.name, separator, table, pk_attr, sk_attr
        )
        declared = made or declared
    elif len(members) > 1 and declared:
        notes.append(
            f"no collection suggested: {len(members)} kinds with ids were read, but the "
            "partition was not read whole, so kinds not read may exist (raise --max-calls to "
            "read it all)"
        )
    if whole:
        return updated(found, stats, **exact_counts(times), notes=tuple(notes), **declared)
    changes: dict[str, Any] = {"keys": Count.unknown(len(times))}
    if times:  # read from the lowest sort key on: the first item of the kind is its oldest
        changes.update(oldest_ms=min(times), oldest_exact=by_id, newest_ms=max(times))
    top = main.prefix + _ABOVE_ALL
    if sort_keys[-1] >= top:  # read past the kind's range: its last item read is its newest
        changes["newest_exact"] = bool(times) and by_id
    elif stats.calls < max_calls and by_id:
        span_call = QueryCall(partition, main.prefix, top, pk_attr, sk_attr, newest_first=True)
        last_page: Page = yield from fetch_one(span_call, None, END_ITEMS, stats=stats)
        newest = next(
            (
                ms
                for key, _ in last_page.entries
                if isinstance(key, str)
                and (ms := kind_time(key, sort_key_shape(key, separator)[0])) is not None
            ),
            None,
        )
        if newest is not None:
            changes.update(newest_ms=newest, newest_exact=True)
    notes.append(
        f"how many items: unknown (a partition can only be counted by reading it); at least "
        f"the {len(times):,} read"
    )
    return updated(found, stats, notes=tuple(notes), **changes, **declared)


def _ids_inside(
    found: PartitionSurvey,
    sort_keys: list[str],
    separator: str,
    whole: bool,
    stats: Stats,
    notes: list[str],
) -> PartitionSurvey:
    """No kind holds an id at a part of its own: the items whose sort key ends in an id
    (``years/2023/<id>.csv``: of any scheme, its last part) are counted, with their time
    span, and no entity is suggested."""
    # times as written, as the kinds' are
    held = list(filter(None, ids_at_end([key.rpartition(separator)[2] for key in sort_keys])))
    if not held:
        notes.append("no sort key read holds an id of a known scheme")
        return updated(found, stats, notes=tuple(notes))
    schemes = Counter(name for name, _ in held)
    notes.append(
        f"items: the {len(held):,} items{'' if whole else ' read'} whose sort key ends in an id "
        f"(mostly {schemes.most_common(1)[0][0]} ids) inside a part of its own text; no entity "
        "template puts an id there, so none is suggested"
    )
    times = [ms for _, ms in held if ms is not None]
    if whole:
        return updated(
            found,
            stats,
            **{**exact_counts(times), "keys": Count.exactly(len(held))},
            notes=tuple(notes),
        )
    changes: dict[str, Any] = {"keys": Count.unknown(len(held))}
    if times:  # the oldest and newest read: the truth is that or earlier, later
        changes.update(oldest_ms=min(times), newest_ms=max(times))
    notes.append(f"how many items: unknown; at least the {len(held):,} read")
    return updated(found, stats, notes=tuple(notes), **changes)


def _declaration(
    partition: str,
    main: SortKeyShape,
    scheme: str,
    separator: str,
    table: str,
    pk_attr: str,
    sk_attr: str,
) -> tuple[dict[str, Any], str | None]:
    """The entity to declare (Python and config) when it queries ``partition`` - its partition
    key template renders it back and its sort key template is the main kind's - else why not."""
    if PERIOD in main.template:
        return {}, (
            f"the sort keys {main.template!r} hold a period or a time before the id, which no "
            "entity's sort key template fills: an entity of one of them would list its items "
            "alone"
        )
    pk, fields = pk_template(partition, separator)
    try:
        entity = Entity(
            pk,
            main.template,
            scheme=scheme_named(scheme),
            pk_attr=pk_attr,
            sk_attr=sk_attr,
            separator=separator,
        )
        rendered = entity.schema().pk.render(fields)
    except UlidkeysError as error:
        return {}, f"the keys cannot be spelled as key templates ({error})"
    if rendered != partition:
        return {}, f"the partition key template {pk!r} does not give back {partition!r}"
    args = [repr(pk), repr(main.template)]
    if scheme != "ulid":
        args.append(f"scheme=scheme_named({scheme!r})")
    if pk_attr != "PK":
        args.append(f"pk_attr={pk_attr!r}")
    if sk_attr != "SK":
        args.append(f"sk_attr={sk_attr!r}")
    name = layout_name(main.prefix.lower()) if main.prefix.strip(separator) else "items"
    query = ", ".join(f"{k}={v!r}" for k, v in fields.items())
    return {
        "entity": f"Entity({', '.join(args)})" + (f"  # query with {query}" if query else ""),
        "config": entity_toml_of(name, table, pk, main.template, scheme, pk_attr, sk_attr),
    }, None


def _collection_kinds(kinds: tuple[SortKeyShape, ...], main: SortKeyShape) -> list[SortKeyShape]:
    """The kinds a collection with the main kind could hold: one id, of the main kind's
    scheme, after literal text only (children with a second id are left out)."""
    return [
        kind
        for kind in kinds
        if kind.scheme == main.scheme
        and "{id2}" not in kind.template
        and "{" not in kind.template.partition("{id}")[0]
    ]


def _collection_declaration(
    partition: str,
    members: list[SortKeyShape],
    scheme: str,
    separator: str,
    table: str,
    pk_attr: str,
    sk_attr: str,
) -> dict[str, Any] | None:
    """The collection of ``members`` to declare (Python, and config: every entity and the
    collection), or None when the library would refuse it."""
    pk, fields = pk_template(partition, separator)
    names: list[str] = []
    for kind in members:
        literal = kind.template.replace("{id}", "").lower()
        name = layout_name(literal.replace(separator, "_")) if literal.strip(separator) else "items"
        while name in names:
            name += "_"
        names.append(name)
    group = f"{layout_name(pk.partition(separator)[0].lower())}_activity"
    try:
        Collection(
            *(
                Entity(
                    pk,
                    kind.template,
                    name=name,
                    separator=separator,
                    scheme=scheme_named(scheme),
                    pk_attr=pk_attr,
                    sk_attr=sk_attr,
                )
                for kind, name in zip(members, names, strict=True)
            ),
            name=group,
        )
    except UlidkeysError:
        return None
    extra = "" if scheme == "ulid" else f", scheme=scheme_named({scheme!r})"
    extra += "" if pk_attr == "PK" else f", pk_attr={pk_attr!r}"
    extra += "" if sk_attr == "SK" else f", sk_attr={sk_attr!r}"
    entities = ", ".join(
        f"Entity({pk!r}, {kind.template!r}, name={name!r}{extra})"
        for kind, name in zip(members, names, strict=True)
    )
    query = ", ".join(f"{k}={v!r}" for k, v in fields.items())
    tables = [
        entity_toml_of(name, table, pk, kind.template, scheme, pk_attr, sk_attr)
        for kind, name in zip(members, names, strict=True)
    ]
    listed = ", ".join(f'"{name}"' for name in names)
    tables.append(f"[collections.{group}]\nentities = [{listed}]\n")
    return {
        "collection": f"Collection({entities}, name={group!r})"
        + (f"  # query with {query}" if query else ""),
        "config": "".join(tables),
    }
