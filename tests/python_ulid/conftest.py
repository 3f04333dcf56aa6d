"""Runs python-ulid 4.1's own tests (vendored verbatim) against ulidkeys.

While pytest imports the vendored file, ``sys.modules["ulid"]`` (and its ``base32`` and
``constants``) are the shim of :mod:`ulid_shim`; the real python-ulid is put back right after,
so the other tests that compare against it (``import ulid as reference``) still get it. Each
vendored test gets a fresh default generator: freezegun moves the clock up to ten days ahead
there, and ulidkeys' strict policy keeps the later millisecond when the clock steps back (on
purpose), which would leak future times into the tests that run after.
"""

from __future__ import annotations

import sys
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest
from ulid_shim import base32, constants, shim

import ulidkeys.ulid as ours

VENDORED = Path(__file__).with_name("test_python_ulid_4_1.py")
#: python-ulid 4.1's test file imports ``datetime.UTC`` (Python 3.11+): on 3.10 it is not
#: collected (the rest of the suite runs there; tests/core/test_ulid_compat.py compares the
#: value API with python-ulid on every version).
collect_ignore = [] if sys.version_info >= (3, 11) else [VENDORED.name]
_NAMES = ("ulid", "ulid.base32", "ulid.constants")


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, Any]:
    """Serve the shim as ``ulid`` while the vendored module is imported, then restore."""
    if getattr(collector, "path", None) != VENDORED:
        return (yield)
    saved = {name: sys.modules.get(name) for name in _NAMES}
    sys.modules.update({"ulid": shim(), "ulid.base32": base32, "ulid.constants": constants})
    try:
        return (yield)
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


@pytest.fixture(autouse=True)
def fresh_default_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh strict default generator per vendored test, the original restored after."""
    monkeypatch.setattr(ours, "default_generator", ours.ULIDGenerator())


def pytest_make_parametrize_id(config: pytest.Config, val: object, argname: str) -> str | None:
    """A stable id for the float times the vendored file takes from ``time.time()`` when it is
    collected: each pytest-xdist worker collects it at another moment, and workers must
    collect the same test ids."""
    return "a-float-time" if isinstance(val, float) else None
