"""The options the subcommands share (scheme, output, window, AWS connection, config) and
their argument types, checked when parsed; the parser whose usage mistakes are one line.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

from ulidkeys import config
from ulidkeys.config.declarations import is_name
from ulidkeys.errors import UlidkeysError
from ulidkeys.ids.protocol import IdScheme
from ulidkeys.ids.registry import registration_of, scheme_named
from ulidkeys.ids.ulids import ULID_SCHEME
from ulidkeys.planning.locations import check_prefix, split_s3_url
from ulidkeys.timeinput import (
    TIME_TEXT_RULE,
)

#: Largest count a flag takes (``-n``, ``--latest``, ``--limit``): far past any real use.
MAX_COUNT = 10**18
#: Longest duration a seconds flag takes (``--settle``, ``--overlap``): the 2**48 ms that
#: ULID times span; past it a number only overflows (``1e308`` seconds is no millisecond count).
MAX_SECONDS = 2**48 // 1000
OUTPUTS = ("text", "json", "jsonl")
DEBUG_ENV = "ULIDKEYS_DEBUG"


# --- arguments -----------------------------------------------------------------------------------


def scheme_arg(text: str) -> str:
    """A ``--scheme`` name, checked when parsed (``ulidkeys schemes`` lists them); a family
    (``typeid``) must name its member (``typeid:post``): alone it would silently be its
    example member."""
    try:
        scheme_named(text)
        family = registration_of(text) if ":" not in text else None
    except UlidkeysError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if family is not None and family.scheme is None:
        example = family.sample.name if family.sample is not None else f"{family.name}:NAME"
        raise argparse.ArgumentTypeError(
            f"{text!r} names a family of schemes: give {family.name}:PREFIX, e.g. {example} "
            f"({family.name}: alone for ids without a prefix)"
        )
    return text


def add_config(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="the config file of named layouts and entities (default: ulidkeys.toml or "
        "pyproject.toml [tool.ulidkeys] here or above, then ~/.config/ulidkeys/config.toml)",
    )


def scheme_of(args: argparse.Namespace) -> IdScheme:
    name = getattr(args, "scheme", None)
    return ULID_SCHEME if name is None else scheme_named(name)


def add_scheme(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--scheme",
        type=scheme_arg,
        default=None,
        metavar="NAME",
        help=f"the id scheme of {what} (default ulid; e.g. uuid7, ksuid, objectid, "
        "twitter-snowflake, typeid:PREFIX; `ulidkeys schemes` lists them)",
    )


def count_arg(text: str) -> int:
    """A count flag: ASCII digits only (``-5``, ``1e3`` and ``٣`` are refused alike)."""
    if not (text.isascii() and text.isdigit()):
        raise argparse.ArgumentTypeError(f"{text!r} is not a count: write digits, e.g. 20")
    if len(text) > 19 or int(text) > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"{text} is more than {MAX_COUNT:.0e}")
    return int(text)


def seconds_arg(text: str) -> float:
    """A duration in seconds: a finite number from 0 to :data:`MAX_SECONDS`."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 <= value <= MAX_SECONDS):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of seconds >= 0 and <= {MAX_SECONDS} (the 2**48 ms "
            "that ULID times span)"
        )
    return value


TIME_HELP = "a time: " + TIME_TEXT_RULE.replace("%", "%%")


def add_output(parser: argparse.ArgumentParser, default: str = "text") -> None:
    parser.add_argument(
        "-o",
        "--output",
        choices=OUTPUTS,
        default=default,
        help=f"text, one JSON array, or JSON Lines (default {default})",
    )


def add_connection(parser: argparse.ArgumentParser) -> None:
    """Where and as whom AWS is called: ``--endpoint-url``, ``--region``, ``--profile``."""
    parser.add_argument("--endpoint-url", help="e.g. a local moto server: http://127.0.0.1:5000")
    parser.add_argument("--region", default=None, help="AWS region (default: your AWS config)")
    parser.add_argument("--profile", default=None, help="AWS profile (default: your AWS config)")


def add_aws_options(parser: argparse.ArgumentParser) -> None:
    """The connection, and the options of listings and queries (explain, cursor, checkpoint)."""
    add_connection(parser)
    parser.add_argument(
        "--explain",
        action="store_true",
        help="print the planned calls and the same calls as `aws` commands; call nothing",
    )
    parser.add_argument(
        "--cursor", help="resume just past the last item a previous run printed (its cursor)"
    )
    parser.add_argument(
        "--checkpoint",
        metavar="FILE|s3://BUCKET/KEY",
        help="print only what is new since the last run with this checkpoint, then advance it "
        "(the first run starts at --since)",
    )
    parser.add_argument(
        "--settle",
        type=seconds_arg,
        default=30.0,
        metavar="SECONDS",
        help="with --checkpoint: leave out the last SECONDS (uploads still arriving)",
    )
    parser.add_argument(
        "--overlap",
        type=seconds_arg,
        default=60.0,
        metavar="SECONDS",
        help="with --checkpoint: re-check SECONDS below the watermark for late arrivals",
    )


def add_read_options(parser: argparse.ArgumentParser, ids: str, output: str = "text") -> None:
    """What every subcommand that reads a time window from AWS takes after its own options
    (``ls``, ``query``): the id scheme of ``ids``, the output format (default ``output``), the
    connection and the listing options (:func:`add_aws_options`), and the config file."""
    add_scheme(parser, ids)
    add_output(parser, default=output)
    add_aws_options(parser)
    add_config(parser)


def add_window(parser: argparse.ArgumentParser, since: str) -> None:
    parser.add_argument("--since", help=f"{TIME_HELP} ({since})")
    parser.add_argument("--until", default=None, help="a time, as --since (default: now)")


class Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line too (the usage is one ``--help`` away), and
    a word that starts with one ``-`` but is no option of the command is a value: an id
    (Firebase push ids start with ``-``: ``inspect -NxYz...``) or an option's value
    (``--suffix -thumb.jpg``, ``--cursor -Nx...``). ``--`` still ends the options; an unknown
    ``--word`` is still a mistake."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")

    def _parse_optional(self, arg_string: str) -> Any:
        # argparse's hook deciding whether a word is an option (None: a value). Only a word
        # whose first two characters are no short option of this command is changed.
        if (
            len(arg_string) > 1
            and arg_string[0] == "-"
            and arg_string[1] != "-"
            and arg_string[:2] not in self._option_string_actions
        ):
            return None
        return super()._parse_optional(arg_string)


def layout_location(args: argparse.Namespace) -> tuple[str, str, Mapping[str, Any]]:
    """The bucket, prefix and config settings of a layout's ``location`` argument: from
    ``s3://BUCKET/PREFIX`` (no settings), or from a layout named in the config file
    (``ls photos``), whose settings the flags then override (with :func:`given`)."""
    if args.location.startswith("s3://") or not is_name(args.location):
        bucket_name, prefix = split_s3_url(args.location)
        if prefix:
            check_prefix(prefix, location=args.location)
        return bucket_name, prefix, {}
    named = config.load(args.config).layout(args.location)
    return named.bucket_name, named.layout.prefix, named.settings


def given(flag: Any, configured: Any, default: Any) -> Any:
    """A flag given on the command line, else the config file's value, else the default."""
    if flag is not None:
        return flag
    return default if configured is None else configured


#: Adds a subcommand: ``command(name, help)`` gives its parser (each subcommand module's
#: ``register`` receives one).
Command = Callable[[str, str], argparse.ArgumentParser]
