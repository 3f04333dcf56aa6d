"""The fast DynamoDB page reader against botocore's parser and boto3's TypeDeserializer:
generated items of every attribute type and whole answers read to the same values, down to
key order and value types; answers it does not know (errors, other statuses, malformed or cut
short bodies) give the same result or exception as without it; on moto (in-process and over
HTTP, boto3 and aiobotocore) every client form returns the same items either way."""

from __future__ import annotations

import base64
import itertools
import json
import random
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from decimal import Decimal
from typing import Any

import boto3
import botocore.session
import pytest
from aiosupport import requires_aiobotocore, shells
from boto3.dynamodb.types import Binary, TypeDeserializer
from botocore.awsrequest import AWSResponse
from botocore.config import Config
from botocore.parsers import JSONParser
from faults import moto_server
from hypothesis import given, settings
from hypothesis import strategies as st
from moto import mock_aws
from profiles import examples
from readersupport import BEFORE_PARSE, needs_before_parse
from test_dynamodb_support import create_table

from ulidkeys.dynamodb import Entity, Table, install_fast_pages, remove_fast_pages
from ulidkeys.dynamodb.pages import READS, PageReader, _boto3_reader, plain_items
from ulidkeys.dynamodb.table import QuerySource
from ulidkeys.ulid import ULID

CREDENTIALS = {"region_name": "us-east-1", "aws_access_key_id": "k", "aws_secret_access_key": "s"}
_CLIENT = boto3.client("dynamodb", **CREDENTIALS)  # type: ignore[call-overload]
MODEL = _CLIENT.meta.service_model
HEADERS = {"x-amzn-requestid": "REQ", "content-type": "application/x-amz-json-1.0"}
DESERIALIZER = TypeDeserializer()


def botocore_reads(body: bytes, operation: str = "Query") -> dict[str, Any]:
    response = {"body": body, "headers": HEADERS, "status_code": 200}
    parsed: dict[str, Any] = JSONParser().parse(
        response, MODEL.operation_model(operation).output_shape
    )
    del parsed["ResponseMetadata"]
    return parsed


def plain(item: dict[str, Any]) -> dict[str, Any]:
    return {name: DESERIALIZER.deserialize(value) for name, value in item.items()}


