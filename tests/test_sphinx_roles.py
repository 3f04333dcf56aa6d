"""The griffe extension that turns the docstrings' Sphinx roles into cross-references when the
site is built (docs/hooks/sphinx_roles.py), on a scratch package: each way Sphinx reads a role
resolves to the object it names, names outside the package are plain code, and a role that
names nothing is a warning naming it (the strict build fails on it). The built site itself is
checked in tests/test_reference.py."""

from __future__ import annotations

import importlib.util
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from griffe import Module, Object, load_extensions, temporary_visited_package

ROOT = Path(__file__).resolve().parent.parent


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "sphinx_roles_hook", ROOT / "docs" / "hooks" / "sphinx_roles.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


hook = _hook()

SCRATCH = {
    "__init__.py": '''"""Top: :class:`Thing`, :func:`~rolepkg.sub.helper`, :mod:`.sub`,
:class:`the thing <rolepkg.sub.Thing>`, :py:class:`rolepkg.sub.Thing`."""
from rolepkg.sub import Thing

__all__ = ["Thing"]
''',
    "sub.py": '''"""Sub."""
import json

import fancyextra


class Base:
    def base_method(self):
        """Base."""


class Thing(Base):
    """:meth:`base_method`, :meth:`run`, :func:`json.loads`, :exc:`ValueError`,
    :class:`!Nowhere`, :mod:`fancyextra.part`."""

    def run(self):
        """Calls :meth:`Thing.run`, :func:`helper` and :class:`Other`."""


def helper():
    """Nothing to resolve."""
''',
    "other.py": '''"""Other."""


class Other:
    """Defined once in the package, imported nowhere."""
''',
    "left/__init__.py": '"""L."""\nfrom rolepkg.left.model import Table\n__all__ = ["Table"]\n',
    "left/model.py": '"""Left model."""\n\n\nclass Table:\n    """Left."""\n',
    "left/use.py": '"""Uses :class:`Table` (the left one, the nearest exporter)."""\n',
    "right/__init__.py": '"""R."""\nfrom rolepkg.right.model import Table\n__all__ = ["Table"]\n',
    "right/model.py": '"""Right model."""\n\n\nclass Table:\n    """Right."""\n',
    "broken.py": '''"""Broken: :class:`Missing`, :ref:`somewhere`, :func:`json.nothing`,
:mod:`notinstalled.part`, :class:`Table`."""
''',
}


@pytest.fixture(scope="module")
def scratch() -> Iterator[Module]:
    extensions = load_extensions(hook.SphinxRoles)
    with temporary_visited_package("rolepkg", SCRATCH, extensions=extensions) as package:
        yield package


def doc(obj: Object) -> str:
    assert obj.docstring is not None
    return str(obj.docstring.value)


def link(path: str, title: str) -> str:
    return f'<autoref identifier="{path}" optional>`{title}`</autoref>'


def test_names_in_scope_full_paths_titles_and_relative_modules_become_links(
    scratch: Module,
) -> None:
    top = doc(scratch)
    assert link("rolepkg.sub.Thing", "Thing") in top  # a name the module imports
    assert link("rolepkg.sub.helper", "helper") in top  # ~ shows the last part
    assert link("rolepkg.sub", "sub") in top  # .sub: searched from the current module
    assert link("rolepkg.sub.Thing", "the thing") in top  # an explicit title
    assert link("rolepkg.sub.Thing", "rolepkg.sub.Thing") in top  # :py:class:, full path
    assert ":class:" not in top and ":func:" not in top and ":mod:" not in top


def test_methods_resolve_in_their_class_inherited_ones_too(scratch: Module) -> None:
    thing = doc(scratch["sub.Thing"])
    assert link("rolepkg.sub.Base.base_method", "base_method") in thing
    assert link("rolepkg.sub.Thing.run", "run") in thing
    run = doc(scratch["sub.Thing.run"])
    assert link("rolepkg.sub.Thing.run", "Thing.run") in run
    assert link("rolepkg.sub.helper", "helper") in run  # the module's scope, from a method
    # not imported where it is named: the one object of the package of that name
    assert link("rolepkg.other.Other", "Other") in run


def test_names_outside_the_package_are_plain_code(scratch: Module) -> None:
    thing = doc(scratch["sub.Thing"])
    assert "`json.loads`" in thing and "json.loads</autoref>" not in thing  # checked: it exists
    assert "`ValueError`" in thing  # a built-in
    assert "`Nowhere`" in thing  # Sphinx's !name: no link
    # a module the package imports that is not installed here (an optional extra): as written
    assert "`fancyextra.part`" in thing
    assert thing.count("<autoref") == 2  # base_method and run only


def test_a_name_two_modules_export_is_the_nearest_exporters(scratch: Module) -> None:
    assert link("rolepkg.left.model.Table", "Table") in doc(scratch["left.use"])


def test_a_role_that_names_nothing_is_a_warning_naming_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    extensions = load_extensions(hook.SphinxRoles)
    with (
        caplog.at_level(logging.WARNING, logger="griffe"),
        temporary_visited_package("rolepkg", SCRATCH, extensions=extensions) as package,
    ):
        broken = doc(package["broken"])
    warned = [r.getMessage() for r in caplog.records if "Sphinx role not resolved" in r.message]
    assert len(warned) == 5, warned
    assert all("rolepkg/broken.py:" in w and "(rolepkg.broken)" in w for w in warned)
    missing = next(w for w in warned if "Missing" in w)
    assert "broken.py:1 (rolepkg.broken): ':class:`Missing`': 'Missing' is no name" in missing
    assert "broken.py:2 (rolepkg.broken): ':mod:`notinstalled.part`'" in "".join(warned)
    assert any("':ref:`somewhere`': not a role of attr, class" in w for w in warned)
    assert any("json has no 'nothing'" in w for w in warned)
    assert any("no module 'notinstalled' is installed or imported" in w for w in warned)
    ambiguous = next(w for w in warned if ":class:`Table`" in w)
    assert "ambiguous" in ambiguous and "rolepkg.left.model.Table" in ambiguous
    assert "rolepkg.right.model.Table" in ambiguous
    # left as written (the page would show it raw, and the strict build stops on the warning)
    assert ":class:`Missing`" in broken and ":ref:`somewhere`" in broken


def test_parse_role_reads_sphinx_forms() -> None:
    parse = hook.parse_role
    assert parse("class", "~a.b.C") == hook.Role("class", "C", "a.b.C", True)
    assert parse("meth", "C.m") == hook.Role("meth", "C.m", "C.m", True)
    assert parse("meth", "title\n   <a.b.C.m>") == hook.Role("meth", "title", "a.b.C.m", True)
    assert parse("mod", ".sub") == hook.Role("mod", "sub", ".sub", True)
    assert parse("class", "!Name") == hook.Role("class", "Name", "Name", False)
