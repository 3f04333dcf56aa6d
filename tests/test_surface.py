"""The public surface stays small and taught (issue 43): at most ``MAX_EXPORTED`` names exported
from the public modules, each taught by the docs, the README, an example or a notebook, or
needed by a public signature (the short list below); the errors module exports exactly its
exceptions; and the teaching material imports from a public module only what it exports.

The count reads each public module's ``__all__`` with :mod:`ast` (tests/surfacesupport.py),
as the issue's own measure did (232 names before this step). ``ulidkeys.errors`` is counted
apart: its exceptions are public by rule (code catches them) and had no ``__all__`` then.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re

import pytest
from surfacesupport import ERRORS, PUBLIC, Unit, exported, imports, surface, taught_where, teaching

import ulidkeys.errors

MAX_EXPORTED = 120

#: Exported names no teaching material names, kept because a public signature needs them (a
#: return type users annotate, what a callback is given). As short as possible: a name here
#: that the docs come to teach, or that no public signature holds, fails the test below.
SIGNATURE_ONLY: frozenset[tuple[str, str]] = frozenset()


def counted() -> dict[str, list[str]]:
    return {module: names for module, names in surface().items() if module != ERRORS}


def test_at_most_120_names_are_exported() -> None:
    names = counted()
    total = sum(len(found) for found in names.values())
    per_module = ", ".join(f"{module} {len(found)}" for module, found in names.items())
    assert total <= MAX_EXPORTED, f"{total} names exported ({per_module})"
    assert total > 60, per_module  # the count read the modules (an empty read would pass)


#: Two functions of the same name, one per service (``ulidkeys.s3``'s and ``ulidkeys.dynamodb``'s).
PER_SERVICE = ("install_fast_pages", "remove_fast_pages", "survey")


def test_a_name_has_one_home() -> None:
    homes: dict[str, list[str]] = {}
    for module, names in counted().items():
        for name in names:
            homes.setdefault(name, []).append(module)
    twice = {n: m for n, m in homes.items() if len(m) > 1 and n not in PER_SERVICE}
    assert not twice, f"exported from two modules: {twice}"


def test_every_export_is_a_name_the_module_has() -> None:
    missing = [
        f"{module}.{name}"
        for module, names in surface().items()
        for name in names
        if not hasattr(importlib.import_module(module), name)
    ]
    assert not missing


def test_errors_exports_exactly_its_exceptions() -> None:
    defined = {
        name
        for name, value in vars(ulidkeys.errors).items()
        if inspect.isclass(value)
        and issubclass(value, BaseException)
        and value.__module__ == ERRORS
    }
    assert set(exported(ERRORS)) == defined
    assert len(defined) > 30


def test_the_survey_package_exports_nothing() -> None:
    assert exported("ulidkeys.survey") == []


def untaught(names: dict[str, list[str]], units: list[Unit]) -> list[str]:
    return [
        f"{module}.{name}"
        for module, found in names.items()
        for name in found
        if (module, name) not in SIGNATURE_ONLY and taught_where(module, name, units) is None
    ]


def test_every_exported_name_is_taught_or_needed_by_a_signature() -> None:
    units = teaching()
    assert len(units) > 25  # docs pages, the README, examples, notebooks
    missing = untaught(counted(), units)
    assert not missing, (
        f"exported but taught nowhere (docs outside the reference, README, examples, notebooks): "
        f"{missing}; teach them, make them private, or (only if a public signature needs them) "
        "add them to SIGNATURE_ONLY"
    )


def test_the_check_finds_an_untaught_name() -> None:
    page = "`ulidkeys.s3` lists windows: `Bucket(s3, 'photos')`; a Survey is its answer."
    units = [Unit("page.md", page, "Bucket(s3, 'photos')")]
    found = untaught({"ulidkeys.s3": ["Bucket", "Survey", "KeyLayout"]}, units)
    assert found == ["ulidkeys.s3.Survey", "ulidkeys.s3.KeyLayout"]  # prose is not teaching
    imported = [
        Unit("x.py", "from ulidkeys.s3 import KeyLayout", "from ulidkeys.s3 import KeyLayout")
    ]
    assert untaught({"ulidkeys.s3": ["KeyLayout"]}, imported) == []
    assert untaught({"ulidkeys.dynamodb": ["KeyLayout"]}, imported) == [
        "ulidkeys.dynamodb.KeyLayout"
    ]


def signature_text(module: str, name: str) -> str:
    """The signatures of an exported object and of its public members (a class's bases too)."""

    def signature(value: object) -> str:
        try:
            return str(inspect.signature(value))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return ""

    value = getattr(importlib.import_module(module), name)
    if not inspect.isclass(value):
        return signature(value) if callable(value) else ""
    texts = [signature(value), " ".join(map(str, getattr(value, "__orig_bases__", ())))]
    texts += map(str, getattr(value, "__annotations__", {}).values())
    for attribute in dir(value):
        if attribute.startswith("_"):
            continue
        static = inspect.getattr_static(value, attribute, None)
        if isinstance(static, property) and static.fget is not None:
            texts.append(str(static.fget.__annotations__.get("return", "")))
        elif callable(getattr(value, attribute, None)):
            texts.append(signature(getattr(value, attribute)))
    return "\n".join(texts)


def test_the_signature_only_names_are_few_untaught_and_in_a_signature() -> None:
    units = teaching()
    names = counted()
    for module, name in SIGNATURE_ONLY:
        assert name in names[module], f"{module}.{name} is listed but not exported"
        assert taught_where(module, name, units) is None, f"{module}.{name} is taught: unlist it"
        others = "\n".join(
            signature_text(owner, other)
            for owner, found in names.items()
            for other in found
            if (owner, other) != (module, name)
        )
        assert re.search(rf"\b{name}\b", others), f"no public signature holds {module}.{name}"
    assert len(SIGNATURE_ONLY) <= 10


def test_the_teaching_material_imports_only_exported_names() -> None:
    names = surface()
    wrong = []
    for unit in teaching():
        for module, imported in imports(unit.code):
            if module not in names:
                continue
            package = hasattr(importlib.import_module(module), "__path__")
            for name in imported:
                if name in names[module]:
                    continue
                if package and importlib.util.find_spec(f"{module}.{name}") is not None:
                    continue  # a submodule: from ulidkeys import config
                wrong.append(f"{unit.path}: from {module} import {name}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("module", PUBLIC)
def test_each_public_module_says_what_it_offers(module: str) -> None:
    """The module docstring names every name the module exports."""
    doc = importlib.import_module(module).__doc__ or ""
    unnamed = [name for name in exported(module) if not re.search(rf"\b{name}\b", doc)]
    assert not unnamed, f"{module}'s docstring does not list {unnamed}"
