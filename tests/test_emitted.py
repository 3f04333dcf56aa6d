"""What ulidkeys writes for another program reads back, with that program's own parser, as
exactly what the user gave, over hostile inputs; or the library refused it up front, naming it.

Athena DDL through sqlglot's ``athena`` and ``hive`` dialects (one statement, the names and
literals equal), the ``WHERE`` of a window through ``trino``, pasteable ``aws`` commands through
``shlex``, ``json`` and ``jmespath``, presigned URLs through ``urllib.parse``, ``-o jsonl``
through ``json``; and a failing command prints nothing on stdout. (S3 Batch manifests are read
back with ``csv``-style splitting and ``unquote`` in test_cli_fanout.py, presigned signatures
with botocore's SigV4 signer in s3/test_s3_presigned.py.)
"""

from __future__ import annotations

import json
import shlex
from datetime import date, timedelta
from typing import Any
from urllib.parse import unquote, urlsplit

import boto3
import jmespath
import pytest
import sqlglot
from hypothesis import assume, given
from hypothesis import strategies as st
from moto import mock_aws
from periodsupport import layout_periods
from sqlglot import exp

from ulidkeys.cli import main
from ulidkeys.dynamodb import Entity, Table
from ulidkeys.emit.athena import column_type, partition_projection, table_name, window_predicate
from ulidkeys.emit.awscli import dynamodb_commands, s3_commands
from ulidkeys.errors import InvalidLayout, InvalidValue, UlidkeysError
from ulidkeys.s3 import Bucket, KeyLayout

T0 = 1_715_936_400_000  # 2024-05-17T09:00:00Z
DAY = 86_400_000

#: Characters that break naive quoting, plus astral, U+2028, bidi overrides and XML specials
#: (the layout refuses some of them: then the refusal is the answer).
HOSTILE = "'\"\\`;,-/*${}]]><&%+ \n\t\u2028\u202e\U0001f600é#=:()[]"
hostile_text = st.text(
    st.one_of(st.sampled_from(HOSTILE), st.characters(blacklist_categories=("Cs",))),
    min_size=1,
    max_size=24,
)
#: Any text S3 takes as a folder of a layout: refused ones are skipped by ``assume``.
folders = hostile_text.map(lambda text: text.rstrip("/") + "/")


def layout_or_skip(prefix: str, **kwargs: Any) -> KeyLayout:
    try:
        return KeyLayout(prefix, **kwargs)
    except UlidkeysError:
        assume(False)
        raise


# --- Athena DDL: Hive literals, backticked names -------------------------------------------------


def parsed_ddl(ddl: str, dialect: str) -> exp.Create:
    statements = sqlglot.parse(ddl, read=dialect)
    assert len(statements) == 1, statements
    create = statements[0]
    assert isinstance(create, exp.Create) and create.kind == "TABLE"
    return create


@given(prefix=folders, period=layout_periods, shards=st.sampled_from([None, 4]))
def test_ddl_literals_read_back_as_the_location(
    prefix: str, period: str, shards: int | None
) -> None:
    layout = layout_or_skip(prefix, period=period, shards=shards)
    try:
        projection = partition_projection(layout, "photos", "2024-01-01", "2024-06-30")
    except InvalidLayout as refused:
        assert "${" in prefix and "${" in str(refused)
        return
    except InvalidValue as refused:
        assert "control character" in str(refused)
        return
    ddl = projection.ddl("logs.uploads", [("line", "string"), ("n", "decimal(38,9)")])
    for dialect in ("athena", "hive"):
        create = parsed_ddl(ddl, dialect)
        table = create.find(exp.Table)
        assert table is not None and (table.db, table.name) == ("logs", "uploads")
        location = create.find(exp.LocationProperty)
        assert location is not None and location.this.this == f"s3://photos/{prefix}"
        properties = {
            prop.name: prop.args["value"].this
            for prop in create.find_all(exp.Property)
            if type(prop) is exp.Property
        }
        assert properties == projection.properties
        columns = [c.name for c in create.find_all(exp.ColumnDef)]
        assert columns == ["line", "n", *(name for name, _ in projection.columns)]


