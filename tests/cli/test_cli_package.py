"""The command line is a package with one module per subcommand, found by walking the package:
every subcommand module registers exactly its own subcommand, handled by its own ``run``, so a
new subcommand is one new file."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

import ulidkeys.cli as cli
from ulidkeys.cli import build_parser, subcommands

SHARED = {
    "__init__", "aws", "baselines", "failures", "options", "output", "paths", "progress", "tour"
}  # fmt: skip


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_module_but_the_shared_ones_is_a_subcommand() -> None:
    files = {path.stem for path in Path(cli.__file__).parent.glob("*.py")} - SHARED
    modules = subcommands()
    assert {module.__name__.rsplit(".", 1)[1] for module in modules} == files
    orders = [module.ORDER for module in modules]
    assert orders == sorted(set(orders))  # one place each in --help


def test_each_module_registers_its_own_subcommand_and_handler() -> None:
    commands = subparsers(build_parser())
    for module in subcommands():
        name = module.__name__.rsplit(".", 1)[1]
        assert name in commands, name
        assert commands[name].get_default("handler") is module.run


def test_help_lists_the_subcommands_in_order() -> None:
    names = list(subparsers(build_parser()))
    assert names == [module.__name__.rsplit(".", 1)[1] for module in subcommands()]
    assert names[:4] == ["new", "inspect", "range", "ls"]


def test_the_docs_list_the_subcommands_from_the_parser() -> None:
    """docs/howto/cli.md names the subcommands through the site's hook, which reads the parser:
    a new subcommand module appears there with no edit of the page."""
    spec = importlib.util.spec_from_file_location(
        "cli_reference", Path(__file__).parents[2] / "docs" / "hooks" / "cli_reference.py"
    )
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    page = (Path(__file__).parents[2] / "docs" / "howto" / "cli.md").read_text()
    assert hook.COMMANDS in page
    shown = hook.on_page_markdown(page, None, None, None)
    names = [module.__name__.rsplit(".", 1)[1] for module in subcommands()]
    assert f"`ulidkeys {' | '.join(names)}`" in shown and "survey" in names
