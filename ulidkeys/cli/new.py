"""``ulidkeys new``: fresh ids of any scheme (ULIDs by default), in bounded memory."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator

from ulidkeys import base32
from ulidkeys.cli.options import (
    TIME_HELP,
    Command,
    add_output,
    add_scheme,
    count_arg,
    scheme_of,
)
from ulidkeys.cli.output import Row, emit
from ulidkeys.errors import InvalidValue
from ulidkeys.ids.protocol import IdScheme, has_no_time
from ulidkeys.ids.registration import Registration
from ulidkeys.ids.registry import generator_for, registration_of
from ulidkeys.ids.snowflake import SnowflakeGenerator
from ulidkeys.ids.ulids import ULID_SCHEME
from ulidkeys.timeinput import (
    format_ms,
    to_ms,
)
from ulidkeys.ulid import Monotonic
from ulidkeys.ulid.generation import batch

#: Where the subcommand stands in ``ulidkeys --help``.
ORDER = 10


def register(command: Command) -> None:
    """Add the subcommand, its options and its handler."""
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
    add_scheme(new, "the ids made")
    add_output(new)
    new.set_defaults(handler=run)


#: Ids made per step by ``new``: any count streams in bounded memory.
NEW_CHUNK = 65_536


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


def applicable_flags(registration: Registration, scheme: IdScheme) -> list[str]:
    """The flags of ``new`` that apply to ids of ``scheme``, from what its registration says
    the generator reads (the clock, a node); ``--monotonic`` is ULID's own generator."""
    flags = ["-n", "-o"]
    if scheme is ULID_SCHEME:
        flags.append("--monotonic")
    if registration.clock:
        flags.append("--at")
    if registration.takes_node:
        flags.append("--node (required)")
    return flags


def _refuse_flags_that_do_not_apply(
    args: argparse.Namespace, registration: Registration, scheme: IdScheme
) -> None:
    """A flag the chosen scheme's generator would ignore is a mistake, not a no-op: exit 2
    with the flags that do apply."""
    name = args.scheme or "ulid"
    given = (
        ("--monotonic", args.monotonic, scheme is ULID_SCHEME, "--monotonic makes ULIDs only"),
        ("--at", args.at is not None, registration.clock, f"{scheme.name} ids hold no time"),
        (
            "--node",
            args.node is not None,
            registration.takes_node,
            f"{scheme.name} ids have no node",
        ),
    )
    for flag, used, applies, why in given:
        if used and not applies:
            flags = ", ".join(applicable_flags(registration, scheme))
            raise InvalidValue(
                f"{flag} does not apply to --scheme {name} ({why}); the flags that do: {flags}"
            )


def run(args: argparse.Namespace) -> int:
    scheme = scheme_of(args)
    registration = registration_of((args.scheme or "ulid").partition(":")[0])
    if not registration.generated:
        hint = "; tickets come from ulidkeys.dynamodb.TicketServer" if has_no_time(scheme) else ""
        raise InvalidValue(
            f"--scheme {args.scheme}: {scheme.name} ids are not made from a clock "
            f"({registration.summary}){hint}"
        )
    _refuse_flags_that_do_not_apply(args, registration, scheme)
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
    (``--at``: a clock fixed at that time; ``--node``: the node of a Snowflake-style scheme),
    the flags already checked against what the generator reads."""
    at_ms = None if args.at is None else to_ms(args.at, "--at")
    if at_ms is not None and scheme.sorts_by_time and not scheme.min_ms <= at_ms <= scheme.max_ms:
        raise InvalidValue(
            f"--at {args.at}: {scheme.name} ids hold times from {format_ms(max(scheme.min_ms, 0))} "
            f"to {format_ms(scheme.max_ms)}"
        )
    try:
        make = generator_for(
            args.scheme, clock=None if at_ms is None else lambda: at_ms, node=args.node
        )
    except InvalidValue as error:  # a node missing, or out of the scheme's range
        if args.node is None:
            raise InvalidValue(f"--scheme {args.scheme} needs --node N: {error}") from None
        raise InvalidValue(f"--node {args.node}: {error}") from None
    if at_ms is not None and isinstance(make, SnowflakeGenerator):
        # a clock fixed at --at never reaches the next step: past one step's sequence the
        # generator would wait max_wait_ms for nothing, after printing the ids it could make
        per_step = make.split.max_sequence + 1
        if args.count > per_step:
            raise InvalidValue(
                f"-n {args.count} with --at: one step of {scheme.name} ids holds {per_step:,} "
                f"(its sequence), and a fixed time never reaches the next; ask for at most "
                f"{per_step:,}, or leave out --at"
            )

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
