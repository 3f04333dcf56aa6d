"""DynamoDB pages: botocore's JSON shape parser (+ boto3's TypeDeserializer) against
ulidkeys.dynamodb.pages, per page, and whole ``query`` calls through boto3 (signing, hooks,
a resource's deserializer; the HTTP answer is handed back in memory). Best of N on each side,
in one run; not a timed test.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/dynamodb_parse.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import base64
import json
from collections.abc import Callable
from typing import Any

import boto3
from boto3.dynamodb.types import TypeDeserializer
from botocore.awsrequest import AWSResponse
from botocore.parsers import JSONParser
from s3_parse import _Raw
from s3_parse import best as best_s

from ulidkeys import base32
from ulidkeys.dynamodb.pagereader import READS
from ulidkeys.dynamodb.pages import _boto3_reader, install_fast_pages, plain_items

T0 = 1_715_904_000_000  # 2024-05-17T00:00:00Z
CREDENTIALS = {"region_name": "us-east-1", "aws_access_key_id": "b", "aws_secret_access_key": "b"}


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


def page(count: int, *, rich: bool = False) -> bytes:
    """A Query answer of ``count`` items, with a LastEvaluatedKey and the capacity used."""
    items = [item(i, rich=rich) for i in range(count)]
    answer: dict[str, Any] = {"Items": items, "Count": count, "ScannedCount": count}
    if items:
        answer["LastEvaluatedKey"] = {"PK": items[-1]["PK"], "SK": items[-1]["SK"]}
    answer["ConsumedCapacity"] = {"TableName": "app", "CapacityUnits": count / 8}
    return json.dumps(answer).encode()


def answering(client: Any, body: bytes) -> Any:
    """``client`` with its Query calls answered with ``body`` in memory."""

    def send(request: Any, **_: Any) -> AWSResponse:
        return AWSResponse(request.url, 200, {"x-amzn-requestid": "R"}, _Raw(body))

    client.meta.events.register("before-send.dynamodb.Query", send)
    return client


def best(run: Callable[[], object], repeat: int) -> float:
    """Best of ``repeat`` runs, in ms."""
    return best_s(run, repeat) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
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


if __name__ == "__main__":
    main()
