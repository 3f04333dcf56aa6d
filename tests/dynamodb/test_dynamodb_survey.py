"""``ulidkeys.dynamodb.survey`` and ``ulidkeys survey dynamodb://...`` on moto: a partition's sort
key templates and their shares (children and keys without ids included), the main kind's oldest
and newest items, exact counts for a partition read whole, sampled estimates whose range holds
the true count, and an Entity / config table that reads back and queries the same items."""

from __future__ import annotations

import itertools
import json
import random
import sys
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws
from test_dynamodb_support import create_table

from ulidkeys import config as ulidkeys_config
from ulidkeys.cli import main
from ulidkeys.dynamodb import Table, survey
from ulidkeys.errors import InvalidValue
from ulidkeys.ids import KSUID, UUID7
from ulidkeys.ids.protocol import IdScheme
from ulidkeys.ids.registry import generator_for, scheme_named

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

T0 = 1_715_904_000_000  # 2024-05-17T00:00:00Z
DAY = 86_400_000
TABLE = "surveyed"
_orgs = itertools.count()


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with mock_aws():
        made = boto3.client("dynamodb", region_name="us-east-1")
        create_table(made, TABLE)
        yield made


def fill(
    client: Any, n: int, days: int, seed: int, scheme_name: str = "ulid", children: int = 0
) -> tuple[str, list[int]]:
    """A fresh partition ``Org#o<N>`` of ``n`` posts (and ``children`` comments per 10 posts,
    and one item without an id); the posts' id times."""
    org = f"o{next(_orgs)}"
    rng = random.Random(seed)
    at = [T0]
    new = generator_for(scheme_name, clock=lambda: at[0], randbits=rng.getrandbits)
    resource = boto3.resource("dynamodb", region_name="us-east-1").Table(TABLE)
    times = sorted(T0 + rng.randrange(days * DAY) for _ in range(n))
    with resource.batch_writer() as writer:
        for index, ms in enumerate(times):
            at[0] = ms
            post = new()
            writer.put_item(Item={"PK": f"Org#{org}", "SK": f"Post#{post}", "n": index})
            if children and index % 10 == 0:
                for _ in range(children):
                    writer.put_item(Item={"PK": f"Org#{org}", "SK": f"Post#{post}#Comment#{new()}"})
        writer.put_item(Item={"PK": f"Org#{org}", "SK": "Meta#profile"})
    scheme = scheme_named(scheme_name)
    return f"Org#{org}", [ms - ms % scheme.resolution_ms for ms in times]


def test_a_small_partition_is_read_whole_and_exact(client: Any) -> None:
    partition, times = fill(client, 300, 5, seed=1, children=2)
    found = survey(client, partition, table_name=TABLE)
    assert found.exact and found.calls == 1
    kinds = {kind.template: (kind.scheme, kind.count) for kind in found.kinds}
    assert kinds == {
        "Post#{id}": ("ulid", 300),
        "Post#{id}#Comment#{id2}": ("ulid", 60),
        "Meta#profile": (None, 1),
    }
    assert found.main is not None and found.main.template == "Post#{id}"
    assert found.keys.exact and found.keys.value == 300
    assert (found.oldest_ms, found.newest_ms) == (min(times), max(times))
    assert sum(keys.value for _, keys in found.histogram) == 300


def test_the_declared_entity_reads_back_and_queries_the_same_items(
    client: Any, tmp_path: Path
) -> None:
    partition, _times = fill(client, 120, 3, seed=2, children=1)
    found = survey(client, partition, table_name=TABLE)
    assert found.config is not None and found.entity is not None
    assert found.entity.startswith("Entity('Org#{org}', 'Post#{id}')")
    assert tomllib.loads(found.config)["entities"]["post"]["sk"] == "Post#{id}"
    (tmp_path / "ulidkeys.toml").write_text(found.config)
    declared = ulidkeys_config.load(tmp_path / "ulidkeys.toml").entity("post")
    table = declared.table(client)
    assert isinstance(table, Table) and declared.table_name == TABLE
    items = list(table.query_window(0, T0 + 10 * DAY, org=partition.split("#")[1]))
    assert len(items) == 120  # the posts, not their comments nor the profile


@pytest.mark.parametrize("scheme", [UUID7, KSUID], ids=lambda s: s.name)
def test_other_schemes_in_sort_keys(client: Any, scheme: IdScheme) -> None:
    partition, _times = fill(client, 80, 2, seed=3, scheme_name=scheme.name)
    found = survey(client, partition, table_name=TABLE)
    assert found.main is not None and found.main.scheme == scheme.name
    assert found.keys.value == 80


@pytest.mark.slow  # a large partition on moto; the contract: test_dynamodb_survey_contract.py
def test_a_large_partition_is_bounded_within_the_budget(client: Any) -> None:
    """Read in part: the count is unknown with the items read as a sure lower bound; the
    oldest item is the first read, the newest one call from the top of the kind's range."""
    partition, times = fill(client, 1000, 10, seed=4, children=1)
    found = survey(client, partition, table_name=TABLE, page_items=100, max_calls=8)
    assert not found.exact and found.calls == 8
    assert found.keys.state == "unknown" and 0 < found.keys.low <= 1000
    whole = survey(client, partition, table_name=TABLE, page_items=100, max_calls=30)
    assert whole.exact and whole.keys.low == 1000 and whole.calls == 12  # 1,101 items
    assert (found.oldest_ms, found.newest_ms) == (min(times), max(times))
    assert found.oldest_exact and found.newest_exact and found.per_day is None
    assert found.histogram == ()


