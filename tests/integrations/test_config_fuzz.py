"""The config file against hostile input, through the real command line: random TOML shapes
(nested tables, arrays and scalars under every key, names of any text, a pyproject's
``[tool.ulidkeys]``), random edits of a valid file, and odd files (a directory, a device, a FIFO,
a huge file, a byte order mark, bytes that are not UTF-8). Each either works - and then every
name it declares is usable by ``ls NAME`` / ``query NAME`` - or is exit 2 with exactly one line on
stderr and nothing on stdout: never a traceback, never "unexpected ... please report it"."""

from __future__ import annotations

import math
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, time, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from periodsupport import layout_periods, periods

from ulidkeys import config
from ulidkeys.cli import main
from ulidkeys.config.declarations import ENTITY_KEYS, INDEX_KEYS, LAYOUT_KEYS
from ulidkeys.config.files import MAX_CONFIG_BYTES

WINDOW = ["--since", "2024-05-17T09:00:00Z", "--until", "2024-05-17T10:00:00Z", "--explain"]
#: Derived and id fields of a key template: filled by the library, never by ``--field``.
NOT_GIVEN = ("bucket", "shard")


# --- a small TOML writer: every value inline, so any nesting is one line per top-level key ---


def toml_key(key: str) -> str:
    """A key as TOML writes it: bare when it may be, else a basic string."""
    if key and all(c.isascii() and (c.isalnum() or c in "_-") for c in key):
        return key
    return toml_string(key)


def toml_string(text: str) -> str:
    """A TOML basic string: quote, backslash and control characters escaped, the rest as is
    (JSON's escapes would write a character past U+FFFF as a surrogate pair, which TOML refuses)."""
    escaped = "".join(
        f"\\{c}" if c in '"\\' else f"\\u{ord(c):04x}" if c < " " or c == "\x7f" else c
        for c in text
    )
    return f'"{escaped}"'


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, str)):
        return toml_string(value) if isinstance(value, str) else str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value)  # inf, -inf, 1e+16: all TOML
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


def toml_text(data: dict[str, Any]) -> str:
    return "".join(f"{toml_key(k)} = {toml_value(v)}\n" for k, v in data.items())


# --- random shapes, biased towards what a config holds so that the checks past the first run --

KNOWN_KEYS = sorted({*LAYOUT_KEYS, *ENTITY_KEYS, *INDEX_KEYS, "layouts", "entities"})
PLAUSIBLE = [
    "s3://photos/uploads/",
    "s3://photos/",
    "s3://photos/u",
    "Org#{org}",
    "Org#{org}#{bucket}",
    "Post#{id}",
    "{id}",
    "hour",
    "day",
    "week",
    "uuid7",
    "ticket",
    "ksuid",
    "app",
    "PK",
    "SK",
    ".jpg",
    "#",
    "id",
    "",
    " ",
]


def mostly(usual: st.SearchStrategy[Any], other: st.SearchStrategy[Any]) -> Any:
    """``usual`` seven times in eight, else ``other`` (``one_of`` would draw each half the
    time, and repeating a strategy in it does not weigh it)."""
    return st.integers(min_value=0, max_value=7).flatmap(lambda i: other if i == 7 else usual)


