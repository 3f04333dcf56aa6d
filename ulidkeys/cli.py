"""The ``ulidkeys`` command line: make ids, inspect them, and turn time windows into key bounds.

Each sub-command is a thin wrapper over the library, so what it prints is what the API returns.
A user mistake exits 2 and an AWS-side failure 1, each with one line on stderr (``--debug`` or
``ULIDKEYS_DEBUG=1`` shows the traceback).
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any, NoReturn
from urllib.parse import urlsplit

from ulidkeys import __version__, base32, config, hints
from ulidkeys.consuming import CheckpointStore, Consumption, FileStore, Run
from ulidkeys.demo import run_demo
from ulidkeys.dynamodb import Entity, Table
from ulidkeys.errors import InvalidValue, InvalidWindow, ServiceError, UlidkeysError, aws_error
from ulidkeys.ids.inspection import inspect
from ulidkeys.ids.protocol import IdScheme, bounds, has_no_time
from ulidkeys.ids.registration import Registration
from ulidkeys.ids.registry import REGISTRATIONS, generator_for, registration_of, scheme_named
from ulidkeys.ids.schemes import ULID_SCHEME
from ulidkeys.planning.awscli import dynamodb_commands, s3_commands
from ulidkeys.planning.checkpoints import describe_checkpoint
from ulidkeys.planning.listings import ListCall
from ulidkeys.planning.listings import plan_window as plan_listing
from ulidkeys.planning.locations import check_prefix, split_s3_url
from ulidkeys.planning.plans import Plan, fixed_window, resolve_window
from ulidkeys.planning.projection import partition_projection, window_predicate
from ulidkeys.planning.queries import plan_window as plan_query_window
from ulidkeys.prefixcover import END_OF_TIME_MS, human_span, resolution_table
from ulidkeys.progress import track
from ulidkeys.s3 import Bucket, KeyLayout, S3CheckpointStore, is_directory_bucket
from ulidkeys.s3.manifests import put_manifest, write_manifest
from ulidkeys.timeinput import (
    MAX_DATETIME_MS,
    MAX_MS,
    TIME_TEXT_RULE,
    format_ms,
    ms_to_datetime,
    to_ms,
)
from ulidkeys.timewindow import TimeWindow
from ulidkeys.ulid import Monotonic, batch

Row = Mapping[str, Any]

#: Ids made per step by ``new``: any count streams in bounded memory.
NEW_CHUNK = 65_536
#: Largest count a flag takes (``-n``, ``--latest``, ``--limit``): far past any real use.
MAX_COUNT = 10**18
OUTPUTS = ("text", "json", "jsonl")
DEBUG_ENV = "ULIDKEYS_DEBUG"

# --- output ----------------------------------------------------------------------------------


def json_text(value: Any) -> str:
    """JSON of an item as the services return it, numbers exact: a DynamoDB number (Decimal) is
    a JSON number with all its digits, a set a sorted list, binary base64, a time ISO-8601."""
    if isinstance(value, Decimal):
        return str(value)  # '1486', '-0.5', '1.5E+3': all JSON numbers (DynamoDB has no NaN)
    if isinstance(value, Mapping):
        fields = sorted((str(k), v) for k, v in value.items())
        return "{" + ", ".join(f"{json.dumps(k)}: {json_text(v)}" for k, v in fields) + "}"
    if isinstance(value, (set, frozenset)):
        return json_text(sorted(value, key=json_text))
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(json_text(v) for v in value) + "]"
    if isinstance(value, (bytes, bytearray)) or isinstance(getattr(value, "value", None), bytes):
        raw = bytes(value if isinstance(value, (bytes, bytearray)) else value.value)
        return json.dumps(base64.b64encode(raw).decode())
    if isinstance(value, datetime):
        return json.dumps(iso_time(value))
    return json.dumps(value, default=str)


def iso_time(value: datetime) -> str:
    """``2024-05-17T09:00:01Z``: UTC, a ``Z`` instead of ``+00:00``."""
    return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def emit(rows: Iterable[Row], output: str, text: Callable[[Row], str]) -> int:
    """Print ``rows`` as text lines, JSON Lines or one JSON array (streamed); return the count."""
    write = sys.stdout.write
    count = 0
    for row in rows:
        if output == "text":
            write(text(row) + "\n")
        elif output == "jsonl":
            write(json_text(row) + "\n")
        else:
            write(("[\n  " if count == 0 else ",\n  ") + json_text(row))
        count += 1
    if output == "json":
        write("[]\n" if count == 0 else "\n]\n")
    return count


def _report(line: str) -> None:
    print(line, file=sys.stderr)


# --- new ---------------------------------------------------------------------------------------


def _new_chunks(count: int, at_ms: int | None, monotonic: bool) -> Iterator[list[str]]:
    """``count`` ids in chunks of at most :data:`NEW_CHUNK` (``batch`` takes a million at most)."""
    fixed = None if at_ms is None else Monotonic(clock=lambda: at_ms)
    left = count
    while left:
        n = min(left, NEW_CHUNK)
        left -= n
        if monotonic:
            yield batch(n, monotonic=True) if fixed is None else fixed.batch(n)
        elif at_ms is not None:
            yield base32.random_tails(n, base32.encode_time(at_ms))
        else:
            yield batch(n)


def _cmd_new(args: argparse.Namespace) -> int:
    scheme = _scheme(args)
    if scheme is not ULID_SCHEME:
        return _new_of_scheme(args, scheme)
    at_ms = None if args.at is None else to_ms(args.at, "--at")
    chunks = _new_chunks(args.count, at_ms, args.monotonic)
    if args.output == "text":
        for chunk in chunks:
            sys.stdout.write("\n".join(chunk) + "\n")
        return 0

    def rows() -> Iterator[Row]:
        for chunk in chunks:
            for text in chunk:
                ms = base32.decode(text[:10])
                yield {"id": text, "time": format_ms(ms), "timestamp_ms": ms}

    emit(rows(), args.output, str)
    return 0


def _new_of_scheme(args: argparse.Namespace, scheme: IdScheme) -> int:
    """``new --scheme NAME``: fresh ids of another scheme, from the registry's generator of it
    (``--at``: a clock fixed at that time; ``--node``: the node of a Snowflake-style scheme)."""
    if args.monotonic:
        raise InvalidValue(
            f"--monotonic makes ULIDs only; leave it out with --scheme {args.scheme}"
        )
    at_ms = None if args.at is None else to_ms(args.at, "--at")
    registration = registration_of(args.scheme.partition(":")[0])
    if not registration.generated:
        hint = "; tickets come from ulidkeys.dynamodb.TicketServer" if has_no_time(scheme) else ""
        raise InvalidValue(
            f"--scheme {args.scheme}: {scheme.name} ids are not made from a clock "
            f"({registration.summary}){hint}"
        )
    if at_ms is not None and scheme.sorts_by_time and not scheme.min_ms <= at_ms <= scheme.max_ms:
        raise InvalidValue(
            f"--at {args.at}: {scheme.name} ids hold times from {format_ms(max(scheme.min_ms, 0))} "
            f"to {format_ms(scheme.max_ms)}"
        )
    try:
        make = generator_for(
            args.scheme, clock=None if at_ms is None else lambda: at_ms, node=args.node
        )
    except InvalidValue as error:  # a node missing, or given to a scheme without one
        if args.node is None:
            raise InvalidValue(f"--scheme {args.scheme} needs --node N: {error}") from None
        raise InvalidValue(f"--node {args.node}: {error}") from None

    def rows() -> Iterator[Row]:
        for _ in range(args.count):
            text = str(make())
            try:
                ms: int | None = scheme.timestamp_ms(text)
            except InvalidValue:  # a scheme without time (UUIDv4)
                ms = None
            yield {
                "id": text,
                "time": None if ms is None else format_ms(ms),
                "timestamp_ms": ms,
            }

    emit(rows(), args.output, lambda row: str(row["id"]))
    return 0


# --- inspect -------------------------------------------------------------------------------------


def _id_lines(ids: Sequence[str]) -> Iterator[str]:
    """The ids given, or one per line of stdin for ``-`` or none (blank lines skipped)."""
    for text in ids or ["-"]:
        if text != "-":
            yield text
            continue
        for line in sys.stdin:
            if line.strip():
                yield line.strip()


#: How ``inspect`` labels the forms of an id in text (JSON keeps the plain names).
_FORM_LABELS = {"key": "key form", "decimal": "as typed", "uuid": "as uuid", "ulid": "as ulid"}


def _inspection_text(row: Row) -> str:
    rows: list[tuple[str, object]] = [
        ("scheme", row["scheme"]),
        ("id", row["id"]),
        ("time", row["time"] or "-"),
        ("timestamp_ms", "-" if row["timestamp_ms"] is None else row["timestamp_ms"]),
        *row["fields"].items(),
        *((_FORM_LABELS.get(name, name), value) for name, value in row["forms"].items()),
        *(("note", note) for note in row.get("notes", ())),
        *(
            ("also", f"{alt['scheme']} ({alt['time'] or 'no time'})")
            for alt in row.get("alternatives", ())
        ),
    ]
    width = max(len(name) for name, _ in rows)
    block = "\n".join(f"{name:<{width}}  {value}" for name, value in rows)
    return block if row["_first"] else "\n" + block


def _cmd_inspect(args: argparse.Namespace) -> int:
    output = "jsonl" if args.json else args.output
    failed = 0

    def rows() -> Iterator[Row]:
        nonlocal failed
        first = True
        for text in _id_lines(args.ids):
            try:
                found = inspect(text, scheme=args.scheme)
            except UlidkeysError as error:  # report it and go on with the other ids
                _report(f"ulidkeys inspect: {error}")
                failed += 1
                continue
            row = {"input": text, **found.as_dict()}
            yield row if output != "text" else {**row, "_first": first}
            first = False

    emit(rows(), output, _inspection_text)
    return 2 if failed else 0


# --- range ---------------------------------------------------------------------------------------


def _range_row(args: argparse.Namespace) -> dict[str, Any]:
    """Everything ``range`` prints, computed before any of it is printed."""
    prefix = check_prefix(args.prefix, "--prefix") if args.prefix else ""
    window = TimeWindow(args.since, args.until)
    scheme = _scheme(args)
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
        split_s3_url(f"s3://{args.bucket}/")
        plan = plan_listing(KeyLayout(prefix=prefix), window.start_ms, window.end_ms)
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
        split_s3_url(f"s3://{args.bucket}/")
        layout = KeyLayout(prefix=prefix, scheme=scheme)
        plan = plan_listing(layout, window.start_ms, window.end_ms)
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
        kind = "exact" if not extra else f"{extra} ms extra ({(span + extra) / span:.3g}x)"
        lines.append(f"cover       {len(row['cover'])} prefixes, {kind}")
        lines += [f"  {prefix}" for prefix in row["cover"]]
    if "aws" in row:
        lines += ["# the same listing with the AWS CLI:", *row["aws"]]
    return "\n".join(lines)


def _cmd_range(args: argparse.Namespace) -> int:
    if args.resolution:
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


# --- AWS: sessions, checkpoints, cursors -------------------------------------------------------


def _fields(pairs: Sequence[str]) -> dict[str, str]:
    """``["org=acme", "author=bob"]`` -> ``{"org": "acme", "author": "bob"}``."""
    fields: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise InvalidValue(f"--field {pair!r} must look like NAME=VALUE (e.g. org=acme)")
        fields[name] = value
    return fields


def _check_endpoint(url: str | None) -> None:
    if url is None:
        return
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidValue(
            f"--endpoint-url {url!r} is not an http(s) URL; expected e.g. http://127.0.0.1:5000"
        )


def _session(args: argparse.Namespace) -> Any:
    try:
        import boto3  # the aws extra: only the commands that call AWS need it
    except ImportError:
        raise InvalidValue(
            f"{args.command} calls AWS and needs boto3: pip install 'ulidkeys[aws]' "
            "(or 'ulidkeys[cli]')"
        ) from None

    _check_endpoint(args.endpoint_url)
    return boto3.session.Session(profile_name=args.profile, region_name=args.region)


def _checkpoint_store(spec: str, session: Any, endpoint_url: str | None) -> CheckpointStore:
    """``--checkpoint``: ``s3://BUCKET/KEY`` names an S3 object, anything else a local file."""
    if spec.startswith("s3://"):
        bucket, key = split_s3_url(spec)
        if not key or key.endswith("/"):
            raise InvalidValue(f"--checkpoint {spec!r} must name an object: s3://BUCKET/KEY")
        return S3CheckpointStore(session.client("s3", endpoint_url=endpoint_url), bucket, key)
    return FileStore(spec)


