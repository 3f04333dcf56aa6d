"""The Pythons the package claims are the ones tested and locked (issue 37): its classifiers,
``requires-python``, the constraints files ``make`` installs from and the versions ``make
test-all`` runs (noxfile.py reads the classifiers) agree."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
CLAIMED = [
    found.group(1)
    for classifier in PROJECT["classifiers"]
    if (found := re.fullmatch(r"Programming Language :: Python :: (3\.\d+)", classifier))
]


def test_the_claimed_versions_are_the_supported_range() -> None:
    assert CLAIMED == ["3.10", "3.11", "3.12", "3.13"]
    assert PROJECT["requires-python"] == f">={CLAIMED[0]}"
    assert f"{sys.version_info[0]}.{sys.version_info[1]}" in CLAIMED  # this run is one of them


@pytest.mark.parametrize("version", CLAIMED)
def test_each_claimed_version_has_a_lock_of_the_test_and_docs_extras(version: str) -> None:
    lock = (ROOT / "constraints" / f"py{version}.txt").read_text()
    pins = dict(re.findall(r"^([A-Za-z0-9._-]+)==(\S+)", lock, re.MULTILINE))
    wanted = PROJECT["optional-dependencies"]["test"] + PROJECT["optional-dependencies"]["docs"]
    for requirement in wanted:
        name = re.match(r"[A-Za-z0-9._-]+", requirement)
        assert name is not None
        assert name.group(0).lower() in {pin.lower() for pin in pins}, (version, requirement)
    assert "make lock" in lock.splitlines()[1]  # made by the target, not by hand
    if version == "3.10":  # the docs build needs this pair there (constraints/compat.in)
        assert int(pins["pymdown-extensions"].split(".")[0]) < 12


def test_make_and_ci_run_every_claimed_version_from_the_lock() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "-c $(CONSTRAINTS) -e '.[test]'" in makefile
    # test-all installs from the lock (the stamp's recipe above) before it runs the suite
    recipe = re.search(r"^test-all: \$\(STAMP\).*?\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert recipe is not None and "-m pytest" in recipe.group(1)
    assert "make test-all" in (ROOT / ".ci" / "run").read_text()
    noxfile = (ROOT / "noxfile.py").read_text()
    assert '"-c", str(constraints)' in noxfile and "Programming Language :: Python" in noxfile
