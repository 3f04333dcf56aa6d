"""Fault injection, long run of ``tests/faultsupport.py``: per service and retry mode, faults
met and keys lost, duplicated, out of order (all must be 0, else exit 1). Run:
``.venv/bin/python benchmarks/faults.py [--windows 400] [--seed 1] [--rate 0.25]``."""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from faultsupport import MAX_ROUNDS, RETRY_MODES, SERVICES, Tally, moto_world, run_windows

COLUMNS = (
    ("retries", 12),
    ("windows", 8),
    ("requests", 9),
    ("faults", 7),
    ("raises", 7),
    ("resumes", 8),
    ("lost", 5),
    ("duplicated", 11),
    ("out of order", 13),
    ("outside", 8),
    ("silent end", 11),
    ("gave up", 8),
    ("seconds", 8),
)


def row(mode: str, tally: Tally, seconds: float) -> str:
    values = (
        f"{mode} ({RETRY_MODES[mode]})",
        tally.windows,
        tally.requests,
        sum(tally.injected.values()),
        sum(tally.raises.values()),
        tally.resumes,
        tally.lost,
        tally.duplicated,
        tally.out_of_order,
        tally.extra,
        tally.silent,
        tally.gave_up,
        f"{seconds:.1f}",
    )
    return line(values)


def line(values: tuple[object, ...]) -> str:
    """One table line: the first column left-aligned, the counts right-aligned."""
    return "".join(
        f"{value:<{width}}" if n == 0 else f"{value:>{width}}"
        for n, (value, (_, width)) in enumerate(zip(values, COLUMNS, strict=True))
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--windows", type=int, default=400, help="per service and retry mode")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rate", type=float, default=0.25, help="share of requests failed")
    parser.add_argument("--ids", type=int, default=1000, help="ids written (S3: per layout)")
    parser.add_argument("--days", type=int, default=3)
    parser.add_argument(
        "--max-rounds", type=int, default=MAX_ROUNDS, help="listings per window before giving up"
    )
    args = parser.parse_args()
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request

    began = time.perf_counter()
    wrong = 0
    with moto_world(args.seed, args.ids, args.days) as world:
        print(
            f"{len(world.ids)} ids over {args.days} days, set up in "
            f"{time.perf_counter() - began:.1f} s; {args.windows} windows per row, "
            f"seed {args.seed}, fault rate {args.rate}; retries = botocore total_max_attempts"
        )
        for service in SERVICES:
            print(f"\n{service}")
            print(line(tuple(name for name, _ in COLUMNS)))
            injected: Counter[str] = Counter()
            raises: Counter[str] = Counter()
            problems: list[str] = []
            for mode in RETRY_MODES:
                started = time.perf_counter()
                tally = run_windows(
                    world, service, mode, args.windows, args.seed, args.rate, args.max_rounds
                )
                print(row(mode, tally, time.perf_counter() - started), flush=True)
                injected.update(tally.injected)
                raises.update(tally.raises)
                problems += [f"  {mode}: {problem}" for problem in tally.problems]
                wrong += tally.wrong
            print("faults injected:", ", ".join(f"{k} {v}" for k, v in sorted(injected.items())))
            print("raises seen:    ", ", ".join(f"{k} {v}" for k, v in sorted(raises.items())))
            print("\n".join(problems[:20]) or "every window exact")
        print(f"\nbotocore backoff skipped (not slept): {world.clock.skipped:.0f} s")
    print(f"total {time.perf_counter() - began:.1f} s")
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
