"""``ulidkeys.s3.survey`` and ``ulidkeys survey`` on moto, over buckets built with known layouts:
the layout found is the one built (flat, shards, day and hour folders, suffixes, every sortable
scheme, newest-first keys); a small prefix is read whole and every count is exact; a large one
is sampled within the call budget and its estimate's range holds the true count; keys that fit
no shape are counted; the config block and the JSON read back with their own parsers."""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from idsupport import SORTABLE
from moto import mock_aws
from s3support import fill_bucket, new_bucket

from ulidkeys import config as ulidkeys_config
from ulidkeys.cli import main
from ulidkeys.errors import InvalidValue
from ulidkeys.ids.protocol import IdScheme
from ulidkeys.ids.registry import generator_for, scheme_named
from ulidkeys.planning.periods import LAYOUT_PERIOD_NAMES
from ulidkeys.s3 import KeyLayout, survey

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

T0 = 1_715_904_000_000  # 2024-05-17T00:00:00Z
DAY = 86_400_000


@pytest.fixture(scope="module")
def s3() -> Iterator[Any]:
    with mock_aws():
        yield boto3.client("s3", region_name="us-east-1")


def keys_of(
    layout: KeyLayout, n: int, days: int, seed: int, exts: tuple[str | None, ...] = (None,)
) -> list[str]:
    """``n`` keys of the layout at random times over ``days`` days from T0, their ids made by
    the scheme's own generator (the registry's protocol, with the clock and bits injected)."""
    rng = random.Random(seed)
    at = [T0]

    def make(node: int | None) -> Any:
        return generator_for(
            layout.scheme.name, clock=lambda: at[0], randbits=rng.getrandbits, node=node
        )

    try:
        new = make(None)
    except InvalidValue:  # a node-based scheme
        new = make(7)
    keys = []
    for ms in sorted(T0 + rng.randrange(days * DAY) for _ in range(n)):  # a clock runs forward
        at[0] = ms
        keys.append(layout.key_for(new(), rng.choice(exts)))
    return keys


def times_of(layout: KeyLayout, keys: list[str]) -> list[int]:
    return [layout.parse(key).ms for key in keys]


LAYOUTS = [
    KeyLayout("up/", suffix=".jpg"),
    KeyLayout("up/", shards=4, period="day", suffix=".jpg"),
    KeyLayout("logs/", shards=16, period="hour"),
    KeyLayout("feed/", newest_first=True, suffix=".json"),
    # every period layouts offer (drawn from the registry: a new period joins)
    *(
        KeyLayout(f"{name}ly/", shards=2, period=name, suffix=".png")
        for name in LAYOUT_PERIOD_NAMES
    ),
]
LAYOUT_IDS = ["flat", "4-day", "16-hour", "newest-first", *LAYOUT_PERIOD_NAMES]


@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
def test_a_small_prefix_is_read_whole_and_exact(s3: Any, layout: KeyLayout) -> None:
    bucket = new_bucket(s3)
    keys = keys_of(layout, 600, 3, seed=1)
    junk = [layout.prefix + "-notes.txt", layout.prefix + "zz/other/thing.bin"]
    fill_bucket(bucket, [*keys, *junk])
    found = survey(s3, bucket, layout.prefix)
    assert found.layout == layout
    assert found.exact and found.keys.exact and found.keys.value == len(keys)
    times = times_of(layout, keys)
    assert (found.oldest_ms, found.newest_ms) == (min(times), max(times))
    assert sum(bin_keys.value for _, bin_keys in found.histogram) == len(keys)
    assert found.shape is not None and found.shape.junk == len(junk)
    assert set(found.shape.examples) == set(junk)
    assert found.calls <= 3  # the page (or two), and the folders


@pytest.mark.parametrize("scheme", SORTABLE, ids=lambda s: s.name)
def test_every_sortable_scheme_is_recognised(s3: Any, scheme: IdScheme) -> None:
    layout = KeyLayout("ids/", shards=2, period="day", scheme=scheme)
    bucket = new_bucket(s3)
    fill_bucket(bucket, keys_of(layout, 200, 4, seed=2, exts=(".txt",)))
    found = survey(s3, bucket, "ids/")
    assert found.layout is not None
    assert found.layout.scheme.name == scheme.name.partition(":")[0] or (
        found.layout.scheme == scheme
    )
    assert (found.layout.shards, found.layout.period, found.layout.suffix) == (2, "day", ".txt")


