"""``ulidkeys range``: the key bounds, prefix cover and ``aws`` command of a window."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ulidkeys.cli.options import (
    Command,
    add_output,
    add_scheme,
    add_window,
    count_arg,
    scheme_of,
)
from ulidkeys.cli.output import Row, emit
from ulidkeys.emit.awscli import s3_commands
from ulidkeys.errors import InvalidValue, InvalidWindow
from ulidkeys.ids.protocol import IdScheme, bounds
from ulidkeys.ids.ulids import ULID_SCHEME
from ulidkeys.planning.locations import check_bucket_name, check_prefix
from ulidkeys.planning.prefixcover import human_span, resolution_table
from ulidkeys.planning.timewindow import TimeWindow
from ulidkeys.s3 import KeyLayout
from ulidkeys.timeinput import (
    MAX_MS,
    format_ms,
)

#: Where the subcommand stands in ``ulidkeys --help``.
ORDER = 30


def register(command: Command) -> None:
    """Add the subcommand, its options and its handler."""
    window = command("range", "key bounds of a time window")
    add_window(window, "required")
    window.add_argument("--prefix", default="", help="key prefix before the ULID, e.g. uploads/")
    window.add_argument("--cover", action="store_true", help="print the exact prefix cover")
    window.add_argument(
        "--max-prefixes", type=count_arg, help="a cover of at most this many prefixes (superset)"
    )
    window.add_argument(
        "--bucket", help="also print the `aws s3api list-objects-v2` command for this bucket"
    )
    window.add_argument(
        "--resolution", action="store_true", help="print what each time character spans"
    )
    add_scheme(window, "the ids in the keys")
    add_output(window)
    window.set_defaults(handler=run)


def _range_row(args: argparse.Namespace) -> dict[str, Any]:
    """Everything ``range`` prints, computed before any of it is printed."""
    prefix = check_prefix(args.prefix, "--prefix") if args.prefix else ""
    window = TimeWindow(args.since, args.until)
    scheme = scheme_of(args)
    if scheme is not ULID_SCHEME:
        return _range_of_scheme(args, scheme, window, prefix)
    lo, hi = window.bounds(prefix)
    block = window.enclosing_block()
    row: dict[str, Any] = {
        "since": format_ms(window.start_ms),
        "until": format_ms(window.end_ms) if window.end_ms <= MAX_MS else "end of time",
        "start_ms": window.start_ms,
        "end_ms": window.end_ms,
        "lower": lo,
        # past the last ULID millisecond there is no upper key: every key >= lower is inside
        "upper": hi if window.end_ms <= MAX_MS else None,
        "prefix": prefix + block.prefix,
        "prefix_selects": human_span(block.span_ms),
    }
    if args.cover or args.max_prefixes is not None:
        cover = window.prefix_cover(args.max_prefixes)
        row["cover"] = [prefix + p for p in cover]
        row["cover_extra_ms"] = cover.extra_ms
    if args.bucket is not None:
        check_bucket_name(args.bucket)  # "photos/x" is no bucket, not photos and a prefix
        plan = KeyLayout(prefix=prefix).plan_window(window.start_ms, window.end_ms)
        row["aws"] = s3_commands(args.bucket, plan)
    return row


def _range_of_scheme(
    args: argparse.Namespace, scheme: IdScheme, window: TimeWindow, prefix: str
) -> dict[str, Any]:
    """``range --scheme NAME``: the exact key bounds of the window for that scheme's ids (the
    prefix cover and resolution table are ULID's)."""
    for flag in ("cover", "max_prefixes"):
        if getattr(args, flag):
            raise InvalidValue(
                f"--{flag.replace('_', '-')} covers ULID text; leave it out with --scheme"
            )
    lo, hi = bounds(scheme, window, prefix)
    row: dict[str, Any] = {
        "scheme": scheme.name,
        "since": format_ms(window.start_ms),
        "until": format_ms(window.end_ms) if window.end_ms <= MAX_MS else "end of time",
        "start_ms": window.start_ms,
        "end_ms": window.end_ms,
        "lower": lo,
        "upper": hi,
    }
    if args.bucket is not None:
        check_bucket_name(args.bucket)  # "photos/x" is no bucket, not photos and a prefix
        layout = KeyLayout(prefix=prefix, scheme=scheme)
        plan = layout.plan_window(window.start_ms, window.end_ms)
        row["aws"] = s3_commands(args.bucket, plan)
    return row


def _range_text(row: Row) -> str:
    upper = row["upper"] or "none: the window runs to the end of time (every key >= lower)"
    lines = [
        *([f"scheme      {row['scheme']}"] if "scheme" in row else []),
        f"window      [{row['since']}, {row['until']})",
        f"lower (>=)  {row['lower']}",
        f"upper (<)   {upper}",
    ]
    if "prefix" in row:
        lines.append(f"prefix      {row['prefix'] or repr('')}  (selects {row['prefix_selects']})")
    if "cover" in row:
        extra = row["cover_extra_ms"]
        span = row["end_ms"] - row["start_ms"]
        kind = "exact" if not extra else f"{human_span(extra)} extra ({(span + extra) / span:.3g}x)"
        lines.append(f"cover       {len(row['cover'])} prefixes, {kind}")
        lines += [f"  {prefix}" for prefix in row["cover"]]
    if "aws" in row:
        lines += ["# the same listing with the AWS CLI:", *row["aws"]]
    return "\n".join(lines)


def _check_resolution_alone(args: argparse.Namespace) -> None:
    """``--resolution`` prints ULID's table, which no window, prefix or bucket changes: a flag
    of those given with it would be silently ignored, so it is refused instead."""
    given = [
        flag
        for flag, value in (
            ("--since", args.since),
            ("--until", args.until),
            ("--prefix", args.prefix or None),
            ("--cover", args.cover or None),
            ("--max-prefixes", args.max_prefixes),
            ("--bucket", args.bucket),
        )
        if value is not None
    ]
    if args.scheme is not None and scheme_of(args) is not ULID_SCHEME:
        given.append("--scheme")
    if given:
        flags = " and ".join([", ".join(given[:-1]), given[-1]] if len(given) > 1 else given)
        raise InvalidValue(
            "--resolution prints what each character of a ULID spans, the same for every "
            f"window: leave out {flags} (or --resolution, to see the window)"
        )


def run(args: argparse.Namespace) -> int:
    if args.resolution:
        _check_resolution_alone(args)
        rows = [
            {"position": r.position, "span": r.human, "values": r.values}
            for r in resolution_table()
        ]
        if args.output == "text":
            print(f"{'char':>4}  {'one step spans':>16}  values")
        emit(rows, args.output, lambda r: f"{r['position']:>4}  {r['span']:>16}  {r['values']}")
        return 0
    if args.since is None:
        raise InvalidWindow("range needs --since (or --resolution for the resolution table)")
    row = _range_row(args)
    if args.output == "json":  # one window: one object, not an array of one
        print(json.dumps(row, indent=2))
        return 0
    emit([row], args.output, _range_text)
    return 0