names = st.one_of(
    st.sampled_from(["photos", "posts", "p", "GSI1", "my.photos", "a b", "", "-x", "2024"]),
    st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,8}", fullmatch=True),
    st.text(max_size=8),
)
usable = st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,8}", fullmatch=True)
#: A name for a declared table: seven times in eight one that the name rule takes.
good_names = mostly(usable, names)
scalars = st.one_of(
    st.sampled_from(PLAUSIBLE),
    st.text(max_size=12),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.integers(min_value=-2, max_value=5),
    st.floats(),
    st.dates(),
    st.datetimes(timezones=st.just(timezone.utc)),
)
anything = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(names, inner, max_size=3),
    max_leaves=8,
)
settings_tables = st.dictionaries(
    st.one_of(st.sampled_from(KNOWN_KEYS), names),
    st.one_of(scalars, anything, st.dictionaries(names, anything, max_size=2)),
    max_size=6,
)
declared = st.dictionaries(names, st.one_of(settings_tables, anything), max_size=3)
#: Values of the right type and often of the right form, per known key.
GOOD: dict[str, st.SearchStrategy[Any]] = {
    "location": st.sampled_from(["s3://photos/uploads/", "s3://photos/", "s3://my.bucket/a/b/"]),
    "shards": st.integers(min_value=0, max_value=8),
    "period": layout_periods,
    "suffix": st.sampled_from(["", ".jpg", ".tar.gz"]),
    "scheme": st.sampled_from(["ulid", "uuid7", "ksuid", "ticket", "uuid4", "typeid:user"]),
    "newest_first": st.booleans(),
    "table": st.sampled_from(
        ["app", "my-table.v2", "arn:aws:dynamodb:us-east-1:123456789012:table/app"]
    ),
    "pk": st.sampled_from(["Org#{org}", "Org#{org}#{bucket}", "Org#{org}#{shard}", "{org}"]),
    "sk": st.sampled_from(["Post#{id}", "{id}", "Post#{kind}#{id}"]),
    "pk_attr": st.sampled_from(["PK", "GSI1PK", "pk"]),
    "sk_attr": st.sampled_from(["SK", "GSI1SK", "sk"]),
    "bucket": periods,
    "separator": st.sampled_from(["#", "|"]),
    "id_field": st.sampled_from(["id", "post_id"]),
    "newest_first_keys": st.booleans(),
    "sparse": st.booleans(),
}
#: Anything a known key could be given: mostly the right form, now and then a wrong one.
mixed = st.one_of(
    st.sampled_from(PLAUSIBLE), st.integers(min_value=-1, max_value=5), st.booleans(), anything
)


def value(key: str) -> st.SearchStrategy[Any]:
    """A value for ``key``: seven times in eight of the right type."""
    return mostly(GOOD[key], mixed)


def table_of(keys: Any, required: tuple[str, ...], **more: Any) -> st.SearchStrategy[Any]:
    optional = {key: value(key) for key in keys if key not in (*required, *more)}
    return st.fixed_dictionaries(
        {key: value(key) for key in required}, optional={**optional, **more}
    )


index = table_of(INDEX_KEYS, ("pk", "sk"))
layout = table_of(LAYOUT_KEYS, ("location",))
entity = table_of(
    ENTITY_KEYS,
    ("table", "pk", "sk"),
    gsi=st.dictionaries(
        st.one_of(st.sampled_from(["GSI1", "ByAuthor", "by.author"]), names),
        st.one_of(index, index, mixed),
        max_size=2,
    ),
)
plausible = st.fixed_dictionaries(
    {},
    optional={
        "layouts": st.dictionaries(good_names, layout, max_size=3),
        "entities": st.dictionaries(good_names, entity, max_size=3),
    },
)
shapes = mostly(
    plausible,
    st.one_of(
        st.fixed_dictionaries({}, optional={"layouts": declared, "entities": declared}),
        st.dictionaries(st.one_of(st.sampled_from(KNOWN_KEYS), names), anything, max_size=3),
    ),
)


class Blocked(BaseException):
    """A call blocked: a BaseException, so that no ``except OSError`` / ``except Exception`` of
    the code under test turns it into an ordinary failure."""


