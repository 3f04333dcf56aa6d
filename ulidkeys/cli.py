"""The ``ulidkeys`` command line: make ids, inspect them, and turn time windows into key bounds.

Each sub-command is a thin wrapper over the library, so what it prints is what the API returns.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from ulidkeys.consuming import CheckpointStore, Consumption, FileStore
from ulidkeys.demo import run_demo
from ulidkeys.dynamodb import Entity, Table
from ulidkeys.errors import InvalidValue, InvalidWindow, UlidkeysError
from ulidkeys.ids.inspection import Inspection, inspect
from ulidkeys.planning.checkpoints import describe_checkpoint
from ulidkeys.planning.listings import ListCall
from ulidkeys.planning.listings import plan_window as plan_listing
from ulidkeys.planning.plans import Plan, resolve_window
from ulidkeys.planning.projection import partition_projection, window_predicate
from ulidkeys.planning.queries import plan_window as plan_query_window
from ulidkeys.prefixcover import human_span, resolution_table
from ulidkeys.s3 import Bucket, KeyLayout, S3CheckpointStore, is_directory_bucket
from ulidkeys.s3.manifests import put_manifest, write_manifest
from ulidkeys.timeinput import format_ms, to_ms
from ulidkeys.timewindow import TimeWindow
from ulidkeys.ulid import ULID, batch


def _cmd_new(args: argparse.Namespace) -> int:
    if args.at is not None:
        ids = [str(ULID.new(at=args.at)) for _ in range(args.count)]
    else:
        ids = batch(args.count, monotonic=args.monotonic)
    print("\n".join(ids))
    return 0


def _id_lines(ids: Sequence[str]) -> Iterator[str]:
    """The ids given, or one per line of stdin for ``-`` or none (blank lines skipped)."""
    for text in ids or ["-"]:
        if text != "-":
            yield text
            continue
        for line in sys.stdin:
            if line.strip():
                yield line.strip()


def _cmd_inspect(args: argparse.Namespace) -> int:
    failed = printed = 0
    for text in _id_lines(args.ids):
        try:
            found = inspect(text, scheme=args.scheme)
        except UlidkeysError as error:  # report it and go on with the other ids
            print(f"ulidkeys inspect: {error}", file=sys.stderr)
            failed += 1
            continue
        if args.json:
            print(json.dumps({"input": text, **found.as_dict()}, sort_keys=True))
            continue
        if printed:
            print()
        printed += 1
        rows: list[tuple[str, object]] = [
            ("scheme", found.scheme),
            ("id", found.id),
            ("time", "-" if found.timestamp_ms is None else format_ms(found.timestamp_ms)),
            ("timestamp_ms", "-" if found.timestamp_ms is None else found.timestamp_ms),
            *found.fields.items(),
            *(("also", f"{alt.scheme} ({_when(alt)})") for alt in found.alternatives),
        ]
        width = max(len(name) for name, _ in rows)
        for name, value in rows:
            print(f"{name:<{width}}  {value}")
    return 2 if failed else 0


def _when(found: Inspection) -> str:
    return "no time" if found.timestamp_ms is None else format_ms(found.timestamp_ms)


def _cmd_range(args: argparse.Namespace) -> int:
    if args.resolution:
        print(f"{'char':>4}  {'one step spans':>16}  values")
        for row in resolution_table():
            print(f"{row.position:>4}  {row.human:>16}  {row.values}")
        return 0
    if args.since is None:
        raise InvalidWindow("range needs --since (or --resolution for the resolution table)")
    window = TimeWindow(args.since, args.until)
    lo, hi = window.bounds(args.prefix)
    block = window.enclosing_block()
    print(f"window      {window}")
    print(f"lower (>=)  {lo}")
    print(f"upper (<)   {hi}")
    print(f"prefix      {args.prefix}{block.prefix}  (selects {human_span(block.span_ms)})")
    if args.cover or args.max_prefixes is not None:
        cover = window.prefix_cover(args.max_prefixes)
        kind = "exact" if cover.is_exact else f"{cover.extra_ms} ms extra ({cover.ratio:.3g}x)"
        print(f"cover       {len(cover)} prefixes, {kind}")
        for prefix in cover:
            print(f"  {args.prefix}{prefix}")
    return 0


def _fields(pairs: Sequence[str]) -> dict[str, str]:
    """``["org=acme", "author=bob"]`` -> ``{"org": "acme", "author": "bob"}``."""
    fields: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise InvalidValue(f"--field {pair!r} must look like NAME=VALUE (e.g. org=acme)")
        fields[name] = value
    return fields


def _session(args: argparse.Namespace) -> Any:
    import boto3  # the aws extra: only the commands that call AWS need it

    return boto3.session.Session(region_name=args.region)


def _print_json_lines(items: Iterable[Mapping[str, Any]]) -> int:
    count = 0
    for item in items:
        print(json.dumps(item, default=str, sort_keys=True))
        count += 1
    return count


def _cmd_query(args: argparse.Namespace) -> int:
    entity = Entity(
        pk=args.pk,
        sk=args.sk,
        pk_attr=args.pk_attr,
        sk_attr=args.sk_attr,
        bucket=args.bucket,
        shards=args.shards,
    )
    fields: dict[str, Any] = dict(_fields(args.field))
    if args.checkpoint is not None:
        _refuse_with_checkpoint(args, "newest_first", "limit")
    window = {"newest_first": args.newest_first, "limit": args.limit, "cursor": args.cursor}
    if args.explain:
        plan = plan_query_window(entity, args.since, args.until, **window, fields=fields)
        print(plan.explain())
        return 0
    if not args.table:
        raise InvalidValue("query needs --table (or --explain to print the plan only)")
    session = _session(args)
    table = Table(
        session.client("dynamodb", endpoint_url=args.endpoint_url), entity, table_name=args.table
    )
    if args.checkpoint is not None:
        store = _checkpoint_store(args.checkpoint, session, args.endpoint_url)
        consumption = table.consume(store, **_consume_options(args), **fields)
        return _consume(consumption, _print_json_lines, "items")
    items = table.query_window(args.since, args.until, **window, **fields)
    count = _print_json_lines(items)
    stats = items.stats
    print(
        f"{count} items, {stats.calls} Query calls, {stats.read} items read",
        file=sys.stderr,
    )
    _print_cursor(items.cursor)
    return 0


def _checkpoint_store(spec: str, session: Any, endpoint_url: str | None) -> CheckpointStore:
    """``--checkpoint``: ``s3://BUCKET/KEY`` names an S3 object, anything else a local file."""
    if spec.startswith("s3://"):
        bucket, key = _split_s3_url(spec)
        if not key or key.endswith("/"):
            raise InvalidValue(f"--checkpoint {spec!r} must name an object: s3://BUCKET/KEY")
        return S3CheckpointStore(session.client("s3", endpoint_url=endpoint_url), bucket, key)
    return FileStore(spec)


