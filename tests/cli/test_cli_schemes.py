"""``--scheme`` on ``new``, ``range``, ``ls`` and ``query``, and ``ulidkeys schemes``, all from
the scheme registry: every scheme ``new`` makes is read back by its reference implementation,
and ``ls`` / ``query`` of uuid7 and KSUID keys on moto return exactly the window."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable

import boto3
import pytest
import uuid6
from bson import ObjectId
from ksuid import Ksuid
from moto import mock_aws
from snowflake import Snowflake
from typeid import TypeID
from ulid import ULID as PythonULID

from ulidkeys.cli import main
from ulidkeys.dynamodb import Entity, Table
from ulidkeys.ids import KSUID, UUID7, bounds, registration_of, scheme_named
from ulidkeys.ids.registration import Registration
from ulidkeys.ids.registry import REGISTRATIONS, names
from ulidkeys.planning.timewindow import TimeWindow
from ulidkeys.s3 import KeyLayout

START = 1_715_936_400_000  # 2024-05-17T09:00:00Z
HOUR = 3_600_000

#: How a reference implementation reads each scheme back (its own parser, not ours).
TWITTER_EPOCH_MS = 1_288_834_974_657
REFERENCE: dict[str, Callable[[str], object]] = {
    "ulid": lambda text: PythonULID.from_str(text),
    "uuid7": lambda text: uuid6.UUID(text).version == 7 or pytest.fail(text),
    "uuid6": lambda text: uuid6.UUID(text).version == 6 or pytest.fail(text),
    "uuid4": lambda text: uuid.UUID(text).version == 4 or pytest.fail(text),
    "uuid1": lambda text: uuid.UUID(text).version == 1 or pytest.fail(text),
    "ksuid": lambda text: Ksuid.from_base62(text),
    "objectid": lambda text: ObjectId(text),
    "typeid:user": lambda text: TypeID.from_string(text).prefix == "user" or pytest.fail(text),
}
MADE = [*REFERENCE, "uuid1-ordered", "ulid-tag1"]


@pytest.mark.parametrize("name", MADE)
def test_new_makes_ids_of_the_scheme(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", "--scheme", name, "-n", "5"]) == 0
    made = capsys.readouterr().out.split()
    scheme = scheme_named(name)
    assert len(made) == len(set(made)) == 5
    assert all(scheme.parse(text) == text for text in made)
    if name in REFERENCE:
        for text in made:
            REFERENCE[name](text)
    assert main(["new", "--scheme", name, "-o", "jsonl"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert scheme.parse(row["id"]) == row["id"]


@pytest.mark.parametrize("name", ["uuid7", "ksuid", "objectid", "uuid1-ordered", "sonyflake"])
def test_new_at_a_time_makes_ids_of_that_time(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    node = ["--node", "7"] if registration_of(name).takes_node else []
    assert (
        main(["new", "--scheme", name, "-n", "3", "--at", "2024-05-17T09:00:01.250Z", *node]) == 0
    )
    made = capsys.readouterr().out.split()
    scheme = scheme_named(name)
    step = scheme.resolution_ms
    assert len(set(made)) == 3
    assert {scheme.timestamp_ms(text) for text in made} == {START + 1250 - 1250 % step}


def test_new_snowflakes_of_a_node(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", "--scheme", "twitter-snowflake", "--node", "513", "-n", "4"]) == 0
    made = [int(text) for text in capsys.readouterr().out.split()]
    assert made == sorted(set(made))
    # snowflake-id (its own parser, Twitter's layout and epoch) reads the node and a time now
    read = [Snowflake.parse(n, TWITTER_EPOCH_MS) for n in made]
    assert {r.instance for r in read} == {513}
    assert abs(read[0].milliseconds - time.time() * 1000) < 60_000


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["new", "--scheme", "twitter-snowflake"], "needs --node N"),
        (["new", "--scheme", "sonyflake", "--node", "65536"], "0 .. 65535"),
        (["new", "--scheme", "ksuid", "--node", "1"], "have no node"),
        # schemes with a generator of their own that takes no node: refused, not dropped
        (["new", "--scheme", "objectid", "--node", "1"], "have no node"),
        (["new", "--scheme", "uuid4", "--node", "1"], "have no node"),
        (["new", "--scheme", "uuid1-ordered", "--node", "1"], "have no node"),
        (["new", "--scheme", "ticket"], "TicketServer"),
        (["new", "--scheme", "uuid5"], "not made from a clock"),
        (["new", "--scheme", "ksuid", "--at", "2000-01-01T00:00:00Z"], "hold times from 2014"),
        (["new", "--scheme", "uuid7", "--monotonic"], "--monotonic makes ULIDs only"),
        (["new", "--scheme", "uuid4", "--at", "2h"], "--at does not apply to --scheme uuid4"),
        (["new", "--scheme", "uuid4", "--at", "2h"], "the flags that do: -n, -o"),
        (["new", "--node", "1"], "--node does not apply to --scheme ulid"),
        (["new", "--node", "1"], "the flags that do: -n, -o, --monotonic, --at"),
        (["new", "--scheme", "objectid", "--node", "1"], "objectid ids have no node"),
        (["new", "--scheme", "snowflake", "--at", "2h"], "needs --node N"),
        (["new", "--scheme", "snowflakes"], "not a known id scheme; one of: ulid"),
        (["range", "--since", "1h", "--scheme", "ksuid", "--cover"], "--cover covers ULID"),
        (["ls", "s3://photos/u/", "--since", "1h", "--scheme", "typeid:Bad"], "TypeID prefix"),
    ],
)
def test_scheme_mistakes_are_one_line_and_exit_2(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = main(argv)
    except SystemExit as exit:  # argparse's own refusal of a --scheme value
        code = int(str(exit.code))
    assert code == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and words in err


@pytest.mark.parametrize(
    "registration",
    [r for r in REGISTRATIONS if r.generated],
    ids=lambda registration: registration.name,
)
def test_new_takes_the_flags_the_registration_says_apply(
    registration: Registration, capsys: pytest.CaptureFixture[str]
) -> None:
    """--at and --node are taken exactly where the scheme's generator reads a clock and a
    node, refused (exit 2, one line naming the flags that apply) where they would be ignored."""
    assert registration.sample is not None
    name = registration.sample.name  # a family's example member: typeid:PREFIX
    node = ["--node", "7"] if registration.takes_node else []
    at = ["--at", "2024-05-17T09:00:01Z"]
    assert main(["new", "--scheme", name, *at, *node]) == (0 if registration.clock else 2)
    out, err = capsys.readouterr()
    assert bool(out) is registration.clock and bool(err) is not registration.clock
    if not registration.clock:
        assert "--at does not apply" in err and err.count("\n") == 1
    assert main(["new", "--scheme", name, "--node", "7"]) == (0 if registration.takes_node else 2)
    out, err = capsys.readouterr()
    assert bool(out) is registration.takes_node
    if not registration.takes_node:
        assert "--node does not apply" in err and err.count("\n") == 1


def test_schemes_lists_the_registry(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schemes", "-o", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row["name"] for row in rows] == list(names())
    by_name = {row["name"]: row for row in rows}
    assert by_name["ksuid"]["resolution_ms"] == 1000 and by_name["ksuid"]["first_year"] == 2014
    assert by_name["sonyflake"]["resolution_ms"] == 10 and by_name["sonyflake"]["windows"]
    assert by_name["uuid4"]["windows"] is False and by_name["uuid4"]["new"] is True
    assert by_name["twitter-snowflake"]["new"] is True  # with --node
    assert by_name["ticket"]["new"] is False and by_name["uuid3"]["new"] is False
    assert main(["schemes"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("ulid ")


def test_range_gives_the_schemes_bounds(capsys: pytest.CaptureFixture[str]) -> None:
    window = ["--since", "2024-05-17T09:00:00Z", "--until", "2024-05-17T10:00:00Z"]
    assert main(["range", *window, "--scheme", "uuid7", "--prefix", "e/", "-o", "json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert (row["lower"], row["upper"]) == bounds(UUID7, TimeWindow(START, START + HOUR), "e/")
    assert row["scheme"] == "uuid7"


def test_ls_and_query_read_the_schemes_keys(
    aws_credentials: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's case: ``events/<uuid7>.json`` keys listed as '0 objects' without --scheme."""
    layout = KeyLayout("events/", scheme=UUID7, suffix=".json")
    entity = Entity(pk="Org#{org}", sk="Event#{id}", scheme=KSUID)
    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="event-log")
        keys = [layout.key_for(UUID7.min_for(START + i * 600_000)) for i in range(12)]
        for key in keys:
            s3.put_object(Bucket="event-log", Key=key, Body=b"{}")
        table = boto3.resource("dynamodb", region_name="us-east-1").create_table(
            **entity.table_definition("app")
        )
        bound = Table(table, entity)
        ids = [KSUID.min_for(START + i * 600_000) for i in range(12)]
        for id_text in ids:
            bound.put_new({**entity.keys(org="acme", id=id_text), "n": 1})
        window = ["--since", "2024-05-17T09:30:00Z", "--until", "2024-05-17T10:30:00Z"]
        common = [*window, "--region", "us-east-1", "-o", "jsonl"]
        assert main(["ls", "s3://event-log/events/", *common, "--suffix", ".json"]) == 0
        assert capsys.readouterr().out == ""  # read as ULIDs: nothing fits
        ls = ["ls", "s3://event-log/events/", *common, "--suffix", ".json", "--scheme", "uuid7"]
        assert main(ls) == 0
        listed = [json.loads(line)["Key"] for line in capsys.readouterr().out.splitlines()]
        assert listed == keys[3:9]
        query = ["query", "--table", "app", "--pk", "Org#{org}", "--sk", "Event#{id}"]
        assert main([*query, "--field", "org=acme", *common, "--scheme", "ksuid"]) == 0
        items = [json.loads(line)["SK"] for line in capsys.readouterr().out.splitlines()]
        assert items == [f"Event#{id_text}" for id_text in ids[3:9]]


@pytest.mark.parametrize(("scheme", "per_step"), [("twitter-snowflake", 4096), ("sonyflake", 256)])
def test_more_ids_than_one_step_holds_at_a_fixed_time_is_refused_at_once(
    scheme: str, per_step: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """A clock fixed by --at never reaches the next step: -n past one step's sequence printed
    the ids it could make, then waited max_wait_ms (5 s) for a step that never comes."""
    argv = ["new", "--scheme", scheme, "--node", "1", "--at", "2024-05-17T09:00:00Z"]
    began = time.monotonic()
    assert main([*argv, "-n", str(per_step + 1)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1, err
    assert f"holds {per_step:,}" in err and time.monotonic() - began < 2
    assert main([*argv, "-n", str(per_step)]) == 0
    made = capsys.readouterr().out.split()
    assert len(made) == len(set(made)) == per_step
