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
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ulidkeys import config
from ulidkeys.cli import main
from ulidkeys.config.declarations import NAME_RULE, is_name
from ulidkeys.config.files import find
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
    assert find() is None and config.load() == config.Config()
    user = tmp_path / "xdg" / "ulidkeys" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text(CONFIG)
    assert find() == user
    pyproject = here.parent / "pyproject.toml"
    pyproject.write_text('[project]\nname = "x"\n')  # no [tool.ulidkeys]: not ours
    assert find() == user
    pyproject.write_text(
        CONFIG.replace("[layouts.", "[tool.ulidkeys.layouts.").replace(
            "[entities.", "[tool.ulidkeys.entities."
        )
    )
    assert find() == pyproject.resolve()
    (here / "ulidkeys.toml").write_text(CONFIG)
    assert find() == (here / "ulidkeys.toml").resolve()
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
        ("[layouts.p]\nlocation = 's3://photos/u/'\nperiod = 'fortnight'\n", "[layouts.p]: period"),
        ("[layouts.p]\nlocation = 's3://photos/u/'\nperiod = 'year'\n", "S3 layouts do not offer"),
        ("[layouts.p]\nlocation = 's3://photos/u/'\nscheme = 'uuid4'\n", "[layouts.p]: "),
        ("[layouts.p]\nlocation = 's3://photos/u/'\nscheme = 'nope'\n", "not a known id scheme"),
        ("[entities.e]\ntable = 'app'\npk = 'Org#{org}'\n", "[entities.e] needs sk"),
        ("[entities.e]\ntable='a'\npk='O#{org}'\nsk='P#{id}'\nbucket='weekly'\n", "[entities.e]:"),
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


# --- the file found is the file used; every wrong shape one line naming its dotted path --------


