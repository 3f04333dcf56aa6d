"""Key templates such as ``"Org#{org}"`` and ``"Post#{id}"``: render keys, parse them back.

A template is literal text with ``{field}`` placeholders. Every placeholder sits between
separators (or the template's ends) and no value may contain the separator, so a key parses
back to exactly one set of values. The id field only matches its scheme's canonical text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ulidkeys.errors import InvalidKeyTemplate, describe
from ulidkeys.ids.ulids import ULID_SCHEME
from ulidkeys.planning.keytext import check_text

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class KeyTemplate:
    """Literal text with ``{field}`` placeholders, e.g. ``KeyTemplate("Post#{id}")``.

    ``id_field`` names the placeholder that holds the id, matched by ``id_pattern`` (the
    scheme's canonical text) when parsing. Field values are validated by
    :class:`~ulidkeys.planning.entity.Entity`; the template itself only renders and matches.
    """

    text: str
    separator: str = "#"
    id_field: str = "id"
    id_pattern: str = ULID_SCHEME.pattern  # the default scheme's canonical text
    fields: tuple[str, ...] = field(init=False)
    literals: tuple[str, ...] = field(init=False)  # len(fields) + 1 pieces around the fields
    _regex: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.text, str) or not self.text:
            raise InvalidKeyTemplate(f"key template {describe(self.text)} must be non-empty text")
        if not isinstance(self.separator, str) or not self.separator:
            raise InvalidKeyTemplate(f"separator={describe(self.separator)} must be non-empty")
        check_text(self.text, "key template", InvalidKeyTemplate)
        check_text(self.separator, "separator", InvalidKeyTemplate)
        pieces = _PLACEHOLDER.split(self.text)
        literals, fields = tuple(pieces[0::2]), tuple(pieces[1::2])
        for literal in literals:
            if "{" in literal or "}" in literal:
                raise InvalidKeyTemplate(
                    f"key template {self.text!r} has a stray brace in {literal!r}; placeholders "
                    "are {name} with a Python identifier as name"
                )
        if len(set(fields)) != len(fields):
            raise InvalidKeyTemplate(f"key template {self.text!r} repeats a field")
        sep = self.separator
        for index, name in enumerate(fields):
            before, after = literals[index], literals[index + 1]
            starts_ok = (index == 0 and before == "") or before.endswith(sep)
            ends_ok = (index == len(fields) - 1 and after == "") or after.startswith(sep)
            if not (starts_ok and ends_ok):
                raise InvalidKeyTemplate(
                    f"key template {self.text!r}: field {{{name}}} must sit between separators "
                    f"{sep!r} (or the template's ends), so that keys parse back unambiguously"
                )
        not_sep = f"(?:(?!{re.escape(sep)}).)+"
        pattern = "".join(
            re.escape(literal)
            + (
                f"(?P<{fields[i]}>{self.id_pattern if fields[i] == self.id_field else not_sep})"
                if i < len(fields)
                else ""
            )
            for i, literal in enumerate(literals)
        )
        object.__setattr__(self, "fields", fields)
        object.__setattr__(self, "literals", literals)
        object.__setattr__(self, "_regex", re.compile(pattern, re.DOTALL))

    def render(self, values: Mapping[str, str]) -> str:
        """The key for ``values`` (already validated strings, one per field)."""
        parts = [self.literals[0]]
        for name, literal in zip(self.fields, self.literals[1:], strict=True):
            parts.append(values[name])
            parts.append(literal)
        return "".join(parts)

    def prefix_before(self, name: str, values: Mapping[str, str]) -> str:
        """The key text up to the placeholder ``name``: literals and the fields before it."""
        position = self.fields.index(name)
        parts = [self.literals[0]]
        for index in range(position):
            parts.append(values[self.fields[index]])
            parts.append(self.literals[index + 1])
        return "".join(parts)

    def fields_before(self, name: str) -> tuple[str, ...]:
        return self.fields[: self.fields.index(name)]

    @property
    def regex(self) -> re.Pattern[str]:
        """The compiled pattern of the whole key, one named group per field (what :meth:`match`
        runs; a reader of many keys takes one group from its match instead of a dict)."""
        return self._regex

    def match(self, key: str) -> dict[str, str] | None:
        """The field values of ``key``, or None when the key does not fit the template."""
        found = self._regex.fullmatch(key)
        return None if found is None else found.groupdict()

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class KeySchema:
    """The resolved key templates and attribute names of the table or of one index."""

    index: str | None
    pk: KeyTemplate
    sk: KeyTemplate
    pk_attr: str
    sk_attr: str
    sparse: bool = False
    numeric_sk: bool = False  # the sort key is the id's number (a DynamoDB Number)

    @property
    def label(self) -> str:
        return "table" if self.index is None else f"index {self.index}"
