"""The alternatives the demo, notebooks and benchmarks compare against (ulidkeys.cli.baselines)
measure what they claim on moto, and the demo's budgeted-cover table shows real covers."""

from __future__ import annotations

import random

import boto3
import pytest
from moto import mock_aws

from ulidkeys import ULID, TimeWindow
from ulidkeys.cli.baselines import filter_expression, prefix_delimiter
from ulidkeys.cli.tour import HOUR, _tour_ulids
from ulidkeys.dynamodb import Entity, Table
from ulidkeys.errors import InvalidValue
from ulidkeys.planning.listings import ListCall
from ulidkeys.planning.prefixcover import human_span

T0 = 1_715_936_400_000  # 2024-05-17T09:00:00Z
POST = Entity(pk="Org#{org}", sk="Post#{id}")


def test_delimiter_needs_an_upper_bound() -> None:
    with pytest.raises(InvalidValue, match="no upper bound"):
        prefix_delimiter(None, "b", [ListCall(prefix="up/", start_after=None, stop_at=None)])


@mock_aws
def test_filter_expression_reads_the_whole_partition(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    client = boto3.client("dynamodb", region_name="us-east-1")
    client.create_table(**POST.table_definition("app"))
    posts = Table(client, POST, table_name="app")
    rng = random.Random(2)  # times over one day; the ids' random bits from os.urandom
    ids = [ULID.new(at=T0 + rng.randrange(24 * 3_600_000)) for _ in range(300)]
    with posts.batch_writer() as writer:
        for u in ids:
            writer.put({**POST.keys(org="acme", id=u), "ts": u.timestamp_ms})
        writer.put({**POST.keys(org="other"), "ts": T0})  # another partition: not read
    window = TimeWindow.from_ms(T0 + 5 * 3_600_000, T0 + 8 * 3_600_000)
    ours = posts.query_window(window.start_ms, window.end_ms, org="acme")
    expected = [item["SK"] for item in ours]
    baseline = filter_expression(
        client, "app", ("PK", "Org#acme"), "ts", window.start_ms, window.end_ms
    )
    assert baseline.keys == expected and 0 < len(expected) < len(ids)
    assert baseline.read == len(ids) and baseline.calls >= 1
    assert ours.stats.read == len(expected)


def test_demo_shows_budgeted_covers_as_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    _tour_ulids()
    out = capsys.readouterr().out
    window = TimeWindow(*HOUR)
    exact = window.prefix_cover()
    table = [line.split() for line in out.splitlines() if line[:8].strip().isdigit()]
    rows = {row[0]: row for row in table}
    for k in (1, 4, 16, 32, len(exact)):
        cover = window.prefix_cover(max_prefixes=k)
        row = rows[str(k)]
        assert row[1] == str(len(cover)) and row[2] == cover[0]
        if cover.extra_ms:
            assert f"+{human_span(cover.extra_ms)} ({cover.ratio:.0%})" in " ".join(row)
        else:
            assert row[-1] == "0"
    assert rows["4"][-1] == "(17%)" and rows["1"][-1] == "(832%)"  # the example
