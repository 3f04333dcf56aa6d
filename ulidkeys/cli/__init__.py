"""The ``ulidkeys`` command line: make ids, inspect them, and turn time windows into key bounds,
listings and queries.

Each subcommand is one module of this package (``register`` adds its options, ``run`` handles
it) and a thin wrapper over the library, so what it prints is what the API returns; the
modules are found by walking the package, so a new subcommand is one new file. A user mistake
exits 2 and an AWS-side failure 1, each with one line on stderr (``--debug`` or
``ULIDKEYS_DEBUG=1`` shows the traceback); a stdout that cannot be written (a full disk, a
closed descriptor) is exit 1 with one line, a pipe closed by its reader (``| head``) exit 141
(128 + SIGPIPE, what a shell reports for ``yes | head``) with nothing more said.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from ulidkeys import __version__
from ulidkeys.cli.failures import failure, silence_stdout
from ulidkeys.cli.options import DEBUG_ENV, Parser
from ulidkeys.cli.output import OutputFailed, guarded_stdout, report
from ulidkeys.planning.prefixcover import END_OF_TIME_MS

#: Modules of the package that the subcommands share (not subcommands themselves).
_SHARED = frozenset(
    {"aws", "baselines", "failures", "options", "output", "paths", "progress", "tour"}
)


def subcommands() -> list[ModuleType]:
    """Every subcommand module of the package, in ``--help`` order (their ``ORDER``)."""
    folder = Path(__file__).parent
    found = [
        importlib.import_module(f"{__name__}.{module.name}")
        for module in pkgutil.iter_modules([str(folder)])
        if module.name not in _SHARED
    ]
    return sorted(found, key=lambda module: module.ORDER)


def build_parser() -> argparse.ArgumentParser:
    """The parser of every subcommand (what ``--help``, completion and the docs read)."""
    debug = Parser(add_help=False)
    debug.add_argument(
        "--debug",
        action="store_true",
        default=argparse.SUPPRESS,
        help=f"show the traceback of a failure (or set {DEBUG_ENV}=1)",
    )
    parser = Parser(
        prog="ulidkeys",
        description="Time-sortable keys (ULID) for S3 and DynamoDB. Exit status: 0 done, "
        "2 a mistake in the command or the AWS set-up, 1 a failure AWS reported.",
        parents=[debug],
    )
    parser.add_argument("--version", action="version", version=f"ulidkeys {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    def command(name: str, text: str) -> argparse.ArgumentParser:
        return commands.add_parser(name, help=text, description=text, parents=[debug])

    for module in subcommands():
        module.register(command)
    parser.set_defaults(parser=parser)  # what `completion` describes, without importing this
    return parser


def _end_of_time(until: str | None) -> str | int | None:
    """``--until 281474976710656`` (2**48 ms): the exclusive end past the last ULID millisecond,
    which only an int says to :class:`TimeWindow` (a time text stops at the last millisecond)."""
    if until is not None and until.strip().lower() in (f"{END_OF_TIME_MS}", f"{END_OF_TIME_MS}ms"):
        return END_OF_TIME_MS
    return until


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; the exit status (0 done, 2 a mistake, 1 a failure AWS reported or
    a stdout that cannot be written, 141 a pipe closed by its reader)."""
    parser = build_parser()
    program = "ulidkeys"  # what the one line of a failure starts with
    with guarded_stdout() as stdout:
        try:
            try:
                args = parser.parse_args(argv)
            except SystemExit:  # --help, --version, a usage mistake: argparse printed it
                stdout.flush()
                raise
            program = f"ulidkeys {args.command}"
            status = _run(args, program)
            stdout.flush()  # a full disk is told here, as one line, not at the exit's flush
            return status
        except BrokenPipeError:  # `| head` closed the pipe: stop quietly, like `yes | head`
            silence_stdout()
            return 141
        except OutputFailed as error:
            silence_stdout()  # what stays buffered must not fail again at exit
            report(f"{program}: {error}")
            return 1


def _run(args: argparse.Namespace, program: str) -> int:
    """The subcommand's exit status; a failure other than stdout's as one line."""
    if hasattr(args, "until"):
        args.until = _end_of_time(args.until)
    debug = getattr(args, "debug", False) or os.environ.get(DEBUG_ENV, "") not in ("", "0")
    try:
        return int(args.handler(args))
    except (BrokenPipeError, OutputFailed):
        raise
    except KeyboardInterrupt:
        if debug:
            raise
        report(f"{program}: interrupted")
        return 130
    except Exception as error:
        if debug:
            raise
        status, message = failure(error, args)
        report(f"{program}: {message}")
        try:  # what was printed before the failure, if stdout takes it: the failure's line
            sys.stdout.flush()  # is the one to read, not a second one about stdout
        except (BrokenPipeError, OutputFailed):
            silence_stdout()
        return status
