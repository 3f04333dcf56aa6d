"""``ulidkeys inspect``: what ids are - scheme, time, fields and every form of each."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence

from ulidkeys.cli.options import (
    Command,
    add_output,
)
from ulidkeys.cli.output import Row, report
from ulidkeys.errors import InvalidValue, UlidkeysError
from ulidkeys.ids.inspection import plain_dict
from ulidkeys.ids.pasted import read_pasted
from ulidkeys.ids.registry import registration_of
from ulidkeys.survey.pasted import layout_hint

#: Where the subcommand stands in ``ulidkeys --help``.
ORDER = 20


def register(command: Command) -> None:
    """Add the subcommand, its options and its handler."""
    described = command("inspect", "what ids are: scheme, time and fields (ULID, UUID, ...)")
    described.add_argument(
        "ids",
        nargs="*",
        metavar="ID",
        help="ids to inspect, alone or as pasted: an S3 key, a DynamoDB key, an s3:// or S3 "
        "https:// URL, a braced UUID; an id starting with '-' is read as one (or give it after "
        "--); '-' or none: one per line of stdin",
    )
    described.add_argument("--json", action="store_true", help="the same as --output jsonl")
    described.add_argument(
        "--scheme",
        type=_scheme_name,
        help="read every id as this scheme (e.g. discord-snowflake, typeid)",
    )
    add_output(described)
    # None until -o is given: --json with an -o of another format is refused, not outvoted
    described.set_defaults(handler=run, output=None)


def _scheme_name(text: str) -> str:
    """An ``inspect --scheme`` name (a family such as ``typeid`` too: the text names its
    member), checked when parsed: a wrong one is one line, not one line per id read."""
    try:
        registration_of(text)
    except UlidkeysError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


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
    ms, fields, forms = row["timestamp_ms"], row["fields"], row["forms"]
    names = ["scheme", "id", "time", "timestamp_ms", *fields]
    names += [_FORM_LABELS.get(name, name) for name in forms]
    values = [row["scheme"], row["id"], row["time"] or "-", "-" if ms is None else ms]
    values += [*fields.values(), *forms.values()]
    if len(row) > len(_PLAIN_ROW):  # an ambiguity, notes, other readings, a pasted key
        after: list[tuple[str, object]] = [
            *(("note", note) for note in row.get("notes", ())),
            *(
                ("also", f"{alt['scheme']} ({alt['time'] or 'no time'})")
                for alt in row.get("alternatives", ())
            ),
            *_found_in(row),
        ]
        names += [name for name, _ in after]
        values += [value for _, value in after]
        if row.get("ambiguous"):
            names.insert(0, "ambiguous")
            values.insert(0, _ambiguity(row))
    key = tuple(names)
    template = _TEMPLATES.get(key)
    if template is None:  # the block of a scheme's names, made once (a listing's share them)
        width = max(map(len, names))
        padded = (f"{name:<{width}}  " for name in names)
        template = "\n".join(name.replace("{", "{{").replace("}", "}}") + "{}" for name in padded)
        if len(_TEMPLATES) < 1024:
            _TEMPLATES[key] = template
    return template.format(*values)


#: The blocks printed so far (``str.format`` templates), by their names.
_TEMPLATES: dict[tuple[str, ...], str] = {}


#: The keys of the row of one reading with nothing more to say.
_PLAIN_ROW = ("input", "scheme", "id", "time", "timestamp_ms", "fields", "forms")


def _ambiguity(row: Row) -> str:
    """``twitter-snowflake 2012-03-03T..., discord-snowflake 2016-04-30T...``: every plausible
    reading with its time, the first the one shown below."""
    times = {row["scheme"]: row["time"]}
    times.update((alt["scheme"], alt["time"]) for alt in row.get("alternatives", ()))
    readings = ", ".join(f"{name} {times.get(name) or 'no time'}" for name in row["ambiguous"])
    return f"{readings} (pass --scheme to choose)"


def _found_in(row: Row) -> list[tuple[str, object]]:
    """Where a pasted text held the id, and the layout that reads such keys."""
    found = row.get("found_in")
    if not found:
        return []
    lines: list[tuple[str, object]] = [("found in", found["key"])]
    if found.get("bucket"):
        lines.append(("bucket", found["bucket"]))
    layout = found.get("layout")
    if layout:
        lines.append(("layout" if layout["kind"] == "s3" else "sort key", layout["layout"]))
        lines.append(("list with", layout["command"]))
        if "note" in layout:
            lines.append(("note", layout["note"]))
    return lines


def _row(text: str, scheme: str | None) -> dict[str, object]:
    """What ``inspect`` prints for one text: its reading, and where a pasted text held it."""
    if scheme is None:
        bare = text.strip()
        if not (bare.isascii() and bare.isdigit()):  # a number is weighed by read_pasted
            plain = plain_dict(bare)  # most lines of a listing: one id, nothing to note
            if plain is not None:
                plain["input"] = text  # (where: the JSON is sorted, the text names the keys)
                return plain
    pasted = read_pasted(text, scheme)
    row: dict[str, object] = {"input": text}
    if pasted.ambiguous:
        row["ambiguous"] = list(pasted.ambiguous)
    row.update(pasted.reading.as_dict())
    if not pasted.whole:
        hint = layout_hint(pasted)
        row["found_in"] = {
            "key": pasted.key,
            "start": pasted.start,
            "end": pasted.end,
            **({"bucket": pasted.bucket} if pasted.bucket else {}),
            **({"layout": hint.as_dict()} if hint else {}),
        }
    return row


def _json(row: Row) -> str:
    """``json_text(row)`` for a row of ``inspect`` (strings, ints, None, lists and dicts of
    them): the same text from the C encoder, which a listing read from stdin is worth (one
    encoder: ``json.dumps`` makes one a call)."""
    return _ENCODE(row)


#: ``json.dumps(row, sort_keys=True)``.
_ENCODE = json.JSONEncoder(sort_keys=True).encode


#: Rows written to stdout at once: one write per batch, not per id (reading a listing from a
#: pipe or a file); ids given as words and a terminal get each row as it is read.
BATCH = 512


def run(args: argparse.Namespace) -> int:
    if args.json and args.output not in (None, "jsonl"):
        raise InvalidValue(
            f"--json is --output jsonl; it does not go with --output {args.output}: give one"
        )
    output = "jsonl" if args.json else args.output or "text"
    failed = 0
    write = sys.stdout.write
    # ids given as words, or typed at a terminal: each row as soon as it is read
    piped = not args.ids and sys.stdin is not None and not sys.stdin.isatty()
    batch = BATCH if piped else 1
    pending: list[str] = []
    count = 0
    for text in _id_lines(args.ids):
        try:
            row = _row(text, args.scheme)
        except UlidkeysError as error:  # report it and go on with the other ids
            if pending:  # what was read before it is printed before its line
                write("".join(pending))
                pending.clear()
                sys.stdout.flush()
            report(f"ulidkeys inspect: {error}")
            failed += 1
            continue
        if output == "text":
            pending.append(("\n" if count else "") + _inspection_text(row) + "\n")
        elif output == "jsonl":
            pending.append(_json(row) + "\n")
        else:
            pending.append(("[\n  " if count == 0 else ",\n  ") + _json(row))
        count += 1
        if len(pending) >= batch:
            write("".join(pending))
            pending.clear()
    if output == "json":
        pending.append("[]\n" if count == 0 else "\n]\n")
    write("".join(pending))
    return 2 if failed else 0
