"""Generation and parsing speed, side by side in one run: ulidkeys vs python-ulid (and friends).

Prints ns per id (best of several interleaved rounds, so a noisy machine hurts every candidate
alike; each timing of the first table in a fresh process right after the imports, so one
candidate's garbage does not tax the next) and the ratio to python-ulid's ``str(ULID())`` /
``ULID.from_str``. The targets are checked at the end: new <= 0.1x,
batch <= 0.03x per id, parse <= 0.5x, and the drop-in path ``str(ULID())`` (python-ulid's line,
monotonic) <= 0.15x.
A second table puts each id scheme's generator (text out) next to the best public package for
it (the ``bench`` extra; a missing package is skipped). ``--tickets`` adds the DynamoDB ticket
server on moto (in-process): tickets per second and UpdateItem calls, one at a time and in
blocks (moto's per-call cost stands in for a network round trip, so the ratio is the point).

    python benchmarks/generate.py [--rounds 7] [--schemes-only] [--tickets]
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import timeit
import uuid
from collections.abc import Callable
from typing import Any

import ulid as python_ulid
from charts import OTHERS, OURS, bar_labels, pyplot, save

import ulidkeys
from ulidkeys import ULID
from ulidkeys.ids import (
    INSTAGRAM_SPLIT,
    KSUID,
    OBJECT_ID,
    UUID1,
    UUID1_ORDERED,
    UUID5,
    UUID6,
    UUID7,
    SnowflakeGenerator,
    TypeIdScheme,
)
from ulidkeys.ids.typed import ULID_TAG1
from ulidkeys.ids.uuids import UUID3, UUID4

try:  # optional: the C extension, for scale (pip install ulid-transform)
    import ulid_transform
except ImportError:  # pragma: no cover
    ulid_transform = None

BATCH = 10_000
PER_TIMING = 20_000


def _optional(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:  # pragma: no cover - the bench extra is not installed
        return None


uuid6 = _optional("uuid6")
uuid_utils = _optional("uuid_utils")
ksuid = _optional("ksuid")
bson = _optional("bson")
snowflake = _optional("snowflake")
typeid = _optional("typeid")


def scheme_rows() -> list[tuple[str, str, Callable[[], object], list[tuple[str, Any]]]]:
    """(scheme, ulidkeys label, ulidkeys callable, [(package label, callable or None)])."""
    post = TypeIdScheme("post")
    flake = SnowflakeGenerator(1)
    insta = SnowflakeGenerator(1341, INSTAGRAM_SPLIT)
    theirs_flake = snowflake.SnowflakeGenerator(1) if snowflake else None
    name = "https://example.com/a.jpg"
    # a table: one row per scheme, its peers beside it
    # fmt: off
    return [
        ("ULID", "ulidkeys.new()", ulidkeys.new, [
            ("python-ulid str(ULID())", lambda: str(python_ulid.ULID())),
        ]),
        ("UUIDv7", "UUID7.new()", UUID7.new, [
            ("uuid6 str(uuid7())", uuid6 and (lambda: str(uuid6.uuid7()))),
            ("uuid-utils str(uuid7())", uuid_utils and (lambda: str(uuid_utils.uuid7()))),
        ]),
        ("UUIDv6", "UUID6.new()", UUID6.new, [
            ("uuid6 str(uuid6())", uuid6 and (lambda: str(uuid6.uuid6()))),
            ("uuid-utils str(uuid6())", uuid_utils and (lambda: str(uuid_utils.uuid6()))),
        ]),
        ("UUIDv1 (random node)", "UUID1.new()", UUID1.new, [
            ("stdlib str(uuid1())", lambda: str(uuid.uuid1())),
            ("uuid-utils str(uuid1())", uuid_utils and (lambda: str(uuid_utils.uuid1()))),
        ]),
        ("UUIDv1 ordered (MySQL)", "UUID1_ORDERED.new()", UUID1_ORDERED.new, [
            ("stdlib uuid1() reordered by hand",
             lambda: (lambda h: h[12:16] + h[8:12] + h[:8] + h[16:])(uuid.uuid1().hex)),
        ]),
        ("UUIDv4", "UUID4.new()", UUID4.new, [
            ("stdlib str(uuid4())", lambda: str(uuid.uuid4())),
            ("uuid-utils str(uuid4())", uuid_utils and (lambda: str(uuid_utils.uuid4()))),
        ]),
        ("UUIDv5", "UUID5.from_name('url', s)", lambda: UUID5.from_name("url", name), [
            ("stdlib str(uuid5(NAMESPACE_URL, s))",
             lambda: str(uuid.uuid5(uuid.NAMESPACE_URL, name))),
            ("uuid-utils str(uuid5(...))", uuid_utils and (
                lambda: str(uuid_utils.uuid5(uuid_utils.NAMESPACE_URL, name)))),
        ]),
        ("UUIDv3", "UUID3.from_name('url', s)", lambda: UUID3.from_name("url", name), [
            ("stdlib str(uuid3(NAMESPACE_URL, s))",
             lambda: str(uuid.uuid3(uuid.NAMESPACE_URL, name))),
        ]),
        ("KSUID", "KSUID.new()", KSUID.new, [
            ("svix-ksuid str(Ksuid())", ksuid and (lambda: str(ksuid.Ksuid()))),
        ]),
        ("ObjectId", "OBJECT_ID.new()", OBJECT_ID.new, [
            ("bson str(ObjectId())", bson and (lambda: str(bson.ObjectId()))),
        ]),
        ("Snowflake (Twitter split)", "SnowflakeGenerator(1)()", flake, [
            ("snowflake-id str(next(gen))", theirs_flake and (lambda: str(next(theirs_flake)))),
        ]),
        ("Instagram (13-bit shard)", "SnowflakeGenerator(shard)()", insta, [
            ("snowflake-id str(next(gen))", theirs_flake and (lambda: str(next(theirs_flake)))),
        ]),
        ("ULID tagged (off-spec)", "ULID_TAG1.new()", ULID_TAG1.new, [
            ("python-ulid str(ULID()) (untagged)", lambda: str(python_ulid.ULID())),
        ]),
        ("TypeID", "TypeIdScheme('post').new()", post.new, [
            ("typeid-python str(TypeID('post'))",
             typeid and (lambda: str(typeid.TypeID(prefix="post")))),
        ]),
    ]
    # fmt: on


def measure_schemes(rounds: int) -> None:
    """Print the per-scheme table: ulidkeys and the public packages, interleaved rounds."""
    rows = scheme_rows()
    timed = {
        (scheme, label): func
        for scheme, ours, mine, others in rows
        for label, func in [(ours, mine), *others]
        if func
    }
    best = {key: float("inf") for key in timed}
    for _ in range(rounds):
        for key, func in timed.items():
            seconds = timeit.timeit(func, number=PER_TIMING)
            best[key] = min(best[key], seconds / PER_TIMING * 1e9)
    print(f"| {'scheme':<26} | {'candidate':<36} | {'ns per id':>9} | {'vs ulidkeys':>11} |")
    print(f"|{'-' * 28}|{'-' * 38}|{'-' * 11}|{'-' * 13}|")
    for scheme, ours, _mine, others in rows:
        mine_ns = best[(scheme, ours)]
        print(f"| {scheme:<26} | {'ulidkeys ' + ours:<36} | {mine_ns:>9.0f} | {'1.00x':>11} |")
        for label, func in others:
            if not func:
                print(f"| {'':<26} | {label + ' (not installed)':<36} | {'-':>9} | {'-':>11} |")
                continue
            ns = best[(scheme, label)]
            print(f"| {'':<26} | {label:<36} | {ns:>9.0f} | {ns / mine_ns:>10.2f}x |")
    print(
        "\nInstagram's ids hold a 10-bit sequence: one generator makes at most 1,024 a "
        "millisecond, ~977 ns an id, and waits for the next millisecond past that (snowflake-id "
        "has no such layout: its Twitter one is shown, and it returns None, not an id, once a "
        "millisecond's 4,096 are used)."
    )


TICKET_BLOCKS = (1, 10, 100)


def measure_tickets(rounds: int, tickets: int = 2_000) -> None:
    """Print tickets/s of ``TicketServer.next()`` per block size, interleaved rounds on moto."""
    import os

    import boto3  # the test extra: only this table needs AWS packages
    from moto import mock_aws

    from ulidkeys.dynamodb import TicketServer

    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        os.environ.setdefault(name, "testing")
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        client.create_table(
            TableName="tickets",
            KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        best = {block: 0.0 for block in TICKET_BLOCKS}
        calls = dict.fromkeys(TICKET_BLOCKS, 0)
        for round_number in range(rounds):
            for block in TICKET_BLOCKS:
                key = {"PK": f"bench-{block}-{round_number}"}
                server = TicketServer(client, key, table_name="tickets", block=block)
                n = tickets // 10 if block == 1 else tickets  # one call per ticket is slow
                seconds = timeit.timeit(server.next, number=n)
                best[block] = max(best[block], n / seconds)
                calls[block] = round(server.calls * 1000 / n)
    print(
        f"| {'TicketServer.next() on moto':<30} | {'tickets/s':>10} |"
        f" {'UpdateItem per 1,000':>20} | {'vs block=1':>10} |"
    )
    print(f"|{'-' * 32}|{'-' * 12}|{'-' * 22}|{'-' * 12}|")
    for block in TICKET_BLOCKS:
        label = "one at a time (block=1)" if block == 1 else f"block={block}"
        print(
            f"| {label:<30} | {best[block]:>10.0f} | {calls[block]:>20} |"
            f" {best[block] / best[1]:>9.1f}x |"
        )


def candidates() -> dict[str, tuple[Callable[[], object], int, int]]:
    """name -> (callable, ids per call, calls per timing)."""
    sample = str(python_ulid.ULID())
    gen = ulidkeys.Monotonic()
    table: dict[str, tuple[Callable[[], object], int, int]] = {
        "ulidkeys.new()": (ulidkeys.new, 1, 100_000),
        "str(ulidkeys.ULID.new())": (lambda: str(ULID.new()), 1, 50_000),
        "drop-in str(ulidkeys.ULID())": (lambda: str(ULID()), 1, 50_000),
        "drop-in ulidkeys.ULID()": (ULID, 1, 50_000),
        f"ulidkeys.batch({BATCH:,}) per id": (lambda: ulidkeys.batch(BATCH), BATCH, 10),
        "ulidkeys.Monotonic()() per id": (gen, 1, 50_000),
        f"ulidkeys.batch({BATCH:,}, monotonic=True) per id": (
            lambda: ulidkeys.batch(BATCH, monotonic=True),
            BATCH,
            3,
        ),
        "python-ulid str(ULID())": (lambda: str(python_ulid.ULID()), 1, 10_000),
        "str(uuid.uuid4())": (lambda: str(uuid.uuid4()), 1, 50_000),
        "ulidkeys.ULID.parse(text)": (lambda: ULID.parse(sample), 1, 50_000),
        "python-ulid ULID.from_str(text)": (lambda: python_ulid.ULID.from_str(sample), 1, 10_000),
    }
    if ulid_transform is not None:
        table["ulid-transform ulid_now() (C extension)"] = (ulid_transform.ulid_now, 1, 100_000)
    return table


def measure(rounds: int) -> dict[str, float]:
    """ns per id of every candidate, best of ``rounds``; each timing in a fresh process (this
    script with ``--one NAME``), so no candidate's garbage or imports tax another's heap, and
    rounds interleaved so every candidate sees the same machine load."""
    best = {name: float("inf") for name in candidates()}
    for _ in range(rounds):
        for name in best:
            command = [sys.executable, __file__, "--one", name]
            answer = subprocess.run(command, capture_output=True, text=True, check=True)
            best[name] = min(best[name], float(answer.stdout))
    return best


def measure_one(name: str) -> float:
    """ns per id of one candidate in this (fresh) process: one timing."""
    func, per_call, number = candidates()[name]
    func()  # the first call pays one-time costs (imports, tables) in every candidate alike
    return timeit.timeit(func, number=number) / (number * per_call) * 1e9


def chart(ns: dict[str, float]) -> None:
    """docs/img/generate.png: ns per id of every candidate, ulidkeys in its own colour."""
    plt = pyplot()
    if plt is None:
        return
    names = list(ns)[::-1]  # the table's order, top to bottom
    figure, axes = plt.subplots(figsize=(8, 4.2))
    colours = [OURS if "ulidkeys" in name else OTHERS for name in names]
    bars = axes.barh(names, [ns[n] for n in names], color=colours)
    bar_labels(axes, bars, [f"{ns[n]:,.0f}" for n in names])
    axes.set_xscale("log")
    axes.margins(x=0.2)  # room for the labels
    axes.set_xlabel("ns per id (log scale, lower is better; best of interleaved rounds)")
    axes.set_title("ULIDs made and parsed: ulidkeys vs python-ulid and others", fontsize=10)
    axes.tick_params(axis="y", labelsize=8)
    save(figure, "generate")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--schemes-only", action="store_true", help="only the per-scheme table")
    parser.add_argument(
        "--tickets", action="store_true", help="only the DynamoDB ticket server table (on moto)"
    )
    parser.add_argument("--one", metavar="NAME", help=argparse.SUPPRESS)  # a fresh process
    args = parser.parse_args()
    if args.one is not None:
        print(measure_one(args.one))
        return
    if args.tickets:
        measure_tickets(args.rounds)
        return
    if args.schemes_only:
        measure_schemes(args.rounds)
        return
    ns = measure(args.rounds)
    generate_ref = ns["python-ulid str(ULID())"]
    parse_ref = ns["python-ulid ULID.from_str(text)"]
    print(f"| {'candidate':<46} | {'ns per id':>10} | {'vs python-ulid':>14} |")
    print(f"|{'-' * 48}|{'-' * 12}|{'-' * 16}|")
    for name, value in ns.items():
        ref = parse_ref if "parse" in name or "from_str" in name else generate_ref
        print(f"| {name:<46} | {value:>10.0f} | {value / ref:>13.3f}x |")
    checks = [
        ("ulidkeys.new()", generate_ref, 0.1),
        (f"ulidkeys.batch({BATCH:,}) per id", generate_ref, 0.03),
        ("ulidkeys.ULID.parse(text)", parse_ref, 0.5),
        ("drop-in str(ulidkeys.ULID())", generate_ref, 0.15),
    ]
    print()
    for name, ref, target in checks:
        ratio = ns[name] / ref
        verdict = "met" if ratio <= target else "NOT met"
        print(f"target {name} <= {target}x python-ulid: {ratio:.3f}x ({verdict})")
    chart(ns)
    print()
    measure_schemes(args.rounds)


if __name__ == "__main__":
    main()
