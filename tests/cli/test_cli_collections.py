"""``ulidkeys query NAME`` of a collection declared in ``ulidkeys.toml``: every kind of the
partition in id-time order with a kind column, ``--explain``, cursors; the config's rules."""

from __future__ import annotations

import json
import time
from pathlib import Path

import boto3
import pytest
from clisupport import refused
from moto import mock_aws

from ulidkeys import config
from ulidkeys.cli import main
from ulidkeys.dynamodb import Collection, Entity
from ulidkeys.errors import InvalidConfig
from ulidkeys.ulid import ULID

T0 = 1_715_936_400_000  # 2024-05-17T09:00:00Z
WINDOW = ["--since", "2024-05-17T09:00:00Z", "--until", "2024-05-17T10:00:00Z"]
ENTITIES = (
    '[entities.posts]\ntable = "app"\npk = "Org#{org}"\nsk = "Post#{id}"\n'
    '[entities.comments]\ntable = "app"\npk = "Org#{org}"\nsk = "Comment#{id}"\n'
    '[entities.likes]\ntable = "app"\npk = "Org#{org}"\nsk = "Like#{id}"\n'
)
ACTIVITY = '[collections.activity]\nentities = ["posts", "comments", "likes"]\n'


@pytest.fixture
def declared(tmp_path: Path) -> Path:
    path = tmp_path / "ulidkeys.toml"
    path.write_text(ENTITIES + ACTIVITY)
    return path


def test_a_collection_is_declared_by_its_entities_names(declared: Path) -> None:
    named = config.load(declared).collection("activity")
    assert isinstance(named.collection, Collection)
    assert named.collection.kinds == ("posts", "comments", "likes")
    assert named.table_name == "app"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('[collections.activity]\nentities = ["posts", "nope"]\n', ["'nope'", "declared: posts"]),
        ("[collections.activity]\nentities = []\n", ["empty"]),
        ('[collections.activity]\nentities = "posts"\n', ["TOML array"]),
        ('[collections.posts]\nentities = ["posts"]\n', ["names an entity too"]),
        ('[collections.activity]\nentities = ["posts"]\nx = 1\n', ["unknown key 'x'"]),
        (
            '[entities.other]\ntable = "elsewhere"\npk = "Org#{org}"\nsk = "X#{id}"\n'
            '[collections.activity]\nentities = ["posts", "other"]\n',
            ["different tables"],
        ),
        (
            '[entities.users]\ntable = "app"\npk = "User#{org}"\nsk = "X#{id}"\n'
            '[collections.activity]\nentities = ["posts", "users"]\n',
            ["[collections.activity]", "partition key template"],
        ),
    ],
)
def test_a_collection_the_config_cannot_build_is_one_line_naming_it(
    tmp_path: Path, text: str, words: list[str]
) -> None:
    path = tmp_path / "ulidkeys.toml"
    path.write_text(ENTITIES + text)
    with pytest.raises(InvalidConfig) as raised:
        config.load(path)
    message = str(raised.value)
    assert "\n" not in message and all(word in message for word in words), message