def test_a_nearer_broken_pyproject_is_reported_not_skipped(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (here.parent / "ulidkeys.toml").write_text(CONFIG)  # the farther config, once used instead
    pyproject = here / "pyproject.toml"
    pyproject.write_text('[tool.ulidkeys.layouts.photos]\nlocation = "s3://photos/u/\n')
    with pytest.raises(InvalidConfig, match=r"it may declare \[tool.ulidkeys\], so it is not"):
        find()
    assert main(["ls", "photos", "--since", "1h", "--explain"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert f"{pyproject.resolve()}: not valid TOML: Illegal character" in err
    # unreadable, not a regular file, not UTF-8: reported the same way
    pyproject.write_bytes(b'[tool.ulidkeys.layouts.photos]\nlocation = "s3://ph\xfftos/u/"\n')
    with pytest.raises(InvalidConfig, match=r"is not UTF-8 text .* it may declare"):
        find()
    pyproject.unlink()
    pyproject.mkdir()
    with pytest.raises(InvalidConfig, match=r"is a directory, not a config .*; it may declare"):
        find()
    # a broken pyproject whose text cannot spell [tool.ulidkeys] (no "ulidkeys", no \\u escape)
    # is someone else's: skipped, and the farther config used
    pyproject.rmdir()
    pyproject.write_text('[project]\nname = "x\n')
    assert find() == (here.parent / "ulidkeys.toml").resolve()
    pyproject.write_text('[tool."\\u0075lidkeys".layouts.photos]\nlocation = "s3://photos/u/\n')
    with pytest.raises(InvalidConfig, match="not valid TOML"):
        find()
    pyproject.write_text('[tool."\\u0075lidkeys".layouts.photos]\nlocation = "s3://photos/u/"\n')
    assert find() == pyproject.resolve()  # an escaped spelling is still ours


def test_a_nearer_ulidkeys_toml_in_any_state_is_the_one_used(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (here.parent / "ulidkeys.toml").write_text(CONFIG)
    own = here / "ulidkeys.toml"
    own.mkdir()  # once skipped by is_file(), and the parent's config used
    assert find() == own.resolve()
    assert main(["ls", "photos", "--since", "1h", "--explain"]) == 2
    assert f"{own.resolve()}: is a directory" in capsys.readouterr().err
    own.rmdir()
    own.symlink_to(here / "nowhere.toml")  # a dangling link: named, not skipped
    assert main(["config"]) == 2
    assert f"{own.resolve().parent / 'ulidkeys.toml'}: cannot be read" in capsys.readouterr().err


PYPROJECT = [
    ("[tool]\nulidkeys = 3\n", "tool.ulidkeys = 3 must be a table"),
    ('tool = "x"\n', "tool = 'x' must be a table"),
    ('[tool]\nulidkeys = "x"\n', "tool.ulidkeys = 'x' must be a table"),  # once iterated
    ("[tool.ulidkeys]\nlayouts = 3\n", "tool.ulidkeys.layouts = 3 must be tables"),
    ("[[tool.ulidkeys.layouts]]\n", "tool.ulidkeys.layouts = [{}] must be tables"),
    ("[tool.ulidkeys]\nfoo = 1\n", "unknown key tool.ulidkeys.foo = 1"),
    ("[tool.ulidkeys.tables.x]\n", "unknown table [tool.ulidkeys.tables]"),
    (
        "[tool.ulidkeys.layouts.p]\nlocation = 's3://photos/u/'\nshard = 4\n",
        "[tool.ulidkeys.layouts.p]: unknown key 'shard'",
    ),
    ("[tool.ulidkeys.layouts.p]\nshards = 4\n", "[tool.ulidkeys.layouts.p] needs location"),
    ("[tool.ulidkeys.layouts]\np = 3\n", "tool.ulidkeys.layouts.p = 3 must be a table"),
    (
        "[tool.ulidkeys.layouts.p]\nlocation = 's3://photos/u/'\nperiod = 'fortnight'\n",
        "[tool.ulidkeys.layouts.p]: period",
    ),
    (
        "[tool.ulidkeys.entities.e]\ntable='app'\npk='O#{o}'\nsk='P#{id}'\ngsi={GSI1={pk='a'}}\n",
        "[tool.ulidkeys.entities.e.gsi.GSI1] needs sk",
    ),
]
NAMES = [
    (
        "[layouts.'my.photos']\nlocation = 's3://photos/u/'\n",
        "[layouts.\"my.photos\"]: 'my.photos'",
    ),
    ("[layouts.'a b']\nlocation = 's3://photos/u/'\n", "[layouts.\"a b\"]: 'a b' cannot name"),
    ("[layouts.'']\nlocation = 's3://photos/u/'\n", "[layouts.\"\"]: '' cannot name a layout"),
    ("[layouts.-p]\nlocation = 's3://photos/u/'\n", "[layouts.-p]: '-p' cannot name a layout"),
    ("[entities.'a.b']\ntable='app'\npk='O#{o}'\nsk='P#{id}'\n", "'a.b' cannot name an entity"),
    ("[entities.e]\ntable=''\npk='O#{o}'\nsk='P#{id}'\n", "table = '' is empty"),
    ("[entities.e]\ntable='a b'\npk='O#{o}'\nsk='P#{id}'\n", "is not a DynamoDB table name"),
    ("[entities.e]\ntable='ab'\npk='O#{o}'\nsk='P#{id}'\n", "is not a DynamoDB table name"),
    ("[entities.e]\ntable='app'\npk='O#{o}'\nsk='P#{id}'\npk_attr=''\n", "pk_attr = '' is empty"),
    (
        "[entities.e]\ntable='app'\npk='O#{o}'\nsk='P#{id}'\n[entities.e.gsi.'']\npk='U#{u}'\n"
        "sk='P#{id}'\n",
        "[entities.e.gsi.\"\"]: '' cannot name an index",
    ),
    (
        "[entities.e]\ntable='app'\npk='O#{o}'\nsk='P#{id}'\n[entities.e.gsi.GSI1]\npk='U#{u}'\n"
        "sk='P#{id}'\nsk_attr=''\n",
        "[entities.e.gsi.GSI1]: sk_attr = '' is empty",  # once quietly the default GSI1SK
    ),
    ("[layouts.p]\nlocation = 's3://photos/u/'\nperiod = ''\n", "period = '' is empty"),
]


@pytest.mark.parametrize(("text", "words"), PYPROJECT + NAMES)
def test_wrong_shapes_are_one_line_naming_the_dotted_path(
    here: Path, text: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "pyproject.toml" if "tool" in text.split("\n")[0] else "ulidkeys.toml"
    path = here / name
    path.write_text(text)
    assert main(["config", "--config", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1, err
    assert f"{path}: " in err and words in err and "please report" not in err


def test_the_name_rule_is_stated(here: Path) -> None:
    (here / "ulidkeys.toml").write_text("[layouts.'a b']\nlocation = 's3://photos/u/'\n")
    with pytest.raises(InvalidConfig) as raised:
        config.load()
    assert NAME_RULE in str(raised.value) and "e.g. [layouts.photos]" in str(raised.value)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.text(max_size=70) | st.from_regex(r"[A-Za-z0-9_-]{1,70}", fullmatch=True))
@example(name="2024")  # a name, not an S3 URL (ls once took only identifiers as names)
@example(name="my-photos")
@example(name="a" * 300)
@example(name="_")
def test_a_name_accepted_is_a_name_usable(
    here: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    quoted = name.replace("\\", "\\\\").replace('"', '\\"')
    quoted = "".join(c if c >= " " and c != "\x7f" else f"\\u{ord(c):04x}" for c in quoted)
    path = here / "ulidkeys.toml"
    path.write_text(
        f'[layouts."{quoted}"]\nlocation = "s3://photos/u/"\n'
        f'[entities."{quoted}"]\ntable = "app"\npk = "Org#{{org}}"\nsk = "Post#{{id}}"\n',
        encoding="utf-8",
    )
    try:
        loaded = config.load(path)
    except InvalidConfig as error:
        assert not is_name(name) and NAME_RULE in str(error)
        return
    assert is_name(name) and set(loaded.layouts) == set(loaded.entities) == {name}
    window = ["--since", "2024-05-17T09:00:00Z", "--until", "2024-05-17T10:00:00Z", "--explain"]
    assert main(["ls", name, *window]) == 0
    assert main(["query", name, "--field", "org=acme", *window]) == 0
    out, err = capsys.readouterr()
    assert "photos" in out and "Org#acme" in out and err == ""