def _refuse_with_checkpoint(args: argparse.Namespace, *names: str) -> None:
    for name in ("explain", "cursor", "until", *names):
        if getattr(args, name, None) not in (None, False):
            option = "--" + name.replace("_", "-")
            raise InvalidValue(
                f"{option} does not go with --checkpoint: a checkpoint run lists from its "
                "watermark to now - settle and resumes by itself"
            )


def _consume_options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "since": args.since,
        "settle": round(args.settle * 1000),
        "overlap": round(args.overlap * 1000),
    }


def _consume(consumption: Consumption[Any], show: Any, noun: str) -> int:
    """Print what is new, then commit: a crash before the commit prints it again next time."""
    count = show(consumption)
    checkpoint = consumption.commit()
    stats = consumption.stats
    print(
        f"{count} new {noun}, {stats.calls} calls, {stats.read} read ({stats.repeated} again in "
        f"the overlap, {stats.late} late); checkpoint: {describe_checkpoint(checkpoint)}",
        file=sys.stderr,
    )
    return 0


def _print_cursor(cursor: str | None) -> None:
    if cursor is not None:
        print(f"resume after the last one with: --cursor {cursor}", file=sys.stderr)


def _split_s3_url(url: str) -> tuple[str, str]:
    """``s3://bucket/uploads/`` -> ``("bucket", "uploads/")``."""
    if not url.startswith("s3://") or len(url) <= len("s3://"):
        raise InvalidValue(f"{url!r} is not an S3 location; expected s3://BUCKET/PREFIX")
    bucket, _, prefix = url[len("s3://") :].partition("/")
    return bucket, prefix


