"""``ulidkeys inspect`` reading a listing from stdin: microseconds of CPU an id of this
checkout's CLI, and of another version's side by side - ``--old-ref REF`` (a git revision of
this repository, e.g. ``main``, unpacked with ``git archive`` into a temporary folder) or
``--old PATH`` (a checkout) - each a fresh ``python`` process reading the same file of ids
into /dev/null, the versions taking turns. Best of N, by the child processes' CPU time (on a
shared machine the wall time says more about the neighbours). ``us/id`` is the whole run's
CPU over the ids; ``marginal`` leaves out the start (the CPU of the same command on no input,
measured the same way): what one more id costs. Not a timed test.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/inspect_stdin.py [--count 100000]
        [--repeat 3] [--old-ref main | --old /path/to/an/older/checkout]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ulidkeys.ids.registry import generator_for, registration_of

HERE = Path(__file__).resolve().parent.parent
RUN = "import sys; from ulidkeys.cli import main; sys.exit(main(sys.argv[1:]))"
T0 = 1_715_904_000_000  # 2024-05-17T00:00:00Z


def ids(scheme: str, count: int, seed: int = 7) -> list[str]:
    """``count`` ids of ``scheme`` made over a day, seeded (the same file on every run)."""
    rng = random.Random(seed)
    times = iter(sorted(T0 + rng.randrange(86_400_000) for _ in range(count)))
    node = {"node": 1} if registration_of(scheme).takes_node else {}
    make = generator_for(scheme, clock=lambda: next(times), randbits=rng.getrandbits, **node)
    return [make() for _ in range(count)]


def timed(checkout: Path, path: Path, argv: list[str]) -> tuple[float, float]:
    """``(CPU seconds, wall seconds)`` of one run of the CLI of ``checkout`` on ``path``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with path.open("rb") as stdin, open(os.devnull, "wb") as stdout:
        subprocess.run(
            [sys.executable, "-c", RUN, "inspect", *argv],
            stdin=stdin,
            stdout=stdout,
            env={**os.environ, "PYTHONPATH": str(checkout)},
            cwd=path.parent,  # not a checkout: `python -c` imports from its folder first
            check=True,
        )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def best(
    checkouts: list[Path], path: Path, argv: list[str], repeat: int
) -> list[tuple[float, float]]:
    """The best CPU and wall time of each checkout, their runs taking turns (a neighbour's
    load then weighs on each alike)."""
    runs: list[list[tuple[float, float]]] = [[] for _ in checkouts]
    for _ in range(repeat):
        for index, checkout in enumerate(checkouts):
            runs[index].append(timed(checkout, path, argv))
    return [(min(c for c, _ in done), min(w for _, w in done)) for done in runs]


def unpacked(ref: str, folder: Path) -> Path:
    """The package of git revision ``ref`` of this repository, unpacked into ``folder`` (not
    the folder the runs start in: ``python -c`` would import it first, whatever the version)."""
    folder.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(HERE), "archive", ref, "ulidkeys"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    old = parser.add_mutually_exclusive_group()
    old.add_argument("--old", type=Path, default=None, help="another checkout to compare")
    old.add_argument("--old-ref", default=None, help="a git revision to compare (e.g. main)")
    args = parser.parse_args()
    cases = [
        ("ulid", []),
        ("ulid", ["-o", "jsonl"]),
        ("uuid7", []),
        ("twitter-snowflake", []),
    ]
    with tempfile.TemporaryDirectory() as folder:
        checkouts = [("this checkout", HERE)]
        if args.old_ref:
            checkouts.append((args.old_ref, unpacked(args.old_ref, Path(folder) / "old")))
        elif args.old:
            checkouts.append(("--old", args.old))
        compared = len(checkouts) > 1
        print(f"ulidkeys inspect < {args.count:,} ids > /dev/null, best of {args.repeat}")
        header = "| ids | output |" + "".join(
            f" {name} us/id (CPU) | {name} marginal us/id | {name} wall s |"
            for name, _ in checkouts
        )
        print(header + (" speed-up (us/id, marginal) |" if compared else ""))
        print("|" + "---|" * (header.count("|") - 1 + compared))
        empty = Path(folder) / "empty.txt"
        empty.write_text("")
        starts = [cpu for cpu, _ in best([c for _, c in checkouts], empty, [], args.repeat)]
        for scheme, argv in cases:
            path = Path(folder) / f"{scheme}.txt"
            if not path.exists():
                path.write_text("".join(f"{line}\n" for line in ids(scheme, args.count)))
            row = f"| {scheme} | {' '.join(argv) or 'text'} |"
            per_id, marginal = [], []
            for (cpu, wall), start in zip(
                best([c for _, c in checkouts], path, argv, args.repeat), starts, strict=True
            ):
                per_id.append(cpu / args.count * 1e6)
                marginal.append(max(0.0, cpu - start) / args.count * 1e6)
                row += f" {per_id[-1]:.1f} | {marginal[-1]:.1f} | {wall:.2f} |"
            if compared:
                row += f" {per_id[1] / per_id[0]:.1f}x, {marginal[1] / marginal[0]:.1f}x |"
            print(row, flush=True)


if __name__ == "__main__":
    main()