def test_period_folders_no_layout_writes_are_named(s3: Any) -> None:
    # year folders (a period DynamoDB buckets take, S3 layouts do not) spelled as a layout
    # would: periods, not shards, with the folders layouts do write named
    bucket = new_bucket(s3)
    flat = KeyLayout("up/")
    parts = [flat.parse(key) for key in keys_of(flat, 300, 3, 5)]
    keys = [f"yearly/dt={part.ulid.datetime:%Y}/{part.id}" for part in parts]
    fill_bucket(bucket, keys)
    found = survey(s3, bucket, "yearly/")
    assert found.layout is None and found.shape is not None
    assert found.shape.other_period == "dt=2024/" and found.shape.shards is None
    assert any("wk=YYYY-Www/" in note and "dt=YYYY-MM/" in note for note in found.notes)


def test_mixed_suffixes_have_their_shares(s3: Any) -> None:
    layout = KeyLayout("media/", shards=4)
    bucket = new_bucket(s3)
    keys = keys_of(layout, 800, 2, seed=3, exts=(".jpg", ".jpg", ".jpg", ".png"))
    fill_bucket(bucket, keys)
    found = survey(s3, bucket, "media/")
    assert found.shape is not None and found.layout is not None
    assert found.layout.suffix == ""  # keys of any extension fit a layout without one
    counts = {ext: sum(k.endswith(ext) for k in keys) for ext in (".jpg", ".png")}
    assert found.shape.suffixes == counts


# tens of thousands of keys on moto; the contract in memory: test_s3_survey_contract.py
@pytest.mark.slow
@pytest.mark.parametrize(
    ("layout", "max_calls", "state"),
    [
        (KeyLayout("big/", shards=4, period="day", suffix=".jpg"), 4, "range"),
        (KeyLayout("flat/"), 3, "unknown"),
    ],
    ids=["4-day", "flat-3-calls"],
)
def test_a_prefix_larger_than_the_budget_is_bounded(
    s3: Any, layout: KeyLayout, max_calls: int, state: str
) -> None:
    """Read in part: whole shards give a range that holds the count, a flat prefix a sure
    lower bound and an unknown count; the oldest (first) key is exact, the newest a bound."""
    bucket = new_bucket(s3)
    keys = keys_of(layout, 6000, 10, seed=4)
    fill_bucket(bucket, keys)
    found = survey(s3, bucket, layout.prefix, max_calls=max_calls)
    assert not found.exact and found.calls == max_calls
    assert found.layout == layout and found.keys.state == state
    assert found.keys.low <= len(keys) and found.keys.low >= (max_calls - 1) * 1000 * 0.2
    if state == "range":
        assert found.keys.high is not None and len(keys) <= found.keys.high
    times = times_of(layout, keys)
    assert found.oldest_ms is not None and found.newest_ms is not None
    assert found.oldest_ms >= min(times) and found.newest_ms <= max(times)
    assert found.oldest_exact == (layout.shards is None) and not found.newest_exact
    assert found.costs == () and found.config is None and found.per_day is None


@pytest.mark.slow  # a bucket of thousands of keys listed on moto window by window
def test_a_small_prefix_costs_its_windows_on_its_keys(s3: Any) -> None:
    layout = KeyLayout("costed/", shards=4, period="day", suffix=".jpg")
    bucket = new_bucket(s3)
    keys = keys_of(layout, 6000, 10, seed=4)
    fill_bucket(bucket, keys)
    found = survey(s3, bucket, layout.prefix)
    assert found.exact and found.calls == 6
    hour, day = dict(found.costs)["1 hour"], dict(found.costs)["1 day"]
    assert hour.calls >= len(layout.shard_numbers()) and day.full_calls == 6
    assert hour.keys <= day.keys < day.full_keys == len(keys)


# tens of thousands of keys on moto; the contract in memory: test_s3_survey_contract.py
@pytest.mark.slow
def test_a_budget_too_small_for_the_newest_key_says_so(s3: Any) -> None:
    layout = KeyLayout("tiny-budget/")
    bucket = new_bucket(s3)
    keys = keys_of(layout, 5000, 10, seed=6)
    fill_bucket(bucket, keys)
    found = survey(s3, bucket, layout.prefix, max_calls=3)
    assert found.calls == 3 and found.newest_ms is not None and not found.newest_exact
    assert found.newest_ms < max(times_of(layout, keys))
    assert found.keys.state == "unknown" and found.keys.low == 3000


