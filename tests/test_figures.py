"""Every figure the README and the documentation pages quote as a measurement is in the latest
benchmark report (``docs/benchmarks.json``, the data of ``docs/benchmarks.md``).

The rule (docs/project/contributing.md, "How a figure gets into the pages"):

- A figure is a number with a unit: ``ns``, ``µs``, ``ms``, ``s``, ``x``, ``%``, ``calls``,
  ``keys``, ``items``, ``MiB``, ``KiB`` (``11.9 s``, ``0.028x``, ``1,037 calls``); in a table, a
  bare number whose column header names a unit (``wall s``). Inline code and fenced blocks are
  not prose and hold no figures; a figure written ``~4 µs`` is arithmetic on quoted figures
  (an approximation), not a measurement, and is not checked.
- ``<!-- figures: benchmarks -->`` opens a region (to ``<!-- /figures -->``, the next heading
  or the next marker) whose every figure must be in the report: the same unit, and the same
  value or the report's value rounded to the quoted decimals (``11.9 s`` for ``11.86 s``).
- ``<!-- figures: one-off benchmarks/SCRIPT.py YYYY-MM-DD -->`` opens a region of figures
  measured outside the report: the script must exist, and the region's text must name it and
  the date, so a reader sees where they come from; its figures are not checked.
- Outside such regions a page may not show a measurement-like figure (a number with decimals
  and a unit of time or ``x``): quote it in a region, or write it as ``~`` arithmetic.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from report_data import (  # noqa: E402  (benchmarks/ is a folder of scripts, not a package)
    FIGURE,
    Figure,
    figures_in,
    header_unit,
    matches,
    parse_report,
    report_figures,
)

REPORT_PAGE = ROOT / "docs" / "benchmarks.md"
REPORT_DATA = ROOT / "docs" / "benchmarks.json"
#: Pages that quote figures: the README and the site's pages but the report itself and the
#: changelog (a record of what each release measured then).
PAGES = [
    ROOT / "README.md",
    *(
        page
        for page in sorted((ROOT / "docs").rglob("*.md"))
        if page != REPORT_PAGE and page.name != "changelog.md"
    ),
]
MARKER = re.compile(
    r"<!-- figures: (?:(?P<checked>benchmarks)|one-off (?P<script>benchmarks/[\w.]+\.py)"
    r" (?P<date>\d{4}-\d{2}-\d{2})) -->|(?P<end><!-- /figures -->)"
)
#: A figure that looks measured: decimals and a unit of time or a ratio.
MEASURED_LOOKING = re.compile(r"(?<![\w.~])\d+\.\d+ ?(?:ns|µs|ms|s|x)(?!\w)")


@dataclass
class Region:
    """A part of a page: its kind (``checked``, ``one-off`` or ``plain``), its text, where it
    starts, and for a one-off region the script and date it names."""

    kind: str
    text: str
    line: int
    script: str = ""
    date: str = ""


def regions(markdown: str) -> list[Region]:
    """The page cut at its markers and headings, fenced code blocks blanked out."""
    markdown = re.sub(
        r"^```.*?^```", lambda m: "\n" * m.group(0).count("\n"), markdown, flags=re.S | re.M
    )
    found = [Region("plain", "", 1)]
    for number, line in enumerate(markdown.splitlines(), start=1):
        marker = MARKER.fullmatch(line.strip())  # a marker is a line of its own
        if marker and marker.group("checked"):
            found.append(Region("checked", "", number))
        elif marker and marker.group("script"):
            found.append(Region("one-off", "", number, marker.group("script"), marker["date"]))
        elif marker or line.startswith("#"):
            found.append(Region("plain", "", number))
        found[-1].text += line + "\n"
    return found


def quoted_figures(text: str) -> list[tuple[int, Figure]]:
    """The figures of a region's text by the rule above, each with its line's offset."""
    found: list[tuple[int, Figure]] = []
    units: list[str | None] = []
    for offset, line in enumerate(text.splitlines()):
        line = re.sub(r"`[^`]*`", "", line)
        if line.startswith("|"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if all(re.fullmatch(r":?-+:?", cell) for cell in cells):
                continue
            if not units:
                units = [header_unit(cell) for cell in cells]
            else:
                for column, cell in enumerate(cells):
                    unit = units[column] if column < len(units) else None
                    if not cell.startswith("~"):
                        found += [(offset, each) for each in figures_in(cell, unit)]
                continue
        else:
            units = []
        for match in FIGURE.finditer(line):
            if match.start() == 0 or line[match.start() - 1] != "~":
                found += [(offset, each) for each in figures_in(match.group(0))]
    return found


def closest(quoted: Figure, reported: list[tuple[Figure, str]]) -> str:
    """The report's three figures of the same unit nearest a quoted one, with their sections."""
    same = [(each, title) for each, title in reported if each.unit == quoted.unit]

    def distance(pair: tuple[Figure, str]) -> Decimal:
        return abs(pair[0].value - quoted.value)

    nearest = sorted(same, key=distance)[:3]
    return "; ".join(f"{each} ({title})" for each, title in nearest) or "none of that unit"


