"""The public surface, read from the sources: the public modules, what each exports (its
``__all__``, parsed with :mod:`ast`, nothing imported), and the teaching material (the docs'
guides and explanations, the README, the examples and the notebooks' sources) with the names it
teaches. Used by tests/test_surface.py and tests/test_reference.py."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The modules users import from: every name they export is public, the rest of the package is
#: not. ``ulidkeys.errors`` exports its exceptions (code catches them); ``ulidkeys.survey``
#: exports nothing (the adapters' ``survey`` functions are its API).
PUBLIC = (
    "ulidkeys",
    "ulidkeys.s3",
    "ulidkeys.dynamodb",
    "ulidkeys.ids",
    "ulidkeys.aio",
    "ulidkeys.config",
    "ulidkeys.emit",
    "ulidkeys.pydantic",
    "ulidkeys.pynamodb",
    "ulidkeys.polars",
    "ulidkeys.dask",
    "ulidkeys.spark",
    "ulidkeys.errors",
    "ulidkeys.ulid",
    "ulidkeys.survey",
)
#: The module whose names are public by rule rather than by teaching: its exceptions.
ERRORS = "ulidkeys.errors"


def source_of(module: str, root: Path = ROOT) -> Path:
    """The file of a module of the package (a package's ``__init__.py``)."""
    path = root.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def assigns(node: ast.stmt, name: str) -> bool:
    """Whether a module-level statement assigns ``name`` (``x = ...`` or ``x: T = ...``)."""
    targets = (
        node.targets
        if isinstance(node, ast.Assign)
        else [node.target]
        if isinstance(node, ast.AnnAssign)
        else []
    )
    return any(isinstance(t, ast.Name) and t.id == name for t in targets)


def exported(module: str, root: Path = ROOT) -> list[str]:
    """The module's ``__all__`` as written (empty if it has none)."""
    tree = ast.parse(source_of(module, root).read_text())
    for node in tree.body:
        if assigns(node, "__all__"):
            assert isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None
            return list(ast.literal_eval(node.value))
    return []


def surface(root: Path = ROOT) -> dict[str, list[str]]:
    """Every public module's exported names."""
    return {module: exported(module, root) for module in PUBLIC}


# --- the teaching material -------------------------------------------------------------------

#: A fenced block of a Markdown page.
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
#: An inline code span (one or more backquotes, the same number closing it).
SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
#: ``from MODULE import NAMES`` (one line, or parenthesised over several).
IMPORT = re.compile(r"from\s+([\w.]+)\s+import\s+(\([^)]*\)|[^\n]*)")


@dataclass(frozen=True)
class Unit:
    """One piece of teaching material: its path, its text and the code in it (a page's fenced
    blocks and inline code; all of a Python file)."""

    path: str
    text: str
    code: str


def code_of(text: str) -> str:
    """A Markdown page's code: its fenced blocks and its inline code spans."""
    blocks = FENCE.findall(text)
    rest = FENCE.sub("", text)
    spans = [m.group(2) for m in SPAN.finditer(rest) if "\n\n" not in m.group(2)]
    return "\n".join(blocks + spans)


def teaching(root: Path = ROOT) -> list[Unit]:
    """The guides, explanations and start pages of docs/ (not the reference, which is generated
    from the exports, nor docs/project/ and the generated benchmark page, which teach no API),
    the README, the examples and the notebooks' sources."""
    units = []
    for page in sorted((root / "docs").rglob("*.md")):
        relative = page.relative_to(root / "docs")
        if relative.parts[0] in ("reference", "project") or relative.name == "benchmarks.md":
            continue
        text = page.read_text()
        units.append(Unit(str(page.relative_to(root)), text, code_of(text)))
    readme = (root / "README.md").read_text()
    units.append(Unit("README.md", readme, code_of(readme)))
    for source in [
        *sorted((root / "examples").glob("*.py")),
        *(root / "notebooks" / "src").glob("*.py"),
    ]:
        text = source.read_text()
        units.append(Unit(str(source.relative_to(root)), text, text))
    return units


def imports(code: str) -> Iterator[tuple[str, list[str]]]:
    """``(module, names)`` of each ``from MODULE import NAMES`` of some code."""
    for module, names in IMPORT.findall(code):
        body = re.sub(r"#[^\n]*", "", names.strip("()"))
        yield module, [part.split(" as ")[0].strip() for part in body.split(",") if part.strip()]


def taught_where(module: str, name: str, units: Iterable[Unit]) -> str | None:
    """The first unit that teaches ``module.name``, or None: one that imports the name from the
    module, spells ``module.name`` (or ``alias.name`` after ``from ... import alias``), or
    mentions the module and uses the name in its code."""
    alias = module.rsplit(".", 1)[-1]
    word = rf"(?<![\w.]){re.escape(name)}\b"
    for unit in units:
        if any(found == module and name in names for found, names in imports(unit.code)):
            return unit.path
        if re.search(rf"(?<![\w.]){re.escape(module)}\.{re.escape(name)}\b", unit.code):
            return unit.path
        if module in unit.text and (
            re.search(rf"(?<![\w.]){re.escape(alias)}\.{re.escape(name)}\b", unit.code)
            or re.search(word, unit.code)
        ):
            return unit.path
    return None