def test_an_empty_partition_and_bad_arguments(client: Any) -> None:
    found = survey(client, "Org#nobody", table_name=TABLE)
    assert found.kinds == () and found.keys.value == 0 and "no item" in found.notes[0]
    with pytest.raises(InvalidValue):
        survey(client, "", table_name=TABLE)
    with pytest.raises(InvalidValue, match="max_calls"):
        survey(client, "Org#a", table_name=TABLE, max_calls=0)


def test_the_cli_surveys_a_partition(
    client: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    partition, _times = fill(client, 50, 2, seed=5)
    monkeypatch.setattr("ulidkeys.cli.survey.aws_session", lambda args: boto3.session.Session())
    assert main(["survey", f"dynamodb://{TABLE}", "--pk", partition, "--region", "us-east-1"]) == 0
    text = capsys.readouterr().out
    assert "50 (exact) items of the main kind" in text and "Post#{id}" in text
    assert main(["survey", f"dynamodb://{TABLE}", "--pk", partition, "-o", "json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["main"] == "Post#{id}" and row["items"]["value"] == 50


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["survey", "dynamodb://app"], "--pk"),
        (["survey", "s3://photos/up/", "--pk", "Org#a"], "dynamodb://TABLE"),
        (["survey", "dynamodb://", "--pk", "Org#a"], "dynamodb://TABLE"),
    ],
)
def test_cli_mistakes_are_one_line_and_exit_2(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and words in err, err


def test_a_partition_without_ids_and_the_plot(
    client: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    resource = boto3.resource("dynamodb", region_name="us-east-1").Table(TABLE)
    for name in ("profile", "settings", "billing"):
        resource.put_item(Item={"PK": "Org#plain", "SK": f"Meta#{name}"})
    found = survey(client, "Org#plain", table_name=TABLE)
    assert found.main is None and any("no sort key read holds an id" in n for n in found.notes)
    partition, _times = fill(client, 40, 2, seed=6)
    monkeypatch.setattr("ulidkeys.cli.survey.aws_session", lambda args: boto3.session.Session())
    plot = tmp_path / "items.png"
    assert main(["survey", f"dynamodb://{TABLE}", "--pk", partition, "--plot", str(plot)]) == 0
    assert plot.read_bytes()[:4] == b"\x89PNG" and "items over time" not in capsys.readouterr().err


def _posts_by_year(client: Any, spelling: str, seed: int) -> tuple[str, list[int]]:
    """A fresh partition of 240 posts from 2000 to 2023 whose sort keys are ``spelling`` with
    ``{year}`` and ``{id}`` filled; their id times."""
    partition = f"Org#y{next(_orgs)}"
    rng = random.Random(seed)
    at = [0]
    new = generator_for("ulid", clock=lambda: at[0], randbits=rng.getrandbits)
    resource = boto3.resource("dynamodb", region_name="us-east-1").Table(TABLE)
    times = sorted(946_684_800_000 + rng.randrange(24 * 365 * DAY) for _ in range(240))
    with resource.batch_writer() as writer:
        for ms in times:
            at[0] = ms
            year = datetime.fromtimestamp(ms / 1000, timezone.utc).year
            writer.put_item(Item={"PK": partition, "SK": spelling.format(year=year, id=new())})
    return partition, times


def test_posts_under_year_parts_are_one_kind_with_no_entity(client: Any) -> None:
    """``Year#2023#<id>`` was one kind a year, and the entity suggested for the most frequent
    year listed that year alone: now one kind ``Year#{period}#{id}``, counted whole, and no
    entity (none of one year would list them all)."""
    partition, times = _posts_by_year(client, "Year#{year}#{id}", seed=11)
    found = survey(client, partition, table_name=TABLE)
    assert [(k.template, k.scheme, k.count) for k in found.kinds] == [
        ("Year#{period}#{id}", "ulid", 240)
    ]
    assert found.exact and found.keys.low == 240
    assert (found.oldest_ms, found.newest_ms) == (min(times), max(times))
    assert found.oldest_exact and found.newest_exact
    assert found.entity is None and found.config is None
    assert any("period or a time before the id" in note for note in found.notes)
    found = survey(client, partition, table_name=TABLE, max_calls=2, page_items=50)
    assert found.keys.state == "unknown" and found.keys.low == 50  # the first page's
    assert not found.oldest_exact and not found.newest_exact  # key order is the year's first


def test_ids_inside_a_part_of_the_sort_key_are_counted(
    client: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sort keys ``years/2023/<id>.csv`` were "0 (exact)" items, no id of a known scheme: the
    items that end in an id are counted, with their exact time span, and no entity given."""
    partition, times = _posts_by_year(client, "years/{year}/{id}.csv", seed=12)
    found = survey(client, partition, table_name=TABLE)
    assert found.main is None and found.entity is None
    assert found.exact and found.keys.exact and found.keys.low == 240
    assert (found.oldest_ms, found.newest_ms) == (min(times), max(times))
    assert found.oldest_exact and found.newest_exact
    monkeypatch.setattr("ulidkeys.cli.survey.aws_session", lambda args: boto3.session.Session())
    assert main(["survey", f"dynamodb://{TABLE}", "--pk", partition, "--region", "us-east-1"]) == 0
    text = capsys.readouterr().out
    assert "240 (exact) items that end in an id, read whole" in text
    assert "no sort key read holds an id" not in text
