"""What the sort keys read in a DynamoDB partition say: the kinds of keys as templates (the parts
that are ids become ``{id}``, children's ``{id2}``, a period or time before the id
``{period}``), the scheme of each, how many of each, and a partition key template for the
partition's key.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from ulidkeys.survey.shapes import canonical_scheme

#: Where a template has a period or a time that comes before its id (``Year#{period}#{id}``).
PERIOD = "{period}"
#: A part of a sort key naming a period or a time: ``2023``, ``2023-05``, ``2023-05-17``,
#: ``20230517``, ``2023-05-17T10:00:00Z``, ``year=2023``. Before an id it is one more item of
#: the same kind, not a kind of its own (each year its own kind, an entity of one of them).
_PERIOD_PART = re.compile(
    r"(?:[A-Za-z_]+=)?(?:19[7-9]\d|[2-9]\d{3})(?:-?(?:0[1-9]|1[0-2])(?:-?(?:0[1-9]|[12]\d|3[01])"
    r"(?:[T ]\d{2}(?::?\d{2}(?::?\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?)?)?)?"
)


@dataclass(frozen=True)
class SortKeyShape:
    """The shape of one kind of sort key in a partition: ``template`` with ``{id}`` (and
    ``{id2}``, ... for the ids of children, ``Post#{id}#Comment#{id2}``) where the ids are, the
    ``scheme`` of its first id, and how many of the keys read have it."""

    template: str
    scheme: str | None
    count: int

    @property
    def prefix(self) -> str:
        """The literal text before the first id or period (what a window's ``BETWEEN`` starts
        with)."""
        if not self.scheme:
            return self.template
        return self.template.partition("{id}")[0].partition(PERIOD)[0]


def sort_key_shape(key: str, separator: str = "#") -> tuple[str, str | None]:
    """``(template, scheme of its first id)`` of one sort key: each part between separators
    that is the canonical text of an id becomes a placeholder, and so does each part before
    the first id that names a period or a time (``{period}``)."""
    parts = key.split(separator)
    first_scheme = None
    first_id = None
    ids = 0
    for index, part in enumerate(parts):
        reading = canonical_scheme(part)
        if reading is None:
            continue
        ids += 1
        first_scheme = first_scheme or reading
        first_id = index if first_id is None else first_id
        parts[index] = "{id}" if ids == 1 else f"{{id{ids}}}"
    for index in range(first_id or 0):
        if _PERIOD_PART.fullmatch(parts[index]):
            parts[index] = PERIOD
    return separator.join(parts), first_scheme


def sort_key_shapes(keys: Iterable[str], separator: str = "#") -> list[SortKeyShape]:
    """The kinds of sort keys among ``keys``, most frequent first."""
    return sort_key_kinds(sort_key_shape(key, separator) for key in keys)


def sort_key_kinds(shapes: Iterable[tuple[str, str | None]]) -> list[SortKeyShape]:
    """The kinds among ``(template, scheme)`` of sort keys, most frequent first."""
    counts: Counter[tuple[str, str | None]] = Counter(shapes)
    return [SortKeyShape(template, scheme, n) for (template, scheme), n in counts.most_common()]


def pk_template(partition: str, separator: str = "#") -> tuple[str, dict[str, str]]:
    """A partition key template and its field values for a partition key seen as text:
    ``Org#acme`` -> ``("Org#{org}", {"org": "acme"})`` (each value named after the literal
    before it); a key without that shape stays a literal."""
    parts = partition.split(separator)
    if len(parts) < 2 or len(parts) % 2:
        return partition, {}
    fields: dict[str, str] = {}
    out = []
    for label, value in zip(parts[::2], parts[1::2], strict=True):
        if not value or not label:  # ``Org#`` or ``#x``: nothing to name, a literal
            return partition, {}
        name = re.sub(r"\W", "_", label.lower()).strip("_") or "field"
        if not name.isidentifier() or name in fields or name in ("id", "bucket", "shard"):
            return partition, {}
        fields[name] = value
        out += [label, "{" + name + "}"]
    return separator.join(out), fields
