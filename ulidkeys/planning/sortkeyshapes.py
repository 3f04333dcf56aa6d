"""What the sort keys read in a DynamoDB partition say: the kinds of keys as templates (the parts
that are ids become ``{id}``, children's ``{id2}``), the scheme of each, how many of each, and a
partition key template for the partition's key.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from ulidkeys.planning.shapes import canonical_scheme


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
        """The literal text before the first id (what a window's ``BETWEEN`` starts with)."""
        return self.template.partition("{id}")[0] if self.scheme else self.template


def sort_key_shape(key: str, separator: str = "#") -> tuple[str, str | None]:
    """``(template, scheme of its first id)`` of one sort key: each part between separators
    that is the canonical text of an id becomes a placeholder."""
    parts = key.split(separator)
    first_scheme = None
    ids = 0
    for index, part in enumerate(parts):
        reading = canonical_scheme(part)
        if reading is None:
            continue
        ids += 1
        first_scheme = first_scheme or reading
        parts[index] = "{id}" if ids == 1 else f"{{id{ids}}}"
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
