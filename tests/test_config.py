"""Named layouts and entities in a config file: where it is found, what it declares, every
mistake one InvalidConfig naming the file, table and key (one line and exit 2 in the CLI), and
config-driven ``ls``/``query`` equal to the flag-driven commands on moto's HTTP server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from faults import moto_server

from ulidkeys import config
from ulidkeys.cli import main
from ulidkeys.dynamodb import Entity, Table
from ulidkeys.errors import InvalidConfig
from ulidkeys.s3 import Bucket, KeyLayout
from ulidkeys.ulid import ULID

START = 1_715_936_400_000  # 2024-05-17T09:00:00Z
CONFIG = """
[layouts.photos]
location = "s3://photos/uploads/"
shards = 4
period = "hour"
suffix = ".jpg"

[entities.posts]
table = "app"
pk = "Org#{org}#{bucket}"
sk = "Post#{id}"
bucket = "day"
"""


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory of its own, and a user config directory with nothing in it."""
    work = tmp_path / "project" / "sub"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return work


def test_found_here_then_above_then_in_the_user_directory(here: Path, tmp_path: Path) -> None:
    assert config.find() is None and config.load() == config.Config()
    user = tmp_path / "xdg" / "ulidkeys" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text(CONFIG)
    assert config.find() == user
    pyproject = here.parent / "pyproject.toml"
    pyproject.write_text('[project]\nname = "x"\n')  # no [tool.ulidkeys]: not ours
    assert config.find() == user
    pyproject.write_text(
        CONFIG.replace("[layouts.", "[tool.ulidkeys.layouts.").replace(
            "[entities.", "[tool.ulidkeys.entities."
        )
    )
    assert config.find() == pyproject.resolve()
    (here / "ulidkeys.toml").write_text(CONFIG)
    assert config.find() == (here / "ulidkeys.toml").resolve()
    loaded = config.load()
    photos = loaded.layout("photos")
    assert photos.bucket_name == "photos"
    assert photos.layout == KeyLayout("uploads/", shards=4, period="hour", suffix=".jpg")
    assert loaded.entity("posts").entity.table.pk.text == "Org#{org}#{bucket}"
    assert config.load(pyproject).layout("photos").layout == photos.layout


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            "[layouts.p]\nlocation = 's3://photos/u/'\nshard = 4\n",
            "[layouts.p]: unknown key 'shard'",
        ),
        ("[layouts.p]\nlocation = 's3://photos/u/'\nshards = 'four'\n", "shards = 'four' must be"),
        ("[layouts.p]\nlocation = 's3://photos/u/'\nshards = true\n", "shards = True must be"),
        ("[layouts.p]\nshards = 4\n", "[layouts.p] needs location"),
        ("[layouts.p]\nlocation = 'photos/u/'\n", "[layouts.p]: 'photos/u/' is not an S3"),
        ("[layouts.p]\nlocation = 's3://photos/uploads'\n", "ends in a letter or digit"),
        ("[layouts.p]\nlocation = 's3://photos/u/'\nperiod = 'week'\n", "[layouts.p]: period"),
        ("[layouts.p]\nlocation = 's3://photos/u/'\nscheme = 'uuid4'\n", "[layouts.p]: "),
        ("[layouts.p]\nlocation = 's3://photos/u/'\nscheme = 'nope'\n", "not a known id scheme"),
        ("[entities.e]\ntable = 'app'\npk = 'Org#{org}'\n", "[entities.e] needs sk"),
        ("[entities.e]\ntable='a'\npk='O#{org}'\nsk='P#{id}'\nbucket='week'\n", "[entities.e]:"),
        ("[tables.x]\n", "unknown table [tables]"),
        ("layouts = 3\n", "layouts = 3 must be tables: [layouts.NAME]"),
        ("[layouts.p\n", "not valid TOML"),
    ],
)
def test_mistakes_name_the_file_the_table_and_the_key(
    here: Path, text: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = here / "ulidkeys.toml"
    path.write_text(text)
    with pytest.raises(InvalidConfig) as raised:
        config.load()
    assert str(path.resolve()) in str(raised.value) and words in str(raised.value)
    assert main(["config"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and words in err


def test_unknown_names_list_the_declared_ones(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (here / "ulidkeys.toml").write_text(CONFIG)
    with pytest.raises(InvalidConfig, match=r"no \[layouts.videos\] .*declared: photos"):
        config.load().layout("videos")
    assert main(["ls", "videos", "--since", "1h", "--explain"]) == 2
    assert "or give s3://BUCKET/PREFIX" in capsys.readouterr().err
    assert main(["query", "--since", "1h", "--explain"]) == 2
    assert "needs --pk and --sk" in capsys.readouterr().err


def test_config_shows_what_was_found(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config"]) == 0
    assert "no config file: looked for ulidkeys.toml" in capsys.readouterr().err
    (here / "ulidkeys.toml").write_text(CONFIG)
    assert main(["config", "-o", "jsonl"]) == 0
    out, err = capsys.readouterr()
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows[0] == {
        "kind": "layout",
        "name": "photos",
        "location": "s3://photos/uploads/",
        "shards": 4,
        "period": "hour",
        "suffix": ".jpg",
    }
    assert rows[1]["kind"] == "entity" and rows[1]["table"] == "app"
    assert f"config: {(here / 'ulidkeys.toml').resolve()}" in err


# --- config-driven commands equal flag-driven ones, on moto's HTTP server ----------------------


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with moto_server() as url:
        yield url


def test_named_layout_and_entity_run_as_the_flags_do(
    here: Path, endpoint: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    s3 = boto3.client("s3", endpoint_url=endpoint)
    s3.create_bucket(Bucket="cfg-photos")
    layout = KeyLayout("uploads/", shards=4, period="hour", suffix=".jpg")
    for i in range(40):
        s3.put_object(
            Bucket="cfg-photos", Key=layout.key_for(ULID.new(at=START + i * 300_000)), Body=b""
        )
    png = layout.key_for(ULID.new(at=START + 1_800_000), ext="png")  # in the window
    s3.put_object(Bucket="cfg-photos", Key=png, Body=b"")
    resource = boto3.resource("dynamodb", endpoint_url=endpoint)
    entity = Entity(pk="Org#{org}#{bucket}", sk="Post#{id}", bucket="day")
    # moto's server shares the process's backends with in-process moto: a name of its own
    table = Table(resource.create_table(**entity.table_definition("cfg-app")), entity)
    for i in range(30):
        table.put_new(entity.keys(org="acme", id=ULID.new(at=START + i * 3_000_000)))
    own = CONFIG.replace('table = "app"', 'table = "cfg-app"').replace("//photos/", "//cfg-photos/")
    (here / "ulidkeys.toml").write_text(own)
    window = ["--since", "2024-05-17T09:20:00Z", "--until", "2024-05-17T11:00:00Z"]
    common = [*window, "--endpoint-url", endpoint, "-o", "jsonl"]
    flags = ["--shards", "4", "--period", "hour", "--suffix", ".jpg"]

    def out(argv: list[str]) -> list[str]:
        assert main(argv) == 0
        return capsys.readouterr().out.splitlines()

    by_name = out(["ls", "photos", *common])
    assert (
        by_name == out(["ls", "s3://cfg-photos/uploads/", *flags, *common]) and len(by_name) == 20
    )
    pngs = out(["ls", "photos", *common, "--suffix", ".png"])  # a flag overrides the file
    assert [json.loads(line)["Key"] for line in pngs] == [png]
    query = ["--field", "org=acme", *common]
    by_entity = out(["query", "posts", *query])
    by_flags = out(
        [
            "query",
            "--table",
            "cfg-app",
            "--pk",
            "Org#{org}#{bucket}",
            "--sk",
            "Post#{id}",
            "--bucket",
            "day",
            *query,
        ]
    )
    assert by_entity == by_flags and len(by_entity) == 2
    loaded = config.load()
    assert len(list(loaded.bucket("photos", s3).list_window(window[1], window[3]))) == 21
    assert isinstance(loaded.bucket("photos", s3), Bucket)
