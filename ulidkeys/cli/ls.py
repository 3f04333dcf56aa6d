"""``ulidkeys ls``: the S3 objects of a key layout in a window, the newest, a slice of a
window for one worker, or what is new since a checkpoint.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

from ulidkeys.cli.aws import (
    aws_options,
    aws_session,
    check_targets,
    consume_checkpointed,
    explain,
    print_cursor,
    refuse_with_checkpoint,
    s3_object,
)
from ulidkeys.cli.options import (
    Command,
    add_read_options,
    add_window,
    count_arg,
    given,
    layout_location,
)
from ulidkeys.cli.output import Row, counted, emit, iso_time, report
from ulidkeys.cli.paths import atomic_file, output_file
from ulidkeys.cli.progress import track
from ulidkeys.emit.awscli import s3_commands
from ulidkeys.emit.manifests import put_manifest, write_manifest
from ulidkeys.errors import InvalidValue, InvalidWindow
from ulidkeys.ids.registry import scheme_named
from ulidkeys.planning.listings import ListCall
from ulidkeys.planning.periods import LAYOUT_PERIOD_NAMES
from ulidkeys.planning.plans import Plan, fixed_window
from ulidkeys.s3 import Bucket, KeyLayout
from ulidkeys.s3.bucket import is_directory_bucket
from ulidkeys.survey import hints

#: Where the subcommand stands in ``ulidkeys --help``.
ORDER = 40


def register(command: Command) -> None:
    """Add the subcommand, its options and its handler."""
    ls = command("ls", "S3 objects of a key layout in a time window")
    ls.add_argument(
        "location",
        help="s3://BUCKET/PREFIX, the layout's prefix (a folder ends in '/'), or the name of a "
        "layout in the config file (`ulidkeys config`)",
    )
    add_window(ls, "required unless --latest or --cursor")
    ls.add_argument(
        "--latest",
        type=count_arg,
        metavar="N",
        help="the N newest (before --until; at or after --since when given)",
    )
    ls.add_argument(
        "--shards", type=count_arg, default=None, help="shard folders in the layout (default 0)"
    )
    ls.add_argument(
        "--period", choices=LAYOUT_PERIOD_NAMES, default=None, help="period folders (UTC)"
    )
    ls.add_argument(
        "--suffix",
        default=None,
        help="the exact text after the id, e.g. .jpg: only KEY = PREFIX...ID.jpg is listed (not "
        ".png, not .tar.jpg); without it keys with any extension are listed",
    )
    ls.add_argument(
        "--slice",
        metavar="I/N",
        help="list only slice I (0-based) of N equal time slices of the window, for N workers "
        "that share nothing (needs fixed --since and --until)",
    )
    ls.add_argument(
        "--manifest",
        metavar="FILE|s3://BUCKET/KEY",
        help="write the objects as an S3 Batch Operations CSV manifest (bucket,key) instead of "
        "printing them",
    )
    add_read_options(ls, "the ids in the keys")
    ls.set_defaults(handler=run)


def _object_row(obj: Mapping[str, Any]) -> dict[str, Any]:
    row = {"Key": obj["Key"], "Size": obj.get("Size")}
    modified = obj.get("LastModified")
    row["LastModified"] = iso_time(modified) if isinstance(modified, datetime) else modified
    row["ETag"], row["StorageClass"] = obj.get("ETag"), obj.get("StorageClass")
    return row


def _object_text(row: Row) -> str:
    return f"{row['Key']}\t{row['Size']}\t{row['LastModified']}"


def _ls_target(args: argparse.Namespace) -> tuple[str, KeyLayout]:
    """``ls``'s bucket and layout: from ``s3://BUCKET/PREFIX`` and the flags, or from a layout
    named in the config file (``ls photos``), the flags overriding what it says."""
    bucket_name, prefix, settings = layout_location(args)
    layout = KeyLayout(
        prefix=prefix,
        shards=given(args.shards, settings.get("shards"), 0) or None,
        period=given(args.period, settings.get("period"), None),
        suffix=given(args.suffix, settings.get("suffix"), ""),
        scheme=scheme_named(given(args.scheme, settings.get("scheme"), "ulid")),
        newest_first=bool(settings.get("newest_first", False)),
    )
    args.location = f"s3://{bucket_name}/{prefix}"  # what messages name from here on
    return bucket_name, layout


def _suffix_fits(layout: KeyLayout) -> Callable[[Mapping[str, Any]], bool]:
    """With ``--suffix``, only keys whose text after the id is exactly that suffix."""
    if not layout.suffix:
        return lambda obj: True
    return lambda obj: layout.split(obj["Key"])[1] == layout.suffix


def _show_objects(args: argparse.Namespace, layout: KeyLayout) -> Callable[[Any], int]:
    fits = _suffix_fits(layout)

    def show(objects: Any) -> int:
        stats = objects.stats
        tracked = track(objects, "objects", lambda: (stats.returned, stats.calls))
        return emit((_object_row(o) for o in tracked if fits(o)), args.output, _object_text)

    return show


def run(args: argparse.Namespace) -> int:
    bucket_name, layout = _ls_target(args)
    directory = is_directory_bucket(bucket_name)
    if args.checkpoint is not None:
        refuse_with_checkpoint(args, "latest", "slice")
    if args.slice is not None and args.latest is not None:
        raise InvalidValue("--slice cuts a window into pieces; --latest has no fixed window")
    check_targets(args)  # --manifest, --checkpoint: before the first request, not after
    if args.explain and args.checkpoint is None:
        if args.latest is not None:
            raise InvalidValue("--explain prints window plans; --latest has no fixed plan")
        if args.slice is not None:
            print(_slice_plan(args, layout, directory).explain())
            return 0
        if args.since is None and args.cursor is None:
            raise InvalidWindow("ls --explain needs --since")
        plan = layout.plan_window(
            args.since, args.until, cursor=args.cursor, directory_bucket=directory
        )
        commands = s3_commands(bucket_name, plan, layout.suffix, aws_options(args))
        return explain(plan.explain(), commands)
    session = aws_session(args)
    bucket = Bucket(session.client("s3", endpoint_url=args.endpoint_url), bucket_name, layout)
    show = _show_objects(args, layout)
    if args.manifest is not None:
        show = _manifest_output(args, session, bucket_name)
    if args.checkpoint is not None:

        def commands_of(plan: Plan[ListCall]) -> list[str]:
            return s3_commands(bucket_name, plan, layout.suffix, aws_options(args))

        return consume_checkpointed(args, session, bucket, commands_of, show, "objects")
    if args.latest is not None:
        suffix = layout.suffix or None
        listing = bucket.latest(
            args.latest, since=args.since, until=args.until, cursor=args.cursor, suffix=suffix
        )
    elif args.slice is not None:
        listing = bucket.run(_slice_plan(args, layout, directory))
    elif args.since is None and args.cursor is None:
        raise InvalidWindow("ls needs --since (or --latest N)")
    else:
        listing = bucket.list_window(args.since, args.until, cursor=args.cursor)
    with listing:
        printed = show(listing)
    stats = listing.stats
    left_out = stats.filtered + stats.returned - printed  # by latest's filter, or by show's
    other = f" ({left_out:,} with another suffix left out)" if layout.suffix else ""
    report(
        f"{counted(printed, 'object')}{other}, {counted(stats.calls, 'ListObjectsV2 call')}, "
        f"{counted(stats.read, 'key')} transferred, {counted(stats.skipped, 'key')} not "
        "fitting the layout"
    )
    if printed == 0 or stats.skipped:
        _hint_layout(bucket, args.location, layout)
    print_cursor(listing.cursor)
    return 0


def _hint_layout(bucket: Bucket, location: str, layout: KeyLayout) -> None:
    """After a listing that found nothing or skipped keys: what the keys under the prefix look
    like and which flags fit them (a few bounded calls; a hint never fails the command)."""

    def lister(prefix: str, delimiter: str | None, max_keys: int) -> tuple[list[str], list[str]]:
        request: dict[str, Any] = {"Bucket": bucket.name, "Prefix": prefix, "MaxKeys": max_keys}
        if delimiter is not None:
            request["Delimiter"] = delimiter
        page = bucket.client.list_objects_v2(**request)
        folders = [entry["Prefix"] for entry in page.get("CommonPrefixes", [])]
        return folders, [entry["Key"] for entry in page.get("Contents", [])]

    try:
        line = hints.hint(location, hints.look(layout.prefix, lister), layout)
    except Exception:  # the listing's own answer stands; a failed look adds nothing
        return
    if line is not None:
        report(f"hint: {line}")


def _slice_plan(args: argparse.Namespace, layout: KeyLayout, directory: bool) -> Plan[ListCall]:
    """``--slice I/N``: the plan of slice I (0-based) of N of the window, resumed at
    ``--cursor`` (one this slice's listing printed).

    Every worker cuts the window itself, so both ends must be fixed times: an end read from
    each worker's clock ('now', the default --until) would cut a different window on each.
    """
    # ASCII digits, at most 18 each: int() of thousands of digits raises its own ValueError
    found = re.fullmatch(r"([0-9]{1,18})/([0-9]{1,18})", str(args.slice))
    if found is None:
        raise InvalidValue(f"--slice {args.slice!r} must look like I/N, e.g. 0/8 (I from 0)")
    index, count = int(found[1]), int(found[2])
    if not 0 <= index < count:
        raise InvalidValue(f"--slice {args.slice!r}: I must be 0 .. N-1 (0-based, like array jobs)")
    start, end = fixed_window(args.since, args.until, "--slice", ("--since", "--until"))
    return layout.plan_window(start, end, directory_bucket=directory).slice(
        index, count, args.cursor
    )


def _manifest_output(
    args: argparse.Namespace, session: Any, bucket_name: str
) -> Callable[[Iterable[Mapping[str, Any]]], int]:
    """``--manifest FILE|s3://BUCKET/KEY``: the objects go to an S3 Batch Operations CSV
    manifest instead of stdout (which gets the ``Manifest`` argument of
    ``aws s3control create-job`` for a manifest written to S3)."""
    target = args.manifest
    if target.startswith("s3://"):
        target_bucket, key = s3_object(target, "--manifest")
        client = session.client("s3", endpoint_url=args.endpoint_url)

        def upload(objects: Iterable[Mapping[str, Any]]) -> int:
            count, manifest = put_manifest(client, objects, bucket_name, target_bucket, key)
            print(json.dumps(manifest, sort_keys=True))
            print(f"manifest of {counted(count, 'object')} written to {target}", file=sys.stderr)
            return count

        return upload
    path = output_file(target, "--manifest", "manifest.csv")  # checked already: the path

    def write(objects: Iterable[Mapping[str, Any]]) -> int:
        # Written beside the target and renamed over it when complete: a listing that fails
        # part-way leaves no manifest that looks whole, and no temporary file either.
        with atomic_file(path, "--manifest") as out:
            count = write_manifest(objects, bucket_name, out)
        print(f"manifest of {counted(count, 'object')} written to {target}", file=sys.stderr)
        return count

    return write
