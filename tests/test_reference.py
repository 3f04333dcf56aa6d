"""The documentation site builds strictly (a broken link, a missing reference or a bad
docstring fails), and its generated reference documents exactly the public names: each name of
each public module's ``__all__`` is in the site's ``objects.inv`` (what mkdocstrings rendered)
with a docstring (a data constant: a ``#:`` comment or a string under it), and every object the
reference renders is an exported name, a member of one, or a public module. No page of the built
site shows a Sphinx role raw (``:class:`X```), a cross-reference the site renders as plain
code names nothing the reference documents, no heading holds text read as an unknown HTML tag,
and the benchmark page's table of contents shows its headings' text."""

from __future__ import annotations

import ast
import html
import importlib
import inspect
import re
import subprocess
import sys
import zlib
from collections import defaultdict
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from surfacesupport import PUBLIC, assigns

import ulidkeys

#: The strict documentation build: left out of `make test`, run by `make test-all` and CI.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
#: A Sphinx role nothing rendered: ``:class:`` before the code Markdown made of the backquoted
#: name (a role inside code, shown as an example, is ``<code>:class:`X`</code>``).
RAW_ROLE = re.compile(r":(?:py:)?[a-z]+:<code>")
#: A cross-reference autorefs could not resolve, rendered as plain code (its title: the target).
PLAIN_REFERENCE = re.compile(r'<span title="(ulidkeys(?:\.\w+)+)"><code>')


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once for this module's tests."""
    site = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": str(Path(sys.executable).parent)},
    )
    assert built.returncode == 0, built.stderr[-3000:]
    return site


@pytest.fixture(scope="module")
def objects(site: Path) -> dict[str, str]:
    """The site's ``objects.inv``: each object's path and priority ("1": where it is rendered,
    "2": another path of it, such as where a re-exported name is defined)."""
    header = (site / "objects.inv").read_bytes().split(b"\n", 4)
    assert header[0] == b"# Sphinx inventory version 2"
    lines = zlib.decompress(header[4]).decode().splitlines()
    return {line.split(" ")[0]: line.split(" ")[2] for line in lines}


@pytest.fixture(scope="module")
def inventory(objects: dict[str, str]) -> set[str]:
    return set(objects)


def public_names() -> Iterator[tuple[str, str]]:
    for name in PUBLIC:
        module = importlib.import_module(name)
        for member in module.__all__:
            yield name, member


def has_comment_docstring(value_name: str) -> bool:
    """Whether some module of the package documents the constant ``value_name`` where it is
    assigned: a ``#:`` comment right above it, or a string right below it."""
    for path in (ROOT / "ulidkeys").rglob("*.py"):
        text = path.read_text()
        lines = text.splitlines()
        tree = ast.parse(text)
        for index, node in enumerate(tree.body):
            if not assigns(node, value_name):
                continue
            above = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
            below = tree.body[index + 1] if index + 1 < len(tree.body) else None
            string_below = isinstance(below, ast.Expr) and isinstance(below.value, ast.Constant)
            if above.startswith("#:") or string_below:
                return True
    return False


def test_every_public_name_is_in_the_reference_with_a_docstring(inventory: set[str]) -> None:
    names = list(public_names())
    assert len(names) > 100  # ulidkeys.errors' exceptions included
    absent = [f"{module}.{name}" for module, name in names if f"{module}.{name}" not in inventory]
    assert not absent, f"not in the built reference: {absent}"
    undocumented = []
    for module, name in names:
        value = getattr(importlib.import_module(module), name)
        if inspect.isclass(value) or inspect.isroutine(value) or inspect.ismodule(value):
            documented = bool(inspect.getdoc(value))
        else:
            documented = has_comment_docstring(name)
        if not documented:
            undocumented.append(f"{module}.{name}")
    assert not undocumented, f"public names without a docstring: {undocumented}"


def rendered_but_not_exported(objects: dict[str, str]) -> list[str]:
    """The objects the reference renders (priority 1) that are neither a public module, nor a
    name a public module exports, nor a member of such a name (dunders aside)."""
    exports = {name: set(importlib.import_module(name).__all__) for name in PUBLIC}
    wrong = []
    for path, priority in sorted(objects.items()):
        if priority != "1" or path in exports:
            continue
        owners = [module for module in exports if path.startswith(module + ".")]
        if not owners:
            wrong.append(path)
            continue
        module = max(owners, key=len)
        first = path[len(module) + 1 :].split(".")[0]
        if not first.startswith("__") and first not in exports[module]:
            wrong.append(path)
    return wrong


def test_the_reference_documents_only_exported_names(objects: dict[str, str]) -> None:
    assert len(objects) > 500
    wrong = rendered_but_not_exported(objects)
    assert not wrong, f"the reference renders names no public module exports: {wrong}"


def test_a_rendered_private_name_is_found() -> None:
    found = rendered_but_not_exported(
        {
            "ulidkeys.s3": "1",
            "ulidkeys.s3.Bucket.list_window": "1",
            "ulidkeys.s3.KeyLayout": "2",  # another path of a name rendered elsewhere
            "ulidkeys.s3.ListingSource": "1",
            "ulidkeys.survey.shapes.Shape": "1",
            "ulidkeys.__version__": "1",
        }
    )
    assert found == ["ulidkeys.s3.ListingSource", "ulidkeys.survey.shapes.Shape"]


