"""``ulidkeys survey``: what an S3 prefix or a DynamoDB partition holds and the layout or entity
that fits it - shape, oldest and newest, how many and when (exact when read whole, else
a range that holds the truth, or unknown), what a window costs - in a bounded number of calls.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from ulidkeys.cli.aws import aws_session
from ulidkeys.cli.options import Command, add_connection, add_output, count_arg
from ulidkeys.cli.output import emit
from ulidkeys.cli.paths import atomic_file, output_file
from ulidkeys.dynamodb import PartitionSurvey
from ulidkeys.dynamodb import survey as survey_partition
from ulidkeys.errors import InvalidValue
from ulidkeys.planning.locations import check_prefix, split_s3_url
from ulidkeys.s3 import Survey, survey
from ulidkeys.survey.common import DEFAULT_MAX_CALLS, MIN_CALLS
from ulidkeys.survey.counts import Count
from ulidkeys.timeinput import format_ms

#: Where the subcommand stands in ``ulidkeys --help``.
ORDER = 45
#: Width of the histogram's longest bar.
BAR = 40


def register(command: Command) -> None:
    """Add the subcommand, its options and its handler."""
    surveyed = command(
        "survey",
        "what an S3 prefix or a DynamoDB partition holds, and the layout or entity that fits it",
    )
    surveyed.add_argument(
        "location", help="s3://BUCKET/PREFIX (a folder ends in '/') or dynamodb://TABLE"
    )
    surveyed.add_argument(
        "--pk", metavar="VALUE", help="dynamodb:// only: the partition key value, e.g. 'Org#acme'"
    )
    surveyed.add_argument("--pk-attr", default="PK", help="partition key attribute (default PK)")
    surveyed.add_argument("--sk-attr", default="SK", help="sort key attribute (default SK)")
    surveyed.add_argument(
        "--max-calls",
        type=count_arg,
        default=DEFAULT_MAX_CALLS,
        metavar="N",
        help=f"ListObjectsV2 calls at most (default {DEFAULT_MAX_CALLS}; at least {MIN_CALLS})",
    )
    surveyed.add_argument(
        "--plot", metavar="FILE.png", help="also draw the keys over time (needs matplotlib)"
    )
    add_output(surveyed)
    add_connection(surveyed)
    surveyed.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Survey the prefix or partition and print what was found."""
    if args.location.startswith("dynamodb://"):
        return _partition(args)
    if args.pk is not None:
        raise InvalidValue("--pk names a DynamoDB partition: give dynamodb://TABLE with it")
    bucket, prefix = split_s3_url(args.location)
    if prefix:
        check_prefix(prefix, location=args.location)
    if args.max_calls < MIN_CALLS:
        raise InvalidValue(f"--max-calls {args.max_calls}: a survey needs at least {MIN_CALLS}")
    plot = _plotter(args)
    session = aws_session(args)
    client = session.client("s3", endpoint_url=args.endpoint_url)
    found = survey(client, bucket, prefix, max_calls=args.max_calls)
    return _show(args, found, plot, text_of(found))


def _show(args: argparse.Namespace, found: Survey | PartitionSurvey, plot: Any, text: str) -> int:
    """Draw the plot if asked, print the survey in the chosen output form."""
    if plot is not None:
        _draw(found, plot, args.plot)
    if args.output == "json":  # one survey: one object, not an array of one
        print(json.dumps(found.as_dict(), indent=2, ensure_ascii=False))
        return 0
    emit([found.as_dict()], args.output, lambda row: text)
    return 0


#: Formats matplotlib lists that need more than matplotlib and Pillow (pgf: a LaTeX install).
_NOT_DRAWN = frozenset({"pgf"})


def _plotter(args: argparse.Namespace) -> Any:
    """matplotlib's pyplot for ``--plot`` (None without it), the path checked first: a file
    that cannot be written or a format matplotlib does not draw fails before the first
    request, not after the survey's calls are spent."""
    if args.plot is None:
        return None
    output_file(args.plot, "--plot", "keys.png")
    try:
        import matplotlib  # the plot is optional: only --plot needs it

        matplotlib.use("Agg")
        from matplotlib import pyplot
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        raise InvalidValue("--plot needs matplotlib: pip install matplotlib") from None
    formats = sorted(set(FigureCanvasBase.get_supported_filetypes()) - _NOT_DRAWN)
    suffix = Path(args.plot).suffix.lower().lstrip(".")
    if suffix not in formats:
        raise InvalidValue(
            f"--plot {args.plot!r}: the file's extension picks the format; end it in one of "
            + ", ".join(f".{name}" for name in formats)
        )
    return pyplot


