"""``ulidkeys athena``: the Athena table (partition projection) of a layout's period
folders, and the WHERE condition of a window.
"""

from __future__ import annotations

import argparse

from ulidkeys.cli.options import (
    Command,
    add_config,
    count_arg,
    given,
    layout_location,
)
from ulidkeys.emit.athena import partition_projection, window_predicate
from ulidkeys.errors import InvalidValue
from ulidkeys.ids.registry import scheme_named
from ulidkeys.planning.periods import LAYOUT_PERIOD_NAMES
from ulidkeys.planning.plans import resolve_window
from ulidkeys.s3 import KeyLayout
from ulidkeys.timeinput import (
    format_ms,
)

#: Where the subcommand stands in ``ulidkeys --help``.
ORDER = 60


def register(command: Command) -> None:
    """Add the subcommand, its options and its handler."""
    athena = command("athena", "Athena table (partition projection) of a layout's period folders")
    athena.add_argument(
        "location",
        help="s3://BUCKET/PREFIX (the layout's prefix), or the name of a layout in the config "
        "file (`ulidkeys config`)",
    )
    athena.add_argument(
        "--period",
        choices=LAYOUT_PERIOD_NAMES,
        default=None,
        help="period folders (required unless the named layout has them)",
    )
    athena.add_argument(
        "--shards", type=count_arg, default=None, help="shard folders in the layout (default 0)"
    )
    athena.add_argument(
        "--first-day", required=True, help="first day to project (ISO-8601; its period's folder)"
    )
    athena.add_argument(
        "--last-day",
        default=None,
        help="last day to project (default: NOW; required for week folders, which Athena "
        "projects as a list of weeks)",
    )
    athena.add_argument("--table", default="objects", help="table name (default: objects)")
    athena.add_argument("--since", help="also print the WHERE condition of this window")
    athena.add_argument("--until", default=None, help="end of that window (default: now)")
    add_config(athena)
    athena.set_defaults(handler=run)


def _athena_target(args: argparse.Namespace) -> tuple[str, KeyLayout]:
    """The bucket and layout: from ``s3://BUCKET/PREFIX`` and the flags, or from a layout named
    in the config file (``athena photos``), the flags overriding what it says (as ``ls``)."""
    bucket_name, prefix, settings = layout_location(args)
    period = given(args.period, settings.get("period"), None)
    if period is None:
        raise InvalidValue(
            f"athena projects period folders: {args.location} has none; give "
            f"{' or '.join(f'--period {name}' for name in LAYOUT_PERIOD_NAMES)} (or set period "
            "in the config's layout)"
        )
    layout = KeyLayout(
        prefix=prefix,
        shards=given(args.shards, settings.get("shards"), 0) or None,
        period=period,
        suffix=settings.get("suffix", ""),
        scheme=scheme_named(settings.get("scheme", "ulid")),
    )
    return bucket_name, layout


def run(args: argparse.Namespace) -> int:
    """The Athena table of a layout's period folders (partition projection), and with
    ``--since`` the ``WHERE`` condition that reads only the window's folders."""
    if args.until is not None and args.since is None:
        raise InvalidValue(
            "--until ends the window of --since's WHERE condition: give --since with it"
        )
    bucket_name, layout = _athena_target(args)
    projection = partition_projection(layout, bucket_name, args.first_day, args.last_day)
    lines = [projection.ddl(args.table) + ";"]  # all of it computed before any is printed
    if args.since is not None:
        start, end = resolve_window(args.since, args.until)
        lines.append(f"-- [{format_ms(start)}, {format_ms(end)}):")
        lines.append(f"WHERE {window_predicate(layout, start, end)}")
    print("\n".join(lines))
    return 0
