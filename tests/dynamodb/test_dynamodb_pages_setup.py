"""The fast DynamoDB page reader in a changed setup: boto3's ``TypeDeserializer`` patched (the
common float patch, a subclass swapped in at module level), ``DYNAMODB_CONTEXT`` or
``Binary`` replaced, all after the reader was installed; a user's ``after-call`` hooks; and
botocore's DEBUG log of response bodies. In each, the library's values (and errors) are those
of ``fast_pages=False`` in the same setup, hooks see what they saw without the reader, and the
log shows the body DynamoDB sent. Every global patch is undone in its fixture's teardown."""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Callable, Iterator
from decimal import ROUND_HALF_EVEN, Context, Decimal, Inexact, InvalidOperation, Rounded
from types import SimpleNamespace
from typing import Any

import boto3
import boto3.dynamodb.transform
import boto3.dynamodb.types
import pytest
from boto3.dynamodb.types import Binary, TypeDeserializer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from moto import mock_aws
from profiles import examples
from readersupport import BEFORE_PARSE, needs_before_parse
from test_dynamodb_pages import (
    CREDENTIALS,
    MUTATIONS,
    POST,
    T0,
    Answering,
    answers,
    exact,
    outcome,
    store,
    stored_items,
)
from test_dynamodb_support import create_table

from ulidkeys.dynamodb import Table, install_fast_pages
from ulidkeys.dynamodb.clients import Target
from ulidkeys.dynamodb.table import QuerySource

_orgs = itertools.count()


class FloatDeserializer(TypeDeserializer):
    """The usual subclass: numbers as floats."""

    def _deserialize_n(self, value: str) -> Any:
        return float(value)


class TaggedBinary(Binary):
    """A Binary that says it is another class (what a replaced ``Binary`` would give)."""


def float_patch(patch: pytest.MonkeyPatch) -> None:
    """The common patch: ``TypeDeserializer._deserialize_n`` returns floats."""
    patch.setattr(TypeDeserializer, "_deserialize_n", lambda self, value: float(value))


def subclass_swapped(patch: pytest.MonkeyPatch) -> None:
    """A subclass swapped in where boto3 looks the class up (for plain clients' Targets and
    for resources created afterwards)."""
    patch.setattr(boto3.dynamodb.types, "TypeDeserializer", FloatDeserializer)
    patch.setattr(boto3.dynamodb.transform, "TypeDeserializer", FloatDeserializer)


def rounding_context(patch: pytest.MonkeyPatch) -> None:
    """12 digits, rounded silently (boto3's own raises on rounding)."""
    context = Context(
        Emin=-128, Emax=126, prec=12, rounding=ROUND_HALF_EVEN, traps=[InvalidOperation]
    )
    patch.setattr(boto3.dynamodb.types, "DYNAMODB_CONTEXT", context)


def strict_context(patch: pytest.MonkeyPatch) -> None:
    """12 digits, and any rounding raises (so do longer numbers, with and without the
    reader)."""
    context = Context(Emin=-128, Emax=126, prec=12, traps=[InvalidOperation, Inexact, Rounded])
    patch.setattr(boto3.dynamodb.types, "DYNAMODB_CONTEXT", context)


def binary_replaced(patch: pytest.MonkeyPatch) -> None:
    patch.setattr(boto3.dynamodb.types, "Binary", TaggedBinary)


SETUPS: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    "float patch": float_patch,
    "subclass swapped": subclass_swapped,
    "rounding context": rounding_context,
    "strict context": strict_context,
    "Binary replaced": binary_replaced,
}


@pytest.fixture(params=list(SETUPS))
def changed(request: pytest.FixtureRequest) -> Iterator[str]:
    """One changed setup, in force for the test and undone in teardown."""
    with pytest.MonkeyPatch.context() as patch:
        SETUPS[request.param](patch)
        yield request.param
    assert boto3.dynamodb.types.TypeDeserializer is TypeDeserializer  # undone
    assert boto3.dynamodb.types.Binary is Binary


