"""The benchmark report shows a script's text as the script printed it: ``<ulid>`` in a heading
(``KeyLayout('uploads/' + <ulid> + '.jpg')``) was read as an HTML tag, gone from the heading and
from the table of contents (``'uploads/' + + '.jpg'``). ``benchmarks/report.py`` escapes what
HTML would read as markup outside code, ``report_data.py`` reads the page back to the printed
text, and the committed page is written that way."""

from __future__ import annotations

import html
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import markdown
from hypothesis import example, given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from report import as_markdown  # benchmarks/ is a folder of scripts, on the path above
from report_data import PAGE, escape_text, parse_report, unescape_text

HEADING = "### KeyLayout('uploads/' + <ulid> + '.jpg'): 100,000 keys over 30 days"
OUTPUT = f"""{HEADING}

| window | calls |
|---|---|
| `<ulid>` 1 h & 1 day | 4 |

- [x] KeyLayout('uploads/' + <shard 00/..03/> + <ulid>) 1 h: calls 1 <= 2 &lt; 3
```
raw <b> stays &amp;
```"""


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def shown(markup: str) -> str:
    """The text a browser shows for ``markup``, spaces run together."""
    parser = _Text()
    parser.feed(markup)
    return " ".join("".join(parser.parts).split())


def test_a_heading_keeps_its_text_in_the_table_of_contents() -> None:
    page = as_markdown(OUTPUT)
    md = markdown.Markdown(extensions=["toc", "tables"])
    rendered = md.convert(page)
    [token] = md.toc_tokens
    assert html.unescape(token["name"]) == HEADING.removeprefix("### ")
    assert shown(rendered).startswith(HEADING.removeprefix("### "))
    assert "+ <ulid> + '.jpg'" in shown(rendered)
    assert "<shard 00/..03/> + <ulid>) 1 h: calls 1 <= 2 &lt; 3" in shown(rendered)
    assert "| `<ulid>` 1 h & 1 day |" in page  # a code span as printed; a lone & is no entity
    assert "<ulid> 1 h & 1 day 4" in shown(rendered)
    assert "raw <b> stays &amp;" in page  # a fenced block as printed


def test_the_data_read_back_holds_the_printed_text() -> None:
    data = parse_report("# B\n\n## Section\n\n" + as_markdown(OUTPUT) + "\n")
    [section] = data["sections"]
    assert HEADING.removeprefix("### ") in section["lines"]
    assert section["tables"][0]["rows"] == [["`<ulid>` 1 h & 1 day", "4"]]
    printed = "[x] KeyLayout('uploads/' + <shard 00/..03/> + <ulid>) 1 h: calls 1 <= 2 &lt; 3"
    assert printed in section["lines"]


TEXT = st.text(alphabet="ab1 <>&;#x/!?@:.=-`", max_size=40)


@given(TEXT)
def test_unescape_gives_back_what_escape_was_given(text: str) -> None:
    assert unescape_text(escape_text(text)) == text


@given(st.text(alphabet="ab1 <>&;#xX/!?@:.=", max_size=40))
@example("&#1")  # a numeric entity without its ";": Python-Markdown completes it to a character
@example("&#x1f a&#65b &amp &lt x")
def test_markdown_shows_escaped_text_as_it_was(text: str) -> None:
    # Python-Markdown is the judge: whatever a script prints (tags, autolinks, comments,
    # entities), the page shows those characters.
    line = "t " + text
    assert shown(markdown.markdown(escape_text(line))) == " ".join(line.split())


def test_the_committed_page_is_written_escaped() -> None:
    # Each line of docs/benchmarks.md outside a fenced block is as the report writes it: no
    # raw "<" (or entity) that the site would read as HTML.
    fenced = False
    raw = []
    for number, line in enumerate(PAGE.read_text().splitlines(), start=1):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and escape_text(unescape_text(line)) != line:
            raw.append(f"{number}: {line}")
    assert not raw, "\n".join(raw)
    assert re.search(r"^### KeyLayout\('uploads/' \+ &lt;ulid&gt; \+", PAGE.read_text(), re.M)
