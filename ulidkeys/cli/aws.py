"""What the subcommands that call AWS share: the session, the files and objects they write
(checked before the first request), checkpoint stores, consumer runs, cursors, and
``--explain`` output with the pasteable ``aws`` commands.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

from ulidkeys.cli.output import counted, report
from ulidkeys.cli.paths import checkpoint_file, output_file
from ulidkeys.engine.consuming import CheckpointStore, Consumes, Delivery, FileStore
from ulidkeys.engine.threads import Consumption
from ulidkeys.errors import InvalidValue
from ulidkeys.planning.checkpoints import describe_checkpoint
from ulidkeys.planning.locations import split_s3_url
from ulidkeys.planning.plans import Plan
from ulidkeys.s3 import S3CheckpointStore
from ulidkeys.timeinput import (
    format_ms,
)

# --- AWS: sessions, checkpoints, cursors -------------------------------------------------------


def fields_of(pairs: Sequence[str]) -> dict[str, str]:
    """``["org=acme", "author=bob"]`` -> ``{"org": "acme", "author": "bob"}``."""
    fields: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise InvalidValue(f"--field {pair!r} must look like NAME=VALUE (e.g. org=acme)")
        if fields.get(name, value) != value:  # the last would silently win: which is meant?
            raise InvalidValue(
                f"--field {name} is given twice, as {fields[name]!r} and {value!r}: give it once"
            )
        fields[name] = value
    return fields


def check_endpoint(url: str | None) -> None:
    """``--endpoint-url``: an http(s) URL with a host, and a port that is one; printable ASCII
    (botocore raises a bare ValueError for the rest: '[::1', a space, a port past 65535)."""
    if url is None:
        return
    try:
        parts = urlsplit(url)
        fits = parts.scheme in ("http", "https") and bool(parts.hostname)
        fits = fits and parts.port != 0  # .port raises ValueError past 65535
    except ValueError:
        fits = False
    if not (fits and url.isascii() and url.isprintable() and " " not in url):
        raise InvalidValue(
            f"--endpoint-url {url!r} is not an http(s) URL; expected e.g. http://127.0.0.1:5000"
        )


def check_connection(args: argparse.Namespace) -> None:
    """The connection flags botocore would fail on with a bare ValueError: the endpoint, and an
    empty region (``--region ''``: an endpoint ``https://s3..amazonaws.com``)."""
    check_endpoint(args.endpoint_url)
    if args.region is not None and not args.region.strip():
        raise InvalidValue(f"--region {args.region!r} is empty: pass a region, e.g. us-east-1")


def aws_session(args: argparse.Namespace) -> Any:
    try:
        import boto3  # the aws extra: only the commands that call AWS need it
    except ImportError:
        raise InvalidValue(
            f"{args.command} calls AWS and needs boto3: pip install 'ulidkeys[aws]' "
            "(or 'ulidkeys[cli]')"
        ) from None

    check_connection(args)
    return boto3.session.Session(profile_name=args.profile, region_name=args.region)


def s3_object(spec: str, flag: str) -> tuple[str, str]:
    """``(bucket, key)`` of ``s3://BUCKET/KEY`` given to ``flag`` (an object, not a folder)."""
    bucket, key = split_s3_url(spec)
    if not key or key.endswith("/"):
        raise InvalidValue(f"{flag} {spec!r} must name an object: s3://BUCKET/KEY")
    return bucket, key


def check_targets(args: argparse.Namespace) -> None:
    """``--checkpoint`` and ``--manifest``, checked before the first request: an S3 object's
    name, a local file's folder and kind (see :mod:`ulidkeys.cli.paths`), and that the two do
    not name the same file or object (the manifest would overwrite the checkpoint)."""
    checkpoint, manifest = getattr(args, "checkpoint", None), getattr(args, "manifest", None)
    written: dict[str, set[str]] = {}
    if checkpoint is not None:
        if checkpoint.startswith("s3://"):
            bucket, key = s3_object(checkpoint, "--checkpoint")
            written["--checkpoint"] = {f"s3://{bucket}/{key}"}
        else:
            path = str(checkpoint_file(checkpoint))
            written["--checkpoint"] = {path, path + ".lock"}  # FileStore's lock beside it
    if manifest is not None:
        if manifest.startswith("s3://"):
            bucket, key = s3_object(manifest, "--manifest")
            written["--manifest"] = {f"s3://{bucket}/{key}"}
        else:
            written["--manifest"] = {str(output_file(manifest, "--manifest", "manifest.csv"))}
    if len(written) == 2 and written["--checkpoint"] & written["--manifest"]:
        raise InvalidValue(
            f"--manifest {manifest!r} and --checkpoint {checkpoint!r} name the same file: the "
            "manifest would overwrite the checkpoint; give each its own"
        )


def checkpoint_store(spec: str, session: Any, endpoint_url: str | None) -> CheckpointStore:
    """``--checkpoint``: ``s3://BUCKET/KEY`` names an S3 object, anything else a local file."""
    if spec.startswith("s3://"):
        bucket, key = s3_object(spec, "--checkpoint")
        return S3CheckpointStore(session.client("s3", endpoint_url=endpoint_url), bucket, key)
    return FileStore(spec)


def refuse_with_checkpoint(args: argparse.Namespace, *names: str) -> None:
    for name in ("cursor", "until", *names):
        if getattr(args, name, None) not in (None, False):
            option = "--" + name.replace("_", "-")
            raise InvalidValue(
                f"{option} does not go with --checkpoint: a checkpoint run lists from its "
                "watermark to now - settle and resumes by itself"
            )


def consume_options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "since": args.since,
        "settle": round(args.settle * 1000),
        "overlap": round(args.overlap * 1000),
    }


