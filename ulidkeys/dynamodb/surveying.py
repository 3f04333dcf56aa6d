"""``survey(table, partition)``: what one partition of a table holds - its sort key templates
and their shares, the oldest and newest items of the main kind, how many and when - in a bounded
number of Query calls (the program is :mod:`ulidkeys.survey`; this maps it onto a client)."""

from __future__ import annotations

from ulidkeys.dynamodb.clients import TableOrClient, Target
from ulidkeys.dynamodb.pages import install_fast_pages
from ulidkeys.dynamodb.table import QuerySource
from ulidkeys.engine.chains import Stats
from ulidkeys.engine.threads import outcome
from ulidkeys.errors import InvalidValue, describe
from ulidkeys.survey.common import DEFAULT_MAX_CALLS
from ulidkeys.survey.dynamodb import PartitionSurvey, partition_survey_program


def survey(
    table_or_client: TableOrClient,
    partition: str,
    *,
    table_name: str | None = None,
    pk_attr: str = "PK",
    sk_attr: str = "SK",
    separator: str = "#",
    max_calls: int = DEFAULT_MAX_CALLS,
    page_items: int | None = None,
) -> PartitionSurvey:
    """What the partition ``pk_attr = partition`` holds, in at most ``max_calls`` Query calls:
    the kinds of sort keys (``Post#{id}``, children such as ``Post#{id}#Comment#{id2}``) with
    their shares, and for the most frequent kind with an id: its oldest and newest items, how
    many there are (exact for a partition read whole, else estimated with a range), a histogram,
    and the ``Entity`` and config table that declare it. Takes a ``Table`` resource or a client
    (with ``table_name=``), like :class:`~ulidkeys.dynamodb.Table`; ``page_items`` limits the
    first pages read (default: DynamoDB's 1 MB pages)."""
    if not isinstance(partition, str) or not partition:
        raise InvalidValue(f"partition={describe(partition)} must be a partition key (text)")
    target = Target.resolve(table_or_client, table_name)
    source = QuerySource(target, fast_pages=install_fast_pages(target.client))
    stats = Stats()
    program = partition_survey_program(
        target.table_name,
        partition,
        stats,
        pk_attr=pk_attr,
        sk_attr=sk_attr,
        separator=separator,
        max_calls=max_calls,
        page_items=page_items,
    )
    found: PartitionSurvey = outcome(program, source, stats=stats)
    return found
