"""The benchmark report as data: ``docs/benchmarks.json`` read from (and written next to)
``docs/benchmarks.md``, and the rule that says which figures a page quotes and whether the
report holds them.

``report.py`` writes the page, then :func:`write_data` parses that page into the data file, so
the two always hold the same figures. ``tests/test_figures.py`` checks every figure the README
and the documentation pages quote against the data file. Run on its own it (re)writes the data
file from the page without running any benchmark:

    PYTHONPATH=$PWD .venv/bin/python benchmarks/report_data.py [docs/benchmarks.md]

The data file: ``{"made", "commit", "sections": [{"title", "script", "run_as", "tables":
[{"caption", "header", "rows"}], "lines"}]}``. A table is a Markdown table of the page or a
block of aligned text (its columns split at two or more spaces), with the line of text above it
as its caption; ``lines`` are the section's other lines of text (targets, summaries).

A script's text is Markdown, shown as it printed it: a ``<`` or an entity-like ``&`` outside
code spans is escaped on the page (:func:`escape_text`; ``<ulid>`` was an HTML tag, gone from
the heading and its table of contents) and read back unescaped (:func:`unescape_text`), so the
data file holds the text as printed.

A figure is a number followed by a unit of :data:`UNITS` (``11.86 s``, ``0.073x``, ``1,037
calls``); a bare number in a table takes the unit its column header names (``wall s``, ``ns per
id``, ``x faster``), else the one its caption names (``ms per page``).
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "benchmarks.md"
DATA = ROOT / "docs" / "benchmarks.json"

#: The units of a figure, as the pages and the report write them (a plural and its singular
#: are one unit).
UNITS = ("ns", "µs", "ms", "s", "x", "%", "calls", "call", "keys", "key", "items", "MiB", "KiB")
_NUMBER = r"\d[\d,]*(?:\.\d+)?(?:e-?\d+)?"
#: A number and its unit; a letter or digit right after the unit means it is part of a word
#: ("3 shards" is no figure, "3 s" is).
FIGURE = re.compile(
    rf"(?<![\w.])(?P<number>{_NUMBER}) ?(?P<unit>ns|µs|ms|s|x|%|calls?|keys?|items|MiB|KiB)"
    r"(?![\w])"
)
#: A cell's number without a unit, alone or before a parenthesis (``2.77 (6.5x)``).
_BARE = re.compile(rf"^\s*[+~]?(?P<number>{_NUMBER})\s*(?:$|\()")
_HEADER_UNIT = re.compile(r"(?:^|[\s(/])(?P<unit>ns|µs|ms|s|x|MiB|KiB)(?=$|[\s)/,;])")
#: A column of counts: its header starts with what it counts ("keys read", "calls").
_HEADER_COUNT = re.compile(r"^(?P<unit>calls|keys|items)\b")
_SINGULAR = {"calls": "calls", "call": "calls", "keys": "keys", "key": "keys"}


#: ``&`` that the page's Markdown would read as the start of an entity: a named one ends in
#: ``;`` (``&lt;``), a numeric one need not (``&#38;``, ``&#x26``, and ``&#1``, which
#: Python-Markdown completes to ``&#1;``: a character, not the text).
_ENTITY = r"(?:[A-Za-z][A-Za-z0-9]*;|#[0-9]+|#[xX][0-9a-fA-F]+)"
_TO_ESCAPE = re.compile(rf"[<>]|&(?={_ENTITY})")
_ESCAPED = re.compile(rf"&lt;|&gt;|&amp;(?={_ENTITY})")
#: An inline code span (Markdown shows its text as written: nothing in it is escaped).
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)")


def _outside_code(text: str, pattern: re.Pattern[str], replacements: dict[str, str]) -> str:
    parts = []
    last = 0
    for span in _CODE_SPAN.finditer(text):
        parts += [pattern.sub(lambda m: replacements[m[0]], text[last : span.start()]), span[0]]
        last = span.end()
    parts.append(pattern.sub(lambda m: replacements[m[0]], text[last:]))
    return "".join(parts)


def escape_text(text: str) -> str:
    """A line of a script's Markdown with what HTML would read as markup escaped outside code
    spans: every ``<`` (a tag, an autolink, a comment) and ``>`` (its end, a quote), and each
    ``&`` that starts an entity."""
    return _outside_code(text, _TO_ESCAPE, {"<": "&lt;", ">": "&gt;", "&": "&amp;"})


def unescape_text(text: str) -> str:
    """The line :func:`escape_text` was given."""
    return _outside_code(text, _ESCAPED, {"&lt;": "<", "&gt;": ">", "&amp;": "&"})


@dataclass(frozen=True)
class Figure:
    """A number with its unit, as written (``text``) and as a value."""

    text: str
    value: Decimal
    unit: str

    def __str__(self) -> str:
        space = "" if self.unit in ("x", "%") else " "
        return f"{self.text}{space}{self.unit}"


def figure(number: str, unit: str) -> Figure | None:
    """The figure ``number unit``, or None if ``number`` is not a number."""
    try:
        value = Decimal(number.replace(",", ""))
    except InvalidOperation:
        return None
    return Figure(number, value, _SINGULAR.get(unit, unit))


def figures_in(text: str, unit: str | None = None) -> list[Figure]:
    """Every figure of ``text``; a number without a unit that is the whole text or leads it
    before a parenthesis (a table cell: ``2.77 (6.5x)``) takes ``unit`` if given."""
    found_all = [figure(m.group("number"), m.group("unit")) for m in FIGURE.finditer(text)]
    bare = _BARE.match(text)
    if bare and unit and not FIGURE.match(text.strip().lstrip("+~")):
        found_all.insert(0, figure(bare.group("number"), unit))
    return [found for found in found_all if found is not None]


def header_unit(header: str) -> str | None:
    """The unit a column header names (``wall s``, ``x faster``, ``µs/key``; a count only as
    its first word: ``keys read``), or None."""
    header = header.replace("`", "").strip()
    match = _HEADER_UNIT.search(header) or _HEADER_COUNT.match(header)
    return _SINGULAR.get(match.group("unit"), match.group("unit")) if match else None


def caption_unit(caption: str) -> str | None:
    """The unit a table's caption gives its bare numbers: ``ms per page``, ``µs per returned
    key``; None if it names none that way (its other figures are the setting, not the cells)."""
    match = re.search(r"(?:^|[;,(]\s*)(ns|µs|ms|s|MiB|KiB) per\b", caption)
    return match.group(1) if match else None


def _cells(line: str) -> list[str]:
    return [unescape_text(cell.strip()) for cell in line.strip().strip("|").split("|")]


def _aligned_rows(block: list[str]) -> list[list[str]]:
    return [
        re.split(r"\s{2,}", line.strip())
        for line in block
        if line.strip() and not set(line.strip()) <= {"-"}
    ]


def parse_report(markdown: str) -> dict[str, Any]:
    """The report page's sections, their tables (rows of cells) and their other lines."""
    made = re.search(r"^- made (\S+) at commit `([^`]+)`", markdown, re.M)
    data: dict[str, Any] = {
        "made": made.group(1) if made else None,
        "commit": made.group(2) if made else None,
        "sections": [],
    }
    for chunk in re.split(r"^## ", markdown, flags=re.M)[1:]:
        lines = chunk.splitlines()
        run = re.search(r"\[`benchmarks/([\w.]+)`\].*?run as `([^`]*)`", chunk)
        section: dict[str, Any] = {
            "title": unescape_text(lines[0].strip()),
            "script": run.group(1) if run else None,
            "run_as": run.group(2) if run else None,
            "tables": [],
            "lines": [],
        }
        caption: str | None = None
        index = 1
        while index < len(lines):
            line = lines[index]
            if line.startswith("|"):
                block = []
                while index < len(lines) and lines[index].startswith("|"):
                    block.append(lines[index])
                    index += 1
                rows = [_cells(row) for row in block if not re.fullmatch(r"[|\s:-]+", row)]
                section["tables"].append({"caption": caption, "header": rows[0], "rows": rows[1:]})
                caption = None
                continue
            if line.startswith("```"):
                index += 1
                block = []
                while index < len(lines) and not lines[index].startswith("```"):
                    block.append(lines[index])
                    index += 1
                index += 1
                rows = _aligned_rows(block)
                if len(rows) > 1 and len(rows[0]) > 1:
                    section["tables"].append(
                        {"caption": caption, "header": rows[0], "rows": rows[1:]}
                    )
                else:
                    section["lines"] += [" ".join(row) for row in rows]
                caption = None
                continue
            text = unescape_text(line.strip())
            if text and not text.startswith(("**How:**", "[`benchmarks/", "![")):
                section["lines"].append(text.removeprefix("### ").removeprefix("- "))
                caption = text
            index += 1
        data["sections"].append(section)
    return data


