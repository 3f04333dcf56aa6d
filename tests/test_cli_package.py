"""The command line is a package with one module per subcommand, found by walking the package:
every subcommand module registers exactly its own subcommand, handled by its own ``run``, so a
new subcommand is one new file."""

from __future__ import annotations

import argparse
from pathlib import Path

import ulidkeys.cli as cli
from ulidkeys.cli import build_parser, subcommands

SHARED = {"__init__", "aws", "failures", "options", "output", "paths"}


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
