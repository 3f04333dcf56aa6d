"""``ulidkeys config``: the config file that applies here and what it declares."""

from __future__ import annotations

import argparse

from ulidkeys import config
from ulidkeys.cli.options import (
    Command,
    add_config,
    add_output,
)
from ulidkeys.cli.output import Row, emit, report
from ulidkeys.config.files import CONFIG_FILE, PYPROJECT, user_config_path

#: Where the subcommand stands in ``ulidkeys --help``.
ORDER = 70


def register(command: Command) -> None:
    """Add the subcommand, its options and its handler."""
    configured = command("config", "the config file that applies here, and what it declares")
    add_config(configured)
    add_output(configured)
    configured.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """What config file applies here and what it declares (or where it was looked for)."""
    found = config.load(args.config)
    if found.path is None:
        looked = f"{CONFIG_FILE} or {PYPROJECT} [tool.ulidkeys] here or above"
        report(f"no config file: looked for {looked}, then {user_config_path()}")
    rows = [
        {"kind": "layout", "name": name, **named.settings} for name, named in found.layouts.items()
    ] + [
        {"kind": "entity", "name": name, **named.settings} for name, named in found.entities.items()
    ]
    rows += [
        {"kind": "collection", "name": name, **named.settings}
        for name, named in found.collections.items()
    ]
    if found.path is not None:
        report(f"config: {found.path}")

    def text(row: Row) -> str:
        settings = ", ".join(f"{k}={v!r}" for k, v in row.items() if k not in ("kind", "name"))
        return f"{row['kind']:<10} {row['name']:<16} {settings}"

    emit(rows, args.output, text)
    return 0
