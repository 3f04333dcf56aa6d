"""Athena partition projection of a layout: the properties pass the documented rules (checked
by a validator that accepts AWS's own documented examples), the location template renders to
the folder of every key, and the window's WHERE clause (run in sqlite) selects exactly the
folders the window touches - for every period and shard count."""

from __future__ import annotations

import re
import sqlite3
from datetime import datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st
from periodsupport import brute_floor, brute_next, layout_periods, oracle_folder
from s3support import T0, ulid_at

from ulidkeys.emit.athena import partition_projection, window_predicate
from ulidkeys.errors import InvalidLayout, InvalidValue
from ulidkeys.planning.periods import LAYOUT_PERIOD_NAMES, EnumProjection, Period
from ulidkeys.s3 import KeyLayout

HOUR = 3_600_000
DAY = 86_400_000

# --- the documented rules (docs.aws.amazon.com/athena/latest/ug/partition-projection-
#     supported-types.html and partition-projection-setting-up.html) ---------------------------
_TYPES = {"enum", "integer", "date", "injected"}
_UNITS = {"YEARS", "MONTHS", "WEEKS", "DAYS", "HOURS", "MINUTES", "SECONDS", "MILLIS"}
_NOW = re.compile(r"NOW([+-]\d+(YEARS|MONTHS|WEEKS|DAYS|HOURS|MINUTES|SECONDS|MILLIS)?)?")
_JAVA = {"yyyy": "%Y", "MM": "%m", "dd": "%d", "HH": "%H", "mm": "%M", "ss": "%S"}


def java_format(pattern: str, moment: datetime) -> str:
    """A Java DateTimeFormatter pattern of the fields used above, applied to ``moment``."""
    return moment.strftime(re.sub("|".join(_JAVA), lambda m: _JAVA[m.group()], pattern))


def parse_java(pattern: str, text: str) -> datetime:
    python = re.sub("|".join(_JAVA), lambda m: _JAVA[m.group()], pattern)
    return datetime.strptime(text, python).replace(tzinfo=timezone.utc)


def check_projection(properties: dict[str, str], partition_columns: list[str]) -> None:
    """Raise AssertionError unless the table properties follow the documented rules."""
    assert properties["projection.enabled"].strip().lower() == "true"
    projected = {name.split(".")[1] for name in properties if name.startswith("projection.")}
    projected.discard("enabled")
    assert projected == set(partition_columns), (projected, partition_columns)
    for column in projected:
        own = {k: v for k, v in properties.items() if k.startswith(f"projection.{column}.")}
        kind = own[f"projection.{column}.type"].strip().lower()
        assert kind in _TYPES
        keys = {name[len(f"projection.{column}.") :] for name in own}
        if kind == "integer":
            assert keys <= {"type", "range", "interval", "digits"} and "range" in keys
            low, high = (int(v) for v in own[f"projection.{column}.range"].split(","))
            assert low <= high
            for optional in ("interval", "digits"):
                value = own.get(f"projection.{column}.{optional}")
                assert value is None or int(value) >= 1
        elif kind == "date":
            assert {"type", "range", "format"} <= keys
            assert keys <= {"type", "range", "format", "interval", "interval.unit"}
            pattern = own[f"projection.{column}.format"]
            ends = own[f"projection.{column}.range"].split(",")
            assert len(ends) == 2
            for end in ends:
                if not _NOW.fullmatch(end.strip()):
                    parse_java(pattern, end.strip())  # a date in the column's own format
            if "interval" in keys:
                assert int(own[f"projection.{column}.interval"]) >= 1
            if "interval.unit" in keys:
                assert own[f"projection.{column}.interval.unit"] in _UNITS
        elif kind == "enum":
            assert keys == {"type", "values"}
    template = properties.get("storage.location.template")
    if template is not None:
        assert template.startswith("s3://")
        assert set(re.findall(r"\$\{([^}]*)\}", template)) == set(partition_columns)


