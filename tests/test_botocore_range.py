"""The botocore range the package allows is the one tested (issue 46): the extras' lower bound
is the oldest botocore the ``botocore_oldest`` session locks, the newest is resolved by ``make
lock``, ``make test-all`` runs the botocore sessions, and the files they run exist."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import boto3
import botocore
from botocore.endpoint import Endpoint

from ulidkeys.clientevents import BEFORE_PARSE_SINCE, emits_before_parse, release
from ulidkeys.s3 import install_fast_pages

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def pins(name: str) -> dict[str, str]:
    text = (ROOT / "constraints" / name).read_text()
    return {k.lower(): v for k, v in re.findall(r"^([A-Za-z0-9._-]+)==(\S+)", text, re.M)}


def test_every_extra_allows_the_same_oldest_boto3_and_the_oldest_lock_is_it() -> None:
    bounds = {
        extra: found.group(1)
        for extra, requirements in PROJECT["optional-dependencies"].items()
        for requirement in requirements
        if (found := re.fullmatch(r"boto3>=([0-9.]+)", requirement))
    }
    assert len(bounds) >= 8 and len(set(bounds.values())) == 1, bounds
    bound = next(iter(bounds.values()))
    release = bound if bound.count(".") == 2 else f"{bound}.0"  # 1.34 -> 1.34.0
    oldest = (ROOT / "constraints" / "botocore-oldest.in").read_text()
    assert f"boto3=={release}" in oldest and f"botocore=={release}" in oldest
    locked = pins("botocore-oldest.txt")
    assert locked["boto3"] == locked["botocore"] == release
    assert "aiobotocore" not in locked  # none takes that botocore: the asyncio tests skip
    # the page readers run on the whole range: botocore emits before-parse from 1.35.16 on
    assert tuple(map(int, release.split("."))) >= (1, 35, 16)


def test_make_lock_records_the_newest_and_what_each_extra_resolves_to() -> None:
    makefile = (ROOT / "Makefile").read_text()
    for name in ("botocore-oldest", "botocore-newest", "extra-aws", "extra-async"):
        lock = (ROOT / "constraints" / f"{name}.txt").read_text()
        assert "make lock" in lock.splitlines()[1], name  # made by the target, not by hand
        assert name in makefile
    newest, aws = pins("botocore-newest.txt"), pins("extra-aws.txt")
    assert newest["botocore"] == aws["botocore"]  # the aws extra resolves to the newest
    assert "aiobotocore" in pins("extra-async.txt")


def test_test_all_runs_the_botocore_sessions_on_files_that_exist() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^test-all:.*\n(\t.*\n)*\t\$\(MAKE\) test-botocore$", makefile, re.M)
    sessions = ("botocore_oldest", "botocore_newest")
    assert all(session in makefile for session in sessions)
    tree = ast.parse((ROOT / "noxfile.py").read_text())
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert set(sessions) <= functions
    files = [
        element.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and any(getattr(t, "id", "") == "READER_TESTS" for t in node.targets)
        for element in getattr(node.value, "elts", [])
        if isinstance(element, ast.Constant)
    ]
    assert len(files) >= 8 and all((ROOT / str(path)).is_file() for path in files)
    assert "tests/dynamodb/test_dynamodb_pages_retries.py" in files


def test_both_retry_modes_meet_the_whole_suite() -> None:
    """test-all's own run keeps the locked botocore's default retries (legacy), and the other
    Pythons' sessions run the suite with ``standard`` ones (the asyncio windows included)."""
    makefile = (ROOT / "Makefile").read_text()
    assert "AWS_RETRY_MODE" not in makefile.partition("\ntest-all:")[2].partition("\n\n")[0]
    source = (ROOT / "noxfile.py").read_text()
    tests = next(
        node
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef) and node.name == "tests"
    )
    body = ast.get_source_segment(source, tests) or ""
    assert '"AWS_RETRY_MODE": os.environ.get("AWS_RETRY_MODE", "standard")' in body


def test_an_endpoint_that_reads_answers_its_own_way_is_not_taken_to_emit_before_parse() -> None:
    """Whether a client's endpoint emits ``before-parse`` is read from the library that
    defines its response path: a subclass of botocore's Endpoint that overrides it (it may
    parse without the event) gets no reader, and ``fast_pages`` says so; one that only adds
    to botocore's is botocore's."""

    class OwnParsing(Endpoint):
        def _do_get_response(self, *args: object, **kwargs: object) -> object:
            return super()._do_get_response(*args, **kwargs)  # type: ignore[misc]

    class Extended(Endpoint):
        pass

    client = boto3.client(
        "s3", region_name="us-east-1", aws_access_key_id="k", aws_secret_access_key="s"
    )
    stock = emits_before_parse(client)
    assert stock == (release(botocore.__version__) >= BEFORE_PARSE_SINCE["botocore"])  # type: ignore[operator]
    client._endpoint.__class__ = Extended
    assert emits_before_parse(client) == stock
    client._endpoint.__class__ = OwnParsing
    assert not emits_before_parse(client) and not install_fast_pages(client)
    assert not emits_before_parse(object())
    assert release("1.35.16") == (1, 35, 16) and release("2.15.0.dev1") == (2, 15, 0)
    assert release("2.15.0rc1") == (2, 15, 0) and release(None) is None and release("x") is None
