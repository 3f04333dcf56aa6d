"""The command line: each sub-command prints what the library returns, errors exit 2."""

from __future__ import annotations

import io
import json

import pytest

from ulidkeys import ULID
from ulidkeys.cli import main


def test_new_prints_valid_ids(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", "-n", "3", "--monotonic"]) == 0
    ids = capsys.readouterr().out.split()
    assert len(ids) == 3 and ids == sorted(ids)
    assert all(str(ULID.parse(i)) == i for i in ids)


def test_new_at_a_given_time(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", "--at", "1715936400123"]) == 0
    assert ULID.parse(capsys.readouterr().out.strip()).timestamp_ms == 1715936400123


def test_inspect_json(capsys: pytest.CaptureFixture[str]) -> None:
    text = str(ULID.min_for(1715936400123))
    assert main(["inspect", text.lower(), "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1  # JSON Lines: one object per id
    found = json.loads(out)
    assert found["input"] == text.lower()
    assert found["scheme"] == "ulid"
    assert found["id"] == text
    assert found["time"] == "2024-05-17T09:00:00.123Z"
    assert found["timestamp_ms"] == 1715936400123
    assert found["fields"]["random"] == "0" * 20
    assert [alt["scheme"] for alt in found["alternatives"]] == ["typeid"]  # lowercase: a TypeID


def test_inspect_json_lines_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [
        "01HY2WF4MV0000000000000000",
        "",
        "58e0a7d7-eebc-11d8-9669-0800200c9a66",
        "post_01h455vb4pex5vsknk084sn02q",
        "507f1f77bcf86cd799439011",
    ]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    assert main(["inspect", "--json"]) == 0
    found = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [f["scheme"] for f in found] == ["ulid", "uuid1", "typeid:post", "objectid"]
    assert found[1]["time"] == "2004-08-15T13:09:31.981Z"
    assert found[1]["fields"]["node"] == "0800200c9a66"
    assert found[2]["fields"]["uuid"] == "01890a5d-ac96-774b-bcce-b302099a8057"


def test_inspect_text_lists_ambiguous_readings(capsys: pytest.CaptureFixture[str]) -> None:
    instagram = str((1_387_263_000 << 23) | (1341 << 10) | 905)
    assert main(["inspect", instagram]) == 0
    out = capsys.readouterr().out
    assert "twitter-snowflake" in out and "also" in out and "instagram-id" in out
    assert main(["inspect", "--scheme", "instagram-id", instagram]) == 0
    out = capsys.readouterr().out
    assert "shard" in out and "1341" in out and "2011-09-09T" in out


def test_inspect_reports_each_bad_id_and_goes_on(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "nonsense", "01HY2WF4MV0000000000000000"]) == 2
    captured = capsys.readouterr()
    assert "'nonsense' is no id of any supported scheme" in captured.err
    assert "01HY2WF4MV0000000000000000" in captured.out


def test_inspect_bad_id_exits_2_with_the_reason(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "01HX5Q3T8R6K2M9N4P7W1Y3ZBU"]) == 2
    err = capsys.readouterr().err
    assert "01HX5Q3T8R6K2M9N4P7W1Y3ZBU" in err and "'U' at position 25" in err


def test_range_prints_bounds(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["range", "--since", "2024-05-17T09:00:00Z", "--until", "2024-05-17T10:00:00Z"]
    assert main([*argv, "--prefix", "uploads/"]) == 0
    out = capsys.readouterr().out
    assert "uploads/01HY2WF4M00000000000000000" in out
    assert "uploads/01HY2ZX0800000000000000000" in out


def test_range_rejects_inverted_window(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["range", "--since", "2024-05-17T10:00:00Z", "--until", "2024-05-17T09:00:00Z"]
    assert main(argv) == 2
    assert "is after until" in capsys.readouterr().err


@pytest.mark.slow  # the whole demo on moto
def test_demo_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 0
    assert "monotonic" in capsys.readouterr().out


def test_range_exact_and_budgeted_cover(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["range", "--since", "2024-05-17T09:00:00Z", "--until", "2024-05-17T09:30:00Z"]
    assert main([*argv, "--cover", "--prefix", "up/"]) == 0
    out = capsys.readouterr().out
    assert "78 prefixes, exact" in out and "  up/01HY2WF4M\n" in out
    assert main([*argv, "--max-prefixes", "3"]) == 0
    out = capsys.readouterr().out
    assert "3 prefixes, 22.43 min extra" in out and "  01HY2W\n" in out


def test_range_resolution_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["range", "--resolution"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert len(rows) == 11 and rows[-1].split()[:2] == ["10", "1"]


def test_query_explain_prints_the_plan_without_aws(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["query", "--pk", "Org#{org}", "--sk", "Post#{id}", "--field", "org=acme"]
    window = ["--since", "2024-05-17T09:00:00Z", "--until", "2024-05-17T10:00:00Z"]
    assert main([*argv, *window, "--explain"]) == 0
    out = capsys.readouterr().out
    assert "PK = 'Org#acme'" in out and "Post#01HY2WF4M00000000000000000" in out


def test_query_runs_against_moto(capsys: pytest.CaptureFixture[str]) -> None:
    import boto3
    from moto import mock_aws

    from ulidkeys.dynamodb import Entity

    post = Entity(pk="Org#{org}", sk="Post#{id}")
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        client.create_table(**post.table_definition("app"))  # type: ignore[arg-type]
        inside = [ULID.new(at=1715936400000 + i * 1000) for i in range(3)]
        outside = ULID.min_for(1715936400000 + 3600_000)
        for u in [*inside, outside]:
            client.put_item(
                TableName="app",
                Item={k: {"S": v} for k, v in post.keys(org="acme", id=u).items()},
            )
        argv = ["query", "--table", "app", "--pk", "Org#{org}", "--sk", "Post#{id}"]
        window = ["--since", "2024-05-17T09:00:00Z", "--until", "2024-05-17T10:00:00Z"]
        assert main([*argv, "--field", "org=acme", *window, "--region", "us-east-1"]) == 0
        out, err = capsys.readouterr()
        assert [json.loads(line)["SK"] for line in out.splitlines()] == [
            f"Post#{u}" for u in inside
        ]
        # Resume with the cursor printed after the first item of a limited run.
        first = [*argv, "--field", "org=acme", *window, "--region", "us-east-1"]
        assert main([*first, "--limit", "1"]) == 0
        out, err = capsys.readouterr()
        cursor = err.split("--cursor ")[1].split()[0]
        resumed = [*argv, "--field", "org=acme", "--cursor", cursor, "--region", "us-east-1"]
        assert main(resumed) == 0
        rest = [json.loads(line)["SK"] for line in capsys.readouterr().out.splitlines()]
        assert [json.loads(out)["SK"], *rest] == [f"Post#{u}" for u in inside]


def test_query_field_must_be_name_value(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["query", "--pk", "Org#{org}", "--sk", "Post#{id}", "--field", "acme"]
    assert main([*argv, "--since", "0", "--explain"]) == 2
    assert "NAME=VALUE" in capsys.readouterr().err


def test_ls_lists_exactly_the_window_on_moto(capsys: pytest.CaptureFixture[str]) -> None:
    import boto3
    from moto import mock_aws

    from ulidkeys.s3 import KeyLayout

    layout = KeyLayout(prefix="uploads/", shards=3, period="hour", suffix=".jpg")
    start = 1715936400000  # 2024-05-17T09:00:00Z
    inside = [ULID.new(at=start + i * 7_000) for i in range(20)]
    outside = [ULID.min_for(start + 3600_000), ULID.max_for(start - 1)]
    with mock_aws():
        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket="cli-bucket")
        for u in [*inside, *outside]:
            client.put_object(Bucket="cli-bucket", Key=layout.key_for(u), Body=b"x")
        client.put_object(Bucket="cli-bucket", Key="uploads/README.txt", Body=b"not a layout key")
        layout_args = ["--shards", "3", "--period", "hour", "--suffix", ".jpg"]
        argv = ["ls", "s3://cli-bucket/uploads/", *layout_args]
        window = ["--since", "2024-05-17T09:00:00Z", "--until", "2024-05-17T10:00:00Z"]
        assert main([*argv, *window, "--region", "us-east-1"]) == 0
        out, err = capsys.readouterr()
        assert [line.split("\t")[0] for line in out.splitlines()] == [
            layout.key_for(u) for u in sorted(inside)
        ]
        assert "20 objects" in err
        cursor = err.split("--cursor ")[1].split()[0]
        # A cursor of the window's last object resumes with nothing left; a foreign one fails.
        assert main([*argv, "--cursor", cursor, "--region", "us-east-1"]) == 0
        assert capsys.readouterr().out == ""
        other = ["ls", "s3://cli-bucket/other/", "--cursor", cursor, "--region", "us-east-1"]
        assert main(other) == 2
        assert "another listing" in capsys.readouterr().err
        assert main([*argv, "--latest", "2", "--until", "2024-05-17T10:00:00Z"]) == 0
        out = capsys.readouterr().out
        assert [line.split("\t")[0] for line in out.splitlines()] == [
            layout.key_for(u) for u in sorted(inside)[::-1][:2]
        ]


def test_ls_explain_and_bad_location(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["ls", "s3://photos/uploads/", "--since", "2024-05-17T09:00:00Z", "--explain"]
    assert main([*argv, "--until", "2024-05-17T10:00:00Z"]) == 0
    assert "StartAfter='uploads/01HY2WF4M0000000000000000'" in capsys.readouterr().out
    assert main(["ls", "bucket/uploads", "--since", "0", "--explain"]) == 2
    assert "s3://BUCKET/PREFIX" in capsys.readouterr().err
