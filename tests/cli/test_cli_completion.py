"""Shell completion generated from the parser itself (shtab): bash completes subcommands and
their options, read by bash; the zsh script names every subcommand."""

from __future__ import annotations

import subprocess

import pytest

from ulidkeys.cli import build_parser, main


def completion(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["completion", shell]) == 0
    return capsys.readouterr().out


def bash_completes(script: str, words: list[str]) -> list[str]:
    """What bash offers after ``words`` (the last one being completed), with the script."""
    array = " ".join(f"'{word}'" for word in words)
    program = (
        f"{script}\nCOMP_WORDS=({array}); COMP_CWORD={len(words) - 1}; "
        f"_shtab_ulidkeys ulidkeys '{words[-1]}' '{words[-2]}'; "
        "printf '%s\\n' \"${COMPREPLY[@]}\""
    )
    done = subprocess.run(["bash", "-c", program], capture_output=True, text=True, check=True)
    return done.stdout.split()


def test_bash_completes_subcommands_and_options(capsys: pytest.CaptureFixture[str]) -> None:
    script = completion("bash", capsys)
    assert bash_completes(script, ["ulidkeys", "sch"]) == ["schemes"]
    assert bash_completes(script, ["ulidkeys", "ls", "--sh"]) == ["--shards"]
    assert "--scheme" in bash_completes(script, ["ulidkeys", "query", "--sc"])


def test_zsh_script_names_every_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    script = completion("zsh", capsys)
    commands = next(a for a in build_parser()._actions if a.dest == "command").choices
    assert script.startswith("#compdef ulidkeys")
    assert all(name in script for name in commands)  # type: ignore[union-attr]