def _print_objects(objects: Iterable[Mapping[str, Any]]) -> int:
    count = 0
    for obj in objects:
        print(f"{obj['Key']}\t{obj.get('Size', '')}")
        count += 1
    return count


def _cmd_ls(args: argparse.Namespace) -> int:
    bucket_name, prefix = _split_s3_url(args.location)
    layout = KeyLayout(
        prefix=prefix, shards=args.shards or None, period=args.period, suffix=args.suffix
    )
    directory = is_directory_bucket(bucket_name)
    if args.checkpoint is not None:
        _refuse_with_checkpoint(args, "latest", "slice")
    if args.slice is not None and args.latest is not None:
        raise InvalidValue("--slice cuts a window into pieces; --latest has no fixed window")
    if args.explain:
        if args.latest is not None:
            raise InvalidValue("--explain prints window plans; --latest has no fixed plan")
        if args.slice is not None:
            print(_slice_plan(args, layout, directory).explain())
            return 0
        if args.since is None and args.cursor is None:
            raise InvalidWindow("ls --explain needs --since")
        start, end = resolve_window(args.since, args.until, args.cursor)
        plan = plan_listing(layout, start, end, cursor=args.cursor, directory_bucket=directory)
        print(plan.explain())
        return 0
    session = _session(args)
    bucket = Bucket(session.client("s3", endpoint_url=args.endpoint_url), bucket_name, layout)
    output = _object_output(args, session, bucket_name)
    if args.checkpoint is not None:
        store = _checkpoint_store(args.checkpoint, session, args.endpoint_url)
        return _consume(bucket.consume(store, **_consume_options(args)), output, "objects")
    if args.latest is not None:
        listing = bucket.latest(args.latest, until=args.until, cursor=args.cursor)
    elif args.slice is not None:
        listing = bucket.run(_slice_plan(args, layout, directory))
    elif args.since is None and args.cursor is None:
        raise InvalidWindow("ls needs --since (or --latest N)")
    else:
        listing = bucket.list_window(args.since, args.until, cursor=args.cursor)
    output(listing)
    stats = listing.stats
    print(
        f"{stats.returned} objects, {stats.calls} ListObjectsV2 calls, "
        f"{stats.read} keys transferred, {stats.skipped} keys not fitting the layout",
        file=sys.stderr,
    )
    _print_cursor(listing.cursor)
    return 0


def _slice_plan(args: argparse.Namespace, layout: KeyLayout, directory: bool) -> Plan[ListCall]:
    """``--slice I/N``: the plan of slice I (0-based) of N of the window, resumed at
    ``--cursor`` (one this slice's listing printed).

    Every worker cuts the window itself, so both ends must be fixed times: an end read from
    each worker's clock ('now', the default --until) would cut a different window on each.
    """
    index_text, slash, count_text = str(args.slice).partition("/")
    if not (slash and index_text.isascii() and index_text.isdigit() and count_text.isdigit()):
        raise InvalidValue(f"--slice {args.slice!r} must look like I/N, e.g. 0/8 (I from 0)")
    index, count = int(index_text), int(count_text)
    if not 0 <= index < count:
        raise InvalidValue(f"--slice {args.slice!r}: I must be 0 .. N-1 (0-based, like array jobs)")
    for name in ("since", "until"):
        value = getattr(args, name)
        if value is None or to_ms(value, name, now=0) != to_ms(value, name, now=1):
            raise InvalidWindow(
                f"--slice needs a fixed --{name} (ISO-8601 or epoch ms, not 'now' or a time "
                "relative to it): every worker must cut the same window"
            )
    start, end = resolve_window(args.since, args.until)
    whole = plan_listing(layout, start, end, directory_bucket=directory)
    return whole.slice_plan(whole.slices(count)[index], args.cursor)


