"""The test suite on every Python the package claims (``make test-all``; ``nox -s tests-3.12``
for one of them), and the page readers' tests over the range of botocore the package allows
(``make test-botocore``: ``botocore_oldest``, ``botocore_newest``).

Each ``tests`` session installs ``.[test]`` with ``-c constraints/py3.X.txt`` (the versions CI
tested, refreshed only by ``make lock``) and runs pytest without coverage, with botocore's
``standard`` retries (``AWS_RETRY_MODE``): coverage, lint, mypy and the docs build are ``make
test-all``'s own run, on the default Python, with the locked botocore's default (``legacy``), so
that both retry modes meet the whole suite. The botocore sessions install
only what the readers' and windows' tests need, from their own lock files, and run those files
alone (about a minute each). An interpreter this machine lacks is skipped with one line saying
so, never a failure: a contributor may have only some of them.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import nox
import nox.virtualenv  # UV: the uv that nox installs with

ROOT = Path(__file__).parent

#: The versions the package claims: its "Programming Language :: Python :: 3.X" classifiers,
#: so the classifiers and what is tested cannot drift apart (tests/test_pythons.py checks the
#: constraints files against them too).
PYTHONS = re.findall(
    r'"Programming Language :: Python :: (3\.\d+)"', (ROOT / "pyproject.toml").read_text()
)

nox.options.sessions = [f"tests-{version}" for version in PYTHONS]
#: pytest-xdist's workers in every session (`make` exports its own PYTEST_WORKERS, 3).
WORKERS = os.environ.get("PYTEST_WORKERS", "3")
# uv makes the venvs and installs the locks (constraints/tools.txt pins it beside nox): a fresh
# clone's sessions install in seconds where pip took minutes each
nox.options.default_venv_backend = "uv"
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


def _install_locked(session: nox.Session, *args: str) -> None:
    """``session.install(*args)`` of a lock (every version pinned), first from uv's cache alone
    (``--offline``: no request to the index, a few seconds), as the Makefile's LOCKED_INSTALL
    does: online, the index answers uv's revalidations as modified and pyspark's sdist is built
    again (about 30 s of a core). Where the cache lacks any of it, the offline try fails at once
    and nox installs from the index."""
    python = str(Path(session.bin) / "python")
    offline = [nox.virtualenv.UV, "pip", "install", "--offline", "--quiet", "--python", python]
    if subprocess.run([*offline, *args], capture_output=True).returncode == 0:
        session.log(f"uv pip install --offline {' '.join(args)}: from uv's cache")
    else:
        session.install(*args)


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """The suite on one interpreter, from the locked versions, without coverage and without the
    heavy integration runs (``-m "not slow"``: `make test-all` runs those once, on its own
    Python, with coverage); ``nox -s tests-3.12 -- -m slow`` runs them here. Retries are
    botocore's ``standard`` (AWS's advice, botocore 1.44's default) unless ``AWS_RETRY_MODE``
    says otherwise: the asyncio windows and the page readers meet it here."""
    constraints = ROOT / "constraints" / f"py{session.python}.txt"
    if not constraints.is_file():
        session.error(f"{constraints.relative_to(ROOT)} is missing: run `make lock`")
    _install_locked(session, "-c", str(constraints), "-e", ".[test]")
    session.run(
        "python",
        "-m",
        "pytest",
        "-n",
        WORKERS,
        "--dist",
        "worksteal",
        "-p",
        "no:cacheprovider",
        *(session.posargs or ["-m", "not slow"]),
        env={
            "HYPOTHESIS_PROFILE": os.environ.get("HYPOTHESIS_PROFILE", "dev"),
            "AWS_RETRY_MODE": os.environ.get("AWS_RETRY_MODE", "standard"),
        },
    )


#: The page readers' and windows' tests: what the botocore sessions run (each file skips what
#: needs a reader where botocore cannot run one, or aiobotocore where it is not installed).
READER_TESTS = [
    "tests/s3/test_s3_pages.py",
    "tests/s3/test_s3_columns.py",
    "tests/s3/test_s3_moto.py",
    "tests/dynamodb/test_dynamodb_pages.py",
    "tests/dynamodb/test_dynamodb_pages_setup.py",
    "tests/dynamodb/test_dynamodb_pages_shapes.py",
    "tests/dynamodb/test_dynamodb_pages_retries.py",
    "tests/dynamodb/test_dynamodb_clients.py",
    "tests/dynamodb/test_dynamodb_query.py",
    "tests/dynamodb/test_dynamodb_columns.py",
]


def _reader_tests(session: nox.Session) -> None:
    session.run("python", "-c", "import botocore; print('botocore', botocore.__version__)")
    session.run(
        "python", "-m", "pytest", "-n", WORKERS, "--dist", "worksteal", "-p", "no:cacheprovider",
        "-rs", *(session.posargs or ["-m", "not slow", *READER_TESTS]),
        env={"HYPOTHESIS_PROFILE": os.environ.get("HYPOTHESIS_PROFILE", "dev")},
    )  # fmt: skip


def _from_lock(session: nox.Session, name: str) -> None:
    lock = ROOT / "constraints" / f"{name}.txt"
    if not lock.is_file():
        session.error(f"{lock.relative_to(ROOT)} is missing: run `make lock`")
    _install_locked(session, "-r", str(lock), "-c", str(lock), "-e", ".")


@nox.session(python=PYTHONS[0])
def botocore_oldest(session: nox.Session) -> None:
    """The readers' tests on the oldest botocore the package allows (its extras' lower bound,
    constraints/botocore-oldest.in), on the oldest Python; legacy retries, that botocore's
    default; no aiobotocore takes it."""
    _from_lock(session, "botocore-oldest")
    _reader_tests(session)


@nox.session(python=PYTHONS[-1])
def botocore_newest(session: nox.Session) -> None:
    """The readers' tests on the newest botocore pip resolves (its defaults: ``standard``
    retries from botocore 1.44 on), on the newest Python; no aiobotocore takes it."""
    _from_lock(session, "botocore-newest")
    _reader_tests(session)
