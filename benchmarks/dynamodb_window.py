"""Items read per item returned: ``Table.query_window`` vs a timestamp attribute + filter.

One partition of 50,000 posts spread over 30 days (seeded times), on moto (in-process). For
windows of one hour and one day it prints DynamoDB's ``ScannedCount`` per item returned
(``Stats.read``) and the number of Query calls. Run:

    .venv/bin/python benchmarks/dynamodb_window.py [--items N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

import boto3
from charts import OTHERS, OURS, pyplot, save
from moto import mock_aws

from ulidkeys.cli.baselines import filter_expression
from ulidkeys.dynamodb import Entity, Table
from ulidkeys.ulid import ULID

TABLE = "bench"
DAY_MS = 86_400_000
START_MS = 1_735_689_600_000  # 2025-01-01T00:00:00Z
POST = Entity(pk="Org#{org}", sk="Post#{id}")


def load(client: Any, items: int, seed: int) -> tuple[Table, float]:
    client.create_table(**POST.table_definition(TABLE))
    posts = Table(client, POST, table_name=TABLE)  # a plain client: typed values on the wire
    rng = random.Random(seed)  # the same times every run; the ids' random bits still vary
    began = time.perf_counter()
    with posts.batch_writer() as writer:
        for number in range(items):
            ms = START_MS + rng.randrange(30 * DAY_MS)
            keys = POST.keys(org="acme", id=ULID.new(ms))
            writer.put({**keys, "ts": ms, "title": f"post {number}"})
    return posts, time.perf_counter() - began


def chart(rows: list[tuple[str, str, float]]) -> None:
    """docs/img/dynamodb_window.png: items read per item returned, per window and method."""
    plt = pyplot()
    if plt is None:
        return
    windows = list(dict.fromkeys(row[0] for row in rows))
    methods = {"query_window": OURS, "ts attribute + FilterExpression": OTHERS}
    figure, axes = plt.subplots(figsize=(7, 3.8))
    for n, (method, colour) in enumerate(methods.items()):
        values = [next(r[2] for r in rows if r[:2] == (w, method)) for w in windows]
        spots = [x + (n - 0.5) * 0.4 for x in range(len(windows))]
        bars = axes.bar(spots, values, 0.4, color=colour, label=method)
        axes.bar_label(bars, labels=[f"{v:,.1f}" for v in values], fontsize=8, padding=1)
    axes.set_xticks(range(len(windows)), [f"{w} window" for w in windows])
    axes.set_yscale("log")
    axes.set_ylim(0.5, max(r[2] for r in rows) * 4)
    axes.set_ylabel("items read per item returned (log)")
    axes.set_title("DynamoDB: what a window query reads (one partition)", fontsize=10)
    axes.legend(fontsize=8, loc="upper right")
    save(figure, "dynamodb_window")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=20250101)
    options = parser.parse_args()
    with mock_aws():  # fake credentials and no network
        client = boto3.client("dynamodb", region_name="us-east-1")
        posts, seconds = load(client, options.items, options.seed)
        print(f"loaded {options.items:,} items over 30 days in {seconds:.1f} s (batch writer)\n")
        print(
            "| window | method | items returned | items read (ScannedCount) | read per item "
            "| Query calls |"
        )
        print("| --- | --- | ---: | ---: | ---: | ---: |")
        charted: list[tuple[str, str, float]] = []
        middle = START_MS + 15 * DAY_MS + 3_600_000 * 7 + 123  # not aligned to anything
        for label, width in (("1 hour", 3_600_000), ("1 day", DAY_MS)):
            start, end = middle, middle + width
            found = posts.query_window(start, end, org="acme")
            ours = [item["SK"] for item in found]
            baseline = filter_expression(client, TABLE, ("PK", "Org#acme"), "ts", start, end)
            theirs, scanned, calls = baseline.keys, baseline.read, baseline.calls
            assert ours == theirs, "the two methods disagree"
            stats = found.stats
            assert stats.read == stats.returned == len(ours) and stats.skipped == 0, stats
            rows = (
                ("`query_window`", len(ours), stats.read, stats.calls),
                ("`ts` attribute + FilterExpression", len(theirs), scanned, calls),
            )
            for method, returned, read, made in rows:
                ratio = "1.0 (exact)" if read == returned else f"{read / max(returned, 1):.1f}"
                print(f"| {label} | {method} | {returned:,} | {read:,} | {ratio} | {made} |")
                charted.append((label, method.replace("`", ""), read / max(returned, 1)))
        chart(charted)


if __name__ == "__main__":
    main()