def stale(page_text: str, reported: list[tuple[Figure, str]]) -> list[str]:
    """What is wrong with a page's figures: one line each."""
    problems = []
    for region in regions(page_text):
        if region.kind == "checked":
            for offset, quoted in quoted_figures(region.text):
                if not any(matches(quoted, each) for each, _ in reported):
                    problems.append(
                        f"line {region.line + offset}: {quoted} is not in the report; closest: "
                        f"{closest(quoted, reported)}"
                    )
        elif region.kind == "one-off":
            if not (ROOT / region.script).exists():
                problems.append(f"line {region.line}: {region.script} does not exist")
            date.fromisoformat(region.date)
            body = region.text.split("-->", 1)[1]
            for needed in (region.script, region.date):
                if needed not in body:
                    problems.append(
                        f"line {region.line}: a one-off region's text must say {needed!r}"
                    )
        else:
            text = re.sub(r"`[^`]*`", "", region.text)
            for match in MEASURED_LOOKING.finditer(text):
                number = region.line + text[: match.start()].count("\n")
                problems.append(
                    f"line {number}: {match.group(0)!r} looks measured but is in no "
                    "'<!-- figures: ... -->' region"
                )
    return problems


@pytest.fixture(scope="module")
def reported() -> list[tuple[Figure, str]]:
    return report_figures(json.loads(REPORT_DATA.read_text()))


def test_the_data_file_is_the_report_page() -> None:
    """docs/benchmarks.json holds exactly the figures of docs/benchmarks.md (report.py writes
    both; `python benchmarks/report_data.py` rewrites the data from the page)."""
    assert json.loads(REPORT_DATA.read_text()) == parse_report(REPORT_PAGE.read_text())


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_quoted_figure_is_in_the_report(
    page: Path, reported: list[tuple[Figure, str]]
) -> None:
    problems = stale(page.read_text(), reported)
    assert not problems, f"{page.relative_to(ROOT)}:\n" + "\n".join(problems)


def test_the_readme_table_is_checked() -> None:
    """The README's "Measured" table is a checked region (the first thing a reader compares)."""
    readme = (ROOT / "README.md").read_text()
    measured = readme.split("## Measured", 1)[1].split("\n## ", 1)[0]
    assert "<!-- figures: benchmarks -->" in measured
    assert any(region.kind == "checked" and "|" in region.text for region in regions(readme))


def test_a_stale_figure_fails(reported: list[tuple[Figure, str]]) -> None:
    """The rule can fail: the stale figures issue 33 found are caught, with the report's
    closest figures named; the report's own figures, rounded, pass."""
    # (1,041 calls: 1,033, the stale figure issue 33 found, is now a real one: a columns run)
    page = "## S3\n\n<!-- figures: benchmarks -->\nsplit 29.0 s (1,041 calls, 22.9 s CPU): 7.6x\n"
    problems = stale(page, reported)
    assert len(problems) == 4, problems
    assert "29.0 s is not in the report; closest: " in problems[0]
    # The nearest calls are the 1,000,000-key day's, with their section named.
    assert "closest: 1045 calls (S3 at scale: a day of 1,000,000 keys" in problems[1]
    good = "<!-- figures: benchmarks -->\n10.0 s, 1,045 calls, 8.8 s of CPU, 9.6x, 110 ns\n"
    assert stale(good, reported) == []
    # Rounding never reaches below two significant digits: "1 s" quotes no 1.42 s.
    assert not matches(Figure("1", Decimal(1), "s"), Figure("1.42", Decimal("1.42"), "s"))
    assert matches(Figure("5.7", Decimal("5.7"), "x"), Figure("5.74", Decimal("5.74"), "x"))
    assert not matches(Figure("5.7", Decimal("5.7"), "s"), Figure("5.74", Decimal("5.74"), "x"))


def test_unmarked_and_one_off_figures(reported: list[tuple[Figure, str]]) -> None:
    """A measured-looking figure outside a region fails; a one-off region must name its
    script and date in its text; a table's bare numbers take their column's unit."""
    assert stale("took 12.7 s in one run\n", reported)
    assert stale("took ~12.7 s, about\n", reported) == []
    one_off = "<!-- figures: one-off benchmarks/spark_window.py 2026-11-24 -->\n"
    assert stale(one_off + "25.3 s vs 7.4 s\n", reported)
    named = one_off + "25.3 s vs 7.4 s (benchmarks/spark_window.py, 2026-11-24)\n"
    assert stale(named, reported) == []
    missing = "<!-- figures: one-off benchmarks/nothing.py 2026-11-24 -->\n"
    assert stale(missing + "3 s (benchmarks/nothing.py, 2026-11-24)\n", reported)
    table = "<!-- figures: benchmarks -->\n| method | wall s |\n|---|--:|\n| split | 99.99 |\n"
    assert stale(table, reported)
    assert stale(table.replace("99.99", "10.02"), reported) == []
