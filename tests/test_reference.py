"""The documentation site builds strictly (a broken link, a missing reference or a bad
docstring fails), and its generated reference documents every public name: each name of each
public module's ``__all__`` is in the site's ``objects.inv`` (what mkdocstrings rendered) and
has a docstring (a data constant: a ``#:`` comment or a string under it)."""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

import ulidkeys

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = (
    "ulidkeys",
    "ulidkeys.s3",
    "ulidkeys.dynamodb",
    "ulidkeys.ids",
    "ulidkeys.aio",
    "ulidkeys.pydantic",
    "ulidkeys.pynamodb",
    "ulidkeys.polars",
    "ulidkeys.dask",
    "ulidkeys.config",
)
#: Modules documented whole, without an ``__all__``: every public name they define.
WHOLE = ("ulidkeys.errors",)


@pytest.fixture(scope="module")
def inventory(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    site = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": str(Path(sys.executable).parent)},
    )
    assert built.returncode == 0, built.stderr[-3000:]
    header = (site / "objects.inv").read_bytes().split(b"\n", 4)
    assert header[0] == b"# Sphinx inventory version 2"
    return {line.split(" ", 1)[0] for line in zlib.decompress(header[4]).decode().splitlines()}


def public_names() -> Iterator[tuple[str, str]]:
    for name in PUBLIC:
        module = importlib.import_module(name)
        for member in module.__all__:
            yield name, member
    for name in WHOLE:
        module = importlib.import_module(name)
        for member, value in vars(module).items():
            defined_here = getattr(value, "__module__", name) == name
            if (
                not member.startswith("_")
                and defined_here
                and (inspect.isclass(value) or inspect.isfunction(value))
            ):
                yield name, member


def has_comment_docstring(value_name: str) -> bool:
    """Whether some module of the package documents the constant ``value_name`` where it is
    assigned: a ``#:`` comment right above it, or a string right below it."""
    for path in (ROOT / "ulidkeys").rglob("*.py"):
        text = path.read_text()
        lines = text.splitlines()
        tree = ast.parse(text)
        for index, node in enumerate(tree.body):
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AnnAssign)
                else []
            )
            if not any(isinstance(t, ast.Name) and t.id == value_name for t in targets):
                continue
            above = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
            below = tree.body[index + 1] if index + 1 < len(tree.body) else None
            string_below = isinstance(below, ast.Expr) and isinstance(below.value, ast.Constant)
            if above.startswith("#:") or string_below:
                return True
    return False


def test_every_public_name_is_in_the_reference_with_a_docstring(inventory: set[str]) -> None:
    names = list(public_names())
    assert len(names) > 150
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


def test_version_is_the_installed_metadata() -> None:
    from importlib.metadata import version

    assert ulidkeys.__version__ == version("ulidkeys")
