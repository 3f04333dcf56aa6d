"""The command line reads what users paste (issue 33, items 7-10): ids inside S3 keys, DynamoDB
keys, S3 URLs and braced UUIDs with the layout that reads them; ids starting with '-'; numbers
weighed (ambiguity up front, Unix times, small numbers, the 64-bit limit); named layouts for
athena; hints from a bucket's root; --scheme of a family; completion of names in bash, zsh
and fish; messages, plurals and thousands separators. Each case: what is printed, the exit
status, and nothing on stdout on failure."""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from idsupport import id_at
from moto import mock_aws
from s3support import fill_bucket

from ulidkeys.cli import main
from ulidkeys.cli.output import json_text
from ulidkeys.dynamodb import Entity
from ulidkeys.errors import InvalidId
from ulidkeys.ids import TWITTER_SNOWFLAKE, UUID7
from ulidkeys.ids.inspection import inspect, plain_dict
from ulidkeys.ids.registry import sortable_samples
from ulidkeys.planning.periods import LAYOUT_PERIOD_NAMES
from ulidkeys.s3 import KeyLayout
from ulidkeys.ulid import ULID

ID = "01HY2WF4M0XKQ6J3WB5S8Z7DQA"  # 2024-05-17T09:00:00Z
START = 1_715_936_400_000
DISCORD_EXAMPLE = "175928847299117063"  # Discord's documentation's example id