def exact_values(value: Any) -> Any:
    """``exact`` that also tells a TaggedBinary from a Binary."""
    if isinstance(value, dict):
        return [(key, exact_values(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [exact_values(item) for item in value]
    if isinstance(value, (set, frozenset)):
        return sorted((exact_values(item) for item in value), key=repr)
    if isinstance(value, Binary):
        return (type(value).__name__, value.value)
    return exact(value)


SHIPPED_CONTEXT = boto3.dynamodb.types.DYNAMODB_CONTEXT


def store_as_shipped(table: Table, org: str, extras: list[dict[str, Any]]) -> None:
    """Items written with boto3's serializer as shipped: the setups change reads only."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(boto3.dynamodb.types, "DYNAMODB_CONTEXT", SHIPPED_CONTEXT)
        patch.setattr(boto3.dynamodb.types, "Binary", Binary)
        store(table, org, extras)


def numbers_and_blobs(n: int) -> dict[str, Any]:
    """Values the setups change: numbers past 12 digits, a number set, a blob."""
    return {
        "n": Decimal("1234567890.123456789") + n,
        "ns": {Decimal("0.1"), Decimal(12345678901234567 + n)},
        "b": Binary(b"\0\xff" + bytes([n % 256])),
        "m": {"deep": [Decimal("2.50"), Binary(b"x")]},
    }


# --- windows on moto: the library's values with and without the reader ----------------------


def forms(client: Any, resource: Any, fast: bool) -> dict[str, Table]:
    table = resource.Table("setup")
    return {
        "client": Table(client, POST, table_name="setup", fast_pages=fast),
        "table": Table(table, POST, fast_pages=fast),
        "resource_client": Table(table.meta.client, POST, table_name="setup", fast_pages=fast),
    }


def new_forms() -> dict[str, dict[str, Table]]:
    """Every client form with and without the reader, on clients of their own."""

    def clients() -> tuple[Any, Any]:
        return (
            boto3.client("dynamodb", **CREDENTIALS),  # type: ignore[call-overload]
            boto3.resource("dynamodb", **CREDENTIALS),  # type: ignore[call-overload]
        )

    return {"fast": forms(*clients(), True), "slow": forms(*clients(), False)}


@pytest.fixture(scope="module")
def moto_setup() -> Iterator[dict[str, Any]]:
    """A table, and every client form made (the reader installed) before any setup change."""
    with mock_aws():
        create_table(boto3.client("dynamodb", **CREDENTIALS), "setup")  # type: ignore[call-overload]
        yield new_forms()


def window_outcomes(tables: dict[str, dict[str, Table]], org: str, count: int) -> list[Any]:
    got = []
    for speed in ("slow", "fast"):
        for name, table in tables[speed].items():
            assert table.fast_pages == (speed == "fast" and BEFORE_PARSE)
            try:
                value = ("ok", exact_values(list(table.query_window(T0, T0 + count, org=org))))
            except Exception as error:
                value = ("raised", type(error).__name__)
            got.append((speed, name, value))
    return got


@settings(max_examples=examples(6), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(extras=stored_items)
def test_windows_in_a_changed_setup_are_those_of_fast_pages_false(
    moto_setup: dict[str, Any], changed: str, extras: list[dict[str, Any]]
) -> None:
    """Tables made before the change (the reader installed then) and after it (a resource
    and a Target made in the changed setup): every form, with the reader, gives what it gives
    without."""
    org = f"o{next(_orgs)}"
    extras = [{**extra, **numbers_and_blobs(n)} for n, extra in enumerate(extras)]
    store_as_shipped(moto_setup["slow"]["client"], org, extras)
    for tables in (moto_setup, new_forms()):
        got = window_outcomes(tables, org, len(extras))
        slow = [value for speed, _, value in got if speed == "slow"]
        fast = [value for speed, _, value in got if speed == "fast"]
        assert fast == slow, changed
        assert slow[0] == slow[1] == slow[2]  # every form alike, in every setup


def test_the_changes_change_the_values(moto_setup: dict[str, Any]) -> None:
    """The setups are no-ops for nothing: each changes what ``fast_pages=False`` yields (so
    the parity above is about something), and undoing it gives boto3's values back."""
    org = f"o{next(_orgs)}"
    store(moto_setup["slow"]["client"], org, [numbers_and_blobs(0)])
    shipped = window_outcomes(new_forms(), org, 1)
    for name, setup in SETUPS.items():
        with pytest.MonkeyPatch.context() as patch:
            setup(patch)
            assert window_outcomes(new_forms(), org, 1) != shipped, name
    assert window_outcomes(moto_setup, org, 1) == shipped


# --- hostile answers through botocore's stack: the library's page -----------------------


@pytest.fixture(scope="module")
def answering() -> Answering:
    """Clients made, and the reader installed, before any setup change."""
    return Answering()


def library_page(client: Any, fast: bool) -> Any:
    """What the library makes of one Query answer on ``client``: QuerySource's own fetch
    (the Target resolved now, in the setup in force)."""
    target = Target.resolve(client, "app")
    source = QuerySource(target, fast_pages=fast)
    call = SimpleNamespace(sk_attr="SK")
    with source.reading() as read:
        response = client.query(TableName="app", KeyConditionExpression="PK = :p")
    page = source.page(call, response, read.of(response))  # type: ignore[arg-type]
    return [item for _, item in page.entries]


def library_outcomes(answering: Answering, body: bytes) -> None:
    answering.body, answering.status = body, 200
    for form in ("plain", "resource"):
        slow = answering.clients[form]
        fast = answering.clients[f"{form}+reader"]
        alone = outcome(lambda c=slow: exact_values(library_page(c, False)))
        assert outcome(lambda c=fast: exact_values(library_page(c, True))) == alone, form


@settings(max_examples=examples(10), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=answers(), mutate=st.sampled_from([None, *MUTATIONS]))
def test_hostile_answers_in_a_changed_setup(
    answering: Answering, changed: str, body: bytes, mutate: Any
) -> None:
    if mutate is not None:
        body = mutate(json.dumps(json.loads(body), separators=(",", ":")).encode())
    library_outcomes(answering, body)


@pytest.mark.parametrize(
    "body",
    [
        b'{"Items":[{"n":{"N":"1234567890.123456789"},"ns":{"NS":["0.1","12345678901234567"]},'
        b'"b":{"B":"AP8="},"bs":{"BS":["AA=="]},"l":{"L":[{"N":"2.50"},{"B":"eA=="}]}}],'
        b'"Count":1,"ScannedCount":1}',
        b'{"Items":[{"n":{"N":"1E+130"}}],"Count":1}',  # beyond boto3's context
    ],
)
def test_answers_that_the_setups_change(answering: Answering, changed: str, body: bytes) -> None:
    library_outcomes(answering, body)


# --- user hooks ------------------------------------------------------------------------------


def hooked(client: Any, seen: list[Any], where: str) -> None:
    """A hook at each level of ``after-call`` for Query, recording what it sees then."""
    for event in ("after-call.dynamodb.Query", "after-call.dynamodb", "after-call"):

        def record(parsed: dict[str, Any], event: str = event, **_: Any) -> None:
            seen.append((where, event, json.dumps(exact(parsed.get("Items")), default=repr)))

        client.meta.events.register(event, record)


@pytest.mark.parametrize("form", ["client", "table", "resource_client"])
def test_hooks_see_what_they_saw_without_the_reader(moto_setup: dict[str, Any], form: str) -> None:
    """A user's hooks registered on a client (after its resource was made, before and after
    the Table is), at every level of ``after-call``: each sees, in the same order, exactly
    what it sees without the reader (typed maps before boto3's deserializer, plain values
    after it), and no other call (installing asks nothing of the client's hooks)."""
    org = f"o{next(_orgs)}"
    store(moto_setup["slow"]["client"], org, [numbers_and_blobs(n) for n in range(5)])
    seen: dict[bool, list[Any]] = {False: [], True: []}
    results = {}
    for fast in (False, True):
        client = boto3.client("dynamodb", **CREDENTIALS)  # type: ignore[call-overload]
        resource = boto3.resource("dynamodb", **CREDENTIALS)  # type: ignore[call-overload]
        target = client if form == "client" else resource.meta.client
        hooked(target, seen[fast], "before the Table")
        table = forms(client, resource, fast)[form]
        assert table.target.client is target and table.fast_pages == (fast and BEFORE_PARSE)
        hooked(target, seen[fast], "after the Table")
        results[fast] = exact_values(list(table.query_window(T0, T0 + 5, page_size=2, org=org)))
    assert results[True] == results[False]
    assert seen[True] == seen[False]
    assert len(seen[False]) == 3 * 2 * 3  # three pages, two hooks per level, three levels


def changing_hook(parsed: dict[str, Any], **_: Any) -> None:
    """A hook that changes the items in place, as a decompressing or decrypting hook does."""
    for item in parsed.get("Items", []):
        item["extra"] = {"N": "7"}
        item.pop("b", None)


@pytest.mark.parametrize("event", ["after-call.dynamodb.Query", "after-call.dynamodb"])
@pytest.mark.parametrize("form", ["client", "table", "resource_client"])
def test_a_hook_that_changes_the_items(moto_setup: dict[str, Any], form: str, event: str) -> None:
    """Items a hook changed before boto3 converts them (or, on a plain client, before the
    library does) are the items the library yields, as without the reader."""
    org = f"o{next(_orgs)}"
    store(moto_setup["slow"]["client"], org, [numbers_and_blobs(n) for n in range(3)])
    results = {}
    for fast in (False, True):
        client = boto3.client("dynamodb", **CREDENTIALS)  # type: ignore[call-overload]
        resource = boto3.resource("dynamodb", **CREDENTIALS)  # type: ignore[call-overload]
        table = forms(client, resource, fast)[form]
        table.target.client.meta.events.register(event, changing_hook)
        results[fast] = exact_values(list(table.query_window(T0, T0 + 3, org=org)))
    assert results[True] == results[False]
    assert "'extra'" in repr(results[True]) and "'b'" not in repr(results[True])  # it ran


# --- botocore's DEBUG log and other before-parse handlers ---------------------------------


@needs_before_parse
def test_debug_log_shows_the_body_dynamodb_sent(
    answering: Answering, caplog: pytest.LogCaptureFixture
) -> None:
    """With ``botocore.parsers`` at DEBUG, its "Response body" is the answer as sent (the
    reader leaves the page to botocore), and the values are the same."""
    body = b'{"Items":[{"PK":{"S":"a"},"n":{"N":"1.50"},"b":{"B":"AAE="}}],"Count":1}'
    answering.body, answering.status = body, 200
    for form in ("plain", "resource"):
        client = answering.clients[f"{form}+reader"]
        without = answering.clients[form].query(TableName="app")["Items"]
        caplog.clear()
        with caplog.at_level(logging.DEBUG, logger="botocore.parsers"):
            got = library_page(client, True)
            items = client.query(TableName="app")["Items"]
        logged = [r for r in caplog.records if r.getMessage().startswith("Response body")]
        assert [r.args for r in logged] == [(body,), (body,)], form
        assert exact(items) == exact(without)
        assert exact(got) == exact(library_page(answering.clients[form], False))
    # DEBUG off again: the reader reads (botocore's log would show the rest), values the same
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="botocore.parsers"):
        assert exact(answering.clients["resource+reader"].query(TableName="app")["Items"]) == (
            exact(without)
        )
    assert not [record for record in caplog.records if record.name == "botocore.parsers"]


@needs_before_parse
def test_other_before_parse_handlers_see_the_body_dynamodb_sent(answering: Answering) -> None:
    """A user's ``before-parse`` handlers, however registered (before or after the reader,
    at any level), see the body as sent; the reader still reads the page."""
    body = b'{"Items":[{"PK":{"S":"a"}}],"Count":1}'
    answering.body, answering.status = body, 200
    client = answering.clients["plain+reader"]
    bodies: list[tuple[str, bytes]] = []
    handlers = []
    for event in ("before-parse.dynamodb.Query", "before-parse.dynamodb", "before-parse"):

        def spy(response_dict: dict[str, Any], event: str = event, **_: Any) -> None:
            bodies.append((event, response_dict["body"]))

        handlers.append((event, spy))
        client.meta.events.register(event, spy)
    assert install_fast_pages(client)  # again: still one handler, still last
    try:
        target = Target.resolve(client, "app")
        source = QuerySource(target, fast_pages=True)
        with source.reading() as read:
            response = client.query(TableName="app")
    finally:
        for event, spy in handlers:
            client.meta.events.unregister(event, spy)
    assert read.of(response) == [{"PK": "a"}]  # read by the reader
    assert sorted(bodies) == sorted((event, body) for event, _ in handlers)
