"""One benchmark report: every benchmark script of this folder run in turn, in a fresh process
each, with its own side-by-side tables, into one Markdown file with the machine and commit.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/report.py [--out benchmarks/REPORT.md] [--quick]

``make bench-report`` runs it. The figures are what this machine gave in this run: compare the
ratios inside a table (candidates measured side by side), not numbers across reports. A script
that fails is reported with its error and the others still run.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: (script, arguments, arguments with --quick, what it measures). Heaviest last.
SECTIONS: list[tuple[str, list[str], list[str], str]] = [
    ("generate.py", [], ["--rounds", "3"], "Generating and parsing ids, vs python-ulid and peers"),
    ("plan.py", [], [], "Planning: calls and keys read by window and layout"),
    ("s3_parse.py", [], ["--repeat", "5"], "S3 pages: the fast page reader vs botocore"),
    ("dynamodb_parse.py", [], ["--repeat", "5"], "DynamoDB pages: the fast reader vs botocore"),
    ("s3_overhead.py", [], ["--keys", "50000"], "S3 listing: the library's own work per key"),
    ("s3_window.py", [], ["--keys", "20000"], "S3 windows on moto: calls and keys read"),
    ("dynamodb_window.py", [], ["--items", "5000"], "DynamoDB windows on moto: calls, items"),
    ("dynamodb_split.py", [], ["--items", "20000"], "DynamoDB: one chain vs time-split"),
    ("s3_scale.py", ["--quick"], ["--quick", "--keys", "20000"], "S3 at scale over HTTP"),
    ("dask_window.py", [], ["--keys", "100000"], "A window on a Dask cluster of 1, 2, 4 workers"),
    ("consume.py", [], ["--runs", "4"], "Consumers: exactly once, what each run reads"),
    (
        "directory_memory.py",
        [],
        ["--keys-per-day", "10000", "--days", "3"],
        "Directory buckets: memory of newest-first listings",
    ),
    ("async_windows.py", [], ["--keys", "20000"], "The asyncio shell vs the thread shell"),
    ("faults.py", [], ["--windows", "50"], "Fault injection: windows exact under failures"),
]


def git_commit() -> str:
    try:
        answer = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return answer.stdout.strip()


def run(script: str, arguments: list[str], timeout: float) -> tuple[str, float, bool]:
    """The script's output, its wall time, and whether it succeeded."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    began = time.perf_counter()
    try:
        answer = subprocess.run(
            [sys.executable, str(HERE / script), *arguments],
            capture_output=True,
            text=True,
            cwd=HERE,
            env=environment,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return f"(stopped after {timeout:.0f} s)", time.perf_counter() - began, False
    seconds = time.perf_counter() - began
    if answer.returncode != 0:
        tail = "\n".join(answer.stderr.strip().splitlines()[-15:])
        return f"(failed, exit {answer.returncode})\n\n```\n{tail}\n```", seconds, False
    return answer.stdout.strip(), seconds, True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "REPORT.md")
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a few minutes)")
    parser.add_argument("--only", nargs="*", default=None, help="run these scripts only")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per script")
    args = parser.parse_args()
    now = datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    lines = [
        "# ulidkeys benchmark report",
        "",
        f"- made {now} at commit `{git_commit()}`" + (" (--quick sizes)" if args.quick else ""),
        f"- Python {platform.python_version()} on {platform.platform()}, {os.cpu_count()} cores",
        "- each script in a fresh process; compare ratios within a table, not across reports",
        "",
    ]
    failed = []
    for script, full, quick, title in SECTIONS:
        if args.only is not None and script not in args.only:
            continue
        print(f"running {script} ...", file=sys.stderr, flush=True)
        output, seconds, ok = run(script, quick if args.quick else full, args.timeout)
        if not ok:
            failed.append(script)
        shown = " ".join([script, *(quick if args.quick else full)])
        lines += [f"## {title}", "", f"`{shown}` ({seconds:.0f} s)", "", output, ""]
    args.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}", file=sys.stderr)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
