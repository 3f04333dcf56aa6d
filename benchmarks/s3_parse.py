"""ListObjectsV2 pages: botocore's XML parser against ulidkeys.s3.pages, per page, and whole
``list_objects_v2`` calls through boto3 (signing, hooks, url decoding; the HTTP answer is
handed back in memory). Best of N on each side, in one run; not a timed test.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/s3_parse.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import boto3
from botocore.awsrequest import AWSResponse
from botocore.parsers import DEFAULT_TIMESTAMP_PARSER, RestXMLParser

from ulidkeys import base32
from ulidkeys.s3.pages import PageReader, install_fast_pages, model_fields

T0 = 1_715_904_000_000  # 2024-05-17T00:00:00Z


def page(
    count: int,
    *,
    owner: bool = False,
    unicode: bool = False,
    folders: bool = False,
    step_ms: int = 1700,
) -> bytes:
    """A body as S3 writes it: url-encoded keys (boto3 asks for them), LastModified in whole
    seconds (a key every ``step_ms``: the default gives each key its own second), a distinct
    ETag per object, CRC64NVME checksums."""
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/'
        '2006-03-01/"><Name>photos</Name><Prefix>uploads/</Prefix><NextContinuationToken>'
        f"1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken><KeyCount>{count}"
        "</KeyCount><MaxKeys>1000</MaxKeys><EncodingType>url</EncodingType><IsTruncated>true"
        "</IsTruncated>"
    ]
    for i in range(count):
        ms = T0 + i * step_ms
        name = base32.encode_time(ms) + base32.encode_random(i * 7919)
        key = quote(f"uploads/{'café-ü/' if unicode else ''}{name}.jpg", safe="/")
        if folders:
            parts.append(f"<CommonPrefixes><Prefix>{key}/</Prefix></CommonPrefixes>")
            continue
        seconds = ms // 1000
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + ".000Z"
        parts.append(
            f"<Contents><Key>{key}</Key><LastModified>{stamp}</LastModified><ETag>&quot;"
            f"{i * 2654435761 % 2**128:032x}&quot;</ETag><ChecksumAlgorithm>CRC64NVME"
            "</ChecksumAlgorithm><ChecksumType>FULL_OBJECT</ChecksumType>"
            f"<Size>{i * 37 % 100000}</Size>"
            + (
                "<Owner><DisplayName>owner</DisplayName><ID>75aa57f09aa0c8caeab4f8c24e99d10f8e"
                "7faeebf76c078efc7c6caea54ba06a</ID></Owner>"
                if owner
                else ""
            )
            + "<StorageClass>STANDARD</StorageClass></Contents>"
        )
    parts.append("</ListBucketResult>")
    return "".join(parts).encode()


class _Raw:
    def __init__(self, body: bytes) -> None:
        self.body = body

    def stream(self, **_: Any) -> Any:
        yield self.body


def answering(body: bytes) -> Any:
    """An S3 client whose ListObjectsV2 calls are answered with ``body`` in memory."""
    client = boto3.client(
        "s3",
        region_name="us-east-1",
        aws_access_key_id="bench",
        aws_secret_access_key="bench",
    )

    def send(request: Any, **_: Any) -> AWSResponse:
        return AWSResponse(request.url, 200, {"x-amz-request-id": "R"}, _Raw(body))

    client.meta.events.register("before-send.s3.ListObjectsV2", send)
    return client


def best(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    shape = answering(b"").meta.service_model.operation_model("ListObjectsV2").output_shape
    botocore_parser = RestXMLParser()
    headers = {"x-amz-request-id": "R"}
    cases = [
        ("1,000 keys (S3's form)", page(1000)),
        ("1,000 keys, 10 a second", page(1000, step_ms=100)),
        ("1,000 keys, unicode (url-encoded)", page(1000, unicode=True)),
        ("1,000 keys with Owner (FetchOwner)", page(1000, owner=True)),
        ("1,000 common prefixes", page(1000, folders=True)),
        ("100 keys", page(100)),
        ("empty page", page(0)),
    ]
    print(f"best of {args.repeat}; ms per page")
    print(
        f"{'page':36} {'KiB':>5} {'botocore':>9} {'ulidkeys':>9} {'ratio':>6}"
        f" {'call (botocore)':>16} {'call (fast)':>12} {'ratio':>6}"
    )
    for label, body in cases:
        reader = PageReader(model_fields(shape), DEFAULT_TIMESTAMP_PARSER)
        response = {"body": body, "headers": headers, "status_code": 200}
        read = reader.read(body)
        expected = botocore_parser.parse(response, shape)
        del expected["ResponseMetadata"]
        assert read == expected, label  # the same dicts, or the figures mean nothing
        slow = best(lambda r=response: botocore_parser.parse(r, shape), args.repeat)
        fast = best(lambda b=body, r=reader: r.read(b), args.repeat)
        plain, quick = answering(body), answering(body)
        assert install_fast_pages(quick)
        assert quick.list_objects_v2(Bucket="photos") == plain.list_objects_v2(Bucket="photos")
        call_slow = best(lambda c=plain: c.list_objects_v2(Bucket="photos"), args.repeat)
        call_fast = best(lambda c=quick: c.list_objects_v2(Bucket="photos"), args.repeat)
        print(
            f"{label:36} {len(body) / 1024:5.0f} {slow * 1e3:9.2f} {fast * 1e3:9.2f}"
            f" {slow / fast:5.1f}x {call_slow * 1e3:16.2f} {call_fast * 1e3:12.2f}"
            f" {call_slow / call_fast:5.1f}x"
        )


if __name__ == "__main__":
    main()