def consume(consumption: Consumption[Any], show: Callable[[Any], int], noun: str) -> int:
    """Print what is new, then commit: a crash before the commit prints it again next time."""
    count = show(consumption)
    checkpoint = consumption.commit()
    stats = consumption.stats
    report(
        f"{counted(count, 'new ' + noun.removesuffix('s'), 'new ' + noun)}, "
        f"{counted(stats.calls, 'call')}, {stats.read:,} read ({stats.repeated:,} again in "
        f"the overlap, {stats.late:,} late); checkpoint: {describe_checkpoint(checkpoint)}"
    )
    return 0


def consume_checkpointed(
    args: argparse.Namespace,
    session: Any,
    target: Consumes[Consumption[Any]],
    commands_of: Callable[[Plan[Any]], list[str]],
    show: Callable[[Any], int],
    noun: str,
    **listing: Any,
) -> int:
    """``--checkpoint``: what is new since the checkpoint ``args.checkpoint`` holds, from
    ``target`` (a bucket or a table), printed by ``show`` and then committed; with ``--explain``
    the next run's window and calls (the ``aws`` commands of ``commands_of(plan)``) only."""
    store = checkpoint_store(args.checkpoint, session, args.endpoint_url)
    run = target.consume(store, **consume_options(args), **listing)
    if args.explain:
        return explain_run(run, commands_of(run.plan))
    return consume(run, show, noun)


def print_cursor(cursor: str | None) -> None:
    if cursor is not None:
        report(f"resume after the last one with: --cursor {cursor}")


def aws_options(args: argparse.Namespace) -> list[str]:
    """The connection flags given to ulidkeys, for the printed ``aws`` commands too."""
    options = []
    for flag in ("endpoint_url", "region", "profile"):
        value = getattr(args, flag, None)
        if value is not None:
            options += ["--" + flag.replace("_", "-"), value]
    return options


def explain_run(run: Delivery, commands: list[str]) -> int:
    """``--explain --checkpoint``: the next run's window and calls; nothing listed or written."""
    window = run.window
    base = "no checkpoint yet" if run.base is None else describe_checkpoint(run.base)
    print(
        f"# next run from the checkpoint ({base}): lists {format_ms(window.start_ms)} .. "
        f"{format_ms(window.end_ms)}, re-checking {window.overlap_ms / 1000:g} s below the "
        f"stored watermark {format_ms(window.watermark_ms)} for late arrivals; "
        "this prints it only: nothing is listed, the checkpoint is unchanged"
    )
    return explain(run.plan.explain(), commands)


def explain(plan_text: str, commands: list[str]) -> int:
    print(plan_text)
    print("# the same calls with the AWS CLI (paste into a shell):")
    print("\n".join(commands))
    return 0