def exact(value: Any) -> Any:
    """``value`` with what ``==`` ignores made visible: key order, types, Decimal digits."""
    if isinstance(value, dict):
        return ("dict", [(key, exact(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("list", [exact(item) for item in value])
    if isinstance(value, (set, frozenset)):
        return ("set", sorted((exact(item) for item in value), key=repr))
    if isinstance(value, Binary):
        return ("Binary", exact(value.value))
    if isinstance(value, Decimal):
        return ("Decimal", str(value))
    return (type(value).__name__, value)


def outcome(run: Callable[[], Any]) -> Any:
    """What a call gave: its exact value, or its exception's type and text."""
    try:
        value = run()
    except Exception as error:
        return ("raised", type(error).__name__, str(error))
    if isinstance(value, dict):
        value.get("ResponseMetadata", {}).pop("HTTPHeaders", None)
    return exact(value)


# --- generated attribute values ------------------------------------------------------------

texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8) | (
    st.sampled_from(["", " ", "\u2028", "\u2029", "\U0001f600", "é", '"\\', "\x00"])
)
names = st.text(max_size=4) | st.sampled_from(["S", "N", "M", "PK", "SK", "NULL"])
numbers = st.one_of(
    st.integers(-(10**38) + 1, 10**38 - 1).map(str),  # up to 38 digits: exact
    st.builds(
        lambda mantissa, exponent, mark: f"{mantissa}{mark}{exponent}",
        st.integers(-(10**38) + 1, 10**38 - 1),
        st.integers(-170, 170),  # some beyond DynamoDB's range: boto3 raises
        st.sampled_from(["E", "e", "E+"]),
    ),
    st.decimals(allow_nan=False, allow_infinity=False, places=3).map(str),
    st.sampled_from(
        [
            "0",
            "-0",
            "0.0",
            "1E-130",
            "1" * 39,
            "1" * 38,
            "9.9999999999999999999999999999999999999E+125",
        ]
    ),
)
blobs = st.binary(max_size=10).map(lambda data: base64.b64encode(data).decode())
scalars = st.one_of(
    texts.map(lambda v: {"S": v}),
    numbers.map(lambda v: {"N": v}),
    blobs.map(lambda v: {"B": v}),
    st.lists(texts, min_size=1, max_size=4, unique=True).map(lambda v: {"SS": v}),
    st.lists(numbers, min_size=1, max_size=4).map(lambda v: {"NS": v}),
    st.lists(blobs, min_size=1, max_size=4).map(lambda v: {"BS": v}),
    st.booleans().map(lambda v: {"BOOL": v}),
    st.just({"NULL": True}),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.dictionaries(names, inner, max_size=3).map(lambda v: {"M": v})
        | st.lists(inner, max_size=3).map(lambda v: {"L": v})
    ),
    max_leaves=8,
)
items = st.dictionaries(names, values, max_size=6)
keys = st.dictionaries(st.sampled_from(["PK", "SK"]), scalars, min_size=1)


@st.composite
def answers(draw: Any) -> bytes:
    """A whole Query answer: items, counts, sometimes a LastEvaluatedKey and the capacity
    used, members in any order, JSON written compactly or not, escaped or not."""
    page = draw(st.lists(items, max_size=5))
    members: dict[str, Any] = {"Items": page, "Count": len(page)}
    members["ScannedCount"] = len(page) + draw(st.integers(0, 3))
    if draw(st.booleans()):
        members["LastEvaluatedKey"] = draw(keys)
    if draw(st.booleans()):
        members["ConsumedCapacity"] = {
            "TableName": "app",
            "CapacityUnits": draw(st.sampled_from([0.5, 1, 1.5, 128.0])),
        }
    order = draw(st.permutations(list(members)))
    separators = draw(st.sampled_from([(",", ":"), (", ", ": ")]))
    text = json.dumps(
        {name: members[name] for name in order},
        ensure_ascii=draw(st.booleans()),
        separators=separators,
    )
    return text.encode()


def reader() -> PageReader:
    return _boto3_reader()


@given(items)
def test_items_read_as_botocore_and_typedeserializer_read_them(item: dict[str, Any]) -> None:
    body = json.dumps({"Items": [item], "Count": 1}).encode()
    typed = reader().read(body, "Items", READS["Query"][1], plain=False)
    assert typed is not None  # DynamoDB's own forms are never left to botocore
    expected = botocore_reads(body)["Items"]
    assert exact(typed.typed) == exact(expected)
    try:
        wanted = [plain(one) for one in expected]
    except ArithmeticError:  # a number beyond DynamoDB's: boto3 raises, so botocore reads it
        assert reader().read(body, "Items", READS["Query"][1], plain=True) is None
        return
    both = reader().read(body, "Items", READS["Query"][1], plain=True)
    assert both is not None
    assert exact(both.plain) == exact(wanted)
    assert exact(both.typed) == exact(expected)  # the typed items come with the plain ones


@given(answers())
def test_whole_answers_read_as_botocore_reads_them(body: bytes) -> None:
    for plain_wanted in (False, True):
        read = reader().read(body, "Items", READS["Query"][1], plain=plain_wanted)
        expected = botocore_reads(body)
        if read is None:  # only a number boto3 refuses sends a well-formed page to botocore
            assert plain_wanted
            with pytest.raises(ArithmeticError):
                [plain(one) for one in expected["Items"]]
            continue
        rest = botocore_reads(read.rest)
        rest["Items"] = read.typed  # what botocore's update does with the items read
        assert exact(rest) == exact(expected)


@pytest.mark.parametrize(
    ("operation", "body"),
    [
        ("GetItem", b'{"Item": {"PK": {"S": "a"}, "n": {"N": "1.50"}, "b": {"B": "AAE="}}}'),
        ("GetItem", b"{}"),
        ("Scan", b'{"Items": [{"s": {"SS": ["b", "a"]}}], "Count": 1, "ScannedCount": 9}'),
        (
            "BatchGetItem",
            b'{"Responses": {"app": [{"PK": {"S": "x"}}], "b": []}, "UnprocessedKeys": {"app":'
            b' {"Keys": [{"PK": {"S": "y"}}], "ConsistentRead": true}}}',
        ),
    ],
)
def test_the_other_reads(operation: str, body: bytes) -> None:
    member, form = READS[operation]
    read = reader().read(body, member, form, plain=False)
    expected = botocore_reads(body, operation)
    if member not in expected:
        assert read is None
        return
    assert read is not None
    rest = botocore_reads(read.rest, operation)
    rest[member] = read.typed
    assert exact(rest) == exact(expected)


# --- through botocore's whole stack --------------------------------------------------------


class _Raw:
    def __init__(self, body: bytes) -> None:
        self.body = body

    def stream(self, **_: Any) -> Any:
        yield self.body


class Answering:
    """DynamoDB clients (plain and a resource's, with and without the reader) whose calls all
    get :attr:`body` with :attr:`status` back through botocore's whole stack."""

    def __init__(self) -> None:
        self.body, self.status = b"{}", 200
        config = Config(retries={"total_max_attempts": 1})
        session = boto3.Session(**CREDENTIALS)
        self.clients = {
            "plain": session.client("dynamodb", config=config),
            "plain+reader": session.client("dynamodb", config=config),
            "resource": session.resource("dynamodb", config=config).meta.client,
            "resource+reader": session.resource("dynamodb", config=config).meta.client,
        }
        for name, client in self.clients.items():
            client.meta.events.register("before-send.dynamodb", self.send)
            if name.endswith("+reader"):
                assert install_fast_pages(client) == BEFORE_PARSE

    def send(self, request: Any, **_: Any) -> AWSResponse:
        return AWSResponse(request.url, self.status, HEADERS, _Raw(self.body))

    def outcomes(self, body: bytes, status: int = 200, operation: str = "Query") -> None:
        """Every client (and the library's own mode) answers ``body`` alike."""
        self.body, self.status = body, status
        call = {
            "Query": lambda c: c.query(TableName="app", KeyConditionExpression="PK = :p"),
            "GetItem": lambda c: c.get_item(TableName="app", Key={}),
        }[operation]
        for form in ("plain", "resource"):
            alone = outcome(lambda form=form: call(self.clients[form]))
            fast = self.clients[f"{form}+reader"]
            assert outcome(lambda fast=fast: call(fast)) == alone, form
            with plain_items(operation) as read:  # as the library calls it
                got = outcome(lambda fast=fast: call(fast))
            assert got == alone, form
            answered = not (isinstance(got, tuple) and got[:1] == ("raised",))
            # read and answered (botocore may still refuse the rest of the page, e.g. a bad
            # base64 key in LastEvaluatedKey: then the call raises and no item is handed out)
            if read.items is not None and answered:  # the library's plain items, boto3's values
                wanted = botocore_reads(body, operation)[READS[operation][0]]
                wanted = [plain(one) for one in wanted] if operation == "Query" else plain(wanted)
                assert exact(read.items) == exact(wanted)


@pytest.fixture(scope="module")
def answering() -> Answering:
    return Answering()


@given(answers())
def test_every_client_form_answers_the_same_with_the_reader(
    answering: Answering, body: bytes
) -> None:
    answering.outcomes(body)


# Changes that make an answer one the reader must leave to botocore (or read the same way).
MUTATIONS: list[Callable[[bytes], bytes]] = [
    lambda body: body.replace(b'{"S"', b'{"X"', 1),  # an unknown type
    lambda body: body.replace(b'{"S":', b'{"S":null,"N":', 1),  # a null beside a value
    lambda body: body.replace(b'{"S":', b'{"S":1,"s":', 1),  # two types
    lambda body: body.replace(b'{"S":', b'{"s":', 1),  # lower case: boto3 would read it
    lambda body: body.replace(b'{"N":"', b'{"N":', 1).replace(b'"}', b"}", 1),
    lambda body: body.replace(b'{"BOOL":', b'{"BOOL":"x","Q":', 1),
    lambda body: body.replace(b'{"B":"', b'{"B":"\xc3\xa9', 1),  # not base64's alphabet
    lambda body: body.replace(b'{"B":"', b'{"B":"A', 1),  # bad padding
    lambda body: body.replace(b'"Items":[', b'"Items":[null,', 1),
    lambda body: body.replace(b'"Items":[', b'"Items":[{"a":{}},', 1),
    lambda body: body.replace(b'"Items":[', b'"Items":[[],', 1),
    lambda body: body.replace(b'"Items":[', b'"Items":{"a":[', 1),
    lambda body: body.replace(b'"Count":', b'"Count":null,"Other":', 1),  # unknown member
    lambda body: body.replace(b'"Items":', b'"Items":null,"Items2":', 1),
    lambda body: b"\xef\xbb\xbf" + body,  # a byte order mark
    lambda body: body + b"\xff",  # not UTF-8
    lambda body: b"[" + body + b"]",
    lambda body: body.replace(b"{", b"{\n", 1),
]


@pytest.mark.parametrize("mutate", MUTATIONS)
@settings(max_examples=examples(6))  # per change: every change is tried
@given(answers(), st.integers(0, 2**32))
def test_answers_the_reader_does_not_know_are_left_to_botocore(
    answering: Answering, mutate: Callable[[bytes], bytes], body: bytes, seed: int
) -> None:
    body = mutate(json.dumps(json.loads(body), separators=(",", ":")).encode())
    if seed % 3 == 0:  # or cut short, as a dropped connection would
        body = body[: random.Random(seed).randrange(len(body) + 1)]
    answering.outcomes(body)


@pytest.mark.parametrize(
    ("body", "status"),
    [
        (b'{"__type":"com.amazonaws.dynamodb.v20120810#ValidationException","message":"no"}', 400),
        (b'{"__type":"ProvisionedThroughputExceededException","message":"slow"}', 400),
        (b"<html><body>Service Unavailable</body></html>", 503),
        (b'{"Items":[{"PK":{"S":"a"}}],"Count":1}', 500),
        (b'{"Items":[{"PK":{"S":"a"}}],"Count":1}', 204),
        (b"", 200),
        (b'{"Items":[{"PK":{"S":"a"}}],"Cou', 200),
        (b'{"Count":0,"ScannedCount":3}', 200),  # Select=COUNT: no Items
        (b'{"Items":[],"Count":0,"ScannedCount":0}', 200),
    ],
)
def test_errors_statuses_and_cut_off_answers_stay_botocores(
    answering: Answering, body: bytes, status: int
) -> None:
    answering.outcomes(body, status)


@pytest.mark.parametrize(
    "body",
    [b'{"Item":{"PK":{"S":"a"},"b":{"BS":["AAE=",""]},"m":{"M":{"l":{"L":[{"N":"1"}]}}}}}', b"{}"],
)
def test_get_item_through_every_client_form(answering: Answering, body: bytes) -> None:
    answering.outcomes(body, operation="GetItem")


def test_hooks_after_the_call_see_what_they_saw_without_the_reader(
    answering: Answering,
) -> None:
    """On a resource's client, a handler of ``after-call.dynamodb.Query`` runs before boto3's
    deserializer (typed items), one of ``after-call`` after it (plain items): the reader's
    stand-in for boto3's deserializer keeps that, in the library's own mode too (where, with
    a handler ahead of the conversion that could change the items, the items are converted
    from the response as without the reader: ``read.items`` stays None)."""
    answering.body, answering.status = b'{"Items":[{"n":{"N":"2.50"},"b":{"B":"AA=="}}]}', 200
    seen: dict[str, list[Any]] = {}

    def hook(where: str) -> Callable[..., None]:
        def record(parsed: dict[str, Any], **_: Any) -> None:
            seen.setdefault(where, []).append(exact(parsed["Items"]))

        return record

    hooks = [
        (name, event, hook(f"{name} {when}"))
        for name in ("resource", "resource+reader")
        for event, when in (("after-call.dynamodb.Query", "before"), ("after-call", "after"))
    ]
    for name, event, handler in hooks:
        answering.clients[name].meta.events.register(event, handler)
    query = {"TableName": "app", "KeyConditionExpression": "PK = :p"}
    try:
        answering.clients["resource"].query(**query)
        answering.clients["resource+reader"].query(**query)
        with plain_items() as read:
            response = answering.clients["resource+reader"].query(**query)
    finally:  # the clients are the module's
        for name, event, handler in hooks:
            answering.clients[name].meta.events.unregister(event, handler)
    assert read.items is None
    assert response["Items"] == [{"n": Decimal("2.50"), "b": Binary(b"\0")}]
    for when in ("before", "after"):
        alone = seen[f"resource {when}"]
        assert seen[f"resource+reader {when}"] == alone * 2
    assert seen["resource before"] != seen["resource after"]  # typed, then plain


@needs_before_parse
def test_items_a_hook_swapped_are_not_taken_for_the_ones_read(answering: Answering) -> None:
    """A handler that replaces the response's items: the library converts the response's own
    (``PlainItems.of`` gives nothing), as it did without the reader."""
    answering.body, answering.status = b'{"Items":[{"n":{"N":"1"}},{"n":{"N":"2"}}]}', 200

    def swap(parsed: dict[str, Any], **_: Any) -> None:
        parsed["Items"] = parsed["Items"][:1]

    for name in ("plain+reader", "resource+reader"):
        client = answering.clients[name]
        with plain_items() as read:
            response = client.query(TableName="app")
        assert read.of(response) == [{"n": Decimal(1)}, {"n": Decimal(2)}]
        client.meta.events.register("after-call.dynamodb.Query", swap)
        try:
            with plain_items() as read:
                response = client.query(TableName="app")
        finally:
            client.meta.events.unregister("after-call.dynamodb.Query", swap)
        assert read.of(response) is None and len(response["Items"]) == 1


@needs_before_parse
def test_installed_on_one_client_once_and_removable() -> None:
    answering = Answering()
    client = answering.clients["resource+reader"]
    other = boto3.Session(**CREDENTIALS).resource("dynamodb").meta.client
    assert install_fast_pages(client)  # twice: one handler, one deserializer
    body = b'{"Items":[{"n":{"N":"1"}}]}'
    answering.outcomes(body)
    bodies: list[bytes] = []

    def spy(response_dict: dict[str, Any], **_: Any) -> None:  # runs after the reader's
        bodies.append(response_dict["body"])

    client.meta.events.register_last("before-parse", spy)
    answering.body = body
    assert client.query(TableName="app")["Items"] == [{"n": Decimal(1)}]
    assert bodies[-1] == b'{"Items": []}'  # read: botocore got the rest
    answering.body = b'{"Items":[{"n":{"N":"1"}}],"Unknown":{"N":"1"}}'  # not in the model
    assert client.query(TableName="app")["Items"] == [{"n": Decimal(1)}]
    assert bodies[-1] == answering.body  # untouched: botocore's to read
    answering.body = body
    remove_fast_pages(client)
    assert client.query(TableName="app")["Items"] == [{"n": Decimal(1)}]  # boto3's own again
    assert bodies[-1] == body
    assert install_fast_pages(other)


def test_clients_it_is_not_installed_on() -> None:
    """Not a DynamoDB client, not a botocore client, a session with its own blob parser."""
    s3 = boto3.client("s3", **CREDENTIALS)  # type: ignore[call-overload]
    assert not install_fast_pages(s3)
    assert not install_fast_pages(object())
    session = botocore.session.get_session()
    session.get_component("response_parser_factory").set_parser_defaults(blob_parser=str)
    assert not install_fast_pages(session.create_client("dynamodb", **CREDENTIALS))


# --- on moto: every client form, with and without the reader ---------------------------------

POST = Entity(pk="Org#{org}", sk="Post#{id}")
T0 = 1_700_000_000_000
_orgs = itertools.count()

stored_values = st.recursive(
    st.one_of(
        texts,
        st.integers(-(10**37), 10**37).map(Decimal),
        st.decimals(-(10**20), 10**20, places=4),
        st.binary(max_size=6).map(Binary),
        st.booleans(),
        st.none(),
        st.sets(texts.filter(bool), min_size=1, max_size=3),
        st.sets(st.integers(-(10**30), 10**30).map(Decimal), min_size=1, max_size=3),
        st.sets(st.binary(min_size=1, max_size=4).map(Binary), min_size=1, max_size=3),
    ),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(min_size=1, max_size=3), inner)
    ),
    max_leaves=6,
)
stored_items = st.lists(
    st.dictionaries(st.sampled_from(["a", "b", "é", "\U0001f600", "x y"]), stored_values),
    min_size=1,
    max_size=6,
)


