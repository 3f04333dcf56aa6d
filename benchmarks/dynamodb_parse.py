"""DynamoDB pages: botocore's JSON shape parser (+ boto3's TypeDeserializer) against
ulidkeys.dynamodb.pages, per page, and whole ``query`` calls through boto3 (signing, hooks,
a resource's deserializer; the HTTP answer is handed back in memory), and a window listed
with ``Table.query_window`` over ready pages (the library's whole path per page). Best of N
on each side, in one run; not a timed test.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/dynamodb_parse.py [--repeat 15]
        [--baseline OLD_PAGEREADER.py]

``--baseline`` takes another revision's ``ulidkeys/dynamodb/pages.py`` (e.g.
``git show main:ulidkeys/dynamodb/pages.py > /tmp/old.py``) and adds a table of whole
calls read by it and by this one, interleaved in the same run: before and after, as ratios.
"""

from __future__ import annotations

import argparse
import base64
import gc
import importlib.util
import itertools
import json
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

import boto3
from boto3.dynamodb.types import TypeDeserializer
from botocore.awsrequest import AWSResponse
from botocore.parsers import JSONParser
from s3_parse import _Raw
from s3_parse import best as best_s

import ulidkeys.dynamodb.pages
from ulidkeys import base32
from ulidkeys.dynamodb import Entity, Table
from ulidkeys.dynamodb.pages import READS, _boto3_reader, install_fast_pages, plain_items

T0 = 1_715_904_000_000  # 2024-05-17T00:00:00Z
DESERIALIZE = TypeDeserializer().deserialize
CREDENTIALS = {"region_name": "us-east-1", "aws_access_key_id": "b", "aws_secret_access_key": "b"}


POST = Entity(pk="Org#{org}", sk="Post#{id}")
PAGES = 4  # pages of a listed window


def item(i: int, *, rich: bool = False) -> dict[str, Any]:
    """One post of six attributes as DynamoDB sends it (~215 bytes of JSON); ``rich`` adds
    a binary, a string set, a number set and a nested map with a list."""
    ms = T0 + i * 1700
    post = {
        "PK": {"S": "Org#acme"},
        "SK": {"S": f"Post#{base32.encode_time(ms)}{base32.encode_random(i * 7919)}"},
        "author": {"S": f"user-{i % 97:03d}"},
        "title": {"S": f"Notes on time-sortable keys, part {i}"},
        "score": {"N": str(i * 37 % 100000)},
        "ts": {"N": str(ms)},
    }
    if rich:
        post["digest"] = {"B": base64.b64encode(i.to_bytes(4, "big") * 4).decode()}
        post["tags"] = {"SS": ["ulid", "s3", f"t{i % 7}"]}
        post["votes"] = {"NS": [str(i), "1.5", "-2E+3"]}
        post["meta"] = {"M": {"draft": {"BOOL": False}, "refs": {"L": [{"N": "1"}, {"S": "x"}]}}}
    return post


def page(count: int, *, rich: bool = False, first: int = 0, last: bool = False) -> bytes:
    """A Query answer of ``count`` items (from the ``first``-th), with a LastEvaluatedKey
    (unless ``last``) and the capacity used."""
    items = [item(i, rich=rich) for i in range(first, first + count)]
    answer: dict[str, Any] = {"Items": items, "Count": count, "ScannedCount": count}
    if items and not last:
        answer["LastEvaluatedKey"] = {"PK": items[-1]["PK"], "SK": items[-1]["SK"]}
    answer["ConsumedCapacity"] = {"TableName": "app", "CapacityUnits": count / 8}
    return json.dumps(answer).encode()


def answering(client: Any, body: bytes) -> Any:
    """``client`` with its Query calls answered with ``body`` in memory."""

    def send(request: Any, **_: Any) -> AWSResponse:
        return AWSResponse(request.url, 200, {"x-amzn-requestid": "R"}, _Raw(body))

    client.meta.events.register("before-send.dynamodb.Query", send)
    return client


