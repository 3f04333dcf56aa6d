"""Presigned uploads keep their promise whatever client the caller built: SigV4 on the bucket's
regional host, ``If-None-Match`` (and ``Content-Type``) signed in, the POST policy pinned to the
exact key and a size limit. Read back with botocore's own SigV4 query signer and policy JSON,
and used against moto's HTTP server."""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

import boto3
import pytest
from botocore import UNSIGNED
from botocore.auth import S3SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from faults import moto_server, s3_client

from ulidkeys.errors import InvalidType, InvalidValue, UnsupportedClient
from ulidkeys.s3 import Bucket, KeyLayout
from ulidkeys.s3.signing import MAX_EXPIRES
from ulidkeys.s3.writing import DEFAULT_POST_MAX_BYTES, MAX_PUT_BYTES, presigned_put

ACCESS, SECRET = "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
LAYOUT = KeyLayout("up'loads/", shards=4, period="day", suffix=".jpg")

CLIENTS = {
    "us-east-1 default": ("us-east-1", None),
    "eu-west-1 default": ("eu-west-1", None),
    "eu-central-1 default": ("eu-central-1", None),
    "us-east-1 signature_version='s3'": ("us-east-1", Config(signature_version="s3")),
    "eu-west-1 signature_version='s3'": ("eu-west-1", Config(signature_version="s3")),
    "eu-west-1 path style": ("eu-west-1", Config(s3={"addressing_style": "path"})),
}


def aws_client(region: str, config: Config | None) -> Any:
    return boto3.client(
        "s3",
        region_name=region,
        aws_access_key_id=ACCESS,
        aws_secret_access_key=SECRET,
        config=config,
    )


def query_of(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))


def signature_over(url: str, method: str, headers: dict[str, str], region: str) -> str:
    """The SigV4 query signature botocore computes for ``method url`` sent with ``headers``:
    what S3 checks a presigned request against."""
    parts = urlsplit(url)
    params = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)]
    unsigned = [(k, v) for k, v in params if k != "X-Amz-Signature"]
    query = urlencode(unsigned, quote_via=quote, safe="-_.~")
    request = AWSRequest(method=method, url=urlunsplit(parts._replace(query=query)))
    for name, value in headers.items():
        request.headers[name] = value
    request.context["timestamp"] = dict(params)["X-Amz-Date"]
    auth = S3SigV4QueryAuth(
        Credentials(ACCESS, SECRET), "s3", region, expires=int(dict(params)["X-Amz-Expires"])
    )
    canonical = auth.canonical_request(request)
    return str(auth.signature(auth.string_to_sign(request, canonical), request))


@pytest.mark.parametrize("name", CLIENTS)
def test_put_is_sigv4_on_the_regional_host_with_the_headers_signed(name: str) -> None:
    region, config = CLIENTS[name]
    upload = Bucket(aws_client(region, config), "photos", LAYOUT).presigned_put(
        expires=900, content_type="image/jpeg", ext=".jpg"
    )
    parts, query = urlsplit(upload.url), query_of(upload.url)
    assert parts.scheme == "https" and parts.hostname == f"photos.s3.{region}.amazonaws.com"
    assert "Signature" not in query and "AWSAccessKeyId" not in query  # no SigV2
    assert query["X-Amz-Algorithm"] == "AWS4-HMAC-SHA256"
    assert query["X-Amz-Credential"].split("/")[2:4] == [region, "s3"]
    assert query["X-Amz-SignedHeaders"] == "content-type;host;if-none-match"
    assert query["X-Amz-Expires"] == "900" and upload.expires_in == 900
    assert parts.path == "/" + quote(upload.key, safe="/~")
    assert upload.headers == {"If-None-Match": "*", "Content-Type": "image/jpeg"}
    assert LAYOUT.fits(upload.key)

    signed = query["X-Amz-Signature"]
    assert signature_over(upload.url, "PUT", upload.headers, region) == signed
    # an uploader leaving out a signed header (or changing it) no longer matches the signature
    for left_out in ({"Content-Type": "image/jpeg"}, {"If-None-Match": "*"}):
        assert signature_over(upload.url, "PUT", left_out, region) != signed
    changed = {**upload.headers, "Content-Type": "text/html"}
    assert signature_over(upload.url, "PUT", changed, region) != signed


def test_put_without_content_type_signs_if_none_match_only() -> None:
    upload = Bucket(aws_client("eu-west-1", None), "photos", LAYOUT).presigned_put()
    assert query_of(upload.url)["X-Amz-SignedHeaders"] == "host;if-none-match"
    assert upload.headers == {"If-None-Match": "*"}


def test_bucket_names_with_dots_stay_on_the_regional_host_path_style() -> None:
    """A dotted name cannot be a virtual host under https (the certificate covers one label):
    the URL names the bucket in the path of the same regional host."""
    upload = Bucket(aws_client("eu-west-1", None), "my.photos", LAYOUT).presigned_put()
    parts = urlsplit(upload.url)
    assert parts.hostname == "s3.eu-west-1.amazonaws.com"
    assert parts.path.startswith("/my.photos/")


