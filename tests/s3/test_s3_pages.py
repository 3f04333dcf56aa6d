"""The fast ListObjectsV2 page reader against botocore's own parser: generated pages (escapes,
unicode, url-encoded keys, optional elements, other element orders, empty pages, common
prefixes) read to the same dicts, down to key order, value types and time zones; pages it
does not know go to botocore; installed on one client only."""

from __future__ import annotations

import random
import time
from datetime import datetime
from typing import Any
from urllib.parse import quote

import boto3
import botocore.handlers
import pytest
from botocore.awsrequest import AWSResponse
from botocore.config import Config
from botocore.exceptions import ClientError
from botocore.parsers import ResponseParserError, RestXMLParser
from hypothesis import given, settings
from hypothesis import strategies as st
from moto import mock_aws
from profiles import examples
from readersupport import BEFORE_PARSE, RETRY_MODES, client_in_mode, needs_before_parse
from s3support import T0, new_bucket, ulid_at

from ulidkeys.s3 import Bucket, KeyLayout, install_fast_pages, remove_fast_pages
from ulidkeys.s3 import pages as page_reader
from ulidkeys.s3.pages import PageReader, model_fields

_S3 = boto3.client("s3", region_name="us-east-1", aws_access_key_id="k", aws_secret_access_key="s")
SHAPE = _S3.meta.service_model.operation_model("ListObjectsV2").output_shape
HEADERS = {"x-amz-request-id": "REQ", "x-amz-id-2": "HOST"}
#: Older models (botocore 1.34's) have no ChecksumType in a listed object: a page holding it
#: is then one the reader leaves to botocore, which skips the element.
CHECKSUM_TYPE = "ChecksumType" in SHAPE.members["Contents"].member.members


def botocore_reads(body: bytes) -> dict[str, Any]:
    parsed = RestXMLParser().parse({"body": body, "headers": HEADERS, "status_code": 200}, SHAPE)
    del parsed["ResponseMetadata"]
    return parsed


def reader() -> PageReader:
    return PageReader(model_fields(SHAPE), botocore.parsers.DEFAULT_TIMESTAMP_PARSER)