def _refuse_with_checkpoint(args: argparse.Namespace, *names: str) -> None:
    for name in ("cursor", "until", *names):
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


def _consume(consumption: Consumption[Any], show: Callable[[Any], int], noun: str) -> int:
    """Print what is new, then commit: a crash before the commit prints it again next time."""
    count = show(consumption)
    checkpoint = consumption.commit()
    stats = consumption.stats
    _report(
        f"{count} new {noun}, {stats.calls} calls, {stats.read} read ({stats.repeated} again in "
        f"the overlap, {stats.late} late); checkpoint: {describe_checkpoint(checkpoint)}"
    )
    return 0


def _print_cursor(cursor: str | None) -> None:
    if cursor is not None:
        _report(f"resume after the last one with: --cursor {cursor}")


def _aws_options(args: argparse.Namespace) -> list[str]:
    """The connection flags given to ulidkeys, for the printed ``aws`` commands too."""
    options = []
    for flag in ("endpoint_url", "region", "profile"):
        value = getattr(args, flag, None)
        if value is not None:
            options += ["--" + flag.replace("_", "-"), value]
    return options


def _explain_run(run: Run, commands: list[str]) -> int:
    """``--explain --checkpoint``: the next run's window and calls; nothing listed or written."""
    window = run.window
    base = "no checkpoint yet" if run.base is None else describe_checkpoint(run.base)
    print(
        f"# next run from the checkpoint ({base}): lists {format_ms(window.start_ms)} .. "
        f"{format_ms(window.end_ms)}, re-checking {window.overlap_ms / 1000:g} s below the "
        f"stored watermark {format_ms(window.watermark_ms)} for late arrivals; "
        "this prints it only: nothing is listed, the checkpoint is unchanged"
    )
    return _explain(run.plan.explain(), commands)


