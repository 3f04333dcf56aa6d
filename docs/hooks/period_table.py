"""mkdocs hook: the period table, generated from ``ulidkeys.planning.periods``' registry when the
site is built, so a new period definition is in it with no edit to the docs.

``<!-- periods-table -->`` becomes one row per defined period: its name, its label (a DynamoDB
bucket label) and folder (an S3 layout's folder) with an example, the period its folder nests
under, whether S3 layouts take it, how Athena projects its folder level, and its summary.
"""

from __future__ import annotations

from typing import Any

from ulidkeys.planning.periods import (
    PERIODS,
    DateProjection,
    EnumProjection,
    IntegerProjection,
    Period,
)

TABLE_MARK = "<!-- periods-table -->"
#: When the examples are made (2024-05-17T09:00:00Z), so the built site is the same every time.
EXAMPLE_MS = 1_715_936_400_000


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if TABLE_MARK in markdown:
        markdown = markdown.replace(TABLE_MARK, render_table())
    return markdown


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def athena(period: Period) -> str:
    """How Athena partition projection treats the period's own folder level."""
    spec, column = period.athena, f"`{period.key}`"
    if isinstance(spec, DateProjection):
        return f"{column} `date`, format `{spec.format}`, `{spec.unit}`, up to `NOW`"
    if isinstance(spec, IntegerProjection):
        return f"{column} `integer` `{spec.low},{spec.high}`, {spec.digits} digits"
    assert isinstance(spec, EnumProjection)
    return f"{column} `enum` of every value in the range (a fixed range: no `NOW`)"


def render_table() -> str:
    """Markdown: one row per defined period, in the registry's order (finest first)."""
    lines = [
        "| period | label (DynamoDB `bucket=`) | folder (S3 `period=`) | nests under | S3 layouts "
        "| Athena projection | what it is |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for period in PERIODS:
        parent = period.parent
        cells = [
            f"`{period.size}`",
            f"`{period.form}`: `{period.label(EXAMPLE_MS)}`",
            f"`{period.folder_form}`: `{period.folder(EXAMPLE_MS)}`",
            "-" if parent is None else f"`{parent.size}`",
            "yes" if period.for_layouts else "no (DynamoDB buckets only)",
            athena(period),
            period.definition.summary,
        ]
        lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    return "\n".join(lines)