def store(table: Table, org: str, extras: list[dict[str, Any]]) -> None:
    with table.batch_writer() as writer:
        for n, extra in enumerate(extras):
            writer.put({**extra, **POST.keys(org=org, id=ULID.new(T0 + n))})


def forms(client: Any, resource: Any, fast: bool, name: str = "pages") -> dict[str, Table]:
    table = resource.Table(name)
    return {
        "client": Table(client, POST, table_name=name, fast_pages=fast),
        "table": Table(table, POST, fast_pages=fast),
        "resource_client": Table(table.meta.client, POST, table_name=name, fast_pages=fast),
    }


@pytest.mark.parametrize("shell", ["sync", "async"])
def test_windows_over_http_boto3_and_aiobotocore(
    monkeypatch: pytest.MonkeyPatch, shell: str
) -> None:
    """moto's HTTP server: a plain boto3 client, a resource's Table and the resource's client
    (``sync``), or an aiobotocore client (``async``), each with and without the reader,
    return the same items; with it (where botocore emits ``before-parse``), every page's
    items come read plain, on the client's default retry mode (``standard`` from botocore
    1.44 on). (Before the in-process tests: their module-wide mock_aws would catch these
    requests.)"""
    if shell == "async":
        requires_aiobotocore()
    name = f"http-{shell}"
    pages: list[bool] = []  # per page: whether its items came read plain
    page = QuerySource.page

    def spy(self: QuerySource, call: Any, response: Any, plain: Any = None) -> Any:
        pages.append(plain is not None)
        return page(self, call, response, plain)

    monkeypatch.setattr(QuerySource, "page", spy)
    extras = [
        {"s": "é\u2028\U0001f600", "n": Decimal("-1.5E+100"), "b": Binary(b"\0\xff")},
        {"ss": {"a", "b"}, "ns": {Decimal(1), Decimal("12345678901234567890123456789012345678")}},
        {"bs": {Binary(b"x")}, "m": {"l": [None, True, {"k": ""}]}, "e": ""},
    ] * 4
    with ExitStack() as stack:
        if shell == "async":  # the async shell, and a boto3 client of its server
            made = stack.enter_context(shells())
            client = made["sync"].sync_clients["dynamodb"]
        else:
            endpoint = stack.enter_context(moto_server())
            client = boto3.client("dynamodb", endpoint_url=endpoint, **CREDENTIALS)  # type: ignore[call-overload]
        create_table(client, name)
        endpoint = client.meta.endpoint_url
        resource = boto3.resource("dynamodb", endpoint_url=endpoint, **CREDENTIALS)  # type: ignore[call-overload]
        store(Table(client, POST, table_name=name, fast_pages=False), "http", extras)
        window = (T0, T0 + len(extras))
        results = []
        for fast in (False, True):  # without first: installed, the reader stays on the client
            read = fast and BEFORE_PARSE
            if shell == "sync":
                for table in forms(client, resource, fast, name).values():
                    assert table.fast_pages == read
                    pages.clear()
                    results.append(list(table.query_window(*window, page_size=5, org="http")))
                    assert pages == [read] * 3
                continue
            from ulidkeys.aio import AsyncTable  # needs aiobotocore: only where it is installed

            aio = made["async"]
            table_async = AsyncTable(aio.client("dynamodb"), POST, table_name=name, fast_pages=fast)
            assert table_async.fast_pages == table_async.table.fast_pages == read
            pages.clear()
            results.append(
                aio.take(
                    lambda t=table_async: t.query_window(*window, page_size=5, org="http")
                ).items
            )
            assert pages == [read] * 3
        assert len(results[0]) == len(extras)
        for got in results[1:]:
            assert exact(got) == exact(results[0])


