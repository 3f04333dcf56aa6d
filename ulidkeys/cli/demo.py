"""``ulidkeys demo``: a tour of the library on an in-process moto."""

from __future__ import annotations

import argparse

from ulidkeys.cli.options import (
    Command,
)
from ulidkeys.cli.tour import run_demo

#: Where the subcommand stands in ``ulidkeys --help``.
ORDER = 100


def register(command: Command) -> None:
    """Add the subcommand, its options and its handler."""
    demo = command("demo", "a tour of the library")
    demo.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    return run_demo()
