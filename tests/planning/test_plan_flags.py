"""A flag is a bool: ``newest_first="false"`` (text from a form, an environment variable or a
config) would be true by its truth and read the window in the opposite order, so every planner
and key declaration refuses anything but a bool, naming the flag."""

from __future__ import annotations

from collections.abc import Callable

import boto3
import pytest
from moto import mock_aws

from ulidkeys.dynamodb import Entity, Table
from ulidkeys.errors import InvalidType
from ulidkeys.planning import listings, queries
from ulidkeys.s3 import KeyLayout

HOUR = 3_600_000
T0 = 1_715_936_400_000
POST = Entity(pk="Org#{org}", sk="Post#{id}")
LAYOUT = KeyLayout(prefix="up/")

PLANNERS: dict[str, Callable[[object], object]] = {
    "s3 plan newest_first": lambda flag: listings.plan_listing(
        LAYOUT,
        T0,
        T0 + HOUR,
        newest_first=flag,
        directory_bucket=True,  # type: ignore[arg-type]
    ),
    "s3 plan directory_bucket": lambda flag: listings.plan_listing(
        LAYOUT,
        T0,
        T0 + HOUR,
        directory_bucket=flag,  # type: ignore[arg-type]
    ),
    "query plan newest_first": lambda flag: queries.plan_query(
        POST,
        queries.QueryWindow(
            T0,
            T0 + HOUR,
            newest_first=flag,  # type: ignore[arg-type]
            fields={"org": "a"},
        ),
    ),
    "layout newest_first": lambda flag: KeyLayout(prefix="x/", newest_first=flag),  # type: ignore[arg-type]
    "entity newest_first_keys": lambda flag: Entity(
        pk="O#{org}",
        sk="P#{id}",
        newest_first_keys=flag,  # type: ignore[arg-type]
    ),
}


@pytest.mark.parametrize("flag", ["false", "true", "", 0, 1, None, 0.0])
@pytest.mark.parametrize("planner", PLANNERS, ids=str)
def test_a_flag_that_is_not_a_bool_is_refused(planner: str, flag: object) -> None:
    name = planner.split()[-1]
    with pytest.raises(InvalidType, match=rf"^{name}=.* must be a bool"):
        PLANNERS[planner](flag)


@pytest.mark.parametrize("planner", PLANNERS, ids=str)
def test_the_bools_still_plan(planner: str) -> None:
    for flag in (False, True):
        if planner == "s3 plan directory_bucket" and flag is False:
            continue  # newest_first defaults to False: nothing to refuse either way
        PLANNERS[planner](flag)


def test_the_table_refuses_a_text_flag_before_any_call() -> None:
    """``Table.query_window(newest_first="false")`` read newest first (the hostile-data sweep
    found it); it names the flag now, before any request (the table does not even exist)."""
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        table = Table(client, POST, table_name="nosuchtable")
        with pytest.raises(InvalidType, match="newest_first="):
            table.query_window(T0, T0 + HOUR, newest_first="false", org="a")  # type: ignore[arg-type]
