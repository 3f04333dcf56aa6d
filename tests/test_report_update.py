"""``benchmarks/report.py --update``: re-run sections replace their old text in the page, the
others stay byte for byte, and the page says which sections are newer and when."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from report import updated, with_places  # benchmarks/ is a folder of scripts, on the path above
from report_data import parse_report

PAGE = """# Benchmarks

Every benchmark...

- made 2026-11-25T21:44:14Z at commit `e602e17`
- compare ratios within a table (measured side by side in one run), not figures across reports

## First

| candidate | ns per id |
|---|---|
| a | 280 |

## Second

| candidate | ns per id |
|---|---|
| b | 644 |

## Third

text 1.5 s
"""


def new_section(title: str, value: int) -> list[str]:
    return [f"## {title}", "", "| candidate | ns per id |", "|---|---|", f"| b | {value} |", ""]


def test_an_updated_section_replaces_only_its_own_text() -> None:
    page = updated(PAGE, {"Second": new_section("Second", 533)}, "2026-11-26T00:00:00Z at `b56`")
    first, second, third = (page.split("\n## ")[i] for i in (1, 2, 3))
    assert "## " + first + "\n" in PAGE and "## " + third in PAGE  # untouched, byte for byte
    assert "| b | 533 |" in second and "644" not in page
    assert second.startswith("Second\n\n*Re-run 2026-11-26T00:00:00Z at `b56`.*\n")
    header = page.split("\n## ")[0]
    assert header.count("re-run since") == 1 and '"Second"' in header
    assert header.index("re-run since") < header.index("- compare ratios")
    # the data parsed back from the page holds the new figure, not the old one
    data = str(parse_report(page))
    assert "533" in data and "644" not in data


def test_updates_accumulate_in_the_header() -> None:
    once = updated(PAGE, {"Second": new_section("Second", 533)}, "one")
    twice = updated(once, {"First": new_section("First", 270)}, "two")
    header = twice.split("\n## ")[0]
    assert header.count("re-run since") == 1
    assert '"First"; "Second"' in header
    assert "*Re-run one.*" in twice and "*Re-run two.*" in twice


def test_a_section_the_page_lacks_is_refused() -> None:
    with pytest.raises(SystemExit, match="no section 'Fourth'"):
        updated(PAGE, {"Fourth": new_section("Fourth", 1)}, "now")


def test_a_new_section_is_added_at_its_place_in_the_report() -> None:
    order = ["First", "Second", "New", "Third"]
    page = updated(with_places(PAGE, order, {"New"}), {"New": new_section("New", 7)}, "now")
    titles = [part.splitlines()[0] for part in page.split("\n## ")[1:]]
    assert titles == ["First", "Second", "New", "Third"]
    assert "| b | 7 |" in page and "*Re-run now.*" in page
    assert '"New"' in page.split("\n## ")[0]
    for title in ("First", "Second"):  # the others stay byte for byte
        old = PAGE.split(f"## {title}\n")[1].split("\n## ")[0]
        assert f"## {title}\n{old}\n## " in page
    last = with_places(PAGE, [*order, "Last"], {"Last"})
    assert last.startswith(PAGE) and last.rstrip().endswith("## Last")
    assert with_places(PAGE, order, {"Second"}) == PAGE  # present: nothing to add
