"""Small defects earlier sweeps noticed and left alone, each pinned: a reserved bucket name, the
cursor's grammar, a line break in a written path, ``--config ''``, ``range --resolution`` with
flags it ignored, ``shards = 0`` in an entity, and ``completion --names`` on a broken config.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from clisupport import refused, run
from moto import mock_aws

from ulidkeys import config
from ulidkeys.cli import main
from ulidkeys.errors import InvalidConfig, InvalidCursor
from ulidkeys.planning.plans import Cursor

WINDOW = ["--since", "2024-05-17T08:00:00Z", "--until", "2024-05-17T10:00:00Z"]


@pytest.fixture
def aws(aws_credentials: None) -> Iterator[list[str]]:
    """An empty bucket ``photos`` on moto; yields the operations called (to show none was)."""
    calls: list[str] = []
    with mock_aws():
        client = boto3.client("s3")
        client.create_bucket(Bucket="photos")
        session = boto3.DEFAULT_SESSION
        assert session is not None
        session.events.register(
            "before-call.s3", lambda model, **_: calls.append(model.name), unique_id="leftalone"
        )
        yield calls
        session.events.unregister("before-call.s3", unique_id="leftalone")


# --- 1. bucket names S3 reserves -------------------------------------------------------------


@pytest.mark.parametrize(
    ("location", "rule"),
    [
        ("s3://xn--abc/up/", "starts with 'xn--'"),  # was "unexpected UnicodeError" (moto server)
        ("s3://sthree-configurator/up/", "starts with 'sthree-'"),
        ("s3://192.168.5.4/up/", "IP address"),
        ("s3://photos--x-s3/up/", "NAME--ZONE-ID--x-s3"),
    ],
)
def test_ls_refuses_a_reserved_bucket_name_before_any_call(
    aws: list[str], capsys: pytest.CaptureFixture[str], location: str, rule: str
) -> None:
    refused(capsys, ["ls", location, *WINDOW], "is not an S3 bucket name", rule)
    assert aws == []


def test_range_bucket_refuses_a_reserved_name(capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, ["range", *WINDOW, "--bucket", "amzn-s3-demo-bucket"], "'amzn-s3-demo-'")


def test_a_config_location_with_a_reserved_bucket_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ulidkeys.toml"
    path.write_text('[layouts.p]\nlocation = "s3://xn--abc/up/"\n')
    with pytest.raises(InvalidConfig, match=r"\[layouts\.p\].*starts with 'xn--'"):
        config.load(path)


# --- 2. the cursor's grammar -----------------------------------------------------------------


def test_a_cursor_of_the_other_direction_names_it_with_its_article() -> None:
    forward = Cursor("scope", False, 0, 10, ("id", "key"))
    with pytest.raises(InvalidCursor, match="made by an oldest-first listing; resume in"):
        forward.check("scope", True, 0, 10)
    backward = Cursor("scope", True, 0, 10, ("id", "key"))
    with pytest.raises(InvalidCursor, match="made by a newest-first listing; resume in"):
        backward.check("scope", False, 0, 10)


# --- 3. control characters in the paths written ---------------------------------------------


@pytest.mark.parametrize("flag", ["--manifest", "--checkpoint"])
@pytest.mark.parametrize("char", ["\n", "\r", "\t", "\x1b", "\x7f", "\x85"])
def test_a_control_character_in_a_written_path_is_refused(
    aws: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path, flag: str, char: str
) -> None:
    # the file was written, and the report naming it broke into two lines
    path = str(tmp_path / f"a{char}b.csv")
    window = WINDOW if flag == "--manifest" else ["--since", "2h"]  # a checkpoint runs to now
    refused(capsys, ["ls", "s3://photos/up/", *window, flag, path], flag, "control character")
    assert aws == [] and list(tmp_path.iterdir()) == []


def test_a_control_character_in_the_plot_path_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = str(tmp_path / "keys\n.png")
    refused(capsys, ["survey", "s3://photos/up/", "--plot", path], "--plot", "control character")


def test_a_written_path_of_printable_characters_is_reported_on_one_line(
    aws: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "a b é.csv"
    assert run(["ls", "s3://photos/up/", *WINDOW, "--manifest", str(path)]) == 0
    _, err = capsys.readouterr()
    assert f"written to {path}\n" in err and path.is_file()


# --- 4. --config '' --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["config", "--config", ""],
        ["ls", "photos", *WINDOW, "--config", ""],
        ["query", "posts", *WINDOW, "--config", ""],
    ],
)
def test_an_empty_config_path_says_it_is_empty(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    err = refused(capsys, argv, "the config path is empty")
    assert "directory" not in err


def test_load_of_an_empty_path_says_it_is_empty() -> None:
    with pytest.raises(InvalidConfig, match="the config path is empty"):
        config.load("")


# --- 5. range --resolution with the flags it ignored ----------------------------------------


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--since", "2024-05-17T09:00:00Z"], "leave out --since ("),
        (WINDOW, "leave out --since and --until ("),
        (["--until", "1h", "--prefix", "up/", "--bucket", "b1"], "--until, --prefix and --bucket"),
        (["--cover"], "--cover"),
        (["--max-prefixes", "4"], "--max-prefixes"),
        (["--scheme", "uuid7"], "--scheme"),
    ],
)
def test_range_resolution_refuses_what_it_would_ignore(
    capsys: pytest.CaptureFixture[str], flags: list[str], named: str
) -> None:
    refused(capsys, ["range", "--resolution", *flags], "--resolution prints", named)


def test_range_resolution_alone_still_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["range", "--resolution"], ["range", "--resolution", "--scheme", "ulid"]):
        assert main(argv) == 0
        out, err = capsys.readouterr()
        assert err == "" and out.splitlines()[1].split()[0] == "1"


# --- 6. shards = 0 in an entity ---------------------------------------------------------------


def test_shards_0_means_no_shards_in_an_entity_as_in_a_layout(tmp_path: Path) -> None:
    path = tmp_path / "ulidkeys.toml"
    path.write_text(
        '[layouts.p]\nlocation = "s3://photos/up/"\nshards = 0\n'
        '[entities.posts]\ntable = "app"\npk = "Org#{org}"\nsk = "Post#{id}"\nshards = 0\n'
    )
    found = config.load(path)
    assert found.layouts["p"].layout.shards is None
    assert found.entities["posts"].entity.shards is None


def test_shards_0_with_a_shard_placeholder_names_the_placeholder(tmp_path: Path) -> None:
    path = tmp_path / "ulidkeys.toml"
    path.write_text(
        '[entities.posts]\ntable = "app"\npk = "Org#{org}#{shard}"\nsk = "Post#{id}"\nshards = 0\n'
    )
    with pytest.raises(InvalidConfig, match=r"\[entities\.posts\].*\{shard\} placeholder"):
        config.load(path)


def test_query_reads_an_entity_with_shards_0(
    aws: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "ulidkeys.toml"
    path.write_text(
        '[entities.posts]\ntable = "app"\npk = "Org#{org}"\nsk = "Post#{id}"\nshards = 0\n'
    )
    argv = ["query", "posts", "--config", str(path), "--field", "org=acme", *WINDOW, "--explain"]
    assert main(argv) == 0
    out, _ = capsys.readouterr()
    assert "Org#acme" in out


# --- 7. completion --names with a broken config file ----------------------------------------


def test_completion_names_of_a_broken_config_says_why_on_stderr_only(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text("[layouts\n")
    for kind in ("layouts", "entities"):
        refused(capsys, ["completion", "--names", kind, "--config", str(broken)], "not valid TOML")
    # schemes need no config file
    assert main(["completion", "--names", "schemes", "--config", str(broken)]) == 0
    assert capsys.readouterr().out.split()[0] == "ulid"


def test_the_scripts_hide_that_stderr_so_the_prompt_stays_clean(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pytest.importorskip("shtab")
    assert main(["completion", "bash"]) == 0
    script = capsys.readouterr().out
    for shell in ("zsh", "fish"):
        assert main(["completion", shell]) == 0
        text = capsys.readouterr().out
        assert text.count("ulidkeys completion --names") == text.count("2>/dev/null)"), shell
    # bash, for real: a broken ulidkeys.toml where the user types offers nothing, says nothing
    folder = tmp_path / "bin"
    folder.mkdir()
    command = folder / "ulidkeys"
    command.write_text(
        f"#!/bin/sh\nexec {sys.executable} -c "
        "'import sys; from ulidkeys.cli import main; sys.exit(main(sys.argv[1:]))' \"$@\"\n"
    )
    command.chmod(0o755)
    (tmp_path / "ulidkeys.toml").write_text("[layouts\n")
    root = Path(__file__).resolve().parents[2]
    path = f"{folder}{os.pathsep}{os.environ['PATH']}"
    env = {**os.environ, "PATH": path, "PYTHONPATH": str(root)}
    program = (
        f"{script}\nCOMP_WORDS=(ulidkeys ls p); COMP_CWORD=2; _shtab_ulidkeys ulidkeys p ls; "
        "printf '%s\\n' \"${COMPREPLY[@]}\""
    )
    done = subprocess.run(
        ["bash", "-c", program], capture_output=True, text=True, cwd=tmp_path, env=env, check=True
    )
    assert done.stdout.split() == [] and done.stderr == ""
    # and by hand, the reason
    done = subprocess.run(
        [str(command), "completion", "--names", "layouts"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "ulidkeys.toml: not valid TOML" in done.stderr