def _explain(plan_text: str, commands: list[str]) -> int:
    print(plan_text)
    print("# the same calls with the AWS CLI (paste into a shell):")
    print("\n".join(commands))
    return 0


# --- ls ------------------------------------------------------------------------------------------


def _object_row(obj: Mapping[str, Any]) -> dict[str, Any]:
    row = {"Key": obj["Key"], "Size": obj.get("Size")}
    modified = obj.get("LastModified")
    row["LastModified"] = iso_time(modified) if isinstance(modified, datetime) else modified
    row["ETag"], row["StorageClass"] = obj.get("ETag"), obj.get("StorageClass")
    return row


def _object_text(row: Row) -> str:
    return f"{row['Key']}\t{row['Size']}\t{row['LastModified']}"


def _given(flag: Any, configured: Any, default: Any) -> Any:
    """A flag given on the command line, else the config file's value, else the default."""
    if flag is not None:
        return flag
    return default if configured is None else configured


def _ls_target(args: argparse.Namespace) -> tuple[str, KeyLayout]:
    """``ls``'s bucket and layout: from ``s3://BUCKET/PREFIX`` and the flags, or from a layout
    named in the config file (``ls photos``), the flags overriding what it says."""
    settings: Mapping[str, Any] = {}
    if args.location.startswith("s3://") or not args.location.replace("-", "_").isidentifier():
        bucket_name, prefix = split_s3_url(args.location)
        if prefix:
            check_prefix(prefix, location=args.location)
    else:
        named = config.load(args.config).layout(args.location)
        bucket_name, prefix, settings = named.bucket_name, named.layout.prefix, named.settings
    layout = KeyLayout(
        prefix=prefix,
        shards=_given(args.shards, settings.get("shards"), 0) or None,
        period=_given(args.period, settings.get("period"), None),
        suffix=_given(args.suffix, settings.get("suffix"), ""),
        scheme=scheme_named(_given(args.scheme, settings.get("scheme"), "ulid")),
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


def _cmd_ls(args: argparse.Namespace) -> int:
    bucket_name, layout = _ls_target(args)
    directory = is_directory_bucket(bucket_name)
    if args.checkpoint is not None:
        _refuse_with_checkpoint(args, "latest", "slice")
    if args.slice is not None and args.latest is not None:
        raise InvalidValue("--slice cuts a window into pieces; --latest has no fixed window")
    if args.explain and args.checkpoint is None:
        if args.latest is not None:
            raise InvalidValue("--explain prints window plans; --latest has no fixed plan")
        if args.slice is not None:
            print(_slice_plan(args, layout, directory).explain())
            return 0
        if args.since is None and args.cursor is None:
            raise InvalidWindow("ls --explain needs --since")
        start, end = resolve_window(args.since, args.until, args.cursor)
        plan = plan_listing(layout, start, end, cursor=args.cursor, directory_bucket=directory)
        commands = s3_commands(bucket_name, plan, layout.suffix, _aws_options(args))
        return _explain(plan.explain(), commands)
    session = _session(args)
    bucket = Bucket(session.client("s3", endpoint_url=args.endpoint_url), bucket_name, layout)
    show = _show_objects(args, layout)
    if args.manifest is not None:
        show = _manifest_output(args, session, bucket_name)
    if args.checkpoint is not None:
        store = _checkpoint_store(args.checkpoint, session, args.endpoint_url)
        if args.explain:
            run = bucket.open_run(store, **_consume_options(args))
            commands = s3_commands(bucket_name, run.plan, layout.suffix, _aws_options(args))
            return _explain_run(run, commands)
        return _consume(bucket.consume(store, **_consume_options(args)), show, "objects")
    if args.latest is not None:
        suffix = layout.suffix or None
        listing = bucket.latest(args.latest, until=args.until, cursor=args.cursor, suffix=suffix)
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
    other = f" ({left_out} with another suffix left out)" if layout.suffix else ""
    _report(
        f"{printed} objects{other}, {stats.calls} ListObjectsV2 calls, "
        f"{stats.read} keys transferred, {stats.skipped} keys not fitting the layout"
    )
    if printed == 0 or stats.skipped:
        _hint_layout(bucket, args.location, layout)
    _print_cursor(listing.cursor)
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
        _report(f"hint: {line}")


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
    start, end = fixed_window(args.since, args.until, "--slice", ("--since", "--until"))
    return plan_listing(layout, start, end, directory_bucket=directory).slice(
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
        target_bucket, key = split_s3_url(target)
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


# --- query ---------------------------------------------------------------------------------------


def _query_entity(args: argparse.Namespace) -> Entity:
    """``query``'s entity: from ``--pk``/``--sk`` and the flags, or from an entity named in the
    config file (``query posts``), the flags overriding what it says (``args`` gets the
    resolved table and attribute names)."""
    settings: Mapping[str, Any] = {}
    if args.name is not None:
        settings = config.load(args.config).entity(args.name).settings
    elif args.pk is None or args.sk is None:
        raise InvalidValue(
            "query needs --pk and --sk (e.g. --pk 'Org#{org}' --sk 'Post#{id}'), or the name "
            "of an entity in the config file"
        )
    args.table = _given(args.table, settings.get("table"), None)
    args.pk_attr = _given(args.pk_attr, settings.get("pk_attr"), "PK")
    args.sk_attr = _given(args.sk_attr, settings.get("sk_attr"), "SK")
    return Entity(
        pk=_given(args.pk, settings.get("pk"), None),
        sk=_given(args.sk, settings.get("sk"), None),
        pk_attr=args.pk_attr,
        sk_attr=args.sk_attr,
        bucket=_given(args.bucket, settings.get("bucket"), None),
        shards=_given(args.shards, settings.get("shards"), None) or None,  # 0: none, as for ls
        scheme=scheme_named(_given(args.scheme, settings.get("scheme"), "ulid")),
        separator=settings.get("separator", "#"),
        id_field=settings.get("id_field", "id"),
        newest_first_keys=settings.get("newest_first_keys", False),
        gsi=config.indexes(settings),
    )


def _cmd_query(args: argparse.Namespace) -> int:
    entity = _query_entity(args)
    fields: dict[str, Any] = dict(_fields(args.field))
    if args.checkpoint is not None:
        _refuse_with_checkpoint(args, "newest_first", "limit", "latest", "index")
    if args.latest is not None:
        for flag in ("newest_first", "limit"):
            if getattr(args, flag):
                raise InvalidValue(
                    f"--{flag.replace('_', '-')} does not go with --latest (N newest, newest first)"
                )
        if args.explain:
            raise InvalidValue("--explain prints window plans; --latest has no fixed plan")
    window = {
        "newest_first": args.newest_first,
        "limit": args.limit,
        "cursor": args.cursor,
        "index": args.index,
    }
    if args.explain and args.checkpoint is None:
        plan = plan_query_window(entity, args.since, args.until, **window, fields=fields)
        commands = dynamodb_commands(args.table or "TABLE", plan, _aws_options(args))
        return _explain(plan.explain(), commands)
    if not args.table and not args.explain:
        raise InvalidValue("query needs --table (or --explain to print the plan only)")
    session = _session(args)
    client = session.client("dynamodb", endpoint_url=args.endpoint_url)
    table = Table(client, entity, table_name=args.table or "TABLE")

    def show(items: Any) -> int:
        stats = items.stats
        tracked = track(items, "items", lambda: (stats.returned, stats.calls))
        sort_key = args.sk_attr
        return emit(tracked, args.output, lambda i: f"{i.get(sort_key, '')}\t{json_text(i)}")

    if args.checkpoint is not None:
        store = _checkpoint_store(args.checkpoint, session, args.endpoint_url)
        if args.explain:
            run = table.open_run(store, **_consume_options(args), listing=fields)
            commands = dynamodb_commands(args.table or "TABLE", run.plan, _aws_options(args))
            return _explain_run(run, commands)
        return _consume(table.consume(store, **_consume_options(args), **fields), show, "items")
    if args.latest is not None:
        latest = {"since": args.since, "until": args.until, "cursor": args.cursor}
        items = table.latest(args.latest, **latest, index=args.index, **fields)
    else:
        items = table.query_window(args.since, args.until, **window, **fields)
    with items:
        count = show(items)
    stats = items.stats
    _report(f"{count} items, {stats.calls} Query calls, {stats.read} items read")
    _print_cursor(items.cursor)
    return 0


def _cmd_completion(args: argparse.Namespace) -> int:
    """A shell completion script, generated from this very parser (so it cannot go stale)."""
    try:
        import shtab  # the cli extra: only this command needs it
    except ImportError:
        raise InvalidValue("completion needs shtab: pip install 'ulidkeys[cli]'") from None
    script = shtab.complete(build_parser(), shell=args.shell)
    sys.stdout.write(script if script.endswith("\n") else script + "\n")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    return run_demo()


# --- failures ------------------------------------------------------------------------------------

_CONFIG_ERRORS = {  # botocore errors raised before anything is sent: the set-up is wrong
    "ProfileNotFound": "{error}; check --profile / AWS_PROFILE (`aws configure list-profiles`)",
    "NoCredentialsError": "no AWS credentials found; run `aws configure`, pass --profile, or "
    "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
    "PartialCredentialsError": "{error}; check your AWS credentials (`aws configure`)",
    "NoRegionError": "no AWS region is set; pass --region or set AWS_REGION",
    "ParamValidationError": "AWS would refuse this request: {error}",
    "InvalidRegionError": "{error}; pass a region such as --region us-east-1",
}
_NETWORK_ERRORS = ("EndpointConnectionError", "ConnectTimeoutError", "ConnectionClosedError")
_CREDENTIAL_CODES = frozenset(
    {
        "AccessDenied",
        "AccessDeniedException",
        "InvalidAccessKeyId",
        "SignatureDoesNotMatch",
        "UnrecognizedClientException",
        "ExpiredToken",
        "ExpiredTokenException",
        "InvalidClientTokenId",
    }
)


def _one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def _aws_message(code: str, error: BaseException, args: argparse.Namespace) -> str:
    said = error.response.get("Error", {}).get("Message") or code  # type: ignore[attr-defined]
    if code == "NoSuchBucket":
        bucket = getattr(args, "location", "")
        return f"{bucket}: no such bucket (NoSuchBucket); check the bucket name and --region"
    if code == "ResourceNotFoundException":
        return f"table {args.table!r} not found ({code}); check --table and --region"
    if code == "ValidationException":
        return (
            f"DynamoDB refused the query ({code}: {said}); check that --pk-attr/--sk-attr "
            f"({args.pk_attr}/{args.sk_attr}) are the table's key attributes"
        )
    if code in _CREDENTIAL_CODES:
        return f"AWS refused the request ({code}: {said}); check your credentials and permissions"
    return f"AWS refused the request ({code}: {said})"


def failure(error: BaseException, args: argparse.Namespace) -> tuple[int, str]:
    """``(exit status, one line)`` for an error: 2 for a mistake in the command or the AWS
    set-up (nothing was sent), 1 for a failure AWS or the network reported."""
    if isinstance(error, ServiceError):
        return 1, str(error)
    if isinstance(error, UlidkeysError):
        return 2, str(error)
    names = {cls.__name__ for cls in type(error).__mro__}
    for name, message in _CONFIG_ERRORS.items():
        if name in names:
            return 2, message.format(error=_one_line(error))
    if names.intersection(_NETWORK_ERRORS):
        where = args.endpoint_url or "AWS"
        return 1, f"could not reach {where} ({_one_line(error)}); check --endpoint-url, network"
    code, _status = aws_error(error)
    if code is not None:
        return 1, _aws_message(code, error, args)
    return 1, (
        f"unexpected {type(error).__name__}: {_one_line(error)} (run again with --debug for the "
        "traceback, and please report it)"
    )


def _silence_stdout() -> None:
    """After a closed pipe (``| head``), send the rest to /dev/null: no second error at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # a captured stdout has no file descriptor
        pass


# --- config --------------------------------------------------------------------------------------


def _cmd_config(args: argparse.Namespace) -> int:
    """What config file applies here and what it declares (or where it was looked for)."""
    found = config.load(args.config)
    if found.path is None:
        looked = f"{config.CONFIG_FILE} or {config.PYPROJECT} [tool.ulidkeys] here or above"
        _report(f"no config file: looked for {looked}, then {config.user_config_path()}")
    rows = [
        {"kind": "layout", "name": name, **named.settings} for name, named in found.layouts.items()
    ] + [
        {"kind": "entity", "name": name, **named.settings} for name, named in found.entities.items()
    ]
    if found.path is not None:
        _report(f"config: {found.path}")

    def text(row: Row) -> str:
        settings = ", ".join(f"{k}={v!r}" for k, v in row.items() if k not in ("kind", "name"))
        return f"{row['kind']:<7} {row['name']:<16} {settings}"

    emit(rows, args.output, text)
    return 0


# --- schemes -------------------------------------------------------------------------------------


def _scheme_row(entry: Registration, scheme: IdScheme) -> Row:
    timed = scheme.sorts_by_time
    return {
        "name": entry.name,
        "length": scheme.length,
        "resolution_ms": scheme.resolution_ms if timed else None,
        "first_year": _year(max(scheme.min_ms, 0)) if timed else None,
        "last_year": _year(scheme.max_ms) if timed else None,
        "windows": timed,
        "new": entry.generated,
        "about": entry.summary,
    }


def _year(ms: int) -> int:
    """The UTC year of ``ms`` (by the mean Gregorian year past what a datetime holds)."""
    if ms <= MAX_DATETIME_MS:
        return ms_to_datetime(ms).year
    return 1970 + ms // 31_556_952_000


def _scheme_text(row: Row) -> str:
    years = f"{row['first_year']}-{row['last_year']}" if row["windows"] else "no time"
    step = "" if row["resolution_ms"] is None else f"{row['resolution_ms']} ms"
    flags = ("windows" if row["windows"] else "-") + (" new" if row["new"] else "")
    name, length = row["name"], row["length"]
    return f"{name:<18} {length:>3}  {step:>7}  {years:<10}  {flags:<11}  {row['about']}"


def _cmd_schemes(args: argparse.Namespace) -> int:
    """Every id scheme the library knows, from the registry: name, text length, time step,
    years its ids cover, whether windows work and ``new`` makes them, and what they are."""
    rows = [_scheme_row(entry, entry.sample) for entry in REGISTRATIONS if entry.sample is not None]
    emit(rows, args.output, _scheme_text)
    return 0


# --- arguments -----------------------------------------------------------------------------------


def scheme_arg(text: str) -> str:
    """A ``--scheme`` name, checked when parsed (``ulidkeys schemes`` lists them)."""
    try:
        scheme_named(text)
    except UlidkeysError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _add_config(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="the config file of named layouts and entities (default: ulidkeys.toml or "
        "pyproject.toml [tool.ulidkeys] here or above, then ~/.config/ulidkeys/config.toml)",
    )


def _scheme(args: argparse.Namespace) -> IdScheme:
    name = getattr(args, "scheme", None)
    return ULID_SCHEME if name is None else scheme_named(name)


def _add_scheme(parser: argparse.ArgumentParser, what: str) -> None:
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
    """A duration in seconds: finite and >= 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds >= 0")
    return value


TIME_HELP = "a time: " + TIME_TEXT_RULE.replace("%", "%%")


def _add_output(parser: argparse.ArgumentParser, default: str = "text") -> None:
    parser.add_argument(
        "-o",
        "--output",
        choices=OUTPUTS,
        default=default,
        help=f"text, one JSON array, or JSON Lines (default {default})",
    )


def _add_aws_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--endpoint-url", help="e.g. a local moto server: http://127.0.0.1:5000")
    parser.add_argument("--region", default=None, help="AWS region (default: your AWS config)")
    parser.add_argument("--profile", default=None, help="AWS profile (default: your AWS config)")
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


def _add_window(parser: argparse.ArgumentParser, since: str) -> None:
    parser.add_argument("--since", help=f"{TIME_HELP} ({since})")
    parser.add_argument("--until", default=None, help="a time, as --since (default: now)")


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line too (the usage is one ``--help`` away)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    debug = _Parser(add_help=False)
    debug.add_argument(
        "--debug",
        action="store_true",
        default=argparse.SUPPRESS,
        help=f"show the traceback of a failure (or set {DEBUG_ENV}=1)",
    )
    parser = _Parser(
        prog="ulidkeys",
        description="Time-sortable keys (ULID) for S3 and DynamoDB. Exit status: 0 done, "
        "2 a mistake in the command or the AWS set-up, 1 a failure AWS reported.",
        parents=[debug],
    )
    parser.add_argument("--version", action="version", version=f"ulidkeys {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    def command(name: str, text: str) -> argparse.ArgumentParser:
        return commands.add_parser(name, help=text, description=text, parents=[debug])

    new = command("new", "print fresh ids (ULIDs unless --scheme)")
    new.add_argument("-n", "--count", type=count_arg, default=1, help="how many (default 1)")
    new.add_argument(
        "--monotonic", action="store_true", help="a strictly increasing run (also with --at)"
    )
    new.add_argument("--at", help=f"{TIME_HELP} (default: now)")
    new.add_argument(
        "--node",
        type=int,
        default=None,
        metavar="N",
        help="this machine's or shard's number, for Snowflake-style schemes (twitter-snowflake, "
        "instagram-id, sonyflake, ...)",
    )
    _add_scheme(new, "the ids made")
    _add_output(new)
    new.set_defaults(handler=_cmd_new)

    described = command("inspect", "what ids are: scheme, time and fields (ULID, UUID, ...)")
    described.add_argument(
        "ids", nargs="*", metavar="ID", help="ids to inspect; '-' or none: one per line of stdin"
    )
    described.add_argument("--json", action="store_true", help="the same as --output jsonl")
    described.add_argument(
        "--scheme", help="read every id as this scheme (e.g. discord-snowflake, typeid)"
    )
    _add_output(described)
    described.set_defaults(handler=_cmd_inspect)

    window = command("range", "key bounds of a time window")
    _add_window(window, "required")
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
    _add_scheme(window, "the ids in the keys")
    _add_output(window)
    window.set_defaults(handler=_cmd_range)

    ls = command("ls", "S3 objects of a key layout in a time window")
    ls.add_argument(
        "location",
        help="s3://BUCKET/PREFIX, the layout's prefix (a folder ends in '/'), or the name of a "
        "layout in the config file (`ulidkeys config`)",
    )
    _add_window(ls, "required unless --latest or --cursor")
    ls.add_argument("--latest", type=count_arg, metavar="N", help="the N newest (before --until)")
    ls.add_argument(
        "--shards", type=count_arg, default=None, help="shard folders in the layout (default 0)"
    )
    ls.add_argument("--period", choices=["day", "hour"], default=None, help="period folders")
    ls.add_argument(
        "--suffix",
        default=None,
        help="the exact text after the id, e.g. .jpg: only KEY = PREFIX...ID.jpg is listed (not "
        ".png, not .tar.jpg); without it keys with any extension are listed",
    )
    _add_scheme(ls, "the ids in the keys")
    _add_output(ls)
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

    query = command("query", "DynamoDB items of an entity in a time window")
    query.add_argument(
        "name", nargs="?", help="an entity named in the config file (or give --pk and --sk)"
    )
    query.add_argument(
        "--table", help="table name (required unless --explain or the config names it)"
    )
    query.add_argument("--pk", help="partition key template, e.g. 'Org#{org}'")
    query.add_argument("--sk", help="sort key template, e.g. 'Post#{id}'")
    query.add_argument(
        "--field", action="append", default=[], metavar="NAME=VALUE", help="a key field value"
    )
    _add_window(query, "default: the epoch")
    query.add_argument(
        "--newest-first", action="store_true", help="newest items first (default: oldest first)"
    )
    query.add_argument(
        "--limit", type=count_arg, default=None, help="print at most this many items (in order)"
    )
    query.add_argument(
        "--latest",
        type=count_arg,
        metavar="N",
        help="the N newest items (before --until; a bucketed entity also needs --since)",
    )
    query.add_argument(
        "--index",
        metavar="NAME",
        help="query this GSI of a config file's entity ([entities.NAME.gsi.INDEX] pk, sk)",
    )
    query.add_argument("--pk-attr", default=None, help="partition key attribute (default PK)")
    query.add_argument("--sk-attr", default=None, help="sort key attribute (default SK)")
    query.add_argument(
        "--bucket",
        choices=["hour", "day", "month", "year"],
        default=None,
        help="time buckets in the partition key, the {bucket} of --pk",
    )
    query.add_argument(
        "--shards",
        type=count_arg,
        default=None,
        help="write shards in the partition key, the {shard} of --pk (0: none)",
    )
    _add_scheme(query, "the ids in the sort keys")
    _add_output(query, default="jsonl")
    _add_aws_options(query)
    query.set_defaults(handler=_cmd_query)

    athena = command("athena", "Athena table (partition projection) of a layout's period folders")
    athena.add_argument("location", help="s3://BUCKET/PREFIX (the layout's prefix)")
    athena.add_argument("--period", choices=["day", "hour"], required=True, help="period folders")
    athena.add_argument("--shards", type=count_arg, default=0, help="shard folders in the layout")
    athena.add_argument("--first-day", required=True, help="first day to project (ISO-8601)")
    athena.add_argument("--last-day", default=None, help="last day to project (default: NOW)")
    athena.add_argument("--table", default="objects", help="table name (default: objects)")
    athena.add_argument("--since", help="also print the WHERE condition of this window")
    athena.add_argument("--until", default=None, help="end of that window (default: now)")
    athena.set_defaults(handler=_cmd_athena)

    for sub in (ls, query):
        _add_config(sub)
    configured = command("config", "the config file that applies here, and what it declares")
    _add_config(configured)
    _add_output(configured)
    configured.set_defaults(handler=_cmd_config)

    schemes = command("schemes", "the id schemes ulidkeys knows (for --scheme)")
    _add_output(schemes)
    schemes.set_defaults(handler=_cmd_schemes)

    completion = command(
        "completion",
        'print a shell completion script: eval "$(ulidkeys completion bash)" in ~/.bashrc, '
        'or ulidkeys completion zsh > "${fpath[1]}/_ulidkeys"',
    )
    completion.add_argument("shell", choices=["bash", "zsh"], help="the shell to complete in")
    completion.set_defaults(handler=_cmd_completion)

    demo = command("demo", "a tour of the library")
    demo.set_defaults(handler=_cmd_demo)
    return parser


def _end_of_time(until: str | None) -> str | int | None:
    """``--until 281474976710656`` (2**48 ms): the exclusive end past the last ULID millisecond,
    which only an int says to :class:`TimeWindow` (a time text stops at the last millisecond)."""
    if until is not None and until.strip().lower() in (f"{END_OF_TIME_MS}", f"{END_OF_TIME_MS}ms"):
        return END_OF_TIME_MS
    return until


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if hasattr(args, "until"):
        args.until = _end_of_time(args.until)
    debug = getattr(args, "debug", False) or os.environ.get(DEBUG_ENV, "") not in ("", "0")
    try:
        return int(args.handler(args))
    except BrokenPipeError:  # `| head` closed the pipe: stop quietly, like `yes | head`
        _silence_stdout()
        return 141
    except KeyboardInterrupt:
        if debug:
            raise
        _report(f"ulidkeys {args.command}: interrupted")
        return 130
    except Exception as error:
        if debug:
            raise
        status, message = failure(error, args)
        _report(f"ulidkeys {args.command}: {message}")
        return status


if __name__ == "__main__":
    sys.exit(main())