def test_version_is_the_installed_metadata() -> None:
    from importlib.metadata import version

    assert ulidkeys.__version__ == version("ulidkeys")


def test_no_page_shows_a_raw_sphinx_role(site: Path) -> None:
    # The docstrings' roles (:class:`Registration`) are rewritten into cross-references when the
    # site is built (docs/hooks/sphinx_roles.py); one left raw reads ":class:Registration".
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 30
    raw = []
    for page in [*pages, site / "search" / "search_index.json"]:
        text = page.read_text()
        for match in RAW_ROLE.finditer(text):
            shown = text[max(match.start() - 60, 0) : match.end() + 40].replace("\n", " ")
            raw.append(f"{page.relative_to(site)}: ...{shown}...")
    assert not raw, f"{len(raw)} raw Sphinx roles on the built site:\n" + "\n".join(raw[:20])


def python_object(path: str) -> object:
    """The object at a dotted path (attributes as their classes hold them: a property, not
    its value), or None."""
    parts = path.split(".")
    for split in range(len(parts), 0, -1):
        try:
            value: object = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        try:
            for attribute in parts[split:]:
                value = inspect.getattr_static(value, attribute)
        except AttributeError:
            return None
        return value
    return None


def test_a_reference_shown_as_plain_code_names_nothing_the_reference_documents(
    site: Path, inventory: set[str]
) -> None:
    # A role (or a signature's annotation) whose target the reference renders is a link; one
    # left plain names an object the site documents under no path (a private helper). Checked
    # by the Python object, not the path: the reference documents KeyLayout as
    # ulidkeys.s3.KeyLayout, a docstring names it ulidkeys.planning.layout.KeyLayout.
    by_name = defaultdict(list)
    for name in inventory:
        by_name[name.rsplit(".", 1)[-1]].append(name)
    plain = 0
    linkable = (property, classmethod, staticmethod)
    wrong = []
    for page in sorted((site / "reference").rglob("*.html")):
        for path in sorted(set(PLAIN_REFERENCE.findall(page.read_text()))):
            plain += 1
            target = python_object(path)
            kind = inspect.isclass(target) or inspect.isroutine(target) or inspect.ismodule(target)
            if target is None or not (kind or isinstance(target, linkable)):
                continue
            documented = [
                name for name in by_name[path.rsplit(".", 1)[-1]] if python_object(name) is target
            ]
            if documented:
                wrong.append(
                    f"{page.relative_to(site)}: {path} is plain, documented as {documented}"
                )
    assert plain > 0  # the check ran: some private targets are named
    assert not wrong, "\n".join(wrong)


#: The elements a heading may hold (HTML's phrasing content the site's Markdown makes): any
#: other is text read as a tag (``<ulid>``), which neither the heading nor its TOC entry shows.
HEADING_ELEMENTS = frozenset(
    {"a", "abbr", "b", "br", "code", "em", "i", "img", "kbd", "mark", "s", "small", "span"}
    | {"strong", "sub", "sup", "u", "wbr"}
)


class HeadingTags(HTMLParser):
    """The elements inside each heading of a page: (heading text so far, tag)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str]] = []
        self._heading: str | None = None
        self._text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if re.fullmatch(r"h[1-6]", tag):
            self._heading, self._text = tag, ""
        elif self._heading:
            self.found.append((self._text, tag))

    def handle_endtag(self, tag: str) -> None:
        if tag == self._heading:
            self._heading = None

    def handle_data(self, data: str) -> None:
        if self._heading:
            self._text += data


def test_no_heading_holds_text_read_as_an_html_tag(site: Path) -> None:
    unknown = []
    for page in sorted(site.rglob("*.html")):
        parser = HeadingTags()
        parser.feed(page.read_text())
        unknown += [
            f"{page.relative_to(site)}: <{tag}> after {text!r}"
            for text, tag in parser.found
            if tag not in HEADING_ELEMENTS
        ]
    assert not unknown, "\n".join(unknown)


class TocEntries(HTMLParser):
    """The text of each table-of-contents link (``md-nav__link`` to ``#anchor``) of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.entries: list[str] = []
        self._inside = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        link = "md-nav__link" in (found.get("class") or "")
        if tag == "a" and link and (found.get("href") or "").startswith("#"):
            self._inside = True
            self.entries.append("")

    def handle_endtag(self, tag: str) -> None:
        self._inside = self._inside and tag != "a"

    def handle_data(self, data: str) -> None:
        if self._inside:
            self.entries[-1] += data


def test_the_benchmark_table_of_contents_shows_each_heading(site: Path) -> None:
    # docs/benchmarks.md's headings hold text like "KeyLayout('uploads/' + <ulid> + '.jpg')",
    # written escaped by benchmarks/report.py: raw, "<ulid>" was a tag, gone from the TOC.
    source = (ROOT / "docs" / "benchmarks.md").read_text()
    fenced = False
    headings = []
    for line in source.splitlines():
        fenced = fenced != line.startswith("```")
        if not fenced and re.match(r"#{2,3} ", line):
            headings.append(" ".join(html.unescape(line.split(" ", 1)[1]).split()))
    assert any("+ <ulid> +" in heading for heading in headings)
    toc = TocEntries()
    toc.feed((site / "benchmarks" / "index.html").read_text())
    shown = {" ".join(entry.split()) for entry in toc.entries}
    missing = [heading for heading in headings if heading not in shown]
    assert not missing, f"headings not shown as written in the table of contents: {missing}"