def _object_output(
    args: argparse.Namespace, session: Any, bucket_name: str
) -> Callable[[Iterable[Mapping[str, Any]]], int]:
    """Where ``ls`` sends the objects: lines on stdout, or ``--manifest FILE|s3://BUCKET/KEY``,
    an S3 Batch Operations CSV manifest (then stdout gets the ``Manifest`` argument of
    ``aws s3control create-job`` for a manifest written to S3)."""
    target = args.manifest
    if target is None:
        return _print_objects
    if target.startswith("s3://"):
        target_bucket, key = _split_s3_url(target)
        if not key or key.endswith("/"):
            raise InvalidValue(f"--manifest {target!r} must name an object: s3://BUCKET/KEY")
        client = session.client("s3", endpoint_url=args.endpoint_url)

        def upload(objects: Iterable[Mapping[str, Any]]) -> int:
            count, manifest = put_manifest(client, objects, bucket_name, target_bucket, key)
            print(json.dumps(manifest, sort_keys=True))
            print(f"manifest of {count} objects written to {target}", file=sys.stderr)
            return count

        return upload

    def write(objects: Iterable[Mapping[str, Any]]) -> int:
        # Written next to the target and renamed when complete: a listing that fails
        # part-way leaves no manifest that looks whole.
        part = target + ".part"
        with open(part, "w", encoding="utf-8", newline="") as out:
            count = write_manifest(objects, bucket_name, out)
        os.replace(part, target)
        print(f"manifest of {count} objects written to {target}", file=sys.stderr)
        return count

    return write


def _cmd_athena(args: argparse.Namespace) -> int:
    """The Athena table of a layout's period folders (partition projection), and with
    ``--since`` the ``WHERE`` condition that reads only the window's folders."""
    bucket_name, prefix = _split_s3_url(args.location)
    layout = KeyLayout(prefix=prefix, shards=args.shards or None, period=args.period)
    projection = partition_projection(layout, bucket_name, args.first_day, args.last_day)
    print(projection.ddl(args.table) + ";")
    if args.since is not None:
        start, end = resolve_window(args.since, args.until)
        print(f"-- [{format_ms(start)}, {format_ms(end)}):")
        print(f"WHERE {window_predicate(layout, start, end)}")
    return 0