def test_explain_prints_one_query_per_kind(
    declared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["query", "activity", "--config", str(declared), "--field", "org=acme", *WINDOW]
    assert main([*argv, "--explain"]) == 0
    out = capsys.readouterr().out
    assert "activity (collection of posts, comments, likes)" in out
    assert out.count("[kinds: ") == 3 and "aws dynamodb query" in out


def test_key_flags_do_not_go_with_a_collection(
    declared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["query", "activity", "--config", str(declared), "--field", "org=acme", *WINDOW]
    refused(capsys, [*argv, "--sk", "Post#{id}"], "--sk", "collection activity")
    refused(capsys, [*argv, "--index", "GSI1"], "--index")


def test_query_prints_every_kind_in_id_time_order_with_a_kind_column(
    declared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    named = config.load(declared).collection("activity")
    kinds = list(named.collection.entities.values())
    ids = [str(ULID.new(at=T0 + n * 1000)) for n in range(6)]
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        client.create_table(**kinds[0].table_definition("app"))  # type: ignore[arg-type]
        table = named.table(client)
        for n, id_text in enumerate(ids):
            table.put_new(kinds[n % 3].keys(org="acme", id=id_text))
        argv = ["query", "activity", "--config", str(declared), "--field", "org=acme", *WINDOW]
        argv += ["--region", "us-east-1"]
        assert main([*argv, "-o", "text"]) == 0
        out, err = capsys.readouterr()
        rows = [line.split("\t") for line in out.splitlines()]
        assert [row[0] for row in rows] == ["posts", "comments", "likes"] * 2
        assert [row[1].split("#")[1] for row in rows] == ids
        assert "6 items, 3 Query calls" in err
        assert main([*argv, "--limit", "4"]) == 0
        out, err = capsys.readouterr()
        first = [json.loads(line) for line in out.splitlines()]
        assert [row["kind"] for row in first] == ["posts", "comments", "likes", "posts"]
        cursor = err.split("--cursor ")[1].split()[0]
        assert main([*argv[:6], "--cursor", cursor, "--region", "us-east-1"]) == 0
        rest = [json.loads(line)["item"]["SK"] for line in capsys.readouterr().out.splitlines()]
        assert [row["item"]["SK"].split("#")[1] for row in first] + [
            sk.split("#")[1] for sk in rest
        ] == ids
        assert main([*argv, "--latest", "2"]) == 0
        newest = [json.loads(line)["kind"] for line in capsys.readouterr().out.splitlines()]
        assert newest == ["likes", "comments"]


def test_config_and_completion_name_the_collection(
    declared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["config", "--config", str(declared), "-o", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {
        "kind": "collection",
        "name": "activity",
        "entities": ["posts", "comments", "likes"],
    } in rows
    assert main(["completion", "--names", "entities", "--config", str(declared)]) == 0
    assert "activity" in capsys.readouterr().out.split()


def test_several_sk_templates_are_read_as_a_collection(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["query", "--pk", "Org#{org}", "--sk", "Post#{id}", "--sk", "{id}#Like"]
    argv += ["--field", "org=acme", *WINDOW]
    assert main([*argv, "--explain"]) == 0
    out = capsys.readouterr().out
    assert "[kinds: Like]" in out and "[kinds: Post]" in out
    refused(capsys, [*argv, "--index", "GSI1", "--explain"], "--index")
    refused(capsys, ["query", "--sk", "Post#{id}", "--sk", "Like#{id}", "--explain"], "--pk")
    post, like = Entity(pk="Org#{org}", sk="Post#{id}"), Entity(pk="Org#{org}", sk="{id}#Like")
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        client.create_table(**post.table_definition("app"))  # type: ignore[arg-type]
        for n in range(4):
            keys = (post, like)[n % 2].keys(org="acme", id=ULID.new(at=T0 + n * 1000))
            client.put_item(TableName="app", Item={k: {"S": v} for k, v in keys.items()})
        assert main([*argv, "--table", "app", "--region", "us-east-1", "-o", "text"]) == 0
        kinds = [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()]
        assert kinds == ["Post", "Like", "Post", "Like"]


def test_a_collection_checkpoint_prints_every_new_item_of_every_kind_once(
    declared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    named = config.load(declared).collection("activity")
    kinds = list(named.collection.entities.values())
    now = int(time.time() * 1000)
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        client.create_table(**kinds[0].table_definition("app"))  # type: ignore[arg-type]
        table = named.table(client)
        for n in range(3):
            table.put_new(kinds[n].keys(org="acme", id=ULID.new(at=now - (5 - n) * 60_000)))
        argv = ["query", "activity", "--config", str(declared), "--field", "org=acme"]
        argv += ["--since", str(now - 3_600_000), "--region", "us-east-1"]
        argv += ["--checkpoint", str(tmp_path / "cp.json")]
        assert main(argv) == 0
        rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert [row["kind"] for row in rows] == ["posts", "comments", "likes"]
        assert main(argv) == 0
        assert capsys.readouterr().out == ""