def exact(value: Any) -> Any:
    """``value`` with what ``==`` ignores made visible: key order, types, time zones."""
    if isinstance(value, dict):
        return ("dict", [(key, exact(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("list", [exact(item) for item in value])
    if isinstance(value, datetime):
        return ("datetime", value.isoformat(), repr(value.tzinfo))
    return (type(value).__name__, value)


# --- generated pages ------------------------------------------------------------------------

# Everything XML 1.0 allows in text, markup characters included (CR only as a reference).
text_chars = st.characters(
    codec="utf-8",
    exclude_categories=("Cs",),
    exclude_characters="\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12"
    "\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\ufffe\uffff",
)
texts = st.text(text_chars, max_size=12) | st.sampled_from(["", " ", "a&b", "<", "]]"])
timestamps = st.builds(
    lambda when, digits: (
        when.strftime("%Y-%m-%dT%H:%M:%S")
        + ("" if digits is None else "." + f"{when.microsecond:06d}"[:digits])
        + "Z"
    ),
    st.datetimes(datetime(1970, 1, 1), datetime(2200, 1, 1)),
    st.sampled_from([None, 0, 1, 3, 6]).map(lambda d: None if d == 0 else d),
)


def escape(text: str, draw: Any) -> str:
    """XML text of ``text``: markup escaped, and sometimes more (quotes, references)."""
    out = []
    for char in text:
        choice = draw(st.integers(0, 9)) if char in "&<>\"'\r" or ord(char) > 127 else 0
        if char == "&":
            out.append("&amp;" if choice < 7 else "&#38;")
        elif char == "<":
            out.append("&lt;" if choice < 7 else "&#x3C;")
        elif char == "\r":
            out.append("&#13;")
        elif char == ">" and choice > 5:
            out.append("&gt;")
        elif char == '"' and choice > 3:
            out.append("&quot;")
        elif char == "'" and choice > 5:
            out.append("&apos;")
        elif ord(char) > 127 and choice > 7:
            out.append(f"&#{ord(char)};")
        else:
            out.append(char)
    return "".join(out)


@st.composite
def pages(draw: Any) -> tuple[bytes, bool]:
    """A ListObjectsV2 body, and whether it is S3's usual form (the reader must read those)."""
    gap = draw(st.sampled_from(["", "", "\n", "\n  ", " \t"]))
    url = draw(st.booleans())

    def leaf(tag: str, text: str) -> str:
        if text == "" and draw(st.booleans()):
            return f"<{tag}/>"
        return f"<{tag}>{escape(text, draw)}</{tag}>"

    def key_text() -> str:
        key = draw(texts)
        return quote(key, safe="/") if url else key

    def ordered(parts: list[str]) -> list[str]:
        return draw(st.permutations(parts)) if draw(st.integers(0, 4)) == 0 else parts

    objects = []
    for _ in range(draw(st.integers(0, 4))):
        parts = [leaf("Key", key_text()), leaf("LastModified", draw(timestamps))]
        parts.append(leaf("ETag", '"' + draw(st.text("0123456789abcdef-", max_size=34)) + '"'))
        for algorithm in draw(st.lists(st.sampled_from(["CRC32", "CRC64NVME"]), max_size=2)):
            parts.append(leaf("ChecksumAlgorithm", algorithm))
        if CHECKSUM_TYPE and draw(st.booleans()):
            parts.append(leaf("ChecksumType", draw(st.sampled_from(["FULL_OBJECT", ""]))))
        parts.append(leaf("Size", str(draw(st.integers(0, 2**63)))))
        if draw(st.booleans()):
            parts.append(leaf("StorageClass", draw(st.sampled_from(["STANDARD", "GLACIER"]))))
        if draw(st.integers(0, 3)) == 0:
            owner = [leaf("ID", draw(texts))] if draw(st.booleans()) else []
            owner += [leaf("DisplayName", draw(texts))] if draw(st.booleans()) else []
            parts.append(f"<Owner>{gap.join(owner)}</Owner>")
        if draw(st.integers(0, 3)) == 0:
            restore = [leaf("IsRestoreInProgress", draw(st.sampled_from(["true", "false"])))]
            if draw(st.booleans()):
                restore.append(leaf("RestoreExpiryDate", draw(timestamps)))
            parts.append(f"<RestoreStatus>{gap.join(restore)}</RestoreStatus>")
        objects.append(f"<Contents>{gap}{gap.join(ordered(parts))}{gap}</Contents>")
    prefixes = [
        f"<CommonPrefixes>{leaf('Prefix', key_text())}</CommonPrefixes>"
        for _ in range(draw(st.integers(0, 3)))
    ]
    top = [leaf("Name", draw(st.sampled_from(["bkt", "my.bucket"]))), leaf("Prefix", key_text())]
    if draw(st.booleans()):
        top.append(leaf("Delimiter", draw(st.sampled_from(["/", "-", "é"]))))
    top.append(leaf("MaxKeys", str(draw(st.integers(0, 1000)))))
    top.append(leaf("KeyCount", str(len(objects) + len(prefixes))))
    if url:
        top.append(leaf("EncodingType", "url"))
    truncated = draw(st.booleans())
    top.append(leaf("IsTruncated", "true" if truncated else "false"))
    for tag in ("ContinuationToken", "NextContinuationToken", "StartAfter"):
        if draw(st.booleans()):
            top.append(leaf(tag, draw(texts)))
    members = ordered(top) + objects + prefixes
    declaration = draw(
        st.sampled_from(['<?xml version="1.0" encoding="UTF-8"?>\n', '<?xml version="1.0"?>', ""])
    )
    root = '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
    body = f"{declaration}{root}{gap}{gap.join(members)}{gap}</ListBucketResult>"
    return body.encode("utf-8"), True


# Changes that make a page one the reader may refuse (it must then say so, or agree).
MUTATIONS = [
    lambda body: body.replace(b"<Name>", b"<Name><!-- c -->", 1),
    lambda body: body.replace(b"<Name>", b"<Name><![CDATA[x]]>", 1),
    lambda body: body.replace(b"<MaxKeys>", b"<MaxKeys>+", 1),
    lambda body: body.replace(b"<MaxKeys>", b"<MaxKeys> ", 1),
    lambda body: body.replace(b"</Name>", b"</Name><Unknown>1</Unknown>", 1),
    lambda body: body.replace(b"</Name>", b"</Name><Name>again</Name>", 1),
    lambda body: body.replace(b"Z</LastModified>", b"+00:00</LastModified>", 1),
    lambda body: body.replace(b"Z</LastModified>", b"1234567Z</LastModified>", 1),
    lambda body: body.replace(b"<Key>", b"<Key>\r\n", 1),
    lambda body: body.replace(b"<Key>", b"<Key>&nbsp;", 1),
    lambda body: body.replace(b"<Name>", b"<Name>&#1;", 1),
    lambda body: body.replace(b"<Name>", b"<Name>&#xFFFE;", 1),
    lambda body: body.replace(b"<Key>", b"<Key a='1'>", 1),
    lambda body: body.replace(b"<Owner>", b"<Owner>text", 1),
    lambda body: body.replace(b"<Size>", b"<Size>\xd9\xa3", 1),  # an Arabic-Indic digit
    lambda body: body.replace(b"<Contents>", b"<Contents/><Contents>", 1),
    lambda body: body.replace(b"<IsTruncated>", b"<IsTruncated>yes", 1),
    lambda body: body.replace(b"<LastModified>", b"<LastModified>2024-02-30T00:00:00Z", 1),
    lambda body: b"\xef\xbb\xbf" + body,  # a byte order mark
    # characters XML forbids, literal (the reader looks for them once in the body's bytes)
    lambda body: body.replace(b"<Key>", b"<Key>\x01", 1),
    lambda body: body.replace(b"</Key>", b"\x1f</Key>", 1),
    lambda body: body.replace(b"<Key>", "<Key>\ufffe".encode(), 1),
    lambda body: body.replace(b"<Name>", "<Name>\uffff".encode(), 1),
    lambda body: body.replace(b"<Key>", b"<Key>\r", 1),
]


@given(pages())
def test_the_reader_builds_exactly_what_botocore_parses(page: tuple[bytes, bool]) -> None:
    body, usual = page
    read = reader().read(body)
    assert usual and read is not None  # S3's own forms are never left to botocore
    assert exact(read) == exact(botocore_reads(body))


@pytest.mark.parametrize("mutate", MUTATIONS)
@settings(max_examples=examples(8))  # per change: every change is tried
@given(pages(), st.integers(0, 2**32))
def test_pages_the_reader_does_not_know_are_left_to_botocore(
    mutate: Any, page: tuple[bytes, bool], seed: int
) -> None:
    body = mutate(page[0])
    if seed % 3 == 0:  # or cut short, as a dropped connection would
        body = body[: random.Random(seed).randrange(len(body) + 1)]
    read = reader().read(body)
    if read is None:
        return  # botocore parses it (or raises its own error)
    assert exact(read) == exact(botocore_reads(body))


_CHECKSUM_TYPE = "<ChecksumType>FULL_OBJECT</ChecksumType>" if CHECKSUM_TYPE else ""


def test_a_full_page_of_1000_keys_and_the_empty_page() -> None:
    objects = "".join(
        f"<Contents><Key>logs/{i:04d}%C3%A9</Key><LastModified>2024-05-17T09:{i % 60:02d}:00"
        f".000Z</LastModified><ETag>&quot;{i:032x}&quot;</ETag><ChecksumAlgorithm>CRC64NVME"
        f"</ChecksumAlgorithm>{_CHECKSUM_TYPE}<Size>{i}</Size>"
        "<StorageClass>STANDARD</StorageClass></Contents>"
        for i in range(1000)
    )
    full = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="x"><Name>b</Name>'
        "<Prefix>logs/</Prefix><NextContinuationToken>t==</NextContinuationToken><KeyCount>1000"
        "</KeyCount><MaxKeys>1000</MaxKeys><EncodingType>url</EncodingType><IsTruncated>true"
        f"</IsTruncated>{objects}</ListBucketResult>"
    ).encode()
    empty = b"<ListBucketResult><Name>b</Name><Prefix></Prefix><KeyCount>0</KeyCount>"
    empty += b"<MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated></ListBucketResult>"
    for body in (full, empty):
        read = reader().read(body)
        assert read is not None
        assert exact(read) == exact(botocore_reads(body))
    assert len(reader().read(full)["Contents"]) == 1000  # type: ignore[index]


# --- runs of records, read a column at a time ----------------------------------------------

# Texts in S3's timestamp form that no date has (botocore's parser refuses them), and one
# that Python 3.10's fromisoformat refuses but botocore reads (a one-digit fraction).
ODD_STAMPS = [
    "2024-02-30T00:00:00.000Z",
    "2024-05-17T24:00:00.000Z",
    "2024-05-17T00:00:60.000Z",
    "0000-01-01T00:00:00.000Z",
    "2024-05-17T00:00:00.1Z",
]


@st.composite
def runs(draw: Any) -> bytes:
    """A page whose objects are one run of records of one shape: each record with or
    without whitespace between its elements, timestamps drawn from a pool (a small pool
    repeats texts, as S3's whole seconds do), keys and ETags with or without references."""
    count = draw(st.integers(1, 40))
    pool = draw(st.lists(timestamps | st.sampled_from(ODD_STAMPS), min_size=1, max_size=count))
    quoted = draw(st.booleans())  # every ETag's quotes escaped, as S3 writes them
    records = []
    for _ in range(count):
        gap = draw(st.sampled_from(["", "", "", "\n", " \t"]))
        etag = '"' + draw(st.text("0123456789abcdef", max_size=32)) + '"'
        etag = etag.replace('"', "&quot;") if quoted else escape(etag, draw)
        fields = [
            f"<Key>{escape(draw(texts), draw)}</Key>",
            f"<LastModified>{draw(st.sampled_from(pool))}</LastModified>",
            f"<ETag>{etag}</ETag>",
            "<ChecksumAlgorithm>CRC64NVME</ChecksumAlgorithm>",
            f"<Size>{draw(st.integers(0, 2**63))}</Size>",
            "<StorageClass>STANDARD</StorageClass>",
        ]
        records.append(f"<Contents>{gap}{gap.join(fields)}{gap}</Contents>")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="x"><Name>b</Name>'
        f"<KeyCount>{count}</KeyCount><IsTruncated>false</IsTruncated>{''.join(records)}"
        "</ListBucketResult>"
    ).encode()


def agrees_with_botocore(body: bytes) -> dict[str, Any] | None:
    """What the reader reads of ``body``, checked against botocore: the same dicts, or None
    where botocore refuses the page (a timestamp no date has, XML expat refuses)."""
    read = reader().read(body)
    try:
        expected = botocore_reads(body)
    except (ValueError, ResponseParserError):
        assert read is None
        return None
    assert read is not None  # a page botocore reads, in forms the reader knows
    assert exact(read) == exact(expected)
    return read


@settings(max_examples=examples(150))
@given(runs())
def test_a_run_of_records_reads_as_botocore_reads_it(body: bytes) -> None:
    agrees_with_botocore(body)


def test_a_key_holding_a_raw_cdata_end_is_refused_as_botocore_refuses_it() -> None:
    """``]]>`` in text, its ``>`` not escaped, is not well-formed XML: botocore raises its
    parser error, and the reader leaves the page to botocore (a draw of the test above found
    that the check once treated botocore's error as a failure)."""
    record = (
        "<Contents><Key>a]]>b</Key><LastModified>2000-01-01T00:00:00Z</LastModified>"
        "<ETag>&quot;&quot;</ETag><Size>0</Size><StorageClass>STANDARD</StorageClass></Contents>"
    )
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="x"><Name>b</Name>'
        f"<KeyCount>1</KeyCount><IsTruncated>false</IsTruncated>{record}</ListBucketResult>"
    ).encode()
    with pytest.raises(ResponseParserError):
        botocore_reads(body)
    assert agrees_with_botocore(body) is None
    assert agrees_with_botocore(body.replace(b"]]>", b"]]&gt;")) is not None


# Owner elements a record of a run may hold instead of its run's own (the run ends there): some
# the reader reads element by element, some it leaves to botocore (``False``).
ODD_OWNERS = [
    ("<Owner></Owner>", True),
    ("<Owner/>", True),
    ("<Owner>\n</Owner>", True),
    ("<Owner><ID>a</ID><ID>b</ID></Owner>", False),  # a repeated element
    ("<Owner><Unknown>1</Unknown></Owner>", False),  # a member the model lacks
    ("<Owner><ID><X>1</X></ID></Owner>", False),  # deeper than leaves
    ("<Owner>text<ID>a</ID></Owner>", False),
    ("<Owner><ID>a</DisplayName></Owner>", False),  # a closing tag of another element
    ("<Owner><ID>a</ID></Owner><Owner><ID>b</ID></Owner>", False),
]


@st.composite
def nested_runs(draw: Any) -> tuple[bytes, bool]:
    """A page whose objects hold elements of leaves (Owner, RestoreStatus) in one shape, the
    leaves in either order, with or without whitespace; now and then a record whose Owner
    is another (``ODD_OWNERS``). And whether the reader must read it."""
    count = draw(st.integers(1, 25))
    owner = draw(st.sampled_from([None, ["ID", "DisplayName"], ["DisplayName", "ID"], ["ID"]]))
    restore = draw(st.sampled_from([None, ["IsRestoreInProgress", "RestoreExpiryDate"]]))
    restore = restore and draw(st.permutations(restore))
    pool = draw(st.lists(timestamps, min_size=1, max_size=3))
    usual, records = True, []
    for _ in range(count):
        gap = draw(st.sampled_from(["", "", "\n", " \t"]))
        fields = [
            f"<Key>{escape(draw(texts), draw)}</Key>",
            f"<LastModified>{draw(st.sampled_from(pool))}</LastModified>",
            "<ETag>&quot;0a&quot;</ETag>",
            f"<Size>{draw(st.integers(0, 2**63))}</Size>",
        ]
        if owner is not None:
            values = {"ID": draw(texts), "DisplayName": draw(texts)}
            leaves = gap.join(f"<{tag}>{escape(values[tag], draw)}</{tag}>" for tag in owner)
            odd = draw(st.sampled_from([None] * 6 + ODD_OWNERS))
            if odd is None:
                fields.append(f"<Owner>{gap}{leaves}{gap}</Owner>")
            else:
                fields.append(odd[0])
                usual = usual and odd[1]
        if restore:
            values = {
                "IsRestoreInProgress": draw(st.sampled_from(["true", "false"])),
                "RestoreExpiryDate": draw(st.sampled_from(pool)),
            }
            leaves = gap.join(f"<{tag}>{values[tag]}</{tag}>" for tag in restore)
            fields.append(f"<RestoreStatus>{gap}{leaves}{gap}</RestoreStatus>")
        fields.append("<StorageClass>STANDARD</StorageClass>")
        records.append(f"<Contents>{gap}{gap.join(fields)}{gap}</Contents>")
    body = (
        "<ListBucketResult><Name>b</Name><IsTruncated>false</IsTruncated>"
        f"{''.join(records)}</ListBucketResult>"
    )
    return body.encode(), usual


@settings(max_examples=examples(150))
@given(nested_runs())
def test_records_holding_elements_of_leaves_read_as_botocore_reads_them(
    page: tuple[bytes, bool],
) -> None:
    body, usual = page
    if usual:
        agrees_with_botocore(body)
        return
    read = reader().read(body)
    if read is not None:
        assert exact(read) == exact(botocore_reads(body))


def test_records_of_one_shape_are_read_as_one_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Speed (the values are checked above): a page's records of one shape, with Owner and
    RestoreStatus, with whitespace between elements or none, are built as runs of records,
    not element by element."""
    built: list[int] = []
    build = page_reader.Template.build

    def counting(self: Any, rows: list[tuple[str, ...]], moments: Any) -> Any:
        built.append(len(rows))
        return build(self, rows, moments)

    monkeypatch.setattr(page_reader.Template, "build", counting)
    for gap in ("", "\n  "):
        records = "".join(
            f"<Contents>{gap}<Key>k{i}</Key>{gap}<LastModified>2024-05-17T00:00:00.000Z"
            f"</LastModified>{gap}<Size>{i}</Size>{gap}<Owner>{gap}<ID>i{i}</ID>{gap}"
            f"<DisplayName>d&amp;{i}</DisplayName>{gap}</Owner>{gap}<RestoreStatus>{gap}"
            f"<IsRestoreInProgress>{'true' if i % 2 else 'false'}</IsRestoreInProgress>{gap}"
            f"</RestoreStatus>{gap}</Contents>"
            for i in range(1000)
        )
        body = f"<ListBucketResult><Name>b</Name>{records}</ListBucketResult>".encode()
        built.clear()
        agrees_with_botocore(body)
        assert built == [1000]


def s3_page(stamps: list[str], key: str = "logs/{i:04d}%C3%A9") -> bytes:
    objects = "".join(
        f"<Contents><Key>{key.format(i=i)}</Key><LastModified>{stamp}</LastModified>"
        f"<ETag>&quot;{i:032x}&quot;</ETag><ChecksumAlgorithm>CRC64NVME</ChecksumAlgorithm>"
        f"{_CHECKSUM_TYPE}<Size>{i}</Size>"
        "<StorageClass>STANDARD</StorageClass></Contents>"
        for i, stamp in enumerate(stamps)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="x"><Name>b</Name>'
        f"<IsTruncated>false</IsTruncated>{objects}</ListBucketResult>"
    ).encode()


@pytest.mark.parametrize("per_second", [1, 2, 10, 1000])
def test_timestamps_of_a_page_whatever_their_repeats(per_second: int) -> None:
    """A key a second (every text distinct: converted value by value), up to a page in one
    second (one text: converted once); whole seconds, milliseconds and microseconds."""
    for fraction in (".000", "", ".123456", ".5"):
        stamps = [
            f"2024-05-17T{i // per_second // 3600 % 24:02d}:{i // per_second // 60 % 60:02d}:"
            f"{i // per_second % 60:02d}{fraction}Z"
            for i in range(1000)
        ]
        read = agrees_with_botocore(s3_page(stamps))
        assert read is not None and len(read["Contents"]) == 1000


@pytest.mark.parametrize("odd", ODD_STAMPS)
def test_a_timestamp_fromisoformat_refuses_in_a_run_goes_the_exact_way(odd: str) -> None:
    for where in (0, 499, 999):
        stamps = [f"2024-05-17T00:{i // 60 % 60:02d}:{i % 60:02d}.000Z" for i in range(1000)]
        stamps[where] = odd
        agrees_with_botocore(s3_page(stamps))


@pytest.mark.parametrize(
    "key",
    [
        "a&quot;{i}",  # quotes only, in another column than ETag's
        "a&amp;quot;{i}",  # an escaped "&" before "quot;": not a quote
        "&#34;{i}&apos;&lt;",  # quotes written other ways, other references
        "{i}&quot;&amp;",
        "{i}&nbsp;",  # an entity XML does not predefine: botocore's to refuse
        "{i}&quot",  # a "&" that starts no reference
    ],
)
def test_references_in_a_column_read_as_expat_reads_them(key: str) -> None:
    stamps = ["2024-05-17T00:00:00.000Z"] * 300
    body = s3_page(stamps, key)
    try:
        expected = botocore_reads(body)
    except Exception:  # botocore's parser refuses the page: so must the reader
        assert reader().read(body) is None
        return
    read = reader().read(body)
    assert read is not None and exact(read) == exact(expected)


# --- installed on a client --------------------------------------------------------------


class _Raw:
    def __init__(self, body: bytes) -> None:
        self.body = body

    def stream(self, **_: Any) -> Any:
        yield self.body


def answering(body: bytes, status: int = 200, **config: Any) -> Any:
    """An S3 client whose ListObjectsV2 calls get ``body`` (through botocore's whole stack)."""
    client = boto3.client(
        "s3",
        region_name="us-east-1",
        aws_access_key_id="k",
        aws_secret_access_key="s",
        config=Config(retries={"total_max_attempts": 1}, **config),
    )

    def send(request: Any, **_: Any) -> AWSResponse:
        headers = {**HEADERS, "x-amz-request-charged": "requester"}
        return AWSResponse(request.url, status, headers, _Raw(body))

    client.meta.events.register("before-send.s3.ListObjectsV2", send)
    return client


def outcome(client: Any, **kwargs: Any) -> Any:
    try:
        response = client.list_objects_v2(Bucket="bkt", **kwargs)
    except ClientError as error:
        return ("error", str(error), error.response["Error"])
    except Exception as error:  # botocore's parser refused the page (ResponseParserError)
        return ("raised", type(error).__name__, str(error))
    response["ResponseMetadata"].pop("HTTPHeaders")
    return exact(response)


@given(pages(), st.sampled_from(["url", None]))
def test_a_client_answers_the_same_with_the_reader_installed(
    page: tuple[bytes, bool], encoding: str | None
) -> None:
    body = page[0]
    kwargs = {} if encoding is None else {"EncodingType": encoding}
    plain, fast = answering(body), answering(body)
    assert install_fast_pages(fast) == BEFORE_PARSE
    # botocore asks for url-encoded keys and decodes them itself (after-call), in both
    assert outcome(fast, **kwargs) == outcome(plain, **kwargs)


@pytest.mark.parametrize(
    ("body", "status"),
    [
        (b"<Error><Code>InternalError</Code><Message>x</Message></Error>", 200),
        (b"<?xml version='1.0'?><ListBucketResult><Name>b</Name><IsTrunc", 200),
        (b"<Error><Code>NoSuchBucket</Code><Message>gone</Message></Error>", 404),
        (b"", 200),
    ],
)
def test_errors_and_cut_off_pages_stay_botocores(body: bytes, status: int) -> None:
    plain, fast = answering(body, status), answering(body, status)
    install_fast_pages(fast)
    assert outcome(fast) == outcome(plain)


@needs_before_parse
def test_a_read_page_is_not_parsed_again_by_the_200_error_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Speed only (correctness never depends on it): the reader runs before botocore's check
    for "200 with an <Error> body", which would parse the whole page with ElementTree."""
    looked_at: list[bytes] = []
    check = botocore.handlers._looks_like_special_case_error

    def spy(status_code: int, body: bytes) -> bool:
        looked_at.append(body)
        return check(status_code, body)

    monkeypatch.setattr(botocore.handlers, "_looks_like_special_case_error", spy)
    body = b"<ListBucketResult><Name>b</Name><IsTruncated>false</IsTruncated></ListBucketResult>"
    fast, plain = answering(body), answering(body)
    install_fast_pages(fast)
    fast.list_objects_v2(Bucket="bkt")
    plain.list_objects_v2(Bucket="bkt")
    assert looked_at == [b"", body]


@needs_before_parse
def test_installed_on_one_client_once_and_removable() -> None:
    body = b"<ListBucketResult><Name>b</Name><IsTruncated>false</IsTruncated></ListBucketResult>"
    calls: list[bytes] = []
    fast, other = answering(body), answering(body)

    def spy(response_dict: dict[str, Any], **_: Any) -> None:
        calls.append(response_dict["body"])

    for client in (fast, other):
        client.meta.events.register("before-parse.s3.ListObjectsV2", spy)
    assert install_fast_pages(fast) and install_fast_pages(fast)  # twice: one handler
    fast.list_objects_v2(Bucket="bkt")
    other.list_objects_v2(Bucket="bkt")
    assert calls == [b"", body]  # read on the installed client only
    remove_fast_pages(fast)
    fast.list_objects_v2(Bucket="bkt")
    assert calls[-1] == body


def test_clients_it_is_not_installed_on() -> None:
    """Not an S3 client, not a botocore client, a session with its own timestamp parser."""
    dynamo = boto3.client(
        "dynamodb", region_name="us-east-1", aws_access_key_id="k", aws_secret_access_key="s"
    )
    assert not install_fast_pages(dynamo)
    assert not install_fast_pages(object())
    session = botocore.session.get_session()
    session.get_component("response_parser_factory").set_parser_defaults(timestamp_parser=str)
    custom = session.create_client(
        "s3", region_name="us-east-1", aws_access_key_id="k", aws_secret_access_key="s"
    )
    assert not install_fast_pages(custom)


@needs_before_parse
def test_bucket_listings_use_the_reader_unless_told_not_to() -> None:
    with mock_aws():
        client = boto3.client("s3", region_name="us-east-1")
        name = new_bucket(client)
        layout = KeyLayout("u/")
        keys = [layout.key_for(ulid_at(T0 + i, i)) for i in range(5)]
        for key in keys:
            client.put_object(Bucket=name, Key=key, Body=b"")
        plain_client = boto3.client("s3", region_name="us-east-1")
        fast = Bucket(client, name, layout)
        plain = Bucket(plain_client, name, layout, fast_pages=False)
        assert fast.source.fast_pages and not plain.source.fast_pages
        read = reader()
        seen: list[bool] = []

        def spy(response_dict: dict[str, Any], **_: Any) -> None:
            seen.append(response_dict["body"] == b"")

        client.meta.events.register("before-parse.s3.ListObjectsV2", spy)
        listed = [obj["Key"] for obj in fast.list_window(0)]
        assert listed == sorted(keys) and seen == [True]  # moto's pages are read here
        assert [obj["Key"] for obj in plain.list_window(0)] == listed
        assert read.read(b"") is None


# --- hostile bodies: references in every column, reserved namespaces, the local zone -----


def read_or_refused(body: bytes) -> None:
    """The reader reads ``body`` as botocore does, or leaves it to botocore (None); where
    botocore's parser refuses the page, the reader must leave it too."""
    read = reader().read(body)
    try:
        expected = botocore_reads(body)
    except Exception:
        assert read is None
        return
    if read is not None:
        assert exact(read) == exact(expected)


def restore_page(flags: list[str], records: int = 1) -> bytes:
    """A page of ``records`` objects per flag, each with a RestoreStatus holding the flag."""
    objects = "".join(
        f"<Contents><Key>k{i}-{n}</Key><LastModified>2024-05-17T00:00:00.000Z</LastModified>"
        f"<Size>{n}</Size><RestoreStatus><IsRestoreInProgress>{flag}</IsRestoreInProgress>"
        "</RestoreStatus></Contents>"
        for i, flag in enumerate(flags)
        for n in range(records)
    )
    return f"<ListBucketResult><Name>b</Name>{objects}</ListBucketResult>".encode()


#: Booleans expat reads (as "true", "false" or other text).
READ_BOOLEANS = [
    "tru&#101;",
    "&#116;rue",
    "&#x74;rue",
    "&#X74;rue",
    "fals&#101;",
    "t&#114;&#x75;e",
    "&#116;&#114;&#117;&#101;",
    "&amp;true",
    "true&#32;",
    "true",
    "false",
]
BOOLEAN_TEXTS = [
    *READ_BOOLEANS,
    "t&#1;rue",  # a character XML forbids: expat refuses the page
    "&bogus;",  # an entity XML does not define: expat refuses the page
    "tr&bogus;ue",
    "&#xD800;true",
    "&true",
]


@pytest.mark.parametrize("flag", BOOLEAN_TEXTS)
@pytest.mark.parametrize("records", [1, 3, 200])  # one record, and runs read by a template
def test_booleans_written_with_references_read_as_botocore_reads_them(
    flag: str, records: int
) -> None:
    """Regression: in a run of records, ``tru&#101;`` read False where botocore reads True,
    and ``t&#1;rue`` gave a page where botocore fails."""
    body = restore_page([flag], records)
    read_or_refused(body)
    if flag in ("tru&#101;", "&#116;rue", "&#x74;rue"):
        read = reader().read(body)
        assert read is not None  # read, not left to botocore: and read True
        assert all(obj["RestoreStatus"]["IsRestoreInProgress"] for obj in read["Contents"])
    if "&#1;" in flag or "&bogus;" in flag:
        assert reader().read(body) is None
        with pytest.raises(Exception):  # noqa: B017 - botocore's own parse error
            botocore_reads(body)


def referenced(text: str, draw: Any) -> str:
    """``text`` as XML text with a few of its characters written as references."""
    where = draw(st.sets(st.integers(0, max(len(text) - 1, 0)), max_size=3)) if text else set()
    out = []
    for i, char in enumerate(text):
        if char in "&<\r" or i in where:
            form = "&#{};" if i % 2 else "&#x{:x};"
            out.append(form.format(ord(char)))
        else:
            out.append(char)
    return "".join(out)


#: References expat refuses: a forbidden character, undefined entities, a bare "&", beyond
#: Unicode, an empty one.
BAD_REFERENCES = ["&#1;", "&bogus;", "&", "&#xFFFE;", "&#0;", "&#x110000;", "&#;", "&nbsp;"]
COLUMNS = ["Key", "LastModified", "ETag", "ChecksumAlgorithm", "Size", "StorageClass", "ID"]


@st.composite
def hostile_runs(draw: Any) -> bytes:
    """Pages of records whose every column may be written with references: keys, ETags,
    sizes, timestamps, storage classes, checksums, the Owner's ID and the restore flags
    (runs long enough to be read by a template); now and then one value spoilt with a
    reference expat refuses."""
    count = draw(st.integers(1, 12))
    stamp = draw(timestamps)
    spoilt = draw(
        st.none()
        | st.tuples(
            st.integers(0, count - 1), st.sampled_from(COLUMNS), st.sampled_from(BAD_REFERENCES)
        )
    )
    records = []
    for i in range(count):
        fields = {
            "Key": draw(texts),
            "LastModified": stamp,
            "ETag": '"' + draw(st.text("0123456789abcdef", max_size=8)) + '"',
            "ChecksumAlgorithm": draw(st.sampled_from(["CRC32", "CRC64NVME"])),
            "Size": str(draw(st.integers(0, 2**40))),
            "StorageClass": draw(st.sampled_from(["STANDARD", "GLACIER"])),
            "ID": draw(texts),
        }
        written = {tag: referenced(value, draw) for tag, value in fields.items()}
        if spoilt is not None and spoilt[0] == i:
            written[spoilt[1]] += spoilt[2]
        owner = written.pop("ID")
        parts = [f"<{tag}>{value}</{tag}>" for tag, value in written.items()]
        parts.append(f"<Owner><ID>{owner}</ID><DisplayName>d{i}</DisplayName></Owner>")
        flag = draw(st.sampled_from(["true", "false"]))
        flag = draw(st.sampled_from([flag, referenced(flag, draw), *READ_BOOLEANS]))
        parts.append(
            f"<RestoreStatus><IsRestoreInProgress>{flag}</IsRestoreInProgress></RestoreStatus>"
        )
        records.append(f"<Contents>{''.join(parts)}</Contents>")
    prefixes = "".join(
        f"<CommonPrefixes><Prefix>{referenced(draw(texts), draw)}</Prefix></CommonPrefixes>"
        for _ in range(draw(st.integers(0, 2)))
    )
    top = f"<Name>{referenced('bkt', draw)}</Name><IsTruncated>{referenced('true', draw)}"
    return (
        f'<ListBucketResult xmlns="x">{top}</IsTruncated>{"".join(records)}{prefixes}'
        "</ListBucketResult>"
    ).encode()


@settings(max_examples=examples(100))
@given(hostile_runs())
def test_every_column_with_references_reads_as_botocore_reads_it(body: bytes) -> None:
    read_or_refused(body)


ROOTS = [
    '<ListBucketResult xmlns="http://www.w3.org/2000/xmlns/">',  # reserved: expat refuses
    '<ListBucketResult xmlns="http://www.w3.org/XML/1998/namespace">',  # reserved too
    '<ListBucketResult xmlns="a}b">',  # ElementTree's separator: expat 2.4.5+ refuses
    '<ListBucketResult xmlns="a b">',
    '<ListBucketResult xmlns="a\tb">',
    '<ListBucketResult xmlns="&#x68;ttp://www.w3.org/2000/xmlns/">',
    '<ListBucketResult xmlns="http://www.w3.org/2000/xmlns">',  # not the reserved name
    '<ListBucketResult xmlns="">',
    '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
    "<ListBucketResult xmlns='x'>",
    '<ListBucketResult xmlns:s="http://s3.amazonaws.com/doc/2006-03-01/">',
]


@pytest.mark.parametrize("root", ROOTS)
def test_roots_expat_refuses_are_left_to_botocore(root: str) -> None:
    """Regression: a root declaring a reserved namespace gave a full page where botocore's
    parser refuses the document. Read directly, and through a client (where botocore's
    check for a "200 with an <Error> body" must see what it sees without the reader)."""
    for inner in ("<Name>b</Name><IsTruncated>false</IsTruncated>", "<Code>SlowDown</Code>"):
        body = f"{root}{inner}</ListBucketResult>".encode()
        read_or_refused(body)
        if "xmlns/" in root or "1998" in root:
            assert reader().read(body) is None
        plain, fast = answering(body), answering(body)
        install_fast_pages(fast)
        assert outcome(fast) == outcome(plain)


ZONES = [
    "UTC",
    "UTC+5",  # named UTC, five hours behind: botocore reads "Z" in it
    "Etc/UTC",
    "Europe/London",
    "America/New_York",
    "UTC0BST,M3.5.0/1,M10.5.0",  # "UTC" in winter only: tzlocal() then, tzutc() in summer
    "GMT0UTC,M3.5.0/1,M10.5.0",  # "UTC" in summer only
    "UTC0UTC,M3.5.0/1,M10.5.0",  # "UTC" all year, with daylight saving
    "XYZ-3",
]


@pytest.fixture
def local_zone(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Sets the process's ``TZ`` (and ``time.tzset()``); the zone in force is restored."""

    def set_zone(zone: str) -> None:
        monkeypatch.setenv("TZ", zone)
        time.tzset()

    yield set_zone
    monkeypatch.undo()
    time.tzset()


def test_the_local_zone_is_followed_when_it_changes(local_zone: Any) -> None:
    """Regression: after ``TZ`` changed and ``time.tzset()``, the reader kept the zone it had
    cached (keyed on ``time.tzname``, which ``UTC`` and ``UTC+5`` share) where botocore's
    parser follows the new one. One reader, pages of winter and summer timestamps, zone after
    zone (and back): the same values as botocore, down to the zone and offset."""
    stamps = [f"2024-{month:02d}-15T12:00:{i % 60:02d}.000Z" for month in (1, 7) for i in range(40)]
    body = s3_page(stamps)
    one = reader()
    for zone in [*ZONES, *reversed(ZONES)]:
        local_zone(zone)
        read = one.read(body)
        expected = botocore_reads(body)
        if read is None:  # a zone botocore reads "Z" in differently by date
            assert zone.startswith(("UTC0BST", "GMT0UTC")), zone
            continue
        assert exact(read) == exact(expected), zone
    local_zone("UTC")
    first = one.read(body)
    local_zone("UTC+5")
    moved = one.read(body)
    assert first is not None and moved is not None
    assert first["Contents"][0]["LastModified"] != moved["Contents"][0]["LastModified"]


# --- fast_pages: whether pages are read by the reader, on the botocore installed ----------


@pytest.mark.parametrize("mode", RETRY_MODES)
def test_fast_pages_is_whether_pages_are_read(
    monkeypatch: pytest.MonkeyPatch, mode: str | None
) -> None:
    """Regression: below botocore 1.35.16 (no ``before-parse``) the reader was never called
    yet ``fast_pages`` said True. On any botocore and retry mode, ``Bucket.source.fast_pages``
    is whether the listing's pages were read by the reader, and that is whether this botocore
    emits ``before-parse``."""
    read_by_reader: list[bytes] = []
    read = PageReader.read

    def spy(self: PageReader, body: bytes) -> Any:
        read_by_reader.append(body)
        return read(self, body)

    monkeypatch.setattr(PageReader, "read", spy)
    with mock_aws():
        client = client_in_mode("s3", mode)
        name = new_bucket(client)
        layout = KeyLayout("u/")
        keys = sorted(layout.key_for(ulid_at(T0 + i, i)) for i in range(5))
        for key in keys:
            client.put_object(Bucket=name, Key=key, Body=b"")
        fast = Bucket(client, name, layout)
        plain = Bucket(client_in_mode("s3", mode), name, layout, fast_pages=False)
        assert [obj["Key"] for obj in fast.list_window(0)] == keys
        assert fast.source.fast_pages == bool(read_by_reader) == BEFORE_PARSE
        assert not plain.source.fast_pages
        assert [obj["Key"] for obj in plain.list_window(0)] == keys