def _add_aws_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--endpoint-url", help="e.g. a local moto server: http://127.0.0.1:5000")
    parser.add_argument("--region", default=None, help="AWS region (default: your AWS config)")
    parser.add_argument(
        "--explain", action="store_true", help="print the planned calls; call nothing"
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
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="with --checkpoint: leave out the last SECONDS (uploads still arriving)",
    )
    parser.add_argument(
        "--overlap",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="with --checkpoint: re-check SECONDS below the watermark for late arrivals",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ulidkeys", description="Time-sortable keys (ULID) for S3 and DynamoDB."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    new = commands.add_parser("new", help="print fresh ULIDs")
    new.add_argument("-n", "--count", type=int, default=1, help="how many (default 1)")
    new.add_argument("--monotonic", action="store_true", help="a strictly increasing run")
    new.add_argument("--at", help="a time instead of now (ISO-8601 with offset, or epoch ms)")
    new.set_defaults(handler=_cmd_new)

    described = commands.add_parser(
        "inspect", help="what ids are: scheme, time and fields (ULID, UUID, KSUID, ...)"
    )
    described.add_argument(
        "ids", nargs="*", metavar="ID", help="ids to inspect; '-' or none: one per line of stdin"
    )
    described.add_argument("--json", action="store_true", help="print JSON Lines, one per id")
    described.add_argument(
        "--scheme", help="read every id as this scheme (e.g. discord-snowflake, typeid)"
    )
    described.set_defaults(handler=_cmd_inspect)

    window = commands.add_parser("range", help="key bounds of a time window")
    window.add_argument("--since", help="ISO-8601, epoch ms, or 'now'")
    window.add_argument("--until", default=None, help="ISO-8601, epoch ms, or 'now' (default)")
    window.add_argument("--prefix", default="", help="key prefix before the ULID")
    window.add_argument("--cover", action="store_true", help="print the exact prefix cover")
    window.add_argument(
        "--max-prefixes", type=int, help="a cover of at most this many prefixes (superset)"
    )
    window.add_argument(
        "--resolution", action="store_true", help="print what each time character spans"
    )
    window.set_defaults(handler=_cmd_range)

    ls = commands.add_parser("ls", help="S3 objects of a key layout in a time window")
    ls.add_argument("location", help="s3://BUCKET/PREFIX (the layout's prefix)")
    ls.add_argument("--since", help="ISO-8601, epoch ms, or 'now'")
    ls.add_argument("--until", default=None, help="ISO-8601, epoch ms, or 'now' (default)")
    ls.add_argument("--latest", type=int, metavar="N", help="the N newest (before --until)")
    ls.add_argument("--shards", type=int, default=0, help="shard folders in the layout")
    ls.add_argument("--period", choices=["day", "hour"], default=None, help="period folders")
    ls.add_argument("--suffix", default="", help="text after the ULID, e.g. .jpg")
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
    _add_aws_options(ls)
    ls.set_defaults(handler=_cmd_ls)

    query = commands.add_parser("query", help="DynamoDB items of an entity in a time window")
    query.add_argument("--table", help="table name")
    query.add_argument("--pk", required=True, help="partition key template, e.g. 'Org#{org}'")
    query.add_argument("--sk", required=True, help="sort key template, e.g. 'Post#{id}'")
    query.add_argument(
        "--field", action="append", default=[], metavar="NAME=VALUE", help="a key field value"
    )
    query.add_argument("--since", help="ISO-8601, epoch ms, or 'now' (default: the epoch)")
    query.add_argument("--until", default=None, help="ISO-8601, epoch ms, or 'now' (default)")
    query.add_argument("--newest-first", action="store_true")
    query.add_argument("--limit", type=int, default=None)
    query.add_argument("--pk-attr", default="PK")
    query.add_argument("--sk-attr", default="SK")
    query.add_argument("--bucket", choices=["hour", "day", "month", "year"], default=None)
    query.add_argument("--shards", type=int, default=None)
    _add_aws_options(query)
    query.set_defaults(handler=_cmd_query)

    athena = commands.add_parser(
        "athena", help="Athena table (partition projection) of a layout's period folders"
    )
    athena.add_argument("location", help="s3://BUCKET/PREFIX (the layout's prefix)")
    athena.add_argument("--period", choices=["day", "hour"], required=True, help="period folders")
    athena.add_argument("--shards", type=int, default=0, help="shard folders in the layout")
    athena.add_argument("--first-day", required=True, help="first day to project (ISO-8601)")
    athena.add_argument("--last-day", default=None, help="last day to project (default: NOW)")
    athena.add_argument("--table", default="objects", help="table name (default: objects)")
    athena.add_argument("--since", help="also print the WHERE condition of this window")
    athena.add_argument("--until", default=None, help="end of that window (default: now)")
    athena.set_defaults(handler=_cmd_athena)

    demo = commands.add_parser("demo", help="a tour of the library")
    demo.set_defaults(handler=_cmd_demo)
    return parser


def _cmd_demo(args: argparse.Namespace) -> int:
    return run_demo()


def _time_arg(value: str | None) -> str | int | None:
    """Epoch milliseconds arrive from the shell as digits: pass them on as an int."""
    # isdigit() is True for '١٢٣' too (Arabic-Indic digits); only ASCII digits are ms
    return int(value) if value is not None and value.isascii() and value.isdigit() else value


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    for name in ("at", "since", "until"):
        if hasattr(args, name):
            setattr(args, name, _time_arg(getattr(args, name)))
    try:
        return int(args.handler(args))
    except UlidkeysError as error:
        print(f"ulidkeys {args.command}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