def _partition(args: argparse.Namespace) -> int:
    """``survey dynamodb://TABLE --pk VALUE``."""
    table = args.location[len("dynamodb://") :]
    if not table or "/" in table:
        raise InvalidValue(f"{args.location!r}: give dynamodb://TABLE (the table's name)")
    if not args.pk:
        raise InvalidValue("dynamodb:// surveys one partition: give --pk VALUE, e.g. 'Org#acme'")
    # as query refuses them: sent as they are, DynamoDB's refusal would read as its failure
    for flag, attr in (("--pk-attr", args.pk_attr), ("--sk-attr", args.sk_attr)):
        if not attr:
            raise InvalidValue(f"{flag} '' names no attribute: give the table's key attribute")
    if args.pk_attr == args.sk_attr:
        raise InvalidValue(
            f"--pk-attr and --sk-attr are both {args.pk_attr!r}: the partition key and the sort "
            "key are two attributes"
        )
    plot = _plotter(args)
    client = aws_session(args).client("dynamodb", endpoint_url=args.endpoint_url)
    found = survey_partition(
        client,
        args.pk,
        table_name=table,
        pk_attr=args.pk_attr,
        sk_attr=args.sk_attr,
        max_calls=args.max_calls,
    )
    return _show(args, found, plot, partition_text(found))


def partition_text(found: PartitionSurvey) -> str:
    """The partition survey for people."""
    # no kind holds an id at a part of its own: the items counted end in one
    what = "items of the main kind" if found.main is not None else "items that end in an id"
    lines = [f"{found.location}: {found.keys} {what}" + _calls(found)]
    if found.kinds:
        lines.append("sort keys")
        total = sum(kind.count for kind in found.kinds)
        for kind in found.kinds[:12]:
            share = kind.count * 100 / max(1, total)
            lines.append(f"  {kind.template:<40} {kind.scheme or '-':<18} {share:5.1f}%")
        if len(found.kinds) > 12:
            lines.append(f"  ... and {len(found.kinds) - 12} more kinds")
    lines += _times(found)
    if found.collection is not None:
        lines += ["", f"as Python:   {found.entity}", f"collection:  {found.collection}"]
        lines += ["in ulidkeys.toml:", found.config or ""]
        return _ending(lines, found, None)
    return _ending(lines, found, found.entity)


def text_of(found: Survey) -> str:
    """The survey for people: layout, times, counts, a histogram in bars, window costs and the
    layout as Python and as a config block."""
    lines = [f"{found.location}: {found.keys} keys" + _calls(found)]
    shape = found.shape
    if shape is None:
        return "\n".join([*lines, *(f"note: {note}" for note in found.notes)])
    folders = []
    if shape.other_period:
        folders.append(f"period folders such as {shape.other_period!r}")
    if shape.shards:
        seen = "" if shape.shards_known else "at least "
        folders.append(f"{seen}{shape.shards} shard folders")
    if shape.period:
        folders.append(f"{shape.period} folders")
    scheme = shape.scheme or "no known id scheme"
    order = ", newest first" if shape.newest_first else ""
    lines.append(f"layout       {', '.join([*folders, scheme]) + order}")
    if shape.alternatives:
        lines.append(f"             the ids also read as {', '.join(shape.alternatives)}")
    sampled = shape.fitting + shape.junk
    shares = ", ".join(
        f"{suffix or '(none)'} {count * 100 / max(1, shape.fitting):.0f}%"
        for suffix, count in shape.suffixes.items()
    )
    lines.append(f"suffixes     {shares or '-'}")
    # no layout: the keys counted are those that end in an id, the others hold none
    lines.append(
        f"{'not fitting' if shape.placed else 'no id':<11}  {shape.junk:,} of {sampled:,} keys read"
    )
    lines += [f"             e.g. {example!r}" for example in shape.examples]
    lines += _times(found)
    if found.costs:
        lines.append("")
        lines.append(f"{'window':<8} {'calls':>6} {'keys read':>12}   full listing: calls, keys")
        for name, cost in found.costs:
            lines.append(
                f"{name:<8} {math.ceil(cost.calls):>6,} {f'{cost.keys:,.0f}':>12}   "
                f"{math.ceil(cost.full_calls):,}, {cost.full_keys:,.0f}"
            )
    return _ending(lines, found, found.python)