@contextmanager
def no_hang(seconds: float = 20.0) -> Iterator[None]:
    """Fail the test, rather than hang the suite, if a call blocks (a FIFO opened for reading
    waits for a writer forever)."""

    def stop(signum: int, frame: object) -> None:
        raise Blocked(f"still blocked after {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    with no_hang():
        status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_line_mistake(status: int, out: str, err: str) -> None:
    assert "Traceback" not in err and "please report" not in err, err
    assert status == 2, err
    assert out == "" and len(err.splitlines()) == 1, err


def assert_works_or_one_line(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    """``config`` works and every name declared is usable, or it is one line and exit 2."""
    status, out, err = run(capsys, ["config", "--config", str(path)])
    if status != 0:
        assert_one_line_mistake(status, out, err)
        event("refused: " + err.rsplit("]: ", 1)[-1].split(" ")[0])
        return
    loaded = config.load(path)
    event(f"works: {bool(loaded.layouts)} layouts, {bool(loaded.entities)} entities")
    for name in loaded.layouts:
        status, out, err = run(capsys, ["ls", name, "--config", str(path), *WINDOW])
        assert status == 0 and out and not err, (name, err)
    for name, named in loaded.entities.items():
        table = named.entity.table
        fields = [
            f"{field}=x"
            for field in dict.fromkeys((*table.pk.fields, *table.sk.fields))
            if field not in (named.entity.id_field, *NOT_GIVEN)
        ]
        argv = ["query", name, "--config", str(path), *WINDOW]
        for field in fields:
            argv += ["--field", field]
        status, out, err = run(capsys, argv)
        if status != 0:  # e.g. ticket ids hold no time: no window to query, said in one line
            assert_one_line_mistake(status, out, err)
            assert "no [entities" not in err and "no [tool.ulidkeys.entities" not in err, err


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory of its own, and a user config directory with nothing in it."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return tmp_path


FIXTURES = [HealthCheck.function_scoped_fixture]  # each example rewrites the file and reads out


@settings(suppress_health_check=FIXTURES)
@given(data=shapes, in_pyproject=st.booleans())
@example(data={"layouts": {"p": {"location": "s3://photos/u/"}}}, in_pyproject=False)
@example(data={"layouts": {"my.photos": {"location": "s3://photos/u/"}}}, in_pyproject=True)
@example(data={"entities": {"e": {"table": "", "pk": "O#{o}", "sk": "P#{id}"}}}, in_pyproject=False)
@example(data={"layouts": "x"}, in_pyproject=False)
@example(data={"layouts": [{"location": "s3://photos/u/"}]}, in_pyproject=False)
@example(data={"layouts": {"p": {"location": ["s3://photos/u/"]}}}, in_pyproject=True)
def test_random_shapes_work_or_are_one_line(
    here: Path, capsys: pytest.CaptureFixture[str], data: dict[str, Any], in_pyproject: bool
) -> None:
    path = here / ("pyproject.toml" if in_pyproject else "ulidkeys.toml")
    text = toml_text({"tool": {"ulidkeys": data}} if in_pyproject else data)
    path.write_text(text, encoding="utf-8")
    assert_works_or_one_line(capsys, path)


@settings(suppress_health_check=FIXTURES)
@given(
    data=st.one_of(
        st.just("x"), st.just(3), st.just([]), st.just({"ulidkeys": "x"}), anything, shapes
    )
)
@example(data={"ulidkeys": 3})
@example(data={"ulidkeys": [{"layouts": {}}]})
def test_a_pyproject_tool_table_of_any_shape(
    here: Path, capsys: pytest.CaptureFixture[str], data: Any
) -> None:
    path = here / "pyproject.toml"
    path.write_text(toml_text({"tool": data}), encoding="utf-8")
    assert_works_or_one_line(capsys, path)


VALID = """\
[layouts.photos]
location = "s3://photos/uploads/"
shards = 4
period = "hour"
suffix = ".jpg"

[entities.posts]
table = "app"
pk = "Org#{org}#{bucket}"
sk = "Post#{id}"
bucket = "day"
gsi = { ByAuthor = { pk = "Author#{author}", sk = "Post#{id}" } }
"""


@settings(suppress_health_check=FIXTURES)
@given(
    edits=st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=len(VALID)),
            st.integers(min_value=0, max_value=3),
            st.text(alphabet=st.sampled_from("[]{}.\"=#, \n'\\ax1\ufeff\x00"), max_size=3),
        ),
        min_size=1,
        max_size=4,
    ),
    in_pyproject=st.booleans(),
)
def test_random_edits_of_a_valid_file_work_or_are_one_line(
    here: Path,
    capsys: pytest.CaptureFixture[str],
    edits: list[tuple[int, int, str]],
    in_pyproject: bool,
) -> None:
    text = VALID.replace("[layouts.", "[tool.ulidkeys.layouts.") if in_pyproject else VALID
    text = text.replace("[entities.", "[tool.ulidkeys.entities.") if in_pyproject else text
    for at, cut, inserted in edits:
        text = text[:at] + inserted + text[at + cut :]
    path = here / ("pyproject.toml" if in_pyproject else "ulidkeys.toml")
    path.write_text(text, encoding="utf-8")
    assert_works_or_one_line(capsys, path)


