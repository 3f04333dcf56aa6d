"""Hostile input to the command line, in-process on moto: each case a mistake a user can make
(a value that only looks right, two flags that contradict, a bound the command dropped), and
what it must give - one line on stderr and exit 2 for the mistake, or the answer that honours
every flag given, never an empty or widened one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import boto3
import pytest
from clisupport import refused
from moto import mock_aws

from ulidkeys import ULID
from ulidkeys.cli import main
from ulidkeys.dynamodb import Entity
from ulidkeys.s3 import KeyLayout

START = 1_715_936_400_000  # 2024-05-17T09:00:00Z
MINUTE = 60_000
LAYOUT = KeyLayout("up/")
KEYS = [LAYOUT.key_for(ULID.new(at=START + i * MINUTE)) for i in range(12)]  # 09:00 .. 09:11
POST = Entity(pk="Org#{org}", sk="Post#{id}")
WINDOW = ["--since", "2024-05-17T08:00:00Z", "--until", "2024-05-17T10:00:00Z"]
TEMPLATES = ["--pk", "Org#{org}", "--sk", "Post#{id}"]
QUERY = ["query", "--table", "app", *TEMPLATES, *WINDOW]
ATHENA = ["athena", "s3://photos/up/", "--period", "day"]
ULID_TEXT = "01HY2WF4MV0000000000000000"


@pytest.fixture
def aws(aws_credentials: None) -> Iterator[None]:
    """A bucket ``photos`` holding :data:`KEYS`, a table ``app`` holding five posts of org
    acme (09:00 .. 09:04)."""
    with mock_aws():
        s3 = boto3.client("s3")
        s3.create_bucket(Bucket="photos")
        for key in KEYS:
            s3.put_object(Bucket="photos", Key=key, Body=b"x")
        client = boto3.client("dynamodb")
        client.create_table(**POST.table_definition("app"))  # type: ignore[arg-type]
        for i in range(5):
            keys = POST.keys(org="acme", id=ULID.new(at=START + i * MINUTE))
            client.put_item(TableName="app", Item={k: {"S": v} for k, v in keys.items()})
        yield


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        # a bucket with a '/' was read as a bucket and a prefix: the printed command listed
        # s3://photos/x/ instead of refusing the name
        (["range", *WINDOW, "--bucket", "photos/x"], ("'photos/x' is not an S3 bucket name",)),
        (
            ["range", *WINDOW, "--scheme", "uuid7", "--bucket", "photos/x"],
            ("'photos/x' is not an S3 bucket name",),
        ),
        # int() of a 5,000-digit count raised its own ValueError: "unexpected ... report it"
        (["ls", "s3://photos/up/", *WINDOW, "--slice", "0/" + "9" * 5000], ("must look like I/N",)),
        # an Arabic-Indic digit was read as N (the I was checked to be ASCII, the N not)
        (["ls", "s3://photos/up/", *WINDOW, "--slice", "0/\u0662"], ("must look like I/N",)),
        # two values of one field: the last one silently won
        (
            [*QUERY, "--field", "org=acme", "--field", "org=other"],
            ("--field org is given twice", "'acme'", "'other'"),
        ),
        # --json outvoted -o json: JSON Lines where a JSON array was asked for
        (["inspect", "--json", "-o", "json", ULID_TEXT], ("--json is --output jsonl",)),
        (["inspect", "--json", "-o", "text", ULID_TEXT], ("--output text",)),
        # --until without --since printed the table alone, the window dropped unsaid
        (
            [*ATHENA, "--first-day", "2024-05-17", "--until", "2024-05-17T10:00:00Z"],
            ("give --since with it",),
        ),
        # a day no calendar has was answered "is a day, not a time; write 2024-02-30T00:00:00Z"
        (
            [*ATHENA, "--first-day", "2024-02-30"],
            ("first_day='2024-02-30' is no day", "1970-01-01 to 9999-12-31"),
        ),
        (
            [*ATHENA, "--first-day", "1969-12-31"],
            ("first_day='1969-12-31' is no day",),
        ),
        # the {bucket} message named bucket='day' whatever --bucket was (refused before a call)
        (
            ["query", *TEMPLATES, "--field", "org=a", "--since", "2h", "--bucket", "hour"],
            ("bucket='hour' go together",),
        ),
    ],
)
def test_mistakes_are_one_line_and_exit_2(
    aws: None, capsys: pytest.CaptureFixture[str], argv: list[str], words: tuple[str, ...]
) -> None:
    refused(capsys, argv, *words)


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        # each was botocore's bare ValueError: "unexpected ValueError ... please report it"
        ([*WINDOW, "--endpoint-url", "http://[::1"], "'http://[::1' is not an http(s) URL"),
        ([*WINDOW, "--endpoint-url", "http://a b"], "is not an http(s) URL"),
        ([*WINDOW, "--endpoint-url", "http://127.0.0.1:99999"], "is not an http(s) URL"),
        ([*WINDOW, "--endpoint-url", "http://\x00"], "is not an http(s) URL"),
        ([*WINDOW, "--endpoint-url", "https://\U0001f600.com"], "is not an http(s) URL"),
        ([*WINDOW, "--region", ""], "--region '' is empty"),
        # os.path's own ValueError: "embedded null byte"
        ([*WINDOW, "--manifest", "\x00"], "--manifest '\\x00' holds a NUL character"),
        (["--since", "2h", "--checkpoint", "\x00"], "--checkpoint '\\x00' holds a NUL"),
    ],
)
def test_connection_and_path_flags_botocore_or_os_would_fail_on(
    aws: None, capsys: pytest.CaptureFixture[str], flags: list[str], words: str
) -> None:
    refused(capsys, ["ls", "s3://photos/up/", *flags], words)


def test_endpoints_and_regions_that_work_still_do(
    aws: None, capsys: pytest.CaptureFixture[str]
) -> None:
    for url in ("http://localhost:5000", "http://[::1]:5000", "https://s3.example.com"):
        assert main(["ls", "s3://photos/up/", *WINDOW, "--endpoint-url", url, "--explain"]) == 0
        assert url in capsys.readouterr().out
    assert main(["ls", "s3://photos/up/", *WINDOW, "--region", "us-east-1"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == len(KEYS)


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--pk-attr", ""], "--pk-attr '' names no attribute"),
        (["--sk-attr", ""], "--sk-attr '' names no attribute"),
        (["--pk-attr", "SK"], "--pk-attr and --sk-attr are both 'SK'"),
    ],
)
def test_survey_refuses_key_attributes_query_refuses(
    aws: None, capsys: pytest.CaptureFixture[str], flags: list[str], words: str
) -> None:
    """They were sent, and DynamoDB's ValidationException was exit 1, an AWS failure."""
    refused(capsys, ["survey", "dynamodb://app", "--pk", "Org#acme", *flags], words)