def _calls(found: Survey | PartitionSurvey) -> str:
    how = "read whole" if found.exact else "read in part"
    return f", {how} in {found.calls} of at most {found.max_calls} calls"


def _times(found: Survey | PartitionSurvey) -> list[str]:
    """Oldest, newest, the rate and the histogram's bars."""
    lines = []
    if found.oldest_ms is not None and found.newest_ms is not None:
        lines.append(
            f"oldest       {format_ms(found.oldest_ms)}{_bound(found.oldest_exact, 'earlier')}"
        )
        lines.append(
            f"newest       {format_ms(found.newest_ms)}{_bound(found.newest_exact, 'later')}"
        )
    if found.per_day is not None:
        lines.append(f"per day      {_rate(found.per_day)}")
    return lines + _bars(found)


def _rate(per_day: Count) -> str:
    """A rate per day, below 10 with its first digits (24 years of 500 keys is 0.057 a day,
    not 0)."""
    if per_day.exact and per_day.low < 10:
        return f"{per_day.low:.3g} (exact)"
    return str(per_day)


def _bound(exact: bool, beyond: str) -> str:
    """What a time read means: exact, or the truth is that or ``beyond``."""
    return (
        "" if exact else f" or {beyond} (the {'oldest' if beyond == 'earlier' else 'newest'} read)"
    )


def _ending(lines: list[str], found: Survey | PartitionSurvey, python: str | None) -> str:
    """``lines``, then the declaration to copy (as Python and as config) and the notes."""
    if python is not None:
        lines += ["", f"as Python:   {python}", "in ulidkeys.toml:", found.config or ""]
    lines += [f"note: {note}" for note in found.notes]
    return "\n".join(line.rstrip() for line in lines).rstrip()


def _bars(found: Survey | PartitionSurvey) -> list[str]:
    """The histogram as bars: a bin's count when exact, its range's top as the bar otherwise."""
    if not found.histogram:
        return []
    tops = [_top(keys) for _, keys in found.histogram]
    top = max(tops) or 1
    what = "" if found.exact else f" (ranges at {found.histogram[0][1].confidence:.3%})"
    lines = ["", "keys over time" + what]
    for (start, keys), high in zip(found.histogram, tops, strict=True):
        bar = "#" * round(BAR * high / top)
        shown = f"{keys.low:,.0f}" if keys.exact else f"{keys.low:,.0f}..{high:,.0f}"
        lines.append(f"{format_ms(start)[:16]}  {bar:<{BAR}} {shown}")
    return lines


def _top(count: Count) -> float:
    """The top of a count's range (histograms hold no unknown bins)."""
    return count.low if count.high is None else count.high


def _draw(found: Survey | PartitionSurvey, plot: Any, path: str) -> None:
    """The histogram as a bar chart in ``path``: exact counts as bars; ranges as bars to their
    sure lower bound with the range drawn above."""
    figure, axes = plot.subplots(figsize=(9, 3.6))
    starts = [format_ms(start)[:16] for start, _ in found.histogram]
    low = [keys.low for _, keys in found.histogram]
    high = [_top(keys) for _, keys in found.histogram]
    axes.bar(range(len(low)), low, color="#2b6cb0")
    if not found.exact:
        axes.bar(range(len(low)), [h - lo for lo, h in zip(low, high, strict=True)],
                 bottom=low, color="#90cdf4", label="range")  # fmt: skip
        axes.legend(fontsize=7)
    step = max(1, len(starts) // 6)
    axes.set_xticks(range(0, len(starts), step), starts[::step], fontsize=7)
    axes.set_ylabel("keys")
    axes.set_title(f"{found.location}: keys over time", fontsize=10)
    figure.tight_layout()
    target = output_file(path, "--plot", "keys.png")  # checked before the calls; symlinks read
    try:  # written beside the file and renamed over it: never half a picture
        with atomic_file(target, "--plot", binary=True) as out:
            figure.savefig(out, format=target.suffix.lower().lstrip("."), dpi=100)
    finally:
        plot.close(figure)