def answering_pages(client: Any, bodies: list[bytes]) -> Any:
    """``client`` with its Query calls answered with ``bodies`` in turn, by the request's
    ExclusiveStartKey (the LastEvaluatedKey of the page before): one window's pages."""
    after = {None: bodies[0]}
    for before, body in itertools.pairwise(bodies):
        after[json.dumps(json.loads(before)["LastEvaluatedKey"], sort_keys=True)] = body

    def send(request: Any, **_: Any) -> AWSResponse:
        start = json.loads(request.body).get("ExclusiveStartKey")
        body = after[None if start is None else json.dumps(start, sort_keys=True)]
        return AWSResponse(request.url, 200, {"x-amzn-requestid": "R"}, _Raw(body))

    client.meta.events.register("before-send.dynamodb.Query", send)
    return client


def best(run: Callable[[], object], repeat: int) -> float:
    """Best of ``repeat`` runs, in ms."""
    return best_s(run, repeat) * 1e3


def best_cpu(run: Callable[[], object], repeat: int) -> float:
    """Best of ``repeat`` runs, in ms of this process's CPU (all its threads), without the
    cyclic garbage collector: a run of several pages almost always holds one of its full
    collections (tens of ms, whoever allocated), which the best of single calls leaves out;
    collected between runs instead, so every cell counts the same work."""
    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            start = time.process_time()
            run()
            times.append(time.process_time() - start)
        finally:
            gc.enable()
    return min(times) * 1e3


