"""Every period layouts offer, through the command line (drawn from the registry: a new period
joins): ``ls --period NAME`` and a config file's ``period = "NAME"`` list exactly the window,
``--period`` refuses what the registry does not offer, and ``athena`` projects each period or
says why it needs ``--last-day``."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from clisupport import refused
from moto import mock_aws

from ulidkeys.cli import main
from ulidkeys.planning.periods import LAYOUT_PERIOD_NAMES, PERIOD_NAMES, EnumProjection, Period
from ulidkeys.s3 import KeyLayout
from ulidkeys.ulid import ULID

START = 1_608_854_400_000  # 2020-12-25: a 53-week ISO year ends, a month and a year too
DAY = 86_400_000


@pytest.fixture
def s3(aws_credentials: None) -> Iterator[Any]:
    with mock_aws():
        client = boto3.client("s3")
        client.create_bucket(Bucket="photos")
        yield client


def listed(capsys: pytest.CaptureFixture[str], argv: list[str]) -> list[str]:
    assert main([*argv, "-o", "jsonl"]) == 0
    out, err = capsys.readouterr()
    assert "hint" not in err, err
    return [json.loads(line)["Key"] for line in out.splitlines()]


@pytest.mark.parametrize("period", LAYOUT_PERIOD_NAMES)
def test_ls_and_a_config_file_list_every_period_exactly(
    s3: Any, period: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    layout = KeyLayout(f"{period}/", shards=2, period=period, suffix=".jpg")
    rng = random.Random(period)
    times = sorted(START + rng.randrange(20 * DAY) for _ in range(80))
    keys = [layout.key_for(ULID.new(at=t)) for t in times]
    for key in keys:
        s3.put_object(Bucket="photos", Key=key, Body=b"")
    start, end = times[10], times[70]
    expected = [k for k, t in zip(keys, times, strict=True) if start <= t < end]
    window = ["--since", str(start), "--until", str(end)]
    flags = ["--shards", "2", "--period", period, "--suffix", ".jpg"]
    assert listed(capsys, ["ls", f"s3://photos/{period}/", *flags, *window]) == expected
    config = tmp_path / "ulidkeys.toml"
    config.write_text(
        f'[layouts.p]\nlocation = "s3://photos/{period}/"\nshards = 2\nperiod = "{period}"\n'
    )
    assert listed(capsys, ["ls", "p", "--config", str(config), *window]) == expected
    latest = listed(capsys, ["ls", "p", "--config", str(config), "--latest", "5"])
    assert latest == keys[::-1][:5]


def test_ls_refuses_periods_layouts_do_not_offer(capsys: pytest.CaptureFixture[str]) -> None:
    for name in [*(set(PERIOD_NAMES) - set(LAYOUT_PERIOD_NAMES)), "fortnight"]:
        err = refused(capsys, ["ls", "s3://photos/u/", "--period", name, "--since", "1h"])
        assert "--period" in err and all(offered in err for offered in LAYOUT_PERIOD_NAMES)


@pytest.mark.parametrize("period", LAYOUT_PERIOD_NAMES)
def test_athena_projects_every_period(period: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["athena", "s3://photos/u/", "--period", period, "--first-day", "2024-01-01"]
    spec = Period(period).top.athena
    if isinstance(spec, EnumProjection):  # an enum of every value has no NOW: the reason said
        refused(capsys, argv, "--last-day", spec.reason)
        argv += ["--last-day", "2024-03-01"]
    argv += ["--since", "2024-02-05T10:00:00Z", "--until", "2024-02-20T00:00:00Z"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "CREATE EXTERNAL TABLE" in out and out.splitlines()[-1].startswith("WHERE ")
    for level in Period(period).chain:
        assert f"{level.key}=${{{level.key}}}/" in out and f"'projection.{level.key}.type'" in out
