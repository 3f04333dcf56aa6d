"""Shared helpers for the pages-of-columns tests of S3 and DynamoDB (no tests here): the rows
of pages of columns, and the check that a listing handed out as pages is the same listing
handed out as items."""

from __future__ import annotations

from typing import Any


def page_rows(pages: list[dict[str, list[Any]]], names: list[str]) -> list[tuple]:
    """The rows of pages of columns (each page exactly the columns asked, of one length)."""
    rows: list[tuple] = []
    for page in pages:
        assert list(page) == names
        assert len({len(column) for column in page.values()}) == 1
        assert all(isinstance(column, list) for column in page.values())
        rows += zip(*page.values(), strict=True)
    return rows


def assert_same_listing(
    by_items: Any,
    by_pages: Any,
    rows: list[tuple],
    pages: list[dict[str, list[Any]]],
    names: list[str],
    exact: bool = True,
) -> None:
    """``pages`` (of ``by_pages``) hold ``rows`` (what the items of ``by_items`` give), and
    the two listings end at the same position and cursor; the same stats where the calls do
    not follow the answers' timing (``exact``: a split listing's slices do)."""
    assert page_rows(pages, names) == rows
    assert by_pages.cursor == by_items.cursor
    assert by_pages.position == by_items.position
    assert by_pages.stats.returned == by_items.stats.returned == len(rows)
    if exact:
        assert by_pages.stats == by_items.stats
