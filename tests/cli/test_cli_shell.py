"""The console script as a shell user runs it, against moto's HTTP server: failures are one line
(no traceback), pipes close quietly, and the ``aws`` commands ``--explain`` prints, pasted into
bash and run by the real AWS CLI, return exactly what ``ulidkeys ls`` / ``query`` return.

Every process start costs ~0.3-1 s, so the commands of a test start together and run at once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import boto3
import pytest
from faults import moto_server

from ulidkeys import ULID
from ulidkeys.cli import main
from ulidkeys.dynamodb import Entity
from ulidkeys.s3 import KeyLayout

#: The CLI run by a real shell: left out of `make test`, run by `make test-all` and CI.
pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent
ULIDKEYS, AWS = str(BIN / "ulidkeys"), str(BIN / "aws")
START = 1_715_936_400_000  # 2024-05-17T09:00:00Z
HOUR = 3_600_000
POST = Entity(pk="Org#{org}", sk="Post#{id}")
MARK = "# the same calls with the AWS CLI (paste into a shell):"


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with moto_server() as url:
        yield url


@pytest.fixture(scope="module")
def env() -> dict[str, str]:
    """Test credentials and region only: no AWS config or profile of the machine is read."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    return {
        **clean,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": "/nonexistent",
        "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
        "AWS_EC2_METADATA_DISABLED": "true",
        "PYTHONWARNINGS": "ignore",
    }