# AWS's documented examples (Firehose with separate day/hour keys; Route 53 Resolver logs)
DOCUMENTED = [
    (
        {
            "projection.enabled": "true",
            "projection.day.type": "date",
            "projection.day.format": "yyyy/MM/dd",
            "projection.day.range": "2021/01/01,NOW",
            "projection.day.interval": "1",
            "projection.day.interval.unit": "DAYS",
            "projection.hour.type": "integer",
            "projection.hour.range": "0,23",
            "projection.hour.digits": "2",
            "storage.location.template": "s3://amzn-s3-demo-bucket/prefix/${day}/${hour}/",
        },
        ["day", "hour"],
    ),
    (
        {
            "projection.enabled": "true",
            "projection.vpc.type": "enum",
            "projection.vpc.values": "vpc-6446ae02",
            "projection.date.type": "date",
            "projection.date.range": "2023/06/26,NOW",
            "projection.date.format": "yyyy/MM/dd",
            "projection.date.interval": "1",
            "projection.date.interval.unit": "DAYS",
            "storage.location.template": "s3://amzn-s3-demo-bucket/route53-query-logging/"
            "AWSLogs/aws_account_id/vpcdnsquerylogs/${vpc}/${date}/",
        },
        ["date", "vpc"],
    ),
]


@pytest.mark.parametrize(("properties", "columns"), DOCUMENTED)
def test_the_validator_accepts_the_documented_examples(
    properties: dict[str, str], columns: list[str]
) -> None:
    check_projection(properties, columns)


@pytest.mark.parametrize(
    "change",
    [
        {"projection.day.interval.unit": "DAY"},
        {"projection.day.range": "2021-01-01,NOW"},  # not in the column's format
        {"projection.day.range": "2021/01/01"},
        {"projection.hour.range": "0-23"},
        {"projection.hour.digits": "two"},
        {"projection.hour.type": "number"},
        {"storage.location.template": "s3://amzn-s3-demo-bucket/prefix/${day}/"},
        {"projection.enabled": "yes"},
    ],
)
def test_the_validator_refuses_changed_examples(change: dict[str, str]) -> None:
    properties, columns = DOCUMENTED[0]
    with pytest.raises((AssertionError, ValueError)):
        check_projection({**properties, **change}, columns)


# --- the layout's projection ----------------------------------------------------------------

COMBINATIONS = [
    (period, shards, prefix)
    for period in LAYOUT_PERIOD_NAMES  # every period layouts offer (a new one joins)
    for shards in (None, 1, 4, 16, 101, 1000)
    for prefix in ("", "logs/", "a b/é'x/")
]


def folder_values(name: str, ms: int) -> dict[str, str]:
    """The ``key=value`` levels of the period folder of ``ms``, as the oracle spells it."""
    levels = oracle_folder(name, ms).rstrip("/").split("/")
    return dict(level.split("=", 1) for level in levels)


@pytest.mark.parametrize(("period", "shards", "prefix"), COMBINATIONS)
def test_properties_for_every_period_and_shard_count(
    period: str, shards: int | None, prefix: str
) -> None:
    layout = KeyLayout(prefix, shards=shards, period=period, suffix=".json")
    last = "2024-12-31" if isinstance(Period(period).top.athena, EnumProjection) else None
    projection = partition_projection(layout, "my-bucket", "2024-01-01T00:00:00Z", last)
    properties = projection.properties
    columns = [name for name, _ in projection.columns]
    check_projection(properties, columns)
    levels = list(folder_values(period, T0))
    assert columns == (["shard"] if shards else []) + levels
    top = levels[0]
    if properties[f"projection.{top}.type"] == "date":  # from the first day's period on
        first = java_format(properties[f"projection.{top}.format"], datetime(2024, 1, 1))
        assert properties[f"projection.{top}.range"] == f"{first},NOW"
    assert projection.location == f"s3://my-bucket/{prefix}"
    # the template renders each key's partition values to the key's own folder
    template = properties["storage.location.template"]
    for n in range(40):
        ms = T0 + n * 7_777_777 * (n % 7) * (3 if period in ("week", "month") else 1)
        key = layout.key_for(ulid_at(ms, n * 2**70 + n))
        parts = layout.parse(key)
        moment = datetime.fromtimestamp(ms / 1000, timezone.utc)
        values = {
            "shard": str(parts.shard).zfill(int(properties.get("projection.shard.digits", "1")))
        }
        for column, value in folder_values(period, ms).items():
            kind = properties[f"projection.{column}.type"]
            if kind == "date":  # Java's pattern renders the folder's value
                values[column] = java_format(properties[f"projection.{column}.format"], moment)
            elif kind == "integer":
                low, high = map(int, properties[f"projection.{column}.range"].split(","))
                digits = int(properties.get(f"projection.{column}.digits", "1"))
                assert low <= int(value) <= high
                values[column] = str(int(value)).zfill(digits)
            else:  # an enum lists every value of the range
                assert kind == "enum"
                if moment.year == 2024:
                    assert value in properties[f"projection.{column}.values"].split(",")
                values[column] = value
        rendered = template
        for name, value in values.items():
            rendered = rendered.replace("${" + name + "}", value)
        assert rendered == f"s3://my-bucket/{key[: key.rindex('/') + 1]}"
    ddl = projection.ddl("photos")
    assert "PARTITIONED BY (" in ddl and "'storage.location.template' = " in ddl
    assert ddl.count("'") % 2 == 0  # quotes in the prefix doubled


