"""``ulidkeys inspect``: what ids are - scheme, time, fields and every form of each."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence

from ulidkeys.cli.options import (
    Command,
    add_output,
)
from ulidkeys.cli.output import Row, emit, report
from ulidkeys.errors import InvalidValue, UlidkeysError
from ulidkeys.ids.inspection import inspect

#: Where the subcommand stands in ``ulidkeys --help``.
ORDER = 20


def register(command: Command) -> None:
    """Add the subcommand, its options and its handler."""
    described = command("inspect", "what ids are: scheme, time and fields (ULID, UUID, ...)")
    described.add_argument(
        "ids", nargs="*", metavar="ID", help="ids to inspect; '-' or none: one per line of stdin"
    )
    described.add_argument("--json", action="store_true", help="the same as --output jsonl")
    described.add_argument(
        "--scheme", help="read every id as this scheme (e.g. discord-snowflake, typeid)"
    )
    add_output(described)
    described.set_defaults(handler=run)


#: Longest line of stdin read as an id: far past any id (a TypeID is at most 90 characters),
#: short enough that a stream without newlines (``< /dev/zero``) is refused, not buffered.
MAX_LINE = 4096


def _stdin_line() -> str:
    """The next line of stdin ('' at its end), at most :data:`MAX_LINE` + 1 characters."""
    try:
        return sys.stdin.readline(MAX_LINE + 1)
    except UnicodeDecodeError as error:  # a strict UTF-8 locale; the C locale escapes instead
        raise InvalidValue(f"stdin is not UTF-8 text ({error.reason}): give ids as text") from None


def _id_lines(ids: Sequence[str]) -> Iterator[str]:
    """The ids given, or one per line of stdin for ``-`` or none (blank lines skipped)."""
    for text in ids or ["-"]:
        if text != "-":
            yield text
            continue
        if sys.stdin is None:  # `<&-`: Python starts without a stdin
            raise InvalidValue("inspect reads ids from stdin, which is closed: give the ids")
        for number, line in enumerate(iter(_stdin_line, ""), 1):
            if len(line.rstrip("\r\n")) > MAX_LINE:
                raise InvalidValue(
                    f"stdin line {number} is longer than {MAX_LINE} characters: no id is "
                    "(give a file of ids, one per line)"
                )
            if line.strip():
                yield line.strip()


#: How ``inspect`` labels the forms of an id in text (JSON keeps the plain names).
_FORM_LABELS = {"key": "key form", "decimal": "as typed", "uuid": "as uuid", "ulid": "as ulid"}


def _inspection_text(row: Row) -> str:
    rows: list[tuple[str, object]] = [
        ("scheme", row["scheme"]),
        ("id", row["id"]),
        ("time", row["time"] or "-"),
        ("timestamp_ms", "-" if row["timestamp_ms"] is None else row["timestamp_ms"]),
        *row["fields"].items(),
        *((_FORM_LABELS.get(name, name), value) for name, value in row["forms"].items()),
        *(("note", note) for note in row.get("notes", ())),
        *(
            ("also", f"{alt['scheme']} ({alt['time'] or 'no time'})")
            for alt in row.get("alternatives", ())
        ),
    ]
    width = max(len(name) for name, _ in rows)
    block = "\n".join(f"{name:<{width}}  {value}" for name, value in rows)
    return block if row["_first"] else "\n" + block


def run(args: argparse.Namespace) -> int:
    output = "jsonl" if args.json else args.output
    failed = 0

    def rows() -> Iterator[Row]:
        nonlocal failed
        first = True
        for text in _id_lines(args.ids):
            try:
                found = inspect(text, scheme=args.scheme)
            except UlidkeysError as error:  # report it and go on with the other ids
                report(f"ulidkeys inspect: {error}")
                failed += 1
                continue
            row = {"input": text, **found.as_dict()}
            yield row if output != "text" else {**row, "_first": first}
            first = False

    emit(rows(), output, _inspection_text)
    return 2 if failed else 0