@pytest.fixture(autouse=True)
def aws_env(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The same set-up for the in-process runs."""
    for name in [k for k in os.environ if k.startswith("AWS_")]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        if name.startswith("AWS_"):
            monkeypatch.setenv(name, value)


def put_all(client: Any, bucket: str, keys: Sequence[str]) -> None:
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda key: client.put_object(Bucket=bucket, Key=key, Body=b"x"), keys))


def run_all(
    commands: Sequence[Sequence[str] | str], env: dict[str, str], extra: Sequence[dict[str, str]]
) -> list[subprocess.CompletedProcess[str]]:
    """Start every command (a str runs in bash), then collect them: they run side by side."""
    started = [
        subprocess.Popen(
            ["bash", "-c", command] if isinstance(command, str) else list(command),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**env, **more},
        )
        for command, more in zip(commands, extra, strict=True)
    ]
    done = []
    for process in started:
        out, err = process.communicate(timeout=120)
        done.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
    return done


def explained(argv: list[str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The pasteable lines ``--explain`` prints (after its readable plan)."""
    assert main([*argv, "--explain"]) == 0
    out = capsys.readouterr().out
    assert MARK in out
    lines = out.split(MARK, 1)[1].strip().splitlines()
    return [line for line in lines if not line.startswith("#")]


def test_console_script_failures_are_one_line(endpoint: str, env: dict[str, str]) -> None:
    # the rest of the cases run in-process (tests/test_cli_errors.py): same code, no start-up
    cases: list[tuple[Sequence[str] | str, dict[str, str], int, str]] = [
        (["ls", "s3://nosuch/up/", "--since", "2h", "--endpoint-url", endpoint], {}, 1, "NoSuch"),
        (["ls", "s3://photos/up/", "--since", "2h"], {"AWS_PROFILE": "nope"}, 2, "(nope)"),
        # stdout closed after one line: no BrokenPipeError, no MemoryError, 128 + SIGPIPE
        (f"{ULIDKEYS} new -n 1000000000 | head -1; exit ${{PIPESTATUS[0]}}", {}, 141, ""),
    ]
    commands = [c if isinstance(c, str) else [ULIDKEYS, *c] for c, *_ in cases]
    results = run_all(commands, env, [more for _, more, *_ in cases])
    for (command, _, status, words), result in zip(cases, results, strict=True):
        assert result.returncode == status, (command, result.stderr)
        assert "Traceback" not in result.stderr and words in result.stderr, result.stderr
        assert result.stderr.count("\n") == (1 if words else 0), result.stderr
    assert len(results[-1].stdout.split()) == 1
    # --debug and ULIDKEYS_DEBUG=1 show the traceback
    debug, by_env = run_all(
        [[ULIDKEYS, "--debug", "new", "--at", "²"], [ULIDKEYS, "new", "--at", "²"]],
        env,
        [{}, {"ULIDKEYS_DEBUG": "1"}],
    )
    for traced in (debug, by_env):
        assert "Traceback" in traced.stderr and "InvalidTime" in traced.stderr


def test_stdout_and_files_that_cannot_be_written_as_a_shell_user_meets_them(
    endpoint: str, env: dict[str, str], tmp_path: Path
) -> None:
    """Real descriptors: a full disk (``> /dev/full``), a closed stdout (``>&-``), a pipe
    closed by its reader, a manifest over the file size limit (``ulimit -f``): one line and
    exit 1, or nothing and 141 for the pipe; no partial or temporary file is left."""
    s3 = boto3.client("s3", endpoint_url=endpoint, **_creds())
    s3.create_bucket(Bucket="shell-out")
    layout = KeyLayout("up/")
    put_all(s3, "shell-out", [layout.key_for(ULID.new(at=START + i * 1000)) for i in range(80)])
    ls = f"{ULIDKEYS} ls s3://shell-out/up/ --since {START}ms --until {START + HOUR}ms"
    ls += f" --endpoint-url {endpoint}"
    manifest = tmp_path / "m.csv"
    cases: list[tuple[str, int, str]] = [
        (f"{ls} > /dev/full", 1, "ulidkeys ls: cannot write the output: No space left on device"),
        (f"{ULIDKEYS} new -n 5 >&-", 1, "ulidkeys new: cannot write the output: stdout is closed"),
        (f"{ULIDKEYS} --help > /dev/full", 1, "ulidkeys: cannot write the output: No space left"),
        # the reader gone before the listing prints (its ~6 KB would fit a pipe's buffer whole,
        # so `| head -1` could not close the pipe on it; `new | head -1` in the test above does)
        (f"{ls} | true; exit ${{PIPESTATUS[0]}}", 141, ""),
        # 1 KiB at most per file: the manifest of 80 keys (~3 KiB) cannot be written whole
        (f"ulimit -f 1; {ls} --manifest {manifest}", 1, f"--manifest '{manifest}': cannot"),
    ]
    results = run_all([command for command, *_ in cases], env, [{}] * len(cases))
    for (command, status, line), result in zip(cases, results, strict=True):
        assert result.returncode == status, (command, result.stderr)
        assert line in result.stderr and result.stderr.count("\n") == (1 if line else 0)
        assert "Traceback" not in result.stderr and "please report" not in result.stderr
    assert results[3].stdout == ""
    assert "File too large" in results[4].stderr
    assert list(tmp_path.iterdir()) == []  # no manifest, no temporary file


def test_pasted_s3_commands_return_what_ls_returns(
    endpoint: str, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    s3 = boto3.client("s3", endpoint_url=endpoint, **_creds())
    s3.create_bucket(Bucket="photos")
    hourly = KeyLayout("uploads/", period="hour", suffix=".jpg")
    sharded = KeyLayout("sharded/", shards=2, suffix=".jpg")
    plain = KeyLayout("plain/")
    since, until = START + HOUR // 2, START + 3 * HOUR // 2  # across an hour folder
    times = [since - 1, since, since + 1, START + HOUR, until - 1, until, until + 1]
    times += [START + i * 541_000 for i in range(14)]  # 09:00 .. 10:57
    keys = []
    for at in times:
        u = ULID.new(at=at)
        keys += [hourly.key_for(u), hourly.key_for(u, ext="png"), sharded.key_for(u)]
        keys += [plain.key_for(u)]
    keys += ["uploads/README.txt", "sharded/notes.txt"]
    put_all(s3, "photos", keys)
    window = ["--since", f"{since}ms", "--until", f"{until}ms", "--endpoint-url", endpoint]
    hourly_ls = ["ls", "s3://photos/uploads/", "--period", "hour", "--suffix", ".jpg", *window]
    sharded_ls = ["ls", "s3://photos/sharded/", "--shards", "2", "--suffix", ".jpg", *window]
    pasted = explained(hourly_ls, capsys) + explained(sharded_ls, capsys)
    assert len(pasted) == 3  # one chain across the hour folders, one per shard
    range_cmd = ["range", "--since", f"{since}ms", "--until", f"{until}ms"]
    assert main([*range_cmd, "--prefix", "plain/", "--bucket", "photos", "-o", "json"]) == 0
    (plain_line,) = json.loads(capsys.readouterr().out)["aws"]
    pasted.append(f"{plain_line} --endpoint-url {endpoint}")
    results = run_all(
        [*pasted, [ULIDKEYS, *hourly_ls, "-o", "json"]], env, [{}] * (len(pasted) + 1)
    )
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    by_aws = [[obj["Key"] for obj in json.loads(r.stdout or "[]") or []] for r in results[:-1]]
    listed = [row["Key"] for row in json.loads(results[-1].stdout)]

    def inside(layout: KeyLayout, suffix: str | None) -> list[str]:
        found = [layout.parse(k) for k in keys if k.startswith(layout.prefix) and "txt" not in k]
        return sorted(
            (p.id, p.key)
            for p in found
            if since <= p.ms < until and (suffix is None or p.suffix == suffix)
        )

    assert listed == [key for _, key in inside(hourly, ".jpg")] == by_aws[0]
    assert len(listed) > 8 and not any(key.endswith(".png") for key in listed)
    capsys.readouterr()
    assert main([*sharded_ls, "-o", "json"]) == 0
    sharded_keys = [row["Key"] for row in json.loads(capsys.readouterr().out)]
    assert sharded_keys == [key for _, key in inside(sharded, ".jpg")]
    assert sorted(by_aws[1] + by_aws[2], key=lambda k: k.split("/")[-1]) == sharded_keys
    assert by_aws[3] == [key for _, key in inside(plain, None)]


def _creds() -> dict[str, str]:
    return {
        "region_name": "us-east-1",
        "aws_access_key_id": "testing",
        "aws_secret_access_key": "testing",
    }


def test_pasted_dynamodb_commands_return_what_query_returns(
    endpoint: str, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    client = boto3.client("dynamodb", endpoint_url=endpoint, **_creds())
    client.create_table(**POST.table_definition("app"))  # type: ignore[arg-type]
    ends = [START, START + 1, START + HOUR, START + HOUR + 1, START + 2 * HOUR]
    ids = [ULID.min_for(t) for t in ends] + [ULID.max_for(t - 1) for t in ends]
    ids += [ULID.new(at=t + 17) for t in ends]
    for u in ids:
        item = {k: {"S": v} for k, v in POST.keys(org="acme", id=u).items()}
        client.put_item(TableName="app", Item={**item, "n": {"N": "1486"}})
    base = ["query", "--table", "app", "--pk", "Org#{org}", "--sk", "Post#{id}"]
    base += ["--field", "org=acme", "--endpoint-url", endpoint]
    windows = [
        ["--since", f"{START}ms", "--until", f"{START + HOUR}ms"],
        ["--since", f"{START}ms", "--until", f"{START + 1}ms"],  # one millisecond
        ["--since", f"{START + 1}ms", "--until", "2024-05-17T11:00:00Z", "--newest-first"],
    ]
    expected, pasted = [], []
    windows[2] += ["--limit", "4"]
    for window in windows:
        assert main([*base, *window]) == 0
        expected.append([json.loads(line)["SK"] for line in capsys.readouterr().out.splitlines()])
        (line,) = explained([*base, *window], capsys)
        assert "\\udbff\\udfff" in line and line.isascii()  # U+10FFFF, typed as JSON escapes
        pasted.append(line)
    results = run_all(pasted, env, [{}] * len(pasted))
    for result, want in zip(results, expected, strict=True):
        assert result.returncode == 0, result.stderr
        got = [item["SK"]["S"] for item in json.loads(result.stdout)["Items"]]
        assert got == want and want
    assert expected[1] == [f"Post#{ULID.min_for(START)}", f"Post#{ULID.max_for(START)}"]
    assert f"Post#{ULID.min_for(START + HOUR)}" not in expected[0]  # the exclusive end
