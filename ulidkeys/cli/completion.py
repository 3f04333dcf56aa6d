"""``ulidkeys completion``: a bash, zsh or fish completion script made from the parser, which
also completes scheme names and the layout and entity names of the config file.

The names are printed by ``ulidkeys completion --names schemes|layouts|entities``, which the
scripts run when a name is completed: the config file is the one found where the user is at
that moment, so a layout added to ``ulidkeys.toml`` is offered with no new script.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator

from ulidkeys import config
from ulidkeys.cli.options import (
    Command,
    add_config,
)
from ulidkeys.errors import InvalidValue
from ulidkeys.ids.registry import REGISTRATIONS

#: Where the subcommand stands in ``ulidkeys --help``.
ORDER = 90

SHELLS = ("bash", "zsh", "fish")
NAMES = ("schemes", "layouts", "entities")

#: ``(subcommand, argument)`` -> the names completed there (``None``: every subcommand).
_COMPLETED = {
    (None, "scheme"): "schemes",
    ("ls", "location"): "layouts",
    ("athena", "location"): "layouts",
    ("query", "name"): "entities",
}


def register(command: Command) -> None:
    """Add the subcommand, its options and its handler."""
    completion = command(
        "completion",
        'print a shell completion script: eval "$(ulidkeys completion bash)" in ~/.bashrc, '
        'ulidkeys completion zsh > "${fpath[1]}/_ulidkeys", or ulidkeys completion fish > '
        "~/.config/fish/completions/ulidkeys.fish",
    )
    completion.add_argument("shell", nargs="?", choices=SHELLS, help="the shell to complete in")
    completion.add_argument(
        "--names",
        choices=NAMES,
        help="print the names the scripts complete, one a line (schemes, and the layouts or "
        "entities of the config file found here)",
    )
    add_config(completion)
    completion.set_defaults(handler=run)


def names(kind: str, config_path: str | None = None) -> list[str]:
    """The scheme names (families as ``typeid:``, to be followed by a prefix), or the layouts
    or entities (and collections) of the config file (none when there is no file;
    InvalidConfig when it cannot be read or is not valid, as for every command)."""
    if kind == "schemes":
        return [entry.name + (":" if entry.scheme is None else "") for entry in REGISTRATIONS]
    found = config.load(config_path)
    if kind == "layouts":
        return sorted(found.layouts)
    return sorted([*found.entities, *found.collections])  # what `query NAME` takes


def _completed_actions(parser: argparse.ArgumentParser) -> Iterator[tuple[argparse.Action, str]]:
    """Every argument whose values are names, with the kind of names."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                for argument in sub._actions:
                    kind = _COMPLETED.get((None, argument.dest)) or _COMPLETED.get(
                        (name, argument.dest)
                    )
                    if kind is not None:
                        yield argument, kind


def run(args: argparse.Namespace) -> int:
    """A shell completion script, generated from this very parser (so it cannot go stale), or
    the names it completes (``--names``)."""
    if args.names is not None:
        # A broken config file is one line on stderr and exit 2, nothing on stdout: the scripts
        # run this with 2>/dev/null (below), so nothing reaches the line being typed and no
        # name is offered, while whoever runs it by hand to see why sees the reason.
        sys.stdout.write("".join(f"{name}\n" for name in names(args.names, args.config)))
        return 0
    if args.shell is None:
        raise InvalidValue("completion needs the shell: bash, zsh or fish")
    try:
        import shtab  # the cli extra: only this command needs it
    except ImportError:
        raise InvalidValue("completion needs shtab: pip install 'ulidkeys[cli]'") from None
    for action, kind in _completed_actions(args.parser):
        # shtab's completion by a command's output, in each shell
        action.complete = shtab.cmd(f"ulidkeys completion --names {kind} 2>/dev/null")  # type: ignore[attr-defined]
    script = shtab.complete(args.parser, shell=args.shell)
    sys.stdout.write(script if script.endswith("\n") else script + "\n")
    return 0
