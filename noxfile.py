"""The test suite on every Python the package claims (``make test-all``; ``nox -s tests-3.12``
for one of them).

Each session installs ``.[test]`` with ``-c constraints/py3.X.txt`` (the versions CI tested,
refreshed only by ``make lock``) and runs pytest without coverage: coverage, lint, mypy and the
docs build are ``make test``'s, on the default Python. An interpreter this machine lacks is
skipped with one line saying so, never a failure: a contributor may have only some of them.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import nox

ROOT = Path(__file__).parent

#: The versions the package claims: its "Programming Language :: Python :: 3.X" classifiers,
#: so the classifiers and what is tested cannot drift apart (tests/test_pythons.py checks the
#: constraints files against them too).
PYTHONS = re.findall(
    r'"Programming Language :: Python :: (3\.\d+)"', (ROOT / "pyproject.toml").read_text()
)

nox.options.sessions = [f"tests-{version}" for version in PYTHONS]
nox.options.reuse_venv = "yes"  # the constraints make a venv reusable; `rm -r .nox` resets
nox.options.download_python = "never"  # no interpreter fetched from outside: absent is skipped
nox.options.error_on_missing_interpreters = False  # nox's default turns True when CI is set


def _pyenv_bins(versions: list[str]) -> list[str]:
    """The bin folders of pyenv's newest working 3.X.Y for each version: pyenv's shims for
    versions that are not selected exist on PATH but fail, so nox would not find them."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    bins = []
    for version in versions:
        found = []
        for candidate in root.glob(f"{version}.*/bin/python{version}"):
            patch = candidate.parent.parent.name.removeprefix(f"{version}.")
            if patch.isdigit() and _runs(candidate):
                found.append((int(patch), str(candidate.parent)))
        if found:
            bins.append(max(found)[1])
    return bins


def _runs(path: Path) -> bool:
    try:
        return subprocess.run([path, "-c", ""], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


# Found before the shims; an interpreter on PATH otherwise (a system python3.12) still counts.
os.environ["PATH"] = os.pathsep.join([*_pyenv_bins(PYTHONS), os.environ.get("PATH", "")])


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """The whole suite on one interpreter, from the locked versions, without coverage."""
    constraints = ROOT / "constraints" / f"py{session.python}.txt"
    if not constraints.is_file():
        session.error(f"{constraints.relative_to(ROOT)} is missing: run `make lock`")
    session.install("-c", str(constraints), "-e", ".[test]")
    workers = os.environ.get("PYTEST_WORKERS", "2")
    session.run(
        "python",
        "-m",
        "pytest",
        "-n",
        workers,
        "-p",
        "no:cacheprovider",
        *session.posargs,
        env={"HYPOTHESIS_PROFILE": os.environ.get("HYPOTHESIS_PROFILE", "ci")},
    )
