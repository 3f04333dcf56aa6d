"""The partition survey's honesty contract on moto, against brute force: a count marked exact is
exact, any other is unknown with a sure lower bound; an oldest or newest item marked exact is
exact, else the truth lies beyond it; the budget holds, and a partition not read whole never
costs more calls than a paginator reading it whole. Partitions of generated kinds (posts,
children, items without ids, kinds sorting before and after the posts) with bursty, same-ms and
outlier times; posts whose sort keys hold a period before the id (``Year#2023#<id>``: one
kind, no entity, as an entity of one year would list that year alone) or the id inside a part
(``years/2023/<id>.csv``: the items that end in an id counted, not none). The entity suggested
queries the partition it was read from, or none is."""

from __future__ import annotations

import itertools
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from moto import mock_aws
from profiles import examples
from test_dynamodb_support import create_table

from ulidkeys import config as ulidkeys_config
from ulidkeys.cli import main
from ulidkeys.dynamodb import PartitionSurvey, survey
from ulidkeys.ids.registry import generator_for
from ulidkeys.timeinput import ms_to_datetime

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

T0 = 1_715_904_000_000
HOUR, DAY = 3_600_000, 86_400_000
TABLE = "contract"
_parts = itertools.count()


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with mock_aws():
        made = boto3.client("dynamodb", region_name="us-east-1")
        create_table(made, TABLE)
        yield made


def put(client: Any, partition: str, sort_keys: list[str]) -> None:
    table = boto3.resource("dynamodb", region_name="us-east-1").Table(TABLE)
    with table.batch_writer() as writer:
        for key in sort_keys:
            writer.put_item(Item={"PK": partition, "SK": key})


def post_times(shape: str, n: int, rng: random.Random) -> list[int]:
    if shape == "burst":
        hour = T0 + rng.randrange(29 * DAY)
        return [
            hour + rng.randrange(HOUR) if rng.random() < 0.9 else T0 + rng.randrange(30 * DAY)
            for _ in range(n)
        ]
    if shape == "same-ms":
        return [T0 + rng.randrange(2) for _ in range(n)]
    if shape == "years":  # 2000 to 2023
        return [946_684_800_000 + rng.randrange(24 * 365 * DAY) for _ in range(n)]
    if shape == "outliers":
        ends = (rng.randrange(1000), 253_402_300_799_000)  # 1970 and 9999
        return [rng.choice([*ends, T0 + rng.randrange(DAY)]) for _ in range(n)]
    return [T0 + rng.randrange(30 * DAY) for _ in range(n)]


def pages_to_read_whole(client: Any, partition: str, limit: int | None) -> int:
    """How many Query calls boto3's own paginator makes to read the partition whole."""
    config = {} if limit is None else {"PageSize": limit}
    pages = client.get_paginator("query").paginate(
        TableName=TABLE,
        KeyConditionExpression="PK = :p",
        ExpressionAttributeValues={":p": {"S": partition}},
        PaginationConfig=config,
    )
    return sum(1 for _ in pages)


def check(found: PartitionSurvey, posts: list[int], budget: int, whole_calls: int) -> None:
    assert found.calls <= budget
    if not found.exact:
        assert found.calls <= whole_calls, (found.calls, whole_calls)
    count = found.keys
    assert count.low <= len(posts)
    if count.exact:
        assert count.low == len(posts) and found.exact
    else:
        assert count.high is None  # a partition is counted only by reading it
    if found.oldest_ms is not None:
        truth = min(posts)
        assert found.oldest_ms == truth if found.oldest_exact else found.oldest_ms >= truth
    if found.newest_ms is not None:
        truth = max(posts)
        assert found.newest_ms == truth if found.newest_exact else found.newest_ms <= truth
    for _start, binned in found.histogram:
        assert binned.exact and count.exact


#: How the posts' sort keys are spelled: the main kind's template (``{year}`` filled from the
#: id's time; None: no template holds the id at a part of its own).
FORMS = {
    "Post#{id}": "Post#{id}",
    "Year#{year}#{id}": "Year#{period}#{id}",
    "years/{year}/{id}.csv": None,
}


