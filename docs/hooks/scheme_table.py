"""mkdocs hook: the id scheme tables, generated from ``ulidkeys.ids``' registry when the site is
built, so a new scheme module is in them with no edit to the docs.

``<!-- schemes-table -->`` becomes one row per registered scheme (name and aliases, text form
and length, time resolution and range, whether its text sorts by time, what keys are sharded
by, an example id and the registration's summary); ``<!-- scheme-modules -->`` on the reference
page becomes a mkdocstrings block for every module that registers a scheme.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from ulidkeys import ids
from ulidkeys.errors import InvalidId, InvalidValue
from ulidkeys.ids.protocol import IdScheme
from ulidkeys.ids.registration import Registration
from ulidkeys.ids.registry import REGISTRATIONS, generator_for

TABLE_MARK = "<!-- schemes-table -->"
MODULES_MARK = "<!-- scheme-modules -->"
#: When the examples are made (2024-05-17T09:00:00Z), with a seeded source of random bits, so
#: the built site is the same on every build.
EXAMPLE_MS = 1_715_936_400_000
#: The largest ms a datetime holds (9999-12-31T23:59:59.999Z); later ones are shown as years.
_MAX_DATETIME_MS = 253_402_300_799_999


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if TABLE_MARK in markdown:
        markdown = markdown.replace(TABLE_MARK, render_table())
    if MODULES_MARK in markdown:
        markdown = markdown.replace(MODULES_MARK, render_modules())
    return markdown


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _year(ms: int) -> int:
    if ms <= _MAX_DATETIME_MS:
        return datetime.fromtimestamp(ms / 1000, timezone.utc).year
    return 1970 + ms // 31_556_952_000


def _text(scheme: IdScheme) -> str:
    if scheme.numeric:
        return f"{scheme.length} zero-padded decimal digits (unpadded accepted)"
    return f"{scheme.length} characters"


def _time(scheme: IdScheme) -> str:
    try:
        scheme.min_for(max(scheme.min_ms, 0))
    except InvalidValue:  # no time, or a scattered one (UUIDv1): no id range of a time
        timed = scheme.max_ms > scheme.min_ms
        return "scattered over the text" if timed else "none"
    step = scheme.resolution_ms
    unit = f"{step // 1000} s" if step % 1000 == 0 else f"{step} ms"
    return f"{unit}, {_year(scheme.min_ms)} to {_year(scheme.max_ms)}"


def example(entry: Registration) -> str:
    """An id of the scheme, made at :data:`EXAMPLE_MS` from seeded random bits (node 1 for
    schemes that take one), or the smallest number that is an id for schemes not generated."""
    scheme = entry.sample
    assert scheme is not None
    name = entry.name if entry.scheme is not None else scheme.name
    if entry.generated:
        make: Callable[[], str] = generator_for(
            name,
            clock=lambda: EXAMPLE_MS,
            randbits=random.Random(name).getrandbits,
            node=1 if entry.takes_node else None,
        )
        return make()
    for value in (42, 0, (1 << scheme.bits) - 1 if hasattr(scheme, "bits") else 0):
        try:
            return scheme.from_int(value)  # type: ignore[attr-defined, no-any-return]
        except (InvalidId, InvalidValue, AttributeError):
            continue
    return ""


def python_name(entry: Registration) -> str:
    """How Python code names the scheme: its name in ``ulidkeys.ids``, else ``scheme_named``."""
    for name, value in vars(ids).items():
        if value is entry.scheme and entry.scheme is not None and name.isupper():
            return f"`{name}`"
    if entry.scheme is None:
        return f'`scheme_named("{entry.name}:...")`'
    return f'`scheme_named("{entry.name}")`'


def render_table() -> str:
    """Markdown: one row per registered scheme, in the registry's order."""
    lines = [
        "| scheme | in Python | text | time (step, years) | sorts by time | shards from | example "
        "| what it is |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for entry in REGISTRATIONS:
        scheme = entry.sample
        assert scheme is not None
        names = ", ".join(f"`{n}`" for n in (entry.name, *entry.aliases))
        if entry.scheme is None:
            names += f" (a family: `{scheme.name}`, ...)"
        made = example(entry)
        shards = "-"
        if scheme.sorts_by_time:
            has_random = scheme.random_bits(made) is not None
            shards = "its random bits" if has_random else "a hash of the id"
        cells = [
            names,
            python_name(entry),
            _text(scheme),
            _time(scheme),
            "yes" if scheme.sorts_by_time else "no",
            shards,
            f"`{made}`" if made else "(made from a name)",
            entry.summary,
        ]
        lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    return "\n".join(lines)


def render_modules() -> str:
    """A mkdocstrings block per module that registers a scheme, in module order."""
    found = set()
    for module in list(sys.modules.values()):  # the registry imported every one
        name = getattr(module, "__name__", "")
        declared = getattr(module, "REGISTRATIONS", ())
        own = declared is not REGISTRATIONS  # not a module that imported the registry's
        if name.startswith("ulidkeys.ids.") and own and any(e in REGISTRATIONS for e in declared):
            found.add(name)
    return "\n\n".join(f"::: {module}" for module in sorted(found))