@given(name=hostile_text)
def test_table_names_are_athena_names_or_refused(name: str) -> None:
    projection = partition_projection(KeyLayout("logs/", period="day"), "b", "2024-01-01")
    try:
        ddl = projection.ddl(name)
    except InvalidValue as refused:
        assert "table" in str(refused)
        return
    table = parsed_ddl(ddl, "athena").find(exp.Table)
    assert table is not None and ".".join(filter(None, (table.db, table.name))) == name


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ("x;DROP TABLE y --", "not an Athena name"),
        ("Uploads", "lowercase: 'uploads'"),
        ("a.b.c", "more than one '.'"),
        ("a`b", "not an Athena name"),
        ("", "not an Athena name"),
        ("x" * 256, "not an Athena name"),
    ],
)
def test_hostile_table_names_are_refused(table: str, words: str) -> None:
    projection = partition_projection(KeyLayout("logs/", period="day"), "b", "2024-01-01")
    with pytest.raises(InvalidValue, match=words):
        projection.ddl(table)
    assert table_name("db.t_1") == "`db`.`t_1`"


@pytest.mark.parametrize(
    "kind",
    [
        "string",
        "decimal(38,9)",
        "varchar(10)",
        "array<struct<id:string,n:int>>",
        "map<string,array<bigint>>",
        "STRUCT<a:INT>",
    ],
)
def test_column_types_of_hive(kind: str) -> None:
    assert column_type(kind) == kind.lower()
    create = parsed_ddl(
        partition_projection(KeyLayout("l/", period="day"), "b", "2024-01-01").ddl(
            "t", [("c", kind)]
        ),
        "hive",
    )
    assert next(c.name for c in create.find_all(exp.ColumnDef)) == "c"


@pytest.mark.parametrize(
    "kind", ["string) ; DROP TABLE x --", "decimal(1,2,3)", "array<string", "struct<>", "text"]
)
def test_column_types_that_are_not_hives_are_refused(kind: str) -> None:
    with pytest.raises(InvalidValue, match="not a Hive column type"):
        column_type(kind)


def test_a_prefix_that_is_not_a_folder_and_empty_ranges_are_refused() -> None:
    with pytest.raises(InvalidLayout, match="does not end in '/'"):
        partition_projection(KeyLayout("uploads-", period="day"), "b", "2024-01-01")
    with pytest.raises(InvalidValue, match="first_day 2026-03-01 is after last_day 2026-01-01"):
        partition_projection(KeyLayout("u/", period="day"), "b", "2026-03-01", "2026-01-01")
    tomorrow = (date.today() + timedelta(days=2)).isoformat()
    with pytest.raises(InvalidValue, match=f"first_day {tomorrow} is after today"):
        partition_projection(KeyLayout("u/", period="day"), "b", tomorrow)


@given(
    start=st.integers(T0 - 3 * DAY, T0 + 3 * DAY),
    length=st.integers(1, 4 * DAY),
    period=layout_periods,
)
def test_where_parses_as_trino_with_labels_of_the_top_folders(
    start: int, length: int, period: str
) -> None:
    layout = KeyLayout("x/", period=period)
    where = window_predicate(layout, start, start + length)
    statements = sqlglot.parse(f"SELECT * FROM t WHERE {where}", read="trino")
    assert len(statements) == 1
    literals = [lit.this for lit in statements[0].find_all(exp.Literal) if lit.is_string]
    top = layout.partition.top  # type: ignore[union-attr]
    assert literals and all(top.parse_label(text) is not None for text in literals)
    if top.size == "day":
        assert all(date.fromisoformat(text) for text in literals)


# --- the CLI: refusals, one line, nothing on stdout ----------------------------------------------

