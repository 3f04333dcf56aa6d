"""Progress of a long listing or query on stderr (objects, calls, rate, elapsed), only when
stderr is a terminal: drawn by ``rich`` (the ``cli`` extra) if installed, else one plain line.
Piped output never sees it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO, TypeVar

try:  # the optional [cli] extra; the plain line below needs nothing
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
except ImportError:  # pragma: no cover - exercised by forcing plain=True in the tests
    Progress = None  # type: ignore[assignment,misc]

Item = TypeVar("Item")

#: Nothing is drawn for work that ends sooner: no flicker for small windows.
SHOW_AFTER_S = 0.5
#: Redraw at most this often.
EVERY_S = 0.1


class _Plain:
    """One line, rewritten in place with a carriage return; cleared at the end."""

    def __init__(self, stream: TextIO) -> None:
        self.stream, self.width = stream, 0

    def update(self, text: str) -> None:
        self.stream.write("\r" + text.ljust(self.width))
        self.stream.flush()
        self.width = len(text)

    def close(self) -> None:
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


class _Rich:
    """A transient rich line: spinner, counts, rate and elapsed time."""

    def __init__(self, stream: TextIO) -> None:
        assert Progress is not None
        self.bar = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            TimeElapsedColumn(),
            console=Console(file=stream),
            transient=True,
        )
        self.task = self.bar.add_task("", total=None)
        self.bar.start()

    def update(self, text: str) -> None:
        self.bar.update(self.task, description=text)

    def close(self) -> None:
        self.bar.stop()


def track(
    items: Iterable[Item],
    noun: str,
    counts: Callable[[], tuple[int, int]],
    *,
    stream: TextIO | None = None,
    plain: bool = False,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[Item]:
    """Yield ``items``, showing ``counts()`` = ``(returned, calls)`` on ``stream`` (stderr).

    Nothing is drawn unless the stream is a terminal, nor before :data:`SHOW_AFTER_S`.
    """
    out = sys.stderr if stream is None else stream
    if not out.isatty():
        yield from items
        return
    start = last = clock()
    shown: Any = None
    try:
        for item in items:
            yield item
            now = clock()
            if now - start < SHOW_AFTER_S or now - last < EVERY_S:
                continue
            last = now
            if shown is None:
                shown = _Plain(out) if plain or Progress is None else _Rich(out)
            returned, calls = counts()
            rate = returned / (now - start)
            text = f"{returned:,} {noun}, {calls:,} calls, {rate:,.0f} {noun}/s"
            shown.update(text if not isinstance(shown, _Plain) else f"{text}, {now - start:.1f} s")
    finally:
        if shown is not None:
            shown.close()
