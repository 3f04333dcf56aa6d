"""The benchmark tables as PNG charts under docs/img/, shown in the README.

matplotlib (the ``bench`` extra) with the Agg backend: no display needed. Without matplotlib
the benchmarks still print their tables and say how to get the charts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

IMG = Path(__file__).resolve().parent.parent / "docs" / "img"
OURS, OTHERS, LOSSY = "#1f6f8b", "#9aa5ad", "#d1495b"  # one colour per role in every chart


def pyplot() -> Any | None:
    """matplotlib.pyplot on the Agg backend, or None (with a note) if it is not installed."""
    try:
        import matplotlib
    except ImportError:
        print("\n(no chart: pip install -e '.[bench]' for matplotlib)")
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save(figure: Any, name: str) -> Path:
    """Write ``figure`` to docs/img/NAME.png and say where."""
    IMG.mkdir(parents=True, exist_ok=True)
    path = IMG / f"{name}.png"
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    print(f"\nchart: {path.relative_to(IMG.parent.parent)}")
    return path


def bar_labels(axes: Any, bars: Any, texts: list[str]) -> None:
    """Write each bar's value at its end."""
    axes.bar_label(bars, labels=texts, padding=2, fontsize=8)
