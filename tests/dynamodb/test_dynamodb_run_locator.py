"""A query plan's ``locate_run`` - its test of a whole page of sort keys at once, the fast path
of a window's pages - gives every key's ``locate`` verdict when all of them fit, and None as
soon as one does not: over sort key templates with fields before the id and text after it,
every sortable scheme, newest-first keys, and hostile keys among fitting ones (children of an
item, near misses, keys of another prefix, ids past the largest, values that are no text)."""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from idsupport import SORTABLE, id_at
from profiles import examples

from ulidkeys.dynamodb import Entity
from ulidkeys.engine.chains import ChainState, Page, Stats
from ulidkeys.ids.protocol import IdScheme
from ulidkeys.ids.ulids import ULID_SCHEME

DAY = 86_400_000
START = 1_715_936_400_000
#: (sort key template, the query's fields): the id last, text after it, fields before it.
TEMPLATES = [
    ("Post#{id}", {}),
    ("{id}", {}),
    ("Post#{id}#v1", {}),
    ("Post#{kind}#{id}", {"kind": "note"}),
    ("Post#{id}#{rev}", {}),  # a field after the id: read key by key
]


def mutations(key: str, rng: random.Random) -> list[Any]:
    """Near misses of ``key``: characters changed, cut, extended, a child item's key, other
    types of value."""
    last = "2" if key[-1] != "2" else "3"
    out: list[Any] = [key[:-1], key[:-1] + last, key + "x", key + "#Comment#1", key.lower()]
    for _ in range(6):
        i = rng.randrange(len(key))
        out.append(key[:i] + rng.choice("0129AZaz#_-8") + key[i + 1 :])
    return out


#: The schemes whose ids a page's keys can be checked for at once (the others: key by key).
BULK = [scheme for scheme in SORTABLE if hasattr(scheme, "all_canonical")]


@pytest.mark.parametrize("scheme", SORTABLE, ids=lambda scheme: scheme.name)
@pytest.mark.parametrize("newest_first_keys", [False, True])
@pytest.mark.parametrize("template", TEMPLATES, ids=lambda template: template[0])
def test_which_queries_read_a_page_at_once(
    scheme: IdScheme, newest_first_keys: bool, template: tuple[str, dict[str, str]]
) -> None:
    """Keys whose ids run backwards, a field after the id, or a scheme without bulk checks
    are read key by key; every other query of a text sort key reads a page at once."""
    sk, fields = template
    entity = Entity(pk="Org#{org}", sk=sk, scheme=scheme, newest_first_keys=newest_first_keys)
    plan = entity.plan_window(START - 30 * DAY, START + 30 * DAY, org="acme", **fields)
    at_once = scheme in BULK and not newest_first_keys and not sk.endswith("{rev}")
    assert (plan.strategy.locate_run is not None) == at_once


@settings(max_examples=examples(100), deadline=None)
@given(
    scheme=st.sampled_from(BULK),
    template=st.sampled_from(TEMPLATES[:-1]),
    seed=st.integers(0, 2**32),
)
def test_the_run_locator_reads_a_page_as_locate_reads_each_key(
    scheme: IdScheme, template: tuple[str, dict[str, str]], seed: int
) -> None:
    sk, fields = template
    entity = Entity(pk="Org#{org}", sk=sk, scheme=scheme)
    plan = entity.plan_window(START - 30 * DAY, START + 30 * DAY, org="acme", **fields)
    strategy = plan.strategy
    run_locate = strategy.locate_run
    assert run_locate is not None
    rng = random.Random(seed)
    values = dict(fields)
    fitting = sorted(
        {
            entity.key(org="acme", id=id_at(scheme, START + rng.randrange(3 * DAY), rng), **values)[
                "SK"
            ]
            for _ in range(rng.randrange(1, 40))
        }
    )
    hostile: list[Any] = [m for key in fitting[:3] for m in mutations(key, rng)]
    hostile += [None, 7, Decimal(7), b"Post#"]
    runs: list[list[Any]] = [fitting, fitting[:1]]
    # an id past the largest, last in the page
    at = len(strategy.prefix)
    runs.append([*fitting, fitting[-1][:at] + "8" + fitting[-1][at + 1 :]])
    for bad in hostile:
        if isinstance(bad, str):
            runs.append(sorted({*fitting, bad}))  # a page is strictly ascending
        else:
            where = rng.randrange(len(fitting) + 1)
            runs.append([*fitting[:where], bad, *fitting[where:]])
    checked = 0
    for run in runs:
        verdicts = [strategy.locate(key) for key in run]
        got = run_locate(run)
        if None in verdicts:
            assert got is None, run
            continue
        if got is None:
            # read key by key: only for a key of another prefix, which locate() reads by
            # the template alone and a Query's BETWEEN never returns
            assert not all(key.startswith(strategy.prefix) for key in run), run
            continue
        ids = [v[0] for v in verdicts if v]
        times = [v[1] for v in verdicts if v]
        assert got == (ids, times[0], times[-1]), run
        checked += 1
    assert checked >= 2  # the fitting pages themselves are read at once


def test_a_page_with_an_item_without_its_sort_key_is_read_key_by_key() -> None:
    """An item without its sort key (no Query answer holds one, a hostile page may) is
    skipped, as key by key, rather than compared with the others' text on the fast path."""
    entity = Entity(pk="Org#{org}", sk="Post#{id}")
    plan = entity.plan_window(START - DAY, START + DAY, org="acme")
    rng = random.Random(7)
    keys = sorted(
        entity.key(org="acme", id=id_at(ULID_SCHEME, START + n, rng))["SK"] for n in range(3)
    )
    items = [{"SK": key, "n": n} for n, key in enumerate(keys)]
    page = Page([(None, {"n": -1}), *((item["SK"], item) for item in items)], None, 4)
    stats = Stats()
    got = ChainState(plan, plan.calls[0], stats).receive(page)
    assert [item for _position, item in got] == items
    assert stats.skipped == 1
    assert ChainState(plan, plan.calls[0], Stats()).receive(Page(page.entries[1:], None, 3)) == got