def test_iso_weeks_are_an_enum_of_every_week_and_need_a_last_day() -> None:
    layout = KeyLayout("logs/", period="week")
    projection = partition_projection(layout, "b", "2020-12-20", "2021-01-10")
    values = projection.properties["projection.wk.values"].split(",")
    # 2020 has 53 ISO weeks; 2021-01-01..03 are in 2020-W53, 2021-01-10 ends 2021-W01
    assert values == ["2020-W51", "2020-W52", "2020-W53", "2021-W01"]
    assert (
        partition_projection(layout, "b", "2020-W53", "2021-W01").properties["projection.wk.values"]
        == "2020-W53,2021-W01"
    )
    with pytest.raises(InvalidValue, match=r"cannot project week folders as dates.*locale"):
        partition_projection(layout, "b", "2024-01-01")  # no end: an enum has no NOW
    with pytest.raises(InvalidValue, match="more than 512,000 characters"):
        partition_projection(layout, "b", "1970-01-01", "9999-12-31")
    assert window_predicate(layout, ms_at("2021-01-02"), ms_at("2021-01-05")) == (
        "wk BETWEEN '2020-W53' AND '2021-W01'"
    )


def ms_at(day: str) -> int:
    return int(datetime.fromisoformat(day).replace(tzinfo=timezone.utc).timestamp() * 1000)


def test_range_end_and_refusals() -> None:
    layout = KeyLayout("logs/", period="day")
    projection = partition_projection(layout, "b", "2024-01-01", "2024-03-05T23:00:00-02:00")
    assert projection.properties["projection.dt.range"] == "2024-01-01,2024-03-06"
    with pytest.raises(InvalidLayout, match="no period folders"):
        partition_projection(KeyLayout("logs/"), "b", 0)
    with pytest.raises(InvalidLayout, match="no period folders"):
        window_predicate(KeyLayout("logs/"), 0, 1)
    with pytest.raises(InvalidValue, match="bucket name"):
        partition_projection(layout, "b/c", 0)
    with pytest.raises(InvalidLayout, match=r"\$\{"):
        partition_projection(KeyLayout("a${x}/", period="day"), "b", 0)


# --- the WHERE clause, run by sqlite over the folders around the window -----------------------

#: 40 days of hours from 2024-05-01: month ends, ISO weeks and days, around T0 (2024-05-17).
BASE = ms_at("2024-05-01")
ROWS = 40 * 24
moments = st.one_of(
    st.integers(-3, 3 * 24 + 3).map(lambda h: T0 - T0 % DAY + h * HOUR),
    st.integers(0, 3 * DAY).map(lambda ms: T0 - T0 % DAY - HOUR + ms),
    st.integers(2, ROWS - 2).map(lambda h: BASE + h * HOUR),  # anywhere in the 40 days
    st.integers(0, 36 * DAY).map(lambda ms: BASE + 2 * DAY + ms),
)


@given(bounds=st.tuples(moments, moments).map(sorted), period=layout_periods)
def test_where_selects_exactly_the_folders_the_window_touches(
    bounds: list[int], period: str
) -> None:
    start, end = bounds
    layout = KeyLayout("x/", shards=2, period=period)
    kinds = dict(partition_projection(layout, "b", "2024-05-01", "2024-06-30").columns)
    del kinds["shard"]
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE TABLE p (shard INTEGER, {', '.join(kinds)}, first INTEGER)")
    for h in range(ROWS):  # a row an hour: its folder's values, as the oracle spells them
        values = folder_values(period, BASE + h * HOUR)
        row = [int(v) if kinds[k] == "int" else v for k, v in values.items()]
        marks = ", ".join("?" * len(row))
        db.execute(f"INSERT INTO p VALUES (0, {marks}, ?)", (*row, BASE + h * HOUR))
    where = window_predicate(layout, start, end)
    got = {row[0] for row in db.execute(f"SELECT first FROM p WHERE {where}")}
    # every hour row of a folder that overlaps [start, end): folders from the oracle's calendar
    expected = {
        BASE + h * HOUR
        for h in range(ROWS)
        if start < end
        and brute_floor(period, BASE + h * HOUR) < end
        and brute_next(period, BASE + h * HOUR) > start
    }
    assert got == expected
