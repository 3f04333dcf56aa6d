"""When ``ls`` lists nothing or skips keys as not fitting, stderr says what the keys under the
prefix look like and which flags fit them (issue 22's cases on moto: a missing --shards and
--period, a wrong shard count, hour folders read as days, uuid7 ids read as ULIDs), in a few
bounded calls; a listing that fits says nothing more."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from ulidkeys.cli import main
from ulidkeys.ids import UUID7
from ulidkeys.planning.periods import LAYOUT_PERIOD_NAMES
from ulidkeys.s3 import KeyLayout
from ulidkeys.survey.hints import MAX_CALLS, Lister, look
from ulidkeys.ulid import ULID

START = 1_715_936_400_000  # 2024-05-17T09:00:00Z
WINDOW = ["--since", "2024-05-17T00:00:00Z", "--until", "2024-05-18T00:00:00Z"]


@pytest.fixture
def s3(aws_credentials: None) -> Iterator[Any]:
    with mock_aws():
        client = boto3.client("s3")
        client.create_bucket(Bucket="photos")
        for layout, ids in (
            (KeyLayout("uploads/", shards=4, period="day", suffix=".jpg"), ULID.new),
            (KeyLayout("hourly/", period="hour", suffix=".json"), ULID.new),
            (KeyLayout("events/", scheme=UUID7, suffix=".json"), None),
        ):
            for i in range(60):
                at = START + i * 60_000
                made = UUID7.min_for(at) if ids is None else ids(at=at)
                client.put_object(Bucket="photos", Key=layout.key_for(made), Body=b"")
        yield client


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (
            ["ls", "s3://photos/uploads/"],
            "look like uploads/00/dt=2024-05-17/<ulid>.jpg: try --shards 4 --period day",
        ),
        (["ls", "s3://photos/uploads/", "--shards", "8", "--period", "day"], "try --shards 4"),
        (["ls", "s3://photos/hourly/", "--period", "day"], "try --period hour"),
        (["ls", "s3://photos/events/", "--suffix", ".json"], "try --scheme uuid7"),
        (["ls", "s3://photos/nothing/"], "nothing is stored under s3://photos/nothing/"),
    ],
)
def test_a_listing_that_does_not_fit_says_which_flags_would(
    s3: Any, argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv, *WINDOW, "-o", "jsonl"]) == 0
    err = capsys.readouterr().err
    assert "hint: keys under" in err or "hint: nothing" in err
    assert words in err


def test_a_listing_that_fits_gives_no_hint(s3: Any, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["ls", "s3://photos/uploads/", "--shards", "4", "--period", "day", "--suffix", ".jpg"]
    assert main([*argv, *WINDOW, "-o", "jsonl"]) == 0
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 60 and "hint" not in err


def lister_of(s3: Any, calls: list[str]) -> Lister:
    """One ListObjectsV2 call of bucket ``photos`` a look asks for, its prefix noted."""

    def lister(prefix: str, delimiter: str | None, max_keys: int) -> tuple[list[str], list[str]]:
        calls.append(prefix)
        request: dict[str, Any] = {"Bucket": "photos", "Prefix": prefix, "MaxKeys": max_keys}
        if delimiter:
            request["Delimiter"] = delimiter
        page = s3.list_objects_v2(**request)
        return [p["Prefix"] for p in page.get("CommonPrefixes", [])], [
            o["Key"] for o in page.get("Contents", [])
        ]

    return lister


def test_the_look_is_bounded(s3: Any) -> None:
    calls: list[str] = []
    found = look("uploads/", lister_of(s3, calls))
    assert found is not None and (found.shards, found.period, found.scheme) == (4, "day", "ulid")
    assert len(calls) == found.calls <= MAX_CALLS


@pytest.mark.parametrize("period", LAYOUT_PERIOD_NAMES)
def test_every_period_s_folders_are_read_level_by_level(
    aws_credentials: None, period: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # the periods layouts offer, drawn from the registry: the look walks a period's folder
    # levels from the top (dt= then hr=, or wk=, or dt=YYYY-MM/) and names it
    layout = KeyLayout("logs/", shards=3, period=period, suffix=".json")
    other = next(name for name in LAYOUT_PERIOD_NAMES if name != period)
    with mock_aws():
        client = boto3.client("s3")
        client.create_bucket(Bucket="photos")
        for i in range(30):  # over 30 days: several folders of each period
            key = layout.key_for(ULID.new(at=START - i * 86_400_000))
            client.put_object(Bucket="photos", Key=key, Body=b"")
        calls: list[str] = []
        found = look("logs/", lister_of(client, calls))
        assert found is not None and (found.shards, found.period) == (3, period)
        assert len(calls) == found.calls <= MAX_CALLS and found.suffix == ".json"
        argv = ["ls", "s3://photos/logs/", "--shards", "3", "--period", other, *WINDOW]
        assert main([*argv, "-o", "jsonl"]) == 0
        assert f"try --period {period}" in capsys.readouterr().err
