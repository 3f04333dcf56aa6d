"""Benchmark: what an incremental consumer costs per run on moto (issue 11).

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
    not_delivered: float

    @property
    def ratio(self) -> float:
        return self.not_delivered / self.new if self.new else 0.0


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


def measure(overlap_s: int, shards: int, rate: int, runs: int) -> Row:
    from moto.s3.models import s3_backends

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
        totals = {"new": 0, "read": 0, "calls": 0.0}
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
                totals["calls"] = max(totals["calls"], stats.calls / shards)
    return Row(
        overlap_s,
        shards,
        runs,
        totals["new"] / runs,
        totals["calls"],
        totals["read"] / runs,
        (totals["read"] - totals["new"]) / runs,
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
        f"{'overlap':>7} {'shards':>6} {'new/run':>8} {'calls/shard':>11} {'read/run':>8} "
        f"{'not deliv.':>10} {'ratio':>6} {'bound':>6}  targets"
    )
    print(head)
    print("-" * len(head))
    for overlap_s in (15, 30, 60):
        for shards in (1, 4):
            row = measure(overlap_s, shards, args.rate, args.runs)
            bound = overlap_s / 60
            calls_ok = row.max_calls_per_shard <= 1 or row.new >= 1000
            ratio_ok = row.ratio <= bound
            verdict = f"calls {_met(calls_ok)}, re-reads {_met(ratio_ok)}"
            print(
                f"{overlap_s:>6}s {shards:>6} {row.new:>8.0f} {row.max_calls_per_shard:>11.2f} "
                f"{row.transferred:>8.0f} {row.not_delivered:>10.0f} {row.ratio:>6.2f} "
                f"{bound:>6.2f}  {verdict}"
            )


if __name__ == "__main__":
    main()