# --- odd files ------------------------------------------------------------------------------


def test_a_directory_a_device_and_a_missing_file_are_named(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (here / "folder").mkdir()
    for given_path, words in [
        (here / "folder", "is a directory, not a config file"),
        (Path(os.devnull), "is a character device"),
        (Path("/dev/zero"), "is a character device"),  # was read until memory ran out
        (here / "missing.toml", "cannot be read (No such file or directory)"),
    ]:
        status, out, err = run(capsys, ["config", "--config", str(given_path)])
        assert_one_line_mistake(status, out, err)
        assert f"{given_path}: {words}" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_waiting_for_a_writer(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = here / "config.toml"
    os.mkfifo(fifo)
    status, out, err = run(capsys, ["config", "--config", str(fifo)])  # blocked forever before
    assert_one_line_mistake(status, out, err)
    assert "is a FIFO (named pipe), not a config file" in err
    # found rather than given: the nearest ulidkeys.toml is a FIFO, reported, not skipped
    os.mkfifo(here / "ulidkeys.toml")
    status, out, err = run(capsys, ["ls", "photos", *WINDOW])
    assert_one_line_mistake(status, out, err)
    assert f"{here / 'ulidkeys.toml'}: is a FIFO" in err


def test_a_file_over_the_size_cap_is_refused_unread(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = here / "big.toml"
    with big.open("w") as file:
        file.write(VALID)
        file.truncate(MAX_CONFIG_BYTES + 1)  # sparse: the size, not the disk space
    status, out, err = run(capsys, ["config", "--config", str(big)])
    assert_one_line_mistake(status, out, err)
    assert "is 1,048,577 bytes; a config file is at most 1,048,576 bytes (1 MiB)" in err
    with big.open("r+") as file:
        file.truncate(MAX_CONFIG_BYTES)  # at the cap: read (as TOML it is then wrong)
    status, out, err = run(capsys, ["config", "--config", str(big)])
    assert_one_line_mistake(status, out, err)
    assert "not valid TOML" in err


def test_a_byte_order_mark_is_skipped(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = here / "ulidkeys.toml"
    path.write_bytes(b"\xef\xbb\xbf" + VALID.encode())  # what Notepad writes: once an error
    assert config.load(path).layout("photos").bucket_name == "photos"
    status, out, err = run(capsys, ["ls", "photos", *WINDOW])
    assert status == 0 and out, err


def test_bytes_that_are_not_utf8_are_named(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = here / "ulidkeys.toml"
    path.write_bytes(VALID.encode().replace(b"uploads", b"upl\xffads"))
    status, out, err = run(capsys, ["config"])
    assert_one_line_mistake(status, out, err)
    assert f"{path}: is not UTF-8 text (byte 0xff on line 2)" in err


def test_nesting_too_deep_for_the_parser_is_one_line(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for deep in (
        "a = " + "[" * 2000 + "]" * 2000,
        "a = " + "{b = " * 2000 + "1" + "}" * 2000,
        "[layouts.p]\nlocation = " + "[" * 2000 + "]" * 2000,
    ):
        (here / "ulidkeys.toml").write_text(deep)
        status, out, err = run(capsys, ["config"])
        assert_one_line_mistake(status, out, err)
        assert "nested too deeply" in err