def load_reader(path: str) -> ModuleType:
    """A pages.py of another revision, as a module of its own."""
    spec = importlib.util.spec_from_file_location("baseline_pagereader", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def install_with(client: Any, module: ModuleType | None) -> Any:
    """``client`` with the fast reader installed, reading with ``module``'s PageReader."""
    pages, saved = ulidkeys.dynamodb.pages, ulidkeys.dynamodb.pages.PageReader
    if module is not None:
        pages.PageReader = module.PageReader  # type: ignore[misc]
    try:
        assert install_fast_pages(client)
    finally:
        pages.PageReader = saved  # type: ignore[misc]
    return client


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--baseline", help="another revision's pages.py, side by side")
    args = parser.parse_args()
    repeat = args.repeat
    shape = boto3.client("dynamodb", **CREDENTIALS).meta.service_model  # type: ignore[call-overload]
    shape = shape.operation_model("Query").output_shape
    botocore_parser, deserializer, reader = JSONParser(), TypeDeserializer(), _boto3_reader()
    member, form = READS["Query"]
    cases = [
        ("1,000 items, 6 attributes", page(1000)),
        ("1,000 items, 10 (B, SS, NS, M, L)", page(1000, rich=True)),
        ("100 items, 6 attributes", page(100)),
        ("empty page", page(0)),
    ]
    print(f"best of {repeat}; ms per page (parse only: no request, no hooks)")
    print(
        "| page | KiB | botocore | botocore + TypeDeserializer | fast, typed | fast, plain "
        "| json.loads | plain vs botocore + TD |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    calls = []
    for label, body in cases:
        response = {"body": body, "headers": {}, "status_code": 200}

        def deserialized(r: dict[str, Any] = response) -> list[dict[str, Any]]:
            parsed = botocore_parser.parse(r, shape)
            return [
                {k: deserializer.deserialize(v) for k, v in one.items()} for one in parsed["Items"]
            ]

        typed = reader.read(body, member, form, plain=False)
        both = reader.read(body, member, form, plain=True)
        assert typed is not None and both is not None
        assert typed.typed == botocore_parser.parse(response, shape)["Items"]
        assert both.plain == deserialized()  # the same values, or the figures mean nothing
        slow = best(lambda r=response: botocore_parser.parse(r, shape), repeat)
        slow_plain = best(deserialized, repeat)
        fast_typed = best(lambda b=body: reader.read(b, member, form, plain=False), repeat)
        fast_plain = best(lambda b=body: reader.read(b, member, form, plain=True), repeat)
        loads = best(lambda b=body: json.loads(b.decode()), repeat)
        print(
            f"| {label} | {len(body) / 1024:.0f} | {slow:.2f} | {slow_plain:.2f} "
            f"| {fast_typed:.2f} ({slow / fast_typed:.1f}x) | {fast_plain:.2f} "
            f"| {loads:.2f} | {slow_plain / fast_plain:.1f}x |"
        )
        calls.append((label, body))
    print(f"\nbest of {repeat}; ms per whole query call (boto3 stack, answer in memory)")
    print(
        "| page | plain client | + reader | + reader, library's plain items "
        "| Table resource (boto3 deserializes) | + reader, library's plain items |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    query = {"TableName": "app", "KeyConditionExpression": "PK = :p"}
    for label, body in calls:
        session = boto3.Session(**CREDENTIALS)
        plain = answering(session.client("dynamodb"), body)
        fast = answering(session.client("dynamodb"), body)
        resource = answering(session.resource("dynamodb").meta.client, body)
        resource_fast = answering(session.resource("dynamodb").meta.client, body)
        assert install_fast_pages(fast) and install_fast_pages(resource_fast)

        def library(client: Any) -> Any:
            with plain_items() as read:
                client.query(**query)
            assert read.items is not None
            return read.items

        assert fast.query(**query)["Items"] == plain.query(**query)["Items"]
        assert library(resource_fast) == resource.query(**query)["Items"]
        assert library(fast) == resource.query(**query)["Items"]
        row = [
            best(lambda c=plain: c.query(**query), repeat),
            best(lambda c=fast: c.query(**query), repeat),
            best(lambda c=fast: library(c), repeat),
            best(lambda c=resource: c.query(**query), repeat),
            best(lambda c=resource_fast: library(c), repeat),
        ]
        print(
            f"| {label} | {row[0]:.2f} | {row[1]:.2f} ({row[0] / row[1]:.1f}x) "
            f"| {row[2]:.2f} | {row[3]:.2f} | {row[4]:.2f} ({row[3] / row[4]:.1f}x) |"
        )

    window(repeat)
    if args.baseline:
        side_by_side(load_reader(args.baseline), repeat)


def window(repeat: int) -> None:
    """A window of PAGES pages listed with Table.query_window, per page, against the same
    pages read by boto3 alone and by query calls with the reader (the library's plain
    items): what the library's own path (planning, the executor, pages, cursors) adds."""
    print(
        f"\nbest of {3 * repeat} rounds, each cell once a round; ms of client CPU per page (no "
        f"cyclic GC within a run), a window of {PAGES} pages listed"
    )
    print(
        "| page | form | boto3 query | + reader, library's plain items "
        "| Table.query_window | of which the library's own | query_window vs boto3 |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    since, until = T0, T0 + 1700 * 1000 * PAGES  # every item of the pages
    query = {"TableName": "app", "KeyConditionExpression": "PK = :p"}
    for label, rich in (("1,000 items, 6 attributes", False), ("1,000 items, 10", True)):
        bodies = [page(1000, rich=rich, first=1000 * k, last=k == PAGES - 1) for k in range(PAGES)]
        session = boto3.Session(**CREDENTIALS)
        for form in ("plain client", "Table resource"):
            if form == "plain client":
                alone = answering_pages(session.client("dynamodb"), bodies)
                fast = answering_pages(session.client("dynamodb"), bodies)
                table = Table(fast, POST, table_name="app")
            else:  # two resources: a resource's Tables share its client
                alone = answering_pages(session.resource("dynamodb").meta.client, bodies)
                fast_table = session.resource("dynamodb").Table("app")
                fast = answering_pages(fast_table.meta.client, bodies)
                table = Table(fast_table, POST)
            assert table.fast_pages

            def chain(client: Any, library: bool) -> None:
                token = None
                for _ in range(PAGES):
                    args = dict(query, **({"ExclusiveStartKey": token} if token else {}))
                    with plain_items() as read:
                        token = client.query(**args).get("LastEvaluatedKey")
                    assert not library or read.items is not None

            def listed(t: Table = table) -> None:
                got = sum(1 for _ in t.query_window(since, until, org="acme", max_workers=1))
                assert got == 1000 * PAGES, got

            listed()
            runs = [lambda c=alone: chain(c, False), lambda c=fast: chain(c, True), listed]
            cells = [float("inf")] * len(runs)
            # each cell once a round, round after round: the cells' best runs are drawn from
            # the same moments, so a change of load (on a shared machine, minute to minute)
            # hits every cell alike rather than whichever cell was timed then
            for _ in range(3 * repeat):
                for n, run in enumerate(runs):
                    cells[n] = min(cells[n], best_cpu(run, 1) / PAGES)
            print(
                f"| {label} | {form} | {cells[0]:.2f} | {cells[1]:.2f} | {cells[2]:.2f} "
                f"| {cells[2] - cells[1]:.2f} | {cells[2] / cells[0]:.3f}x |"
            )


def side_by_side(baseline: ModuleType, repeat: int) -> None:
    """Whole query calls read by ``baseline``'s PageReader and by this revision's, in
    interleaved rounds (best of each), as ratios to boto3's own cost in the same run."""
    print(f"\nbest of 3 rounds of {repeat}, interleaved; ms per whole query call: before/after")
    print(
        "| page | plain client | + reader | + reader, library's plain items "
        "| plain client + TypeDeserializer | library's plain items vs that "
        "| Table resource | + reader, library's plain items |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    query = {"TableName": "app", "KeyConditionExpression": "PK = :p"}

    def library(client: Any) -> Any:
        with plain_items() as read:
            client.query(**query)
        assert read.items is not None
        return read.items

    for label, body in (
        ("1,000 items, 6 attributes", page(1000)),
        ("1,000 items, 10 (B, SS, NS, M, L)", page(1000, rich=True)),
    ):
        session = boto3.Session(**CREDENTIALS)
        plain = answering(session.client("dynamodb"), body)
        resource = answering(session.resource("dynamodb").meta.client, body)
        runs: dict[str, Callable[[], object]] = {
            "plain": lambda c=plain: c.query(**query),
            # what the library does with a plain client's answer without the reader
            "plain+TD": lambda c=plain: [
                {k: DESERIALIZE(v) for k, v in one.items()} for one in c.query(**query)["Items"]
            ],
            "resource": lambda c=resource: c.query(**query),
        }
        for name, module in (("before", baseline), ("after", None)):
            fast = install_with(answering(session.client("dynamodb"), body), module)
            res = install_with(answering(session.resource("dynamodb").meta.client, body), module)
            assert library(fast) == library(res) == resource.query(**query)["Items"]
            runs[f"{name} reader"] = lambda c=fast: c.query(**query)
            runs[f"{name} library"] = lambda c=fast: library(c)
            runs[f"{name} resource library"] = lambda c=res: library(c)
        got = dict.fromkeys(runs, float("inf"))
        for _ in range(3):
            for name, run in runs.items():
                got[name] = min(got[name], best(run, repeat))

        def cell(name: str, against: str, got: dict[str, float] = got) -> str:
            old, new = got[f"before {name}"], got[f"after {name}"]
            base = got[against]
            return f"{old:.2f} ({old / base:.3f}x) / {new:.2f} ({new / base:.3f}x)"

        print(
            f"| {label} | {got['plain']:.2f} | {cell('reader', 'plain')} "
            f"| {cell('library', 'plain')} | {got['plain+TD']:.2f} "
            f"| {cell('library', 'plain+TD')} | {got['resource']:.2f} "
            f"| {cell('resource library', 'resource')} |"
        )


if __name__ == "__main__":
    main()