def test_post_policy_pins_the_key_the_type_and_a_size_limit() -> None:
    client = aws_client("eu-central-1", Config(signature_version="s3"))
    bucket = Bucket(client, "photos", LAYOUT)
    post = bucket.presigned_post(content_type="image/png", ext="png")
    assert post.url == "https://photos.s3.eu-central-1.amazonaws.com/"
    assert post.fields["x-amz-algorithm"] == "AWS4-HMAC-SHA256"
    assert post.fields["x-amz-credential"].split("/")[2] == "eu-central-1"
    policy = json.loads(base64.b64decode(post.fields["policy"]))
    conditions = policy["conditions"]
    assert {"key": post.key} in conditions and post.fields["key"] == post.key
    assert {"bucket": "photos"} in conditions
    assert {"Content-Type": "image/png"} in conditions
    assert ["content-length-range", 0, DEFAULT_POST_MAX_BYTES] in conditions
    assert not any(isinstance(c, list) and c[0] == "starts-with" for c in conditions)

    chosen = bucket.presigned_post(max_bytes=10)
    assert ["content-length-range", 0, 10] in json.loads(base64.b64decode(chosen.fields["policy"]))[
        "conditions"
    ]
    unlimited = bucket.presigned_post(max_bytes=None)  # S3's own single-upload limit
    assert ["content-length-range", 0, MAX_PUT_BYTES] in json.loads(
        base64.b64decode(unlimited.fields["policy"])
    )["conditions"]


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"expires": MAX_EXPIRES + 1}, InvalidValue, "7 days"),
        ({"expires": 0}, InvalidValue, "1 .. 604800"),
        ({"expires": 3600.0}, InvalidType, "expires=3600.0"),
    ],
)
def test_expiry_beyond_sigv4s_limit_is_refused(
    kwargs: dict[str, Any], error: type[Exception], words: str
) -> None:
    bucket = Bucket(aws_client("eu-west-1", None), "photos", LAYOUT)
    for presign in (bucket.presigned_put, bucket.presigned_post):
        with pytest.raises(error, match=words):
            presign(**kwargs)
    assert bucket.presigned_put(expires=MAX_EXPIRES).expires_in == MAX_EXPIRES


def test_post_size_limit_out_of_range_is_refused() -> None:
    bucket = Bucket(aws_client("eu-west-1", None), "photos", LAYOUT)
    with pytest.raises(InvalidValue, match="max_bytes"):
        bucket.presigned_post(max_bytes=MAX_PUT_BYTES + 1)
    with pytest.raises(InvalidValue, match="max_bytes"):
        bucket.presigned_post(max_bytes=-1)


def test_a_client_that_cannot_sign_is_refused() -> None:
    unsigned = boto3.client(
        "s3", region_name="eu-west-1", config=Config(signature_version=UNSIGNED)
    )
    with pytest.raises(UnsupportedClient, match="unsigned"):
        Bucket(unsigned, "photos", LAYOUT).presigned_put()
    with pytest.raises(UnsupportedClient, match="not a boto3 S3 client"):
        presigned_put(LAYOUT, object(), "photos")


def test_refreshed_credentials_are_used_for_the_next_url() -> None:
    """The signer reads the client's current credentials at each presign (a Lambda role's
    credentials rotate): new keys after a refresh sign the next URL."""
    client = aws_client("eu-west-1", None)
    bucket = Bucket(client, "photos", LAYOUT)
    first = query_of(bucket.presigned_put().url)["X-Amz-Credential"]
    client._request_signer._credentials = Credentials("AKIDROTATED", SECRET, "token-2")
    second = query_of(bucket.presigned_put().url)
    assert first.startswith(ACCESS + "/")
    assert second["X-Amz-Credential"].startswith("AKIDROTATED/")
    assert second["X-Amz-Security-Token"] == "token-2"


# ------------------------------------------------------------------ on moto's HTTP server


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with moto_server() as endpoint:
        yield endpoint


def _status(request: urllib.request.Request) -> int:
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


@pytest.mark.parametrize("signature", [None, "s3", "s3v4"])
def test_a_url_from_any_client_creates_once_and_never_overwrites(
    server: str, signature: str | None
) -> None:
    """The custom endpoint is kept as the caller set it; the second PUT through the same URL
    is refused and the first object stays as it was."""
    config = Config(signature_version=signature) if signature else None
    client = boto3.client(
        "s3",
        region_name="us-east-1",
        endpoint_url=server,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=config,
    )
    name = f"sig-{uuid.uuid4().hex[:12]}"
    client.create_bucket(Bucket=name)
    upload = Bucket(client, name, KeyLayout("in/", suffix=".bin")).presigned_put(
        content_type="application/x-test"
    )
    assert upload.url.startswith(server + "/")
    assert query_of(upload.url)["X-Amz-SignedHeaders"] == "content-type;host;if-none-match"

    def put(body: bytes) -> int:
        return _status(
            urllib.request.Request(upload.url, data=body, method="PUT", headers=upload.headers)
        )

    assert put(b"first") == 200
    assert put(b"second") == 412
    stored = s3_client(server).get_object(Bucket=name, Key=upload.key)
    assert stored["Body"].read() == b"first"
    assert stored["ContentType"] == "application/x-test"