def report_figures(data: dict[str, Any]) -> list[tuple[Figure, str]]:
    """Every figure of the report's data with the title of its section."""
    found: list[tuple[Figure, str]] = []
    for section in data["sections"]:
        title = section["title"]
        for line in section["lines"]:
            found += [(each, title) for each in figures_in(line)]
        for table in section["tables"]:
            fallback = caption_unit(table["caption"] or "")
            units = [header_unit(cell) or fallback for cell in table["header"]]
            for row in table["rows"]:
                for column, cell in enumerate(row):
                    unit = units[column] if column < len(units) else None
                    found += [(each, title) for each in figures_in(cell, unit)]
            for cell in table["header"]:
                found += [(each, title) for each in figures_in(cell)]
    return found


def _places(number: str) -> int:
    return len(number.split(".")[1]) if "." in number and "e" not in number else 0


def matches(quoted: Figure, reported: Figure) -> bool:
    """Whether a quoted figure is the reported one: the same unit and the same value, or the
    reported value rounded to the quoted figure's decimals (``11.9 s`` quotes ``11.86 s``),
    if the quoted figure keeps at least two significant digits (``1 s`` quotes no ``1.42 s``)."""
    if quoted.unit != reported.unit:
        return False
    if quoted.value == reported.value:
        return True
    places = _places(quoted.text)
    if places == 0 or len(quoted.text.replace(",", "").replace(".", "").lstrip("0")) < 2:
        return False
    step = Decimal(1).scaleb(-places)
    return quoted.value in {
        reported.value.quantize(step, rounding=ROUND_HALF_UP),
        reported.value.quantize(step, rounding=ROUND_HALF_EVEN),
    }


def write_data(page: Path = PAGE, data_file: Path = DATA) -> dict[str, Any]:
    """Parse the report page into its data file (beside it); the data."""
    data = parse_report(page.read_text())
    data_file.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return data


if __name__ == "__main__":
    page = Path(sys.argv[1]) if len(sys.argv) > 1 else PAGE
    write_data(page, page.with_suffix(".json"))
    print(f"wrote {page.with_suffix('.json')}", file=sys.stderr)
