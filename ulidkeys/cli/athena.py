"""``ulidkeys athena``: the Athena table (partition projection) of a layout's period
folders, and the WHERE condition of a window.
"""

from __future__ import annotations

import argparse

from ulidkeys.cli.options import (
    Command,
    count_arg,
)
from ulidkeys.planning.locations import check_prefix, split_s3_url
from ulidkeys.planning.plans import resolve_window
from ulidkeys.planning.projection import partition_projection, window_predicate
from ulidkeys.s3 import KeyLayout
from ulidkeys.timeinput import (
    format_ms,
)

#: Where the subcommand stands in ``ulidkeys --help``.
ORDER = 60


def register(command: Command) -> None:
    """Add the subcommand, its options and its handler."""
    athena = command("athena", "Athena table (partition projection) of a layout's period folders")
    athena.add_argument("location", help="s3://BUCKET/PREFIX (the layout's prefix)")
    athena.add_argument("--period", choices=["day", "hour"], required=True, help="period folders")
    athena.add_argument("--shards", type=count_arg, default=0, help="shard folders in the layout")
    athena.add_argument("--first-day", required=True, help="first day to project (ISO-8601)")
    athena.add_argument("--last-day", default=None, help="last day to project (default: NOW)")
    athena.add_argument("--table", default="objects", help="table name (default: objects)")
    athena.add_argument("--since", help="also print the WHERE condition of this window")
    athena.add_argument("--until", default=None, help="end of that window (default: now)")
    athena.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """The Athena table of a layout's period folders (partition projection), and with
    ``--since`` the ``WHERE`` condition that reads only the window's folders."""
    bucket_name, prefix = split_s3_url(args.location)
    if prefix:
        check_prefix(prefix, location=args.location)
    layout = KeyLayout(prefix=prefix, shards=args.shards or None, period=args.period)
    projection = partition_projection(layout, bucket_name, args.first_day, args.last_day)
    lines = [projection.ddl(args.table) + ";"]  # all of it computed before any is printed
    if args.since is not None:
        start, end = resolve_window(args.since, args.until)
        lines.append(f"-- [{format_ms(start)}, {format_ms(end)}):")
        lines.append(f"WHERE {window_predicate(layout, start, end)}")
    print("\n".join(lines))
    return 0
