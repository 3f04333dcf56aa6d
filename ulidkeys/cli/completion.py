"""``ulidkeys completion``: a bash or zsh completion script made from the parser."""

from __future__ import annotations

import argparse
import sys

from ulidkeys.cli.options import (
    Command,
)
from ulidkeys.errors import InvalidValue

#: Where the subcommand stands in ``ulidkeys --help``.
ORDER = 90


def register(command: Command) -> None:
    """Add the subcommand, its options and its handler."""
    completion = command(
        "completion",
        'print a shell completion script: eval "$(ulidkeys completion bash)" in ~/.bashrc, '
        'or ulidkeys completion zsh > "${fpath[1]}/_ulidkeys"',
    )
    completion.add_argument("shell", choices=["bash", "zsh"], help="the shell to complete in")
    completion.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """A shell completion script, generated from this very parser (so it cannot go stale)."""
    try:
        import shtab  # the cli extra: only this command needs it
    except ImportError:
        raise InvalidValue("completion needs shtab: pip install 'ulidkeys[cli]'") from None
    script = shtab.complete(args.parser, shell=args.shell)
    sys.stdout.write(script if script.endswith("\n") else script + "\n")
    return 0