def test_nothing_there_says_so(s3: Any) -> None:
    bucket = new_bucket(s3)
    found = survey(s3, bucket, "empty/")
    assert found.shape is None and found.keys.value == 0 and found.calls == 1
    assert "nothing is stored" in found.notes[0]


def test_bad_arguments_are_refused(s3: Any) -> None:
    with pytest.raises(InvalidValue, match="max_calls"):
        survey(s3, "some-bucket", "up/", max_calls=0)
    with pytest.raises(InvalidValue):
        survey(s3, "some-bucket", "up")  # a folder ends in '/'


def test_the_cli_prints_text_json_config_and_a_plot(
    s3: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    layout = KeyLayout("photos/", shards=4, period="hour", suffix=".jpg")
    bucket = new_bucket(s3)
    fill_bucket(bucket, keys_of(layout, 500, 2, seed=5))
    monkeypatch.setattr("ulidkeys.cli.survey.aws_session", lambda args: boto3.session.Session())
    location = f"s3://{bucket}/photos/"
    plot = tmp_path / "keys.png"
    assert main(["survey", location, "--plot", str(plot)]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"{location}: 500 (exact) keys, read whole")
    assert "4 shard folders, hour folders, ulid" in text and "[layouts.photos]" in text
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["survey", location, "-o", "json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["keys"] == {
        "state": "exact", "value": 500, "low": 500, "high": 500, "confidence": 1.0
    }  # fmt: skip
    assert row["layout"]["shards"] == 4 and row["layout"]["period"] == "hour"
    # the config block reads back with TOML's parser and with ulidkeys' own loader
    block = row["config"]
    assert tomllib.loads(block)["layouts"]["photos"]["location"] == location
    (tmp_path / "ulidkeys.toml").write_text(block)
    declared = ulidkeys_config.load(tmp_path / "ulidkeys.toml").layout("photos")
    assert declared.layout == layout and declared.bucket_name == bucket


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["survey", "s3://some-bucket/up", "--region", "us-east-1"], "write s3://some-bucket/up/"),
        (["survey", "s3://some-bucket/up/", "--max-calls", "0"], "--max-calls"),
        (["survey", "photos/"], "s3://"),
    ],
)
def test_cli_mistakes_are_one_line_and_exit_2(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and words in err, err


def test_ids_of_several_readings_name_the_alternatives(
    s3: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 19-digit number is a Twitter, Instagram or Sonyflake id alike: without period folders
    to tell them apart the first reading wins and the others are named."""
    layout = KeyLayout("flakes/", scheme=scheme_named("twitter-snowflake"))
    bucket = new_bucket(s3)
    fill_bucket(bucket, keys_of(layout, 300, 2, seed=8))
    found = survey(s3, bucket, "flakes/")
    assert found.layout == layout and found.shape is not None
    assert "instagram-id" in found.shape.alternatives
    monkeypatch.setattr("ulidkeys.cli.survey.aws_session", lambda args: boto3.session.Session())
    assert main(["survey", f"s3://{bucket}/flakes/"]) == 0
    assert "the ids also read as instagram-id" in capsys.readouterr().out


# tens of thousands of keys on moto; in memory:
# test_a_large_newest_first_prefix_is_not_15_billion_keys
@pytest.mark.slow
def test_a_large_newest_first_prefix_is_read_from_its_newest(s3: Any) -> None:
    layout = KeyLayout("feed/", newest_first=True, suffix=".json")
    bucket = new_bucket(s3)
    keys = keys_of(layout, 5000, 8, seed=9)
    fill_bucket(bucket, keys)
    found = survey(s3, bucket, "feed/", max_calls=3)
    assert found.layout == layout and not found.exact and found.calls == 3
    assert found.keys.state == "unknown" and found.keys.low == 3000
    times = times_of(layout, keys)
    assert found.newest_ms == max(times) and found.newest_exact
    assert found.oldest_ms is not None and found.oldest_ms > min(times) and not found.oldest_exact


def test_keys_without_ids_are_surveyed_as_such(s3: Any) -> None:
    bucket = new_bucket(s3)
    fill_bucket(bucket, [f"docs/page-{n}.html" for n in range(30)])
    found = survey(s3, bucket, "docs/")
    assert found.layout is None and found.shape is not None and found.shape.junk == 30
    assert found.exact and any("no key holds an id" in note for note in found.notes)
