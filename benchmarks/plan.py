"""Time to plan a window: key bounds, exact prefix covers and budgeted covers (µs per call).

Run: ``.venv/bin/python benchmarks/plan.py``. Prints Markdown tables (best of 5 repeats, so a
noisy shared machine shows its quiet-moment speed). Targets: bounds < 50 µs, exact cover < 1 ms.
"""

from __future__ import annotations

import timeit
from collections.abc import Callable

from charts import OURS, bar_labels, pyplot, save

from ulidkeys import TimeWindow
from ulidkeys.planning.prefixcover import END_OF_TIME_MS, resolution_table
from ulidkeys.timeinput import MAX_DATETIME_MS, format_ms

START = "2024-05-17T09:13:27.123Z"  # deliberately on no block boundary
DAY = 86_400_000
WINDOWS = {
    "1 s": 1_000,
    "1 h": 3_600_000,
    "1 day": DAY,
    "1 year": 365 * DAY,
}
BUDGETS = (1, 4, 16)


def micros(call: Callable[[], object]) -> float:
    """Best-of-5 time of one call in microseconds."""
    timer = timeit.Timer(call)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=5, number=number)) / number * 1e6


def _iso(ms: int) -> str | int:
    """ISO text of a millisecond, or the int itself past year 9999 (no datetime there)."""
    return format_ms(ms) if ms <= MAX_DATETIME_MS else ms


def windows() -> list[tuple[str, TimeWindow]]:
    start = TimeWindow(START, START).start_ms
    found = [(name, TimeWindow.from_ms(start, start + span + 7)) for name, span in WINDOWS.items()]
    everything = TimeWindow.from_ms(1, END_OF_TIME_MS - 1)
    found.append(("worst case: all time but 1 ms each end", everything))
    return found


def main() -> None:
    print(f"Windows start at {START} and last the span + 7 ms (unaligned ends).\n")
    print(
        "| window | TimeWindow(iso, iso) µs | bounds µs | inclusive_bounds µs | "
        "exact cover µs | exact prefixes | common prefix |"
    )
    print("|---|---:|---:|---:|---:|---:|---|")
    for name, window in windows():
        exact = window.prefix_cover()
        since, until = _iso(window.start_ms), _iso(window.end_ms)
        print(
            f"| {name} | {micros(lambda a=since, b=until: TimeWindow(a, b)):.2f} | "  # type: ignore[misc]
            f"{micros(window.bounds):.2f} | {micros(window.inclusive_bounds):.2f} | "
            f"{micros(window.prefix_cover):.1f} | {len(exact)} | `{window.common_prefix()!r}` |"
        )
    print(
        "\nBudgeted covers (`prefix_cover(max_prefixes=k)`): prefixes used, extra time as a "
        "ratio of the window, µs per call\n"
    )
    print("| window | " + " | ".join(f"k={k}" for k in BUDGETS) + " |")
    print("|---|" + "---|" * len(BUDGETS))
    for name, window in windows():
        cells = []
        for k in BUDGETS:
            cover = window.prefix_cover(max_prefixes=k)
            took = micros(lambda k=k, w=window: w.prefix_cover(max_prefixes=k))  # type: ignore[misc]
            noun = "prefix" if len(cover) == 1 else "prefixes"
            cells.append(f"{len(cover)} {noun}, +{cover.ratio:.3g}x, {took:.0f} µs")
        print(f"| {name} | " + " | ".join(cells) + " |")
    chart()
    print("\nResolution: one step of each time character\n")
    print("| character | step (ms) | step | values |")
    print("|---:|---:|---:|---:|")
    for row in resolution_table():
        print(f"| {row.position} | {row.step_ms:,} | {row.human} | {row.values} |")


def chart() -> None:
    """docs/img/plan.png: what one step of each time character spans, and how a prefix budget
    trades prefixes (ListObjectsV2 chains) for extra time listed."""
    plt = pyplot()
    if plt is None:
        return
    figure, (spans, budgets) = plt.subplots(1, 2, figsize=(11, 4.2))
    rows = resolution_table()
    bars = spans.bar([str(r.position) for r in rows], [r.step_ms for r in rows], color=OURS)
    bar_labels(spans, bars, [r.human for r in rows])
    spans.set_yscale("log")
    spans.set_ylim(0.5, 1e16)  # room for the labels above the tallest bars
    spans.set_xlabel("time character of the ULID (1 = first)")
    spans.set_ylabel("one step spans (ms, log scale)")
    spans.set_title("What each of the 10 time characters spans")
    spans.tick_params(axis="x", labelsize=9)
    for label in spans.texts:
        label.set_fontsize(7)
    ks = [1, 2, 4, 8, 16, 32, 64, 128]
    for name, window in windows()[:-1]:
        extra = [max(window.prefix_cover(max_prefixes=k).ratio, 1e-4) for k in ks]
        budgets.plot(ks, extra, marker="o", label=f"{name} window")
    budgets.set_xscale("log", base=2)
    budgets.set_yscale("log")
    budgets.set_xlabel("prefix budget k (max_prefixes)")
    budgets.set_ylabel("extra time listed / window (log; exact covers at 1e-4)")
    budgets.set_title("Budgeted prefix covers: fewer prefixes, more time")
    budgets.legend(fontsize=8)
    save(figure, "plan")


if __name__ == "__main__":
    main()