ATHENA = ["athena", "s3://photos/uploads/", "--period", "day", "--first-day", "2026-01-01"]


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        ([*ATHENA, "--table", "x;DROP TABLE y --"], "not an Athena name"),
        ([*ATHENA, "--since", "2026-02-01"], "since="),
        ([*ATHENA, "--last-day", "2025-12-01"], "is after last_day 2025-12-01"),
        (
            ["athena", "s3://photos/uploads", "--period", "day", "--first-day", "2026-01-01"],
            "s3://photos/uploads/",
        ),
    ],
)
def test_athena_mistakes_print_nothing_on_stdout(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and words in err


def test_athena_output_is_one_statement_and_a_where(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [*ATHENA, "--table", "logs.uploads", "--since", "2026-01-02T00:00:00Z"]
    assert main([*argv, "--until", "2026-01-03T12:00:00Z"]) == 0
    out = capsys.readouterr().out
    ddl, _, rest = out.partition(";\n")
    assert parsed_ddl(ddl, "athena").find(exp.Table).name == "uploads"  # type: ignore[union-attr]
    where = rest.splitlines()[-1]
    assert where.startswith("WHERE ")
    assert len(sqlglot.parse(f"SELECT 1 FROM t {where}", read="trino")) == 1


# --- pasteable aws commands: shlex, then the CLI's JSON and JMESPath ------------------------------


@given(prefix=folders, suffix=st.sampled_from(["", ".jpg", ".j'p\"g", ".$(x)"]))
def test_s3_commands_split_back_to_the_plans_arguments(prefix: str, suffix: str) -> None:
    layout = layout_or_skip(prefix, shards=2, period="hour", suffix=suffix)
    plan = layout.plan_window(T0, T0 + 7_200_000)
    lines = [line for line in s3_commands("photos", plan, suffix) if not line.startswith("#")]
    assert len(lines) == len(plan.calls) > 0
    for line, call in zip(lines, plan.calls, strict=True):
        args = shlex.split(line)
        assert args[:3] == ["aws", "s3api", "list-objects-v2"]
        options = dict(zip(args[3::2], args[4::2], strict=False))
        assert options["--bucket"] == "photos" and options["--prefix"] == call.prefix
        if call.start_after is not None:
            assert options["--start-after"] == call.start_after
        # the client-side filter, read by JMESPath itself, keeps exactly the plan's keys
        inside = f"{call.prefix}{'0' * 26}{suffix}"
        beyond = call.stop_at or ""
        data = {"Contents": [{"Key": inside}, {"Key": beyond}, {"Key": call.prefix + "x"}]}
        kept = [obj["Key"] for obj in jmespath.search(options["--query"], data) or []]
        expected = [
            key
            for key in (inside, beyond, call.prefix + "x")
            if (call.stop_at is None or key < call.stop_at) and key.endswith(suffix)
        ]
        assert kept == expected


@given(org=hostile_text)
def test_dynamodb_commands_split_back_to_the_request(org: str) -> None:
    entity = Entity(pk="Org#{org}", sk="Post#{id}")
    try:
        plan = entity.plan_window(T0, T0 + 7_200_000, org=org)
    except UlidkeysError:
        return  # refused up front (a character keys must not hold)
    lines = [line for line in dynamodb_commands("app", plan) if not line.startswith("#")]
    for line, call in zip(lines, plan.calls, strict=True):
        args = shlex.split(line)
        options = dict(zip(args[3::2], args[4::2], strict=False))
        request = call.request("app")
        assert options["--table-name"] == "app"
        assert options["--key-condition-expression"] == request["KeyConditionExpression"]
        values = json.loads(options["--expression-attribute-values"])
        assert values == request["ExpressionAttributeValues"]
        assert f"Org#{org}" in [v.get("S") for v in values.values()]


# --- presigned URLs: the key reads back from the URL ----------------------------------------------


@given(prefix=folders)
def test_presigned_urls_carry_the_key_exactly(prefix: str) -> None:
    layout = layout_or_skip(prefix, suffix=".bin")
    client = boto3.client(
        "s3", region_name="eu-west-1", aws_access_key_id="a", aws_secret_access_key="b"
    )
    upload = Bucket(client, "photos", layout).presigned_put()
    parts = urlsplit(upload.url)
    assert parts.hostname == "photos.s3.eu-west-1.amazonaws.com"
    assert unquote(parts.path) == "/" + upload.key
    assert upload.key.startswith(prefix) and "\n" not in upload.url and " " not in upload.url


# --- -o jsonl: hostile item values read back with json -------------------------------------------


def test_query_jsonl_reads_back_hostile_values(capsys: pytest.CaptureFixture[str]) -> None:
    texts = ["a\u2028b", "\u202eevil", "]]><x/>", "q\"uo'te", "new\nline", "\U0001f600", "\\"]
    with mock_aws():
        dynamodb = boto3.resource("dynamodb", region_name="us-east-1")
        entity = Entity(pk="Org#{org}", sk="Post#{id}")
        table = Table(dynamodb.create_table(**entity.table_definition("app")), entity)
        for text in texts:
            table.put_new({**entity.keys(org="acme"), "body": text, "tags": {text}})
        argv = ["query", "--table", "app", "--pk", "Org#{org}", "--sk", "Post#{id}"]
        argv += ["--field", "org=acme", "--since", "1h", "-o", "jsonl", "--region", "us-east-1"]
        assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    items = [json.loads(line) for line in lines]
    assert sorted(item["body"] for item in items) == sorted(texts)
    assert all(item["tags"] == [item["body"]] for item in items)
    assert all(line.isascii() for line in lines)  # U+2028 and bidi overrides escaped
