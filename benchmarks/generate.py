"""Generation and parsing speed, side by side in one run: ulidkeys vs python-ulid (and friends).

    python benchmarks/generate.py [--rounds 7]

Prints ns per id (best of several interleaved rounds, so a noisy machine hurts every candidate
alike) and the ratio to python-ulid's ``str(ULID())`` / ``ULID.from_str``. The targets of
issue #2 are checked at the end: new <= 0.15x, batch <= 0.03x per id, parse <= 0.5x.
"""

from __future__ import annotations

import argparse
import timeit
import uuid
from collections.abc import Callable

import ulid as python_ulid

import ulidkeys
from ulidkeys import ULID

try:  # optional: the C extension, for scale (pip install ulid-transform)
    import ulid_transform
except ImportError:  # pragma: no cover
    ulid_transform = None

BATCH = 10_000


def candidates() -> dict[str, tuple[Callable[[], object], int, int]]:
    """name -> (callable, ids per call, calls per timing)."""
    sample = str(python_ulid.ULID())
    gen = ulidkeys.Monotonic()
    table: dict[str, tuple[Callable[[], object], int, int]] = {
        "ulidkeys.new()": (ulidkeys.new, 1, 100_000),
        "str(ulidkeys.ULID.new())": (lambda: str(ULID.new()), 1, 50_000),
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
    table = candidates()
    best = {name: float("inf") for name in table}
    for _ in range(rounds):  # interleaved: every candidate sees the same machine load
        for name, (func, per_call, number) in table.items():
            seconds = timeit.timeit(func, number=number)
            best[name] = min(best[name], seconds / (number * per_call) * 1e9)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    ns = measure(args.rounds)
    generate_ref = ns["python-ulid str(ULID())"]
    parse_ref = ns["python-ulid ULID.from_str(text)"]
    print(f"| {'candidate':<46} | {'ns per id':>10} | {'vs python-ulid':>14} |")
    print(f"|{'-' * 48}|{'-' * 12}|{'-' * 16}|")
    for name, value in ns.items():
        ref = parse_ref if "parse" in name or "from_str" in name else generate_ref
        print(f"| {name:<46} | {value:>10.0f} | {value / ref:>13.3f}x |")
    checks = [
        ("ulidkeys.new()", generate_ref, 0.15),
        (f"ulidkeys.batch({BATCH:,}) per id", generate_ref, 0.03),
        ("ulidkeys.ULID.parse(text)", parse_ref, 0.5),
    ]
    print()
    for name, ref, target in checks:
        ratio = ns[name] / ref
        verdict = "met" if ratio <= target else "NOT met"
        print(f"target {name} <= {target}x python-ulid: {ratio:.3f}x ({verdict})")


if __name__ == "__main__":
    main()
