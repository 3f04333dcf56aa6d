"""The fast DynamoDB page reader on every retry mode of the botocore installed (``legacy``, the
default before botocore 1.44; ``standard``, the default from 1.44 on and AWS's advice, also
set by ``AWS_RETRY_MODE``; ``adaptive``): the library's own calls take the items read plain
whatever the mode (botocore's retry bookkeeping on ``after-call`` is not a user's hook), a
user's ``after-call`` hook still keeps them from it, and ``fast_pages`` is whether pages are
read. Also: resolving a client's form sends no request a user's hooks would see."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from decimal import Decimal
from typing import Any, ClassVar

import boto3
import pytest
from botocore.awsrequest import AWSResponse
from botocore.retries.quota import RetryQuota
from botocore.retries.standard import RetryQuotaChecker
from moto import mock_aws
from readersupport import BEFORE_PARSE, CREDENTIALS, RETRY_MODES, client_in_mode, retry_config
from test_dynamodb_pages import HEADERS, POST, T0, _Raw, exact, store
from test_dynamodb_support import create_table

from ulidkeys.dynamodb import Table
from ulidkeys.dynamodb.clients import Target
from ulidkeys.dynamodb.pages import PageReader, plain_items
from ulidkeys.dynamodb.table import QuerySource

_orgs = itertools.count()


class Answering:
    """A plain client and a resource's client in one retry mode, the reader installed on each,
    every call answered with :attr:`body` (through botocore's whole stack)."""

    def __init__(self, mode: str | None) -> None:
        self.body = b'{"Items":[{"n":{"N":"1"}},{"n":{"N":"2.50"}}],"Count":2}'
        config = retry_config(mode, total_max_attempts=1)
        session = boto3.Session(**CREDENTIALS)
        self.clients = {
            "plain": session.client("dynamodb", config=config),
            "resource": session.resource("dynamodb", config=config).meta.client,
        }
        for client in self.clients.values():
            client.meta.events.register("before-send.dynamodb", self.send)
            if mode is not None:
                assert client.meta.config.retries["mode"] == mode
            # made as Table makes them: the reader installed (where botocore can run it)
            assert Table(client, POST, table_name="app").fast_pages == BEFORE_PARSE

    def send(self, request: Any, **_: Any) -> AWSResponse:
        return AWSResponse(request.url, 200, HEADERS, _Raw(self.body))


def plain_taken(client: Any) -> Any:
    """The library's own call: the plain items the reader handed over (None: none)."""
    with plain_items() as read:
        response = client.query(TableName="app")
    return read.of(response)


WANTED = [{"n": Decimal(1)}, {"n": Decimal("2.50")}]


@pytest.fixture(params=[*RETRY_MODES, "AWS_RETRY_MODE=standard", "AWS_RETRY_MODE=adaptive"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str | None]:
    """A retry mode given in the client's Config, or in the environment as users set it."""
    param = request.param
    if param is not None and param.startswith("AWS_RETRY_MODE="):
        monkeypatch.setenv("AWS_RETRY_MODE", param.partition("=")[2])
        yield None
    else:
        monkeypatch.delenv("AWS_RETRY_MODE", raising=False)
        yield param


def test_the_library_takes_plain_items_on_every_retry_mode(mode: str | None) -> None:
    """Regression: on botocore 1.44's default (``standard``), and with ``AWS_RETRY_MODE``
    set, botocore's ``RetryQuotaChecker.release_retry_quota`` on ``after-call`` was taken for
    a user's hook: no page was read plain."""
    answering = Answering(mode)
    for name, client in answering.clients.items():
        taken = plain_taken(client)
        if not BEFORE_PARSE:
            assert taken is None  # botocore parses: the response's items are converted
            continue
        assert taken is not None, name
        assert exact(taken) == exact(WANTED)
        assert exact(client.query(TableName="app")["Items"]) == exact(
            WANTED if name == "resource" else [{"n": {"N": "1"}}, {"n": {"N": "2.50"}}]
        )


class CountingQuota(RetryQuotaChecker):
    """A user's subclass of botocore's RetryQuotaChecker that also looks at the answer."""

    seen: ClassVar[list[Any]] = []

    def release_retry_quota(self, context: Any, http_response: Any, **kwargs: Any) -> None:
        self.seen.append(kwargs.get("parsed"))
        super().release_retry_quota(context, http_response, **kwargs)


def release_retry_quota(parsed: Any, **_: Any) -> None:
    """A user's hook that happens to be named like botocore's."""
    parsed["Items"] = parsed["Items"][:1]


def hooks() -> dict[str, Any]:
    return {
        "named like botocore's": release_retry_quota,
        "a subclass's method": CountingQuota(RetryQuota()).release_retry_quota,
    }


@pytest.mark.parametrize("hook", list(hooks()))
@pytest.mark.parametrize("event", ["after-call.dynamodb", "after-call.dynamodb.Query"])
def test_a_users_after_call_hook_is_not_taken_for_the_retry_machinery(
    mode: str | None, hook: str, event: str
) -> None:
    """botocore's retry handler is told by identity: a user's hook of the same name, or a
    subclass's method overriding it, where it runs before the items are converted (on a
    plain client, or on ``after-call.dynamodb.Query``, ahead of a resource's deserializer),
    keeps the library from taking plain items (the hook may see or change them), on every
    retry mode. Registered after a resource's deserializer, it sees plain items, as without
    the reader. Either way the items are the ones the hook left."""
    answering = Answering(mode)
    for name, client in answering.clients.items():
        handler = hooks()[hook]
        client.meta.events.register(event, handler)
        try:
            with plain_items() as read:
                response = client.query(TableName="app")
        finally:
            client.meta.events.unregister(event, handler)
        after_conversion = name == "resource" and event == "after-call.dynamodb"
        taken = read.of(response)
        if not after_conversion:
            assert taken is None, name
        swapped = hook == "named like botocore's"
        assert len(response["Items"]) == (1 if swapped else 2)
        if taken is not None:
            assert taken == response["Items"] == WANTED


@pytest.fixture(scope="module")
def moto_table() -> Iterator[None]:
    with mock_aws():
        create_table(boto3.client("dynamodb", **CREDENTIALS), "retries")  # type: ignore[call-overload]
        yield


@pytest.mark.parametrize("form", ["client", "table", "resource_client"])
def test_windows_on_every_retry_mode_read_every_page_plain(
    moto_table: None, mode: str | None, form: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On moto, each client form in each retry mode: ``fast_pages`` is whether pages are read
    by the reader, every page of a window comes read plain where it is, and the items are
    those of ``fast_pages=False``."""
    org = f"o{next(_orgs)}"
    store(
        Table(boto3.client("dynamodb", **CREDENTIALS), POST, table_name="retries"),  # type: ignore[call-overload]
        org,
        [{"n": Decimal(n), "s": f"x{n}"} for n in range(6)],
    )
    pages: list[bool] = []
    reads: list[bytes] = []
    page, read = QuerySource.page, PageReader.read

    def page_spy(self: QuerySource, call: Any, response: Any, plain: Any = None) -> Any:
        pages.append(plain is not None)
        return page(self, call, response, plain)

    def read_spy(self: PageReader, body: bytes, *args: Any, **kwargs: Any) -> Any:
        reads.append(body)
        return read(self, body, *args, **kwargs)

    monkeypatch.setattr(QuerySource, "page", page_spy)
    monkeypatch.setattr(PageReader, "read", read_spy)

    def table(fast: bool) -> Table:
        if form == "client":
            return Table(
                client_in_mode("dynamodb", mode), POST, table_name="retries", fast_pages=fast
            )
        resource = boto3.resource("dynamodb", config=retry_config(mode), **CREDENTIALS)  # type: ignore[call-overload]
        if form == "table":
            return Table(resource.Table("retries"), POST, fast_pages=fast)
        return Table(resource.meta.client, POST, table_name="retries", fast_pages=fast)

    slow = list(table(False).query_window(T0, T0 + 6, page_size=2, org=org))
    assert not reads and pages == [False] * 3
    pages.clear()
    fast = table(True)
    got = list(fast.query_window(T0, T0 + 6, page_size=2, org=org))
    assert exact(got) == exact(slow) and len(got) == 6
    assert fast.fast_pages == bool(reads) == BEFORE_PARSE
    assert pages == [BEFORE_PARSE] * 3  # 3 of 3 pages read plain where the reader runs


# --- resolving a client's form sends nothing a user's hooks see -----------------------------


@pytest.mark.parametrize("form", ["client", "resource_client", "table"])
def test_a_users_parameter_hooks_see_only_the_requests_sent(moto_table: None, form: str) -> None:
    """Regression: telling a resource's client from a plain one emitted a probe
    ``before-parameter-build`` event (a Query of a table named "probe"), which a user's
    handlers saw as a request. Now the client's handlers are read, not called: a user's
    hooks at every level see only the Query the window sends."""
    client = boto3.client("dynamodb", **CREDENTIALS)  # type: ignore[call-overload]
    resource = boto3.resource("dynamodb", **CREDENTIALS)  # type: ignore[call-overload]
    target = client if form == "client" else resource.meta.client
    seen: list[tuple[str, str]] = []
    for event in (
        "before-parameter-build",
        "before-parameter-build.dynamodb",
        "before-parameter-build.dynamodb.Query",
    ):

        def hook(params: dict[str, Any], event: str = event, **_: Any) -> None:
            seen.append((event, params.get("TableName", "")))

        target.meta.events.register(event, hook)
    if form == "table":
        table = Table(resource.Table("retries"), POST)
    else:
        table = Table(target, POST, table_name="retries")
    assert table.target.plain == (form != "client")
    assert Target.resolve(target, "retries").plain == (form != "client")
    assert seen == []  # resolving the form (twice) sent nothing
    assert list(table.query_window(T0, T0 + 1, org="nobody")) == []
    assert sorted(seen) == sorted(
        (event, "retries")
        for event in (
            "before-parameter-build",
            "before-parameter-build.dynamodb",
            "before-parameter-build.dynamodb.Query",
        )
    )