def ok(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert err == "", err
    return out


def refused(capsys: pytest.CaptureFixture[str], argv: list[str], *words: str) -> str:
    """``argv`` exits 2 with one line on stderr holding ``words`` and nothing on stdout (a
    usage mistake exits through argparse's SystemExit)."""
    try:
        status = main(argv)
    except SystemExit as exited:
        status = int(exited.code or 0)
    assert status == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err, (out, err)
    assert all(word in err for word in words), err
    return err


def fields(text: str) -> dict[str, str]:
    """The ``name  value`` lines of one inspect block (a name given twice: the first)."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        name, _, value = line.partition("  ")
        found.setdefault(name.strip(), value.strip())
    return found


# --- ids inside what users paste ------------------------------------------------------------


@pytest.mark.parametrize(
    ("pasted", "key", "layout", "command"),
    [
        (
            f"uploads/{ID}.jpg",
            f"uploads/{ID}.jpg",
            "KeyLayout('uploads/', suffix='.jpg')",
            "ulidkeys ls s3://BUCKET/uploads/ --suffix .jpg",
        ),
        (
            f"s3://photos/uploads/dt=2024-05-17/{ID}.jpg",
            f"uploads/dt=2024-05-17/{ID}.jpg",
            "KeyLayout('uploads/', period='day', suffix='.jpg')",
            "ulidkeys ls s3://photos/uploads/ --period day --suffix .jpg",
        ),
        (
            f"https://photos.s3.us-east-1.amazonaws.com/uploads/{ID}.jpg",
            f"uploads/{ID}.jpg",
            "KeyLayout('uploads/', suffix='.jpg')",
            "ulidkeys ls s3://photos/uploads/ --suffix .jpg",
        ),
        (  # path-style, the key url-encoded as S3 URLs are
            f"https://s3.eu-west-1.amazonaws.com/photos/a%23b/{ID}",
            f"a#b/{ID}",
            "KeyLayout('a#b/')",
            "ulidkeys ls 's3://photos/a#b/'",  # quoted: '#' starts a comment in a shell
        ),
        (  # the S3 console's object page
            "https://us-east-1.console.aws.amazon.com/s3/object/photos?region=us-east-1"
            f"&prefix=uploads/{ID}.jpg",
            f"uploads/{ID}.jpg",
            "KeyLayout('uploads/', suffix='.jpg')",
            "ulidkeys ls s3://photos/uploads/ --suffix .jpg",
        ),
        (
            f"arn:aws:s3:::photos/uploads/{ID}.jpg",
            f"uploads/{ID}.jpg",
            "KeyLayout('uploads/', suffix='.jpg')",
            "ulidkeys ls s3://photos/uploads/ --suffix .jpg",
        ),
        (
            f"Post#{ID}",
            f"Post#{ID}",
            "Post#{id}",
            "ulidkeys query --sk 'Post#{id}' ...",
        ),
    ],
)
def test_inspect_finds_the_id_in_keys_and_urls_and_names_the_layout(
    pasted: str, key: str, layout: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    shown = fields(ok(capsys, ["inspect", pasted]))
    assert shown["scheme"] == "ulid" and shown["id"] == ID
    assert shown["time"] == "2024-05-17T09:00:00.000Z"
    assert shown["found in"] == key
    assert shown.get("layout", shown.get("sort key")) == layout
    assert shown["list with"] == command
    found = json.loads(ok(capsys, ["inspect", "--json", pasted]))
    assert found["input"] == pasted and found["id"] == ID
    assert found["found_in"]["key"][found["found_in"]["start"] : found["found_in"]["end"]] == ID


def test_the_layout_named_reads_the_key_it_was_found_in(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Not a description only: the KeyLayout printed splits the key into that id and suffix."""
    layout = KeyLayout("uploads/", period="hour", suffix=".jpg")
    key = layout.key_for(ID)
    found = json.loads(ok(capsys, ["inspect", "--json", f"s3://photos/{key}"]))
    assert found["found_in"]["layout"]["layout"] == python_of_layout(layout)
    assert layout.split(key)[:2] == (ID, ".jpg")


@pytest.mark.parametrize("period", LAYOUT_PERIOD_NAMES)
def test_a_pasted_key_of_every_period_names_its_layout(
    period: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # the periods layouts offer, drawn from the registry: the folder before the id is read as
    # the period whose folder it is (wk=2024-W20/, dt=2024-05/, dt=2024-05-17/hr=09/, ...)
    layout = KeyLayout("uploads/", period=period, suffix=".jpg")
    key = layout.key_for(ID)
    found = json.loads(ok(capsys, ["inspect", "--json", f"s3://photos/{key}"]))
    assert found["found_in"]["layout"]["layout"] == python_of_layout(layout)
    command = f"ulidkeys ls s3://photos/uploads/ --period {period} --suffix .jpg"
    assert found["found_in"]["layout"]["command"] == command
    assert layout.split(key)[:2] == (ID, ".jpg")


def python_of_layout(layout: KeyLayout) -> str:
    period = layout.partition.size if layout.partition else None
    return f"KeyLayout({layout.prefix!r}, period={period!r}, suffix={layout.suffix!r})"


def test_a_shard_folder_is_named_with_what_one_key_cannot_tell(
    capsys: pytest.CaptureFixture[str],
) -> None:
    layout = KeyLayout("uploads/", shards=16, period="day", suffix=".jpg")
    key = layout.key_for(ID)
    shown = ok(capsys, ["inspect", key])
    assert "shards=N" in shown and "--shards N" in shown
    assert f"shard folder {key.split('/')[1]}/" in shown


def test_braced_and_urn_uuids(capsys: pytest.CaptureFixture[str]) -> None:
    text = UUID7.min_for(START)
    for pasted in (f"{{{text}}}", f"{{{text.upper()}}}", f"urn:uuid:{text}"):
        shown = fields(ok(capsys, ["inspect", pasted]))
        assert shown["scheme"] == "uuid7" and shown["id"] == text, pasted
        assert "layout" not in shown  # no key: nothing to list


@pytest.mark.parametrize(
    ("scheme", "pasted", "key", "id_text"),
    [
        ("ulid", f"uploads/{ID}.jpg", f"uploads/{ID}.jpg", ID),
        ("ulid", f"s3://photos/uploads/{ID}.jpg", f"uploads/{ID}.jpg", ID),
        ("uuid7", f"{{{UUID7.min_for(START)}}}", UUID7.min_for(START), UUID7.min_for(START)),
        (
            "twitter-snowflake",
            f"tweets/{TWITTER_SNOWFLAKE.min_for(START)}.json",
            f"tweets/{TWITTER_SNOWFLAKE.min_for(START)}.json",
            TWITTER_SNOWFLAKE.min_for(START),
        ),
    ],
)
def test_inspect_with_a_scheme_finds_the_id_in_a_pasted_key(
    scheme: str, pasted: str, key: str, id_text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--scheme X uploads/ID.jpg`` reads the id inside, as inspect without --scheme does
    (it refused the whole key: "expected 26 characters, got 38")."""
    shown = fields(ok(capsys, ["inspect", "--scheme", scheme, pasted]))
    assert shown["scheme"] == scheme and shown["id"] == id_text
    found = json.loads(ok(capsys, ["inspect", "--json", "--scheme", scheme, pasted]))
    assert found["input"] == pasted and found["id"] == id_text
    if key != id_text:
        assert found["found_in"]["key"] == key
        assert key[found["found_in"]["start"] : found["found_in"]["end"]] == id_text
    alone = json.loads(ok(capsys, ["inspect", "--json", "--scheme", scheme, id_text]))
    assert {k: v for k, v in found.items() if k not in ("input", "found_in")} == {
        k: v for k, v in alone.items() if k != "input"
    }


def test_a_braced_uuid_of_the_wrong_version_says_what_is_wrong_inside(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Not "it has 38 characters": the UUID inside the braces has version 0."""
    wrong = "01890a5d-ac96-0c4c-8e9e-1a2b3c4d5e6f"
    for argv in (["inspect", f"{{{wrong}}}"], ["inspect", "--scheme", "uuid7", f"{{{wrong}}}"]):
        err = refused(capsys, argv, "inside the braces", "the version nibble is 0, not 7")
        assert "38 characters" not in err and "expected 36 characters" not in err
    err = refused(capsys, ["inspect", f"urn:uuid:{wrong}"], "after urn:uuid:", "nibble is 0")
    assert "45 characters" not in err


def test_text_with_no_id_still_gives_the_reasons(capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, ["inspect", "uploads/photo.jpg"], "no id of any supported scheme")
    refused(capsys, ["inspect", "dt=2024-05-17/hr=09/readme.txt"], "no id")  # no date as an id


def test_ids_starting_with_a_dash_are_values(capsys: pytest.CaptureFixture[str]) -> None:
    """A Firebase push id is no scheme of ulidkeys: it must reach inspect (and be refused as
    no id), not be refused by argparse as an unknown option; with or without '--'."""
    push_id = "-NxYz0123456789abcde"
    for argv in (["inspect", push_id], ["inspect", "--", push_id], ["inspect", ID, push_id]):
        assert main(argv) == 2
        out, err = capsys.readouterr()
        assert "unrecognized arguments" not in err and repr(push_id) in err, err
        assert out == ("" if argv[1] != ID else out) and err.count("\n") == 1
    # known options are still options: -o takes its value, --json is a flag
    assert json.loads(ok(capsys, ["inspect", "-o", "jsonl", ID]))["id"] == ID
    refused(capsys, ["inspect", "--nope", ID], "unrecognized arguments: --nope")


def test_option_values_may_start_with_a_dash(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["ls", "s3://photos/uploads/", "--since", "1h", "--explain"]
    out = ok(capsys, [*argv, "--suffix", "-thumb.jpg"])
    assert "-thumb.jpg" in out
    out = ok(capsys, ["range", "--since", "2024-05-17T09:00:00Z", "--prefix", "-a/"])
    assert "lower (>=)  -a/" in out


# --- numbers: ambiguity up front, Unix times, implausible Snowflakes -----------------------


def test_discords_example_is_ambiguous_up_front(capsys: pytest.CaptureFixture[str]) -> None:
    out = ok(capsys, ["inspect", DISCORD_EXAMPLE])
    first = out.splitlines()[0]
    assert first.startswith("ambiguous") and "discord-snowflake 2016-04-30T11:18:25.796Z" in first
    assert "twitter-snowflake" in first and "pass --scheme" in first
    found = json.loads(ok(capsys, ["inspect", "--json", DISCORD_EXAMPLE]))
    assert "discord-snowflake" in found["ambiguous"] and len(found["ambiguous"]) >= 2
    shown = fields(ok(capsys, ["inspect", "--scheme", "discord-snowflake", DISCORD_EXAMPLE]))
    assert shown["scheme"] == "discord-snowflake" and "ambiguous" not in shown


@pytest.mark.parametrize(
    ("text", "scheme", "time"),
    [
        ("1234567890123", "unix-milliseconds", "2009-02-13T23:31:30.123Z"),
        ("1715904000", "unix-seconds", "2024-05-17T00:00:00.000Z"),
    ],
)
def test_a_plain_unix_time_is_shown_as_one(
    text: str, scheme: str, time: str, capsys: pytest.CaptureFixture[str]
) -> None:
    shown = fields(ok(capsys, ["inspect", text]))
    assert shown["scheme"] == scheme and shown["time"] == time
    assert "twitter-snowflake" not in str(shown)  # not a tweet of 2010-11-04


def test_a_small_number_is_not_a_tweet(capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, ["inspect", "42"], "no id anyone made", "within a day", "--scheme")
    shown = fields(ok(capsys, ["inspect", "--scheme", "twitter-snowflake", "42"]))
    assert shown["scheme"] == "twitter-snowflake"  # asked for: read as one


def test_a_number_past_64_bits_blames_the_limit(capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(capsys, ["inspect", "99999999999999999999"], "2**64 - 1", "64-bit")
    assert "characters" not in err


def test_a_reading_ahead_of_now_is_not_plausible(capsys: pytest.CaptureFixture[str]) -> None:
    """A Twitter id of 2024: its Discord reading (2028, ahead of now) is left out; its
    Instagram reading (2018) is as plausible as the Twitter one, so both are named."""
    text = TWITTER_SNOWFLAKE.min_for(START)
    found = json.loads(ok(capsys, ["inspect", "--json", text.lstrip("0")]))
    assert found["scheme"] == "twitter-snowflake" and found["time"] == "2024-05-17T09:00:00.000Z"
    assert found["ambiguous"] == ["twitter-snowflake", "instagram-id"]
    assert [alt["scheme"] for alt in found["alternatives"]] == ["instagram-id"]


# --- stdin in bulk --------------------------------------------------------------------------


def test_stdin_in_bulk_is_what_one_by_one_prints(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Batched output: the same rows, in order, as inspecting each id alone; a bad line in the
    middle is reported and the rest still printed (exit 2)."""
    ids = [str(ULID.min_for(START + i)) for i in range(1500)]
    lines = [*ids[:700], "nope", *ids[700:], f"uploads/{ids[0]}.jpg"]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    assert main(["inspect", "-o", "jsonl"]) == 2
    out, err = capsys.readouterr()
    rows = [json.loads(line) for line in out.splitlines()]
    assert out.splitlines() == [json_text(row) for row in rows]  # the one JSON of the CLI
    assert [row["input"] for row in rows] == [line for line in lines if line != "nope"]
    assert err.count("\n") == 1 and "'nope'" in err
    single = json.loads(ok(capsys, ["inspect", "-o", "jsonl", ids[1234]]))
    assert rows[1234] == single
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(ids[:600]) + "\n"))
    text = ok(capsys, ["inspect"])
    assert text.count("\nscheme") == 599 and text.count("\n\n") == 599  # blocks, one blank apart
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(ids[:3]) + "\n"))
    assert [row["id"] for row in json.loads(ok(capsys, ["inspect", "-o", "json"]))] == ids[:3]


def mixed_lines(count: int, seed: int) -> list[str]:
    """``count`` lines of what a listing piped to inspect may hold: ids of every registered
    scheme (upper and lower case, UUIDs dashed, as 32 hex and braced), ids inside S3 keys and
    URLs, numbers (ambiguous Snowflakes, Unix times, ones too small to be ids), near misses of
    a ULID's length, junk and text no scheme reads."""
    rng = random.Random(seed)
    schemes = [scheme for scheme in sortable_samples() if scheme.name != "ticket"]
    uuid4 = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    lines = []
    for _ in range(count):
        scheme = rng.choice(schemes)
        text = id_at(scheme, START + rng.randrange(10**9), rng)
        form = rng.randrange(12)
        if form == 1:
            text = text.lower()
        elif form == 2 and len(text) == 36:
            text = rng.choice([text.replace("-", ""), f"{{{text}}}", f"urn:uuid:{text}"])
        elif form == 3:
            text = rng.choice([f"uploads/{text}.jpg", f"s3://b/logs/dt=2024-05-17/{text}"])
        elif form == 4:
            text = rng.choice([text[:-1], text + "Z", "nope", "42", str(rng.getrandbits(64))])
        elif form == 5:
            text = rng.choice([str(START // 1000), str(START), uuid4, f"  {text}  "])
        lines.append(text)
    return lines


@pytest.mark.parametrize("output", ["text", "jsonl", "json"])
def test_a_large_mixed_stdin_is_what_the_objects_path_prints(
    output: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bulk path (a row made without the objects for a line that is one id with nothing
    to note) prints, byte for byte, what the reading objects print for every line of a large
    mixed listing: the same rows, errors on stderr at the same places, the same exit status."""
    lines = mixed_lines(3000, seed=42)
    stdin = "\n".join(lines) + "\n"

    def printed() -> tuple[int, str, str]:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        status = main(["inspect", "-o", output])
        out, err = capsys.readouterr()
        return status, out, err

    fast = printed()
    monkeypatch.setattr("ulidkeys.cli.inspect.plain_dict", lambda text: None)
    assert fast == printed()
    assert fast[0] == 2 and fast[2].count("\n") > 50 and len(fast[1]) > 100_000


def test_plain_rows_are_the_readings_as_dicts() -> None:
    """``plain_dict`` is ``inspect(text).as_dict()`` wherever it gives a row, and gives none
    where the reading has more to say (other readings, notes) or there is none."""
    given = 0
    for text in mixed_lines(3000, seed=7):
        try:
            reading = inspect(text)
        except InvalidId:
            assert plain_dict(text) is None
            continue
        row = plain_dict(text)
        if reading.alternatives or reading.notes:
            assert row is None, text
        else:
            assert row == reading.as_dict(), text
            given += 1
    assert given > 1500


# --- athena, hints from a bucket's root, --scheme of a family ------------------------------


def test_athena_takes_a_named_layout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "ulidkeys.toml"
    config.write_text('[layouts.photos]\nlocation = "s3://photos/uploads/"\nshards = 4\n')
    days = ["--first-day", "2024-05-01", "--last-day", "2024-05-31"]
    by_url = ok(
        capsys, ["athena", "s3://photos/uploads/", "--period", "day", "--shards", "4", *days]
    )
    named = ["athena", "photos", "--config", str(config), *days]
    assert ok(capsys, [*named, "--period", "day"]) == by_url
    refused(capsys, named, "athena projects period folders", "--period day")
    config.write_text(config.read_text() + 'period = "day"\n')
    assert ok(capsys, named) == by_url


@pytest.fixture
def root_bucket(aws_credentials: None) -> Iterator[Any]:
    """A bucket whose ids sit one folder down (uploads/), with a README at its root."""
    with mock_aws():
        client = boto3.client("s3")
        client.create_bucket(Bucket="photos")
        for i in range(20):
            key = KeyLayout("uploads/", suffix=".jpg").key_for(ULID.new(at=START + i))
            client.put_object(Bucket="photos", Key=key, Body=b"")
        client.put_object(Bucket="photos", Key="README.txt", Body=b"")
        yield client


def test_ls_at_a_bucket_root_points_to_the_folder_of_ids(
    root_bucket: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ls", "s3://photos", "--since", "2024-05-17T09:00:00Z"]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert "hint: keys under s3://photos/ look like uploads/<ulid>.jpg" in err
    assert "list or survey s3://photos/uploads/" in err


def test_survey_at_a_bucket_root_points_to_the_folder_of_ids(
    root_bucket: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ok(capsys, ["survey", "s3://photos/"])
    assert "note: ids sit in folders under this prefix: survey or list s3://photos/uploads/" in out
    assert "uploads/" not in ok(capsys, ["survey", "s3://photos/uploads/"]).split("note:")[-1]


def test_a_scheme_family_needs_its_member(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["new", "--scheme", "typeid"], ["range", "--since", "1h", "--scheme", "typeid"]):
        refused(capsys, argv, "'typeid' names a family", "typeid:PREFIX", "typeid:post")
    assert ok(capsys, ["new", "--scheme", "typeid:user"]).startswith("user_")
    assert "_" not in ok(capsys, ["new", "--scheme", "typeid:"])  # no prefix: bare suffix
    # inspect reads the prefix from the id itself
    assert (
        fields(ok(capsys, ["inspect", "--scheme", "typeid", "user_01h455vb4pex5vsknk084sn02q"]))[
            "scheme"
        ]
        == "typeid:user"
    )


# --- completion -----------------------------------------------------------------------------


@pytest.fixture
def on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An ``ulidkeys`` command of this checkout on PATH (what the scripts run for names)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "ulidkeys"
    script.write_text(
        f"#!/bin/sh\nexec {sys.executable} -c "
        "'import sys; from ulidkeys.cli import main; sys.exit(main(sys.argv[1:]))' \"$@\"\n"
    )
    script.chmod(0o755)
    root = Path(__file__).resolve().parents[2]
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PYTHONPATH", str(root))
    return tmp_path


def bash_offers(script: str, words: list[str], cwd: Path) -> list[str]:
    array = " ".join(f"'{word}'" for word in words)
    program = (
        f"{script}\nCOMP_WORDS=({array}); COMP_CWORD={len(words) - 1}; "
        f"_shtab_ulidkeys ulidkeys '{words[-1]}' '{words[-2]}'; "
        "printf '%s\\n' \"${COMPREPLY[@]}\""
    )
    done = subprocess.run(
        ["bash", "-c", program], capture_output=True, text=True, check=True, cwd=cwd
    )
    return done.stdout.split()


@pytest.mark.slow  # a bash process, which runs the command again for every name it offers
def test_bash_completes_schemes_layouts_and_entities(
    on_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (on_path / "ulidkeys.toml").write_text(
        '[layouts.photos]\nlocation = "s3://photos/uploads/"\n'
        '[layouts.pdfs]\nlocation = "s3://docs/pdfs/"\n'
        '[entities.posts]\ntable = "app"\npk = "Org#{org}"\nsk = "Post#{id}"\n'
    )
    script = ok(capsys, ["completion", "bash"])
    assert bash_offers(script, ["ulidkeys", "ls", "--scheme", "uu"], on_path)[:2] == [
        "uuid7",
        "uuid6",
    ]
    assert "typeid:" in bash_offers(script, ["ulidkeys", "new", "--scheme", "ty"], on_path)
    assert bash_offers(script, ["ulidkeys", "ls", "p"], on_path) == ["pdfs", "photos"]
    assert bash_offers(script, ["ulidkeys", "athena", "ph"], on_path) == ["photos"]
    assert bash_offers(script, ["ulidkeys", "query", ""], on_path) == ["posts"]
    assert bash_offers(script, ["ulidkeys", "ls", "p"], on_path.parent) == []  # no config there


def test_zsh_and_fish_scripts_complete_the_names(capsys: pytest.CaptureFixture[str]) -> None:
    for shell in ("zsh", "fish"):
        script = ok(capsys, ["completion", shell])
        for kind in ("schemes", "layouts", "entities"):
            assert f"ulidkeys completion --names {kind}" in script, (shell, kind)
    fish = ok(capsys, ["completion", "fish"])
    assert "complete -c ulidkeys" in fish and "-a survey" in fish


def test_completion_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schemes = ok(capsys, ["completion", "--names", "schemes"]).split()
    assert schemes[0] == "ulid" and "typeid:" in schemes and "discord-snowflake" in schemes
    broken = tmp_path / "broken.toml"
    broken.write_text("[layouts\n")
    # a broken file is its one-line error, exit 2, nothing on stdout (the scripts hide stderr)
    refused(capsys, ["completion", "--names", "layouts", "--config", str(broken)], "not valid")
    refused(capsys, ["completion"], "completion needs the shell")


# --- messages, plurals and thousands separators ---------------------------------------------


def test_range_of_a_scheme_with_no_sortable_text_does_not_suggest_padding(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = refused(capsys, ["range", "--since", "1h", "--scheme", "uuid4"], "time-ordered scheme")
    assert "zero-padded" not in err


def test_a_time_before_the_epoch_is_echoed_as_given(capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(capsys, ["new", "--at", "1960-01-01T00:00:00Z"], "'1960-01-01T00:00:00Z'")
    assert "-315619200000" not in err and "before the Unix epoch" in err


@pytest.fixture
def aws(aws_credentials: None) -> Iterator[Any]:
    with mock_aws():
        yield


def test_counts_are_singular_for_one_and_use_separators(
    aws: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    client = boto3.client("s3")
    client.create_bucket(Bucket="photos")
    client.put_object(Bucket="photos", Key=f"uploads/{ID}.jpg", Body=b"")
    window = ["--since", "2024-05-17T08:00:00Z", "--until", "2024-05-17T10:00:00Z"]
    assert main(["ls", "s3://photos/uploads/", *window]) == 0
    err = capsys.readouterr().err
    assert "1 object, 1 ListObjectsV2 call, 1 key transferred, 0 keys not fitting" in err
    # one more than a page: two calls, a count with a separator (written in moto's backend)
    fill_bucket("photos", (f"many/{ULID.new(at=START + i)}" for i in range(1, 1002)))
    assert main(["ls", "s3://photos/many/", *window]) == 0
    err = capsys.readouterr().err
    assert "1,001 objects, 2 ListObjectsV2 calls, 1,001 keys transferred" in err
    entity = Entity(pk="Org#{org}", sk="Post#{id}")
    dynamodb = boto3.client("dynamodb")
    dynamodb.create_table(**entity.table_definition("app"))  # type: ignore[arg-type]
    dynamodb.put_item(TableName="app", Item={"PK": {"S": "Org#a"}, "SK": {"S": f"Post#{ID}"}})
    query = ["query", "--table", "app", "--pk", "Org#{org}", "--sk", "Post#{id}", "--field"]
    assert main([*query, "org=a", *window]) == 0
    assert "1 item, 1 Query call, 1 item read" in capsys.readouterr().err


def test_query_that_finds_nothing_hints_like_ls(
    aws: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """--scheme ksuid over ULID sort keys: 0 items, and the hint names the scheme that reads
    them; a partition with no items and a window with none are told apart."""
    entity = Entity(pk="Org#{org}", sk="Post#{id}")
    client = boto3.client("dynamodb")
    client.create_table(**entity.table_definition("app"))  # type: ignore[arg-type]
    for i in range(3):
        keys = entity.keys(org="a", id=ULID.new(at=START + i))
        client.put_item(TableName="app", Item={k: {"S": v} for k, v in keys.items()})
    query = ["query", "--table", "app", "--pk", "Org#{org}", "--sk", "Post#{id}"]
    window = ["--since", "2024-05-17T08:00:00Z", "--until", "2024-05-17T10:00:00Z"]
    cases = [
        (
            ["--field", "org=a", "--scheme", "ksuid", *window],
            "look like Post#<ulid>: try --scheme ulid",
        ),
        (["--field", "org=b", *window], "partition 'Org#b' holds no items"),
        (
            [
                "--field",
                "org=a",
                "--since",
                "2020-01-01T00:00:00Z",
                "--until",
                "2020-01-02T00:00:00Z",
            ],
            "the window holds none of them",
        ),
    ]
    for extra, words in cases:
        assert main([*query, *extra]) == 0
        out, err = capsys.readouterr()
        assert out == "" and err.startswith("0 items, 1 Query call, 0 items read\nhint: "), err
        assert words in err, err
    assert main([*query, "--field", "org=a", *window]) == 0
    assert "hint" not in capsys.readouterr().err  # found: no hint
