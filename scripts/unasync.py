"""Write the thread shell (``ulidkeys/engine/threads.py``) from the asyncio shell
(``ulidkeys/engine/tasks.py``), the one source of both: ``make twins`` (or
``python scripts/unasync.py``); ``--check`` exits 1 when the committed twin differs.

The twin is the source with its asyncio words replaced by their blocking twins (``await x`` ->
``x``, ``async for`` -> ``for``, ``AsyncResults`` -> ``Results``, ``TaskPool`` -> ``ThreadPool``
...), a line marked ``# unasync: <code>`` replaced by that code, a docstring of its own, then
its imports sorted and formatted with ruff - the way httpcore keeps its sync twin.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "ulidkeys" / "engine" / "tasks.py"
TWIN = ROOT / "ulidkeys" / "engine" / "threads.py"

#: Whole words of the source and what the twin says instead.
WORDS = {
    "AsyncConsumption": "Consumption",
    "AsyncIterator": "Iterator",
    "AsyncPageSource": "PageSource",
    "AsyncResults": "Results",
    "StopAsyncIteration": "StopIteration",
    "TaskPool": "ThreadPool",
    "__aenter__": "__enter__",
    "__aexit__": "__exit__",
    "__aiter__": "__iter__",
    "__anext__": "__next__",
    "aclose": "close",
    "anext": "next",
}
#: Phrases replaced before the words.
PHRASES = {
    "``async with``": "``with``",
    "``async for``": "``for``",
    "import asyncio\n": "import time\n",
    "asyncio.sleep": "time.sleep",
    "async def ": "def ",
    "async for ": "for ",
    "async with ": "with ",
    "await ": "",
}
PRAGMA = re.compile(r"^(?P<indent>\s*)\S.*#\s*unasync:\s*(?P<code>.+?)\s*$")
DOCSTRING = '''"""The thread shell of the engine: plans, programs and consumer runs carried out on a
pool of threads, at most ``max_workers`` requests in flight.

Generated from :mod:`ulidkeys.engine.tasks`, the asyncio shell, by ``scripts/unasync.py``: do
not edit it; change that module and run ``make twins``. Everything it decides is the I/O-free
machines' (:class:`~ulidkeys.engine.scheduling.Schedule`, the programs of
:mod:`ulidkeys.engine.operations`, :class:`~ulidkeys.engine.consuming.Delivery`); this shell
only sends and waits.
"""'''


def twin_text(source: str) -> str:
    """The thread shell's text for the asyncio shell's ``source`` (before formatting)."""
    if not source.startswith('"""'):
        raise SystemExit(f"{SOURCE}: expected a module docstring first")
    end = source.index('"""', 3) + 3
    body = source[end:]
    lines = []
    for line in body.splitlines(keepends=True):
        pragma = PRAGMA.match(line)
        lines.append(f"{pragma['indent']}{pragma['code']}\n" if pragma else line)
    body = "".join(lines)
    for phrase, replacement in PHRASES.items():
        body = body.replace(phrase, replacement)
    words = re.compile(r"\b(" + "|".join(map(re.escape, WORDS)) + r")\b")
    body = words.sub(lambda match: WORDS[match.group(1)], body)
    return DOCSTRING + body


def formatted(text: str) -> str:
    """``text`` with its imports sorted and formatted as ruff does it (the project's settings)."""
    for command in (["check", "--select", "I", "--fix", "--quiet"], ["format"]):
        text = subprocess.run(
            [sys.executable, "-m", "ruff", *command, "--stdin-filename", str(TWIN), "-"],
            input=text,
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=True,
        ).stdout
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the twin is not current")
    args = parser.parse_args(argv)
    text = formatted(twin_text(SOURCE.read_text(encoding="utf-8")))
    if args.check:
        if TWIN.read_text(encoding="utf-8") != text:
            print(f"{TWIN.relative_to(ROOT)} is not generated from {SOURCE.name}: make twins")
            return 1
        return 0
    TWIN.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