@pytest.mark.parametrize("scheme", ["bogus", "", " ", "typeid:", "ulid\x00"])
def test_a_wrong_inspect_scheme_is_one_line_however_many_ids(
    capsys: pytest.CaptureFixture[str], scheme: str
) -> None:
    """It was one line per id read (a million for a million-line stdin)."""
    refused(capsys, ["inspect", "--scheme", scheme, ULID_TEXT, ULID_TEXT, ULID_TEXT], "--scheme")


def test_inspect_scheme_still_takes_families_and_any_case(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["inspect", "--scheme", "ULID", ULID_TEXT, "-o", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["scheme"] == "ulid"
    typeid = "post_01h455vb4pex5vsknk084sn02q"
    assert main(["inspect", "--scheme", "typeid", typeid, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scheme"] == "typeid:post"
    assert main(["inspect", "--json", "-o", "jsonl", ULID_TEXT]) == 0  # saying it twice is fine
    assert json.loads(capsys.readouterr().out)["id"] == ULID_TEXT


def test_ls_latest_keeps_to_since(aws: None, capsys: pytest.CaptureFixture[str]) -> None:
    """``--latest 5 --since 09:10`` printed five objects, three of them before 09:10."""
    argv = ["ls", "s3://photos/up/", "--latest", "5", "--since", "2024-05-17T09:10:00Z"]
    assert main([*argv, "-o", "jsonl"]) == 0
    out, err = capsys.readouterr()
    assert [json.loads(line)["Key"] for line in out.splitlines()] == KEYS[:-3:-1]
    assert err.startswith("2 objects")
    assert main([*argv[:-2], "-o", "jsonl"]) == 0  # without --since: the five newest
    assert [json.loads(line)["Key"] for line in capsys.readouterr().out.splitlines()] == KEYS[
        :-6:-1
    ]


def test_ls_slice_still_reads_plain_counts(aws: None, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["ls", "s3://photos/up/", "--since", "2024-05-17T09:00:00Z"]
    argv += ["--until", "2024-05-17T09:12:00Z", "-o", "jsonl"]
    halves = []
    for piece in ("0/2", "1/2"):
        assert main([*argv, "--slice", piece]) == 0
        halves += [json.loads(line)["Key"] for line in capsys.readouterr().out.splitlines()]
    assert halves == KEYS
    refused(capsys, [*argv, "--slice", "0/1000000"], "1 .. 100000")


def test_a_repeated_field_of_one_value_is_taken(
    aws: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*QUERY, "--field", "org=acme", "--field", "org=acme"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 5


@pytest.mark.parametrize("flag", ["--limit", "--latest"])
def test_asking_for_none_gives_none_without_a_false_hint(
    aws: None, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    """``--limit 0`` printed 'hint: ... the window holds none of them' about a window of 5."""
    assert main([*QUERY, "--field", "org=acme", flag, "0"]) == 0
    out, err = capsys.readouterr()
    assert out == "" and "hint" not in err, err
    assert main([*QUERY, "--field", "org=acme", flag, "1"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1


def test_range_bucket_still_prints_the_listing_of_a_good_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["range", *WINDOW, "--bucket", "my.photos-1", "-o", "json"]) == 0
    (command,) = json.loads(capsys.readouterr().out)["aws"]
    assert command.startswith("aws s3api list-objects-v2 --bucket my.photos-1 ")
