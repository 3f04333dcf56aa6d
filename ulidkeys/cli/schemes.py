"""``ulidkeys schemes``: every id scheme the registry knows, for ``--scheme``."""

from __future__ import annotations

import argparse

from ulidkeys.cli.options import (
    Command,
    add_output,
)
from ulidkeys.cli.output import Row, emit
from ulidkeys.ids.protocol import IdScheme
from ulidkeys.ids.registration import Registration
from ulidkeys.ids.registry import REGISTRATIONS
from ulidkeys.timeinput import (
    MAX_DATETIME_MS,
    ms_to_datetime,
)

#: Where the subcommand stands in ``ulidkeys --help``.
ORDER = 80


def register(command: Command) -> None:
    """Add the subcommand, its options and its handler."""
    schemes = command("schemes", "the id schemes ulidkeys knows (for --scheme)")
    add_output(schemes)
    schemes.set_defaults(handler=run)


def _scheme_row(entry: Registration, scheme: IdScheme) -> Row:
    timed = scheme.sorts_by_time
    return {
        "name": entry.name,
        "length": scheme.length,
        "resolution_ms": scheme.resolution_ms if timed else None,
        "first_year": _year(max(scheme.min_ms, 0)) if timed else None,
        "last_year": _year(scheme.max_ms) if timed else None,
        "windows": timed,
        "new": entry.generated,
        "about": entry.summary,
    }


def _year(ms: int) -> int:
    """The UTC year of ``ms`` (by the mean Gregorian year past what a datetime holds)."""
    if ms <= MAX_DATETIME_MS:
        return ms_to_datetime(ms).year
    return 1970 + ms // 31_556_952_000


def _scheme_text(row: Row) -> str:
    years = f"{row['first_year']}-{row['last_year']}" if row["windows"] else "no time"
    step = "" if row["resolution_ms"] is None else f"{row['resolution_ms']} ms"
    flags = ("windows" if row["windows"] else "-") + (" new" if row["new"] else "")
    name, length = row["name"], row["length"]
    return f"{name:<18} {length:>3}  {step:>7}  {years:<10}  {flags:<11}  {row['about']}"


def run(args: argparse.Namespace) -> int:
    """Every id scheme the library knows, from the registry: name, text length, time step,
    years its ids cover, whether windows work and ``new`` makes them, and what they are."""
    rows = [_scheme_row(entry, entry.sample) for entry in REGISTRATIONS if entry.sample is not None]
    emit(rows, args.output, _scheme_text)
    return 0