@given(
    n=st.integers(1, 80),
    shape=st.sampled_from(["uniform", "burst", "same-ms", "outliers", "years"]),
    before=st.integers(0, 30),
    children=st.integers(0, 2),
    page=st.sampled_from([None, 7, 25, 60]),
    budget=st.integers(1, 8),
    seed=st.integers(0, 2**32),
    form=st.sampled_from(sorted(FORMS)),
)
# posts under year parts, read whole: one kind of 80 posts, not 24 kinds of which the entity
# suggested lists one year's
@example(80, "years", 3, 0, None, 8, 1, "Year#{year}#{id}")
@example(80, "years", 3, 0, 25, 2, 1, "Year#{year}#{id}")  # read in part
# ids inside a part of the sort key, read whole: 80 items that end in an id, not "0 (exact)"
@example(80, "years", 3, 0, None, 8, 2, "years/{year}/{id}.csv")
@settings(max_examples=examples(12))
def test_every_figure_is_exact_or_honestly_bounded(
    client: Any,
    n: int,
    shape: str,
    before: int,
    children: int,
    page: int | None,
    budget: int,
    seed: int,
    form: str,
) -> None:
    rng = random.Random(seed)
    partition = f"Org#c{next(_parts)}"
    at = [0]
    new = generator_for("ulid", clock=lambda: at[0], randbits=rng.getrandbits)
    posts, keys = [], [f"Alert#{i:05d}" for i in range(before)] + ["Zone#last"]
    for ms in post_times(shape, n, rng):
        at[0] = ms
        post = new()
        posts.append(ms)
        keys.append(form.format(id=post, year=ms_to_datetime(ms).year))
        if form == "Post#{id}":
            keys += [f"Post#{post}#Comment#{new()}" for _ in range(children)]
    put(client, partition, keys)
    found = survey(client, partition, table_name=TABLE, max_calls=budget, page_items=page)
    template = FORMS[form]
    if template is None or template != "Post#{id}":  # one kind holds every post, or none
        assert found.entity is None and (template is not None or found.main is None)
        if found.main is not None:
            assert found.main.template == template
            assert found.main.count == sum(k.count for k in found.kinds if k.scheme)
        elif template is not None:  # the pages read held none of the posts
            assert not found.exact and found.keys.low == 0
        check(found, posts, budget, pages_to_read_whole(client, partition, page))
    if found.main is not None and found.main.template == "Post#{id}":
        check(found, posts, budget, pages_to_read_whole(client, partition, page))


@pytest.mark.parametrize("partition", ["#", "Org#", "#acme", "Org#acme#", "weird{x}", "Org#{a}"])
def test_the_entity_suggested_queries_its_partition_or_none_is(
    client: Any, partition: str, tmp_path: Path
) -> None:
    rng = random.Random(9)
    new = generator_for("ulid", clock=lambda: T0 + rng.randrange(DAY), randbits=rng.getrandbits)
    put(client, partition, [f"Post#{new()}" for _ in range(30)])
    found = survey(client, partition, table_name=TABLE)
    assert found.exact and found.keys.low == 30
    if found.config is None:
        assert found.entity is None and any("no entity suggested" in n for n in found.notes)
        return
    (tmp_path / "ulidkeys.toml").write_text(found.config)
    entity = tomllib.loads(found.config)["entities"]
    (name,) = entity
    declared = ulidkeys_config.load(tmp_path / "ulidkeys.toml").entity(name)
    fields = dict(zip(declared.entity.schema().pk.fields, [], strict=False))
    assert declared.entity.schema().pk.fields == () or fields is not None
    matched = declared.entity.schema().pk.match(partition)
    assert matched is not None  # the template gives back the partition it was read from
    items = list(declared.table(client).query_window(0, T0 + 2 * DAY, **matched))
    assert len(items) == 30


def test_a_template_with_braces_is_not_blamed_on_the_user(
    client: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(10)
    new = generator_for("ulid", clock=lambda: T0 + rng.randrange(DAY), randbits=rng.getrandbits)
    put(client, "odd{y}", [f"Post{{v}}#{new()}" for _ in range(5)])
    monkeypatch.setattr("ulidkeys.cli.survey.aws_session", lambda args: boto3.session.Session())
    argv = ["survey", f"dynamodb://{TABLE}", "--pk", "odd{y}", "--region", "us-east-1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "5 (exact) items" in out and "no entity suggested" in out


def test_a_missing_table_is_one_line_naming_it(
    client: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("ulidkeys.cli.survey.aws_session", lambda args: boto3.session.Session())
    code = main(["survey", "dynamodb://nosuchtable", "--pk", "X", "--region", "us-east-1"])
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1, err  # AWS said no
    assert "nosuchtable" in err and "Traceback" not in err
