"""Benchmark: what an incremental consumer costs per run on moto.

A bucket receives 10 keys/s (writer clocks +-5 s, uploads visible up to 20 s late); a consumer
runs every simulated minute with settle=30 s and several overlaps. Per run: ListObjectsV2 calls
per shard, keys transferred, and keys transferred but not delivered (overlap re-reads and any
keys past the window on a page). Run:

    .venv/bin/python benchmarks/consume.py [--runs 12] [--rate 10]
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass

import boto3
from moto import mock_aws

import ulidkeys.s3.bucket
from ulidkeys import base32
from ulidkeys.s3 import Bucket, KeyLayout, MemoryStore

T0 = 1_714_521_600_000  # 2024-05-01T00:00:00Z
MINUTE = 60_000
SETTLE = 30_000
MOTO_ACCOUNT = "123456789012"
WARM_UP = 2  # runs left out: the first has no checkpoint to size its pages from


@dataclass(frozen=True)
class Clock:
    ms: int

    def __call__(self) -> int:
        return self.ms


@dataclass
class Row:
    overlap_s: int
    shards: int
    runs: int
    new: float
    max_calls_per_shard: float
    transferred: float
    repeated: float
    sized: bool

    @property
    def spill(self) -> float:
        """Keys past the window that came on a page: transferred, never delivered."""
        return self.transferred - self.new - self.repeated


def traffic(rate: int, minutes: int, seed: int) -> list[tuple[int, str]]:
    """``(visible_ms, id)`` of ``rate`` writes a second."""
    rng = random.Random(seed)
    made = []
    for n in range(rate * minutes * 60):
        real = T0 + n * 1000 // rate
        id_ms = real + rng.randint(-5_000, 5_000)
        made.append(
            (
                real + rng.randint(0, 20_000),
                base32.encode_time(id_ms) + base32.encode_random(rng.getrandbits(80)),
            )
        )
    return sorted(made)


def measure(overlap_s: int, shards: int, rate: int, runs: int, sized: bool = True) -> Row:
    from moto.s3.models import s3_backends

    sizing = ulidkeys.s3.bucket.chain_keys
    if not sized:  # plain 1,000-key pages, for comparison
        ulidkeys.s3.bucket.chain_keys = lambda expected, shards: None  # type: ignore[assignment]
    layout = KeyLayout("uploads/", shards=shards if shards > 1 else None, period="hour")
    with mock_aws():
        session = boto3.session.Session(region_name="us-east-1")
        factory = session._session.get_component("response_parser_factory")
        factory.set_parser_defaults(timestamp_parser=str)  # not what is measured
        s3 = session.client("s3")
        s3.create_bucket(Bucket="bench")
        backend = s3_backends[MOTO_ACCOUNT]["global"]
        bucket = Bucket(s3, "bench", layout)
        store = MemoryStore()
        pending = traffic(rate, runs + WARM_UP + 1, seed=overlap_s * 100 + shards)
        totals = {"new": 0, "read": 0, "repeated": 0, "calls": 0.0}
        for run_number in range(runs + WARM_UP):
            now = T0 + (run_number + 1) * MINUTE
            while pending and pending[0][0] <= now:
                _, id_text = pending.pop(0)
                backend.put_object("bench", layout.key_for(id_text), b"", disable_notification=True)
            consumption = bucket.consume(
                store,
                since=T0 - 10_000,
                settle=SETTLE,
                overlap=overlap_s * 1000,
                now=Clock(now),
            )
            delivered = sum(1 for _ in consumption)
            consumption.commit()
            if run_number >= WARM_UP:
                stats = consumption.stats
                totals["new"] += delivered
                totals["read"] += stats.read
                totals["repeated"] += stats.repeated
                totals["calls"] = max(totals["calls"], stats.calls / shards)
    ulidkeys.s3.bucket.chain_keys = sizing
    return Row(
        overlap_s,
        shards,
        runs,
        totals["new"] / runs,
        totals["calls"],
        totals["read"] / runs,
        totals["repeated"] / runs,
        sized,
    )


def _met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=12)
    parser.add_argument("--rate", type=int, default=10, help="keys per second")
    args = parser.parse_args()
    print(
        f"{args.rate} keys/s, a run every 60 s, settle 30 s; {args.runs} runs after "
        f"{WARM_UP} warm-up runs\n"
    )
    head = (
        f"{'overlap':>7} {'shards':>6} {'pages':>5} {'new/run':>7} {'calls/shard':>11} "
        f"{'read/run':>8} {'re-read':>7} {'spill':>5} {'not deliv./new':>14} "
        f"{'re-read/new':>11} {'bound':>5}  targets: 1 call/shard, re-reads < bound"
    )
    print(head)
    print("-" * len(head))
    configs = [(o, n, True) for o in (15, 30, 60) for n in (1, 4)] + [
        (30, 1, False),
        (30, 4, False),
    ]
    for overlap_s, shards, sized in configs:
        row = measure(overlap_s, shards, args.rate, args.runs, sized)
        bound = overlap_s / 60
        calls_ok = row.max_calls_per_shard <= 1 or row.new / shards >= 1000
        not_delivered = (row.repeated + row.spill) / row.new
        verdict = (
            f"{_met(calls_ok)}, {_met(not_delivered < bound)} "
            f"(re-reads alone {_met(row.repeated / row.new < bound)})"
        )
        print(
            f"{overlap_s:>6}s {shards:>6} {'sized' if sized else '1000':>5} {row.new:>7.0f} "
            f"{row.max_calls_per_shard:>11.2f} {row.transferred:>8.0f} {row.repeated:>7.0f} "
            f"{row.spill:>5.0f} {not_delivered:>14.3f} {row.repeated / row.new:>11.3f} "
            f"{bound:>5.2f}  {verdict}"
        )


if __name__ == "__main__":
    main()