@pytest.fixture(scope="module")
def moto_tables() -> Iterator[dict[str, Any]]:
    with mock_aws():
        client = boto3.client("dynamodb", **CREDENTIALS)  # type: ignore[call-overload]
        create_table(client, "pages")
        resource = boto3.resource("dynamodb", **CREDENTIALS)  # type: ignore[call-overload]
        yield {
            "fast": forms(client, resource, True),
            "slow": forms(
                boto3.client("dynamodb", **CREDENTIALS),  # type: ignore[call-overload]
                boto3.resource("dynamodb", **CREDENTIALS),  # type: ignore[call-overload]
                False,
            ),
        }


@settings(max_examples=examples(15))
@given(stored_items, st.integers(1, 7), st.booleans())
def test_windows_on_moto_are_the_same_with_and_without_the_reader(
    moto_tables: dict[str, Any], extras: list[dict[str, Any]], page_size: int, newest: bool
) -> None:
    org = f"o{next(_orgs)}"
    store(moto_tables["slow"]["client"], org, extras)
    window = (T0, T0 + len(extras))
    expected = None
    for speed in ("slow", "fast"):
        for name, table in moto_tables[speed].items():
            assert table.fast_pages == (speed == "fast" and BEFORE_PARSE)
            got = list(
                table.query_window(*window, page_size=page_size, newest_first=newest, org=org)
            )
            if expected is None:
                expected = exact(got)
                assert len(got) == len(extras)
            assert exact(got) == expected, (speed, name)


@needs_before_parse
def test_window_on_moto_is_read_by_the_reader(moto_tables: dict[str, Any]) -> None:
    org = f"o{next(_orgs)}"
    store(moto_tables["slow"]["client"], org, [{"n": Decimal(n)} for n in range(10)])
    bodies: list[bytes] = []

    def spy(response_dict: dict[str, Any], **_: Any) -> None:  # runs after the reader's
        bodies.append(response_dict["body"])

    for table in moto_tables["fast"].values():
        bodies.clear()
        table.target.client.meta.events.register_last("before-parse", spy)  # after the reader
        try:
            got = list(table.query_window(T0, T0 + 10, page_size=4, org=org))
        finally:
            table.target.client.meta.events.unregister("before-parse", spy)
        assert [item["n"] for item in got] == list(range(10))
        assert len(bodies) == 3 and all(b'"Items": []' in body for body in bodies)
