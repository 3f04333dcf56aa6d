"""A fast reader of ``ListObjectsV2`` pages, installed on the boto3 client a Bucket lists with.

botocore's XML parser spends ~50 µs per listed key under the GIL; this reads a page with one
regular expression into exactly the dicts botocore would build, and leaves anything it does
not recognise to botocore.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from datetime import tzinfo
from typing import Any

from ulidkeys.clientevents import emits_before_parse
from ulidkeys.s3.page_records import (
    BOOLEAN,
    INTEGER,
    NAME,
    STRING,
    STRUCTURE,
    TEXT,
    TIMESTAMP,
    Member,
    Moments,
    Templates,
    Unrecognised,
    model_fields,
    unescape,
)

#: botocore emits ``before-parse.s3.ListObjectsV2`` before it parses a page, with a dict that
#: is merged into the parsed response. The handler is registered for every ``before-parse`` of
#: the client and keeps to ListObjectsV2: botocore calls such wildcard handlers before the S3
#: ones, so a page read here is not read again by botocore's check for S3's "200 with an
#: <Error> body" (which parses the whole page with ElementTree). Only the speed depends on that
#: order: a page this module reads is a complete ListBucketResult, which that check passes.
EVENT = "before-parse.*.*"
OPERATION = "ListObjectsV2"
#: Registered under this id, so installing twice keeps one handler.
HANDLER_ID = "ulidkeys.s3.pages"

# --- reading a page ----------------------------------------------------------------------

# What :meth:`PageReader._zone` found: not asked yet, or a zone that depends on the date.
_UNKNOWN, _VARIES = object(), object()

# S3's own prolog and root; any other (a BOM, a DOCTYPE, another encoding) goes to botocore.
# The default namespace only as URI characters (no reference, no whitespace that attribute
# normalisation would change, no "}": ElementTree's namespace separator, which expat 2.4.5+
# refuses in a URI), and not one of the two names XML reserves, which expat refuses to bind
# (botocore's parser fails on them, so its check for a "200 with an <Error> body" never
# sees such a page: neither may the reader).
_PROLOG = re.compile(
    r'(?:<\?xml version="1\.0"(?: encoding="(?i:utf-8)")?[ \t\n]*\?>)?[ \t\n]*'
    r"<ListBucketResult(?: xmlns=\"([A-Za-z0-9._~:/?#\[\]@!$'()*+,;=%-]*)\")?>"
)
_RESERVED_NAMESPACES = frozenset(
    {"http://www.w3.org/2000/xmlns/", "http://www.w3.org/XML/1998/namespace"}
)
_ROOT_END = "</ListBucketResult>"
# Characters XML 1.0 forbids, and CR (expat reads a literal CR as LF): a page holding one is
# botocore's to parse or to refuse. Looked for once in the body's bytes (in C), so the
# patterns need not test every character against them (TEXT, a third faster).
_REFUSED_BYTES = bytes([*range(0x00, 0x09), *range(0x0B, 0x20)])
_REFUSED_UTF8 = ("\ufffe".encode(), "\uffff".encode())
# One token: a leaf element with its text, an opening, closing or empty tag, text between
# elements, or a "<" that starts none of these (comments, CDATA, attributes, prefixes).
_TOKEN = re.compile(
    f"<({NAME})>({TEXT}*)</({NAME})>"  # leaf
    f"|<(/?)({NAME})(/?)>"  # tag
    f"|({TEXT}+)"  # text between elements
    "|([\\s\\S])"  # anything else
)


class PageReader:
    """Reads ``ListObjectsV2`` bodies into botocore's dicts, for one output shape's members.

    ``timestamps`` is the client's timestamp parser (botocore's ``parse_timestamp``): values
    in S3's own form are built here with the time zone it gives them, any other form is
    passed to it, so every value is the one botocore would return. Records of one shape (an
    object's elements in one order: leaves, or elements of leaves such as its Owner) are read
    by one regular expression learnt from the first such record
    (:class:`~ulidkeys.s3.page_records.Templates`); anything else is read element by element.
    """

    def __init__(self, fields: Mapping[str, Member], timestamps: Callable[[str], Any]) -> None:
        self.fields, self.timestamps = fields, timestamps
        self._zones: dict[tuple[Any, ...], tzinfo | object | None] = {}
        self._templates = Templates()

    def _zone(self) -> tzinfo | object | None:
        """The time zone botocore's parser gives S3's "...Z" timestamps in the local zone in
        force, or ``_VARIES`` when that depends on the date.

        dateutil reads "Z" as the name "UTC" and gives the local zone (``tzlocal()``) when
        ``time.tzname`` holds that name and the local zone is called so on that date, else
        ``tzutc()``; a ``tzlocal()`` keeps the offsets and names in force when it was made.
        So the zone is asked of the parser once per local zone as ``time.tzset()`` left it
        (names, offsets, daylight saving: all that tzlocal reads), which follows a ``TZ``
        changed at run time. A zone with daylight saving that is named "UTC" in one half of
        the year only (``TZ=UTC0BST,...``) gives tzlocal() on some dates and tzutc() on the
        others: its pages are botocore's to read."""
        key = (tuple(time.tzname), time.timezone, time.altzone, time.daylight)
        zone = self._zones.get(key, _UNKNOWN)
        if zone is _UNKNOWN:
            names = set(time.tzname)
            daylight_saving = time.daylight and time.altzone != time.timezone  # tzlocal's
            if "UTC" in names and names != {"UTC"} and daylight_saving:
                zone = _VARIES
            else:
                zone = self.timestamps("1970-01-01T00:00:00Z").tzinfo
            self._zones[key] = zone
        return zone

    def read(self, body: bytes) -> dict[str, Any] | None:
        """The body members botocore would parse from ``body``, or None: botocore's to read."""
        if len(body.translate(None, _REFUSED_BYTES)) != len(body):
            return None
        if not body.isascii() and any(refused in body for refused in _REFUSED_UTF8):
            return None
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return None
        if "]" in text and "]]>" in text:
            return None  # expat refuses "]]>" in text
        start = _PROLOG.match(text)
        end = text.rfind(_ROOT_END)
        if start is None or end < start.end() or text[end + len(_ROOT_END) :].strip(" \t\n"):
            return None  # another document, or one cut short
        if start.group(1) in _RESERVED_NAMESPACES:
            return None  # expat refuses the document: botocore's error
        zone = self._zone()
        if not (zone is None or isinstance(zone, tzinfo)):  # _VARIES
            return None  # the local zone makes botocore's zone depend on the date
        inner = text[start.end() : end]
        try:
            return self._build(inner, Moments(zone, self.timestamps))
        except Unrecognised:
            return None

    def _build(self, inner: str, moments: Moments) -> dict[str, Any]:
        fields: Mapping[str, Member] = self.fields
        out: dict[str, Any] = {}
        rank = -1
        shuffled = False  # members came out of model order: reorder when the element closes
        stack: list[tuple[Mapping[str, Member], dict[str, Any], int, bool, str, Member]] = []
        token = _TOKEN.match
        pos, size = 0, len(inner)
        while pos < size:
            found = token(inner, pos)
            assert found is not None  # the last alternative matches any character
            leaf, text, closing, slash, tag, empty, between, other = found.groups()
            if leaf is not None:
                if leaf != closing:
                    raise Unrecognised
                member = fields.get(leaf)
                if member is None:
                    raise Unrecognised  # botocore skips what its model lacks: let it
                value = self._leaf(member, text, moments)
            elif tag is not None:
                if slash:  # a closing tag: the structure on top of the stack is complete
                    if empty or not stack or stack[-1][4] != tag:
                        raise Unrecognised
                    done = _ordered(out, fields) if shuffled else out
                    fields, out, rank, shuffled, _tag, member = stack.pop()
                    value = done
                elif (member := fields.get(tag)) is None or member.kind is None:
                    raise Unrecognised
                elif empty:  # <Tag/>: what botocore reads from an element with no text
                    value = self._leaf(member, "", moments)
                elif member.kind != STRUCTURE or member.fields is None:
                    raise Unrecognised
                elif member.flat and (template := self._templates.at(inner, pos, member)):
                    # a run of records of one shape, one regular expression match each
                    items = out.get(member.name)
                    if items is None:
                        items = out[member.name] = []
                        shuffled = shuffled or member.rank < rank
                        rank = member.rank
                    tight, match = template.tight, template.match
                    record = tight(inner, pos) or match(inner, pos)
                    if record is None:  # a value of another form: read it element by element
                        stack.append((fields, out, rank, shuffled, tag, member))
                        fields, out, rank, shuffled = member.fields, {}, -1, False
                        pos = found.end()
                        continue
                    rows = []
                    while record is not None:  # each record starts where the last one ended
                        rows.append(record.groups())
                        pos = record.end()
                        record = tight(inner, pos) or match(inner, pos)
                    items += template.build(rows, moments)
                    continue
                else:  # an opening tag: the structure's members follow
                    stack.append((fields, out, rank, shuffled, tag, member))
                    fields, out, rank, shuffled = member.fields, {}, -1, False
                    pos = found.end()
                    continue
            elif other or "&" in between:
                raise Unrecognised  # markup this reader does not know, or text expat checks
            else:
                pos = found.end()
                continue  # whitespace (or text) between elements: botocore ignores it
            pos = found.end()
            # store the value of a leaf, an empty tag or a closed structure
            name = member.name
            if member.flat:
                items = out.get(name)
                if items is not None:
                    items.append(value)
                    continue
                out[name] = [value]
            elif name in out:
                raise Unrecognised  # a repeated element: botocore reads it its own way
            else:
                out[name] = value
            shuffled = shuffled or member.rank < rank
            rank = member.rank
        if stack:
            raise Unrecognised
        return _ordered(out, fields) if shuffled else out

    @staticmethod
    def _leaf(member: Member, text: str, moments: Moments) -> Any:
        """A leaf element's value as botocore reads it (an empty element reads as "")."""
        kind = member.kind
        if "&" in text:
            text = unescape(text)
        if kind == STRING:
            return text
        if kind == TIMESTAMP:
            return moments(text)
        if kind == INTEGER:
            if not (text.isascii() and text.isdigit()):
                raise Unrecognised  # int() reads more forms than digits: botocore decides
            return int(text)
        if kind == BOOLEAN:
            return text == "true"
        if kind == STRUCTURE and not text.strip(" \t\n"):
            return {}  # an element with no members
        raise Unrecognised


def _ordered(parsed: dict[str, Any], fields: Mapping[str, Member]) -> dict[str, Any]:
    """``parsed`` with its members in model order, as botocore builds it."""
    order = sorted(fields.values(), key=_rank)
    return {m.name: parsed[m.name] for m in order if m.name in parsed}


def _rank(member: Member) -> int:
    return member.rank


# --- installing on a client ----------------------------------------------------------------


def install_fast_pages(client: Any) -> bool:
    """Read this client's ``ListObjectsV2`` pages with :class:`PageReader` (a handler on the
    client's own event system; other clients and boto3's defaults are untouched). Returns
    whether it is installed, which is whether the client's pages are read by it: not on
    clients that are no botocore S3 client, nor on one whose botocore emits no
    ``before-parse`` (below botocore 1.35.16 and aiobotocore 2.15.0: the reader would never
    be called), nor on one whose session parses timestamps its own way. Installing twice
    keeps one handler.

    The handler reads a 200 answer's body; when it recognises the page it hands botocore the
    members in ``customized_response_dict`` (merged into the parsed response) and an empty
    body, so botocore parses only the headers (``ResponseMetadata``, ``RequestCharged``).
    Errors, S3's "200 with an <Error> body", cut-off and unusual pages go to botocore as
    before. ``EncodingType=url`` keys are decoded by botocore's own ``after-call`` handler.
    """
    meta = getattr(client, "meta", None)
    events = getattr(meta, "events", None)
    model = getattr(meta, "service_model", None)
    if events is None or model is None or getattr(model, "service_name", None) != "s3":
        return False
    if _custom_timestamps(client) or not emits_before_parse(client):
        return False
    reader = PageReader(
        model_fields(model.operation_model(OPERATION).output_shape), _default_timestamps()
    )

    def before_parse(
        operation_model: Any,
        response_dict: dict[str, Any],
        customized_response_dict: dict[str, Any],
        **_: Any,
    ) -> None:
        if getattr(operation_model, "name", None) != OPERATION:
            return
        if response_dict.get("status_code") != 200:
            return
        body = response_dict.get("body")
        if not isinstance(body, bytes):
            return
        parsed = reader.read(body)
        if parsed is None:
            return
        customized_response_dict.update(parsed)
        response_dict["body"] = b""  # read already: botocore parses the headers only

    events.register(EVENT, before_parse, unique_id=HANDLER_ID)
    return True


def remove_fast_pages(client: Any) -> None:
    """Undo :func:`install_fast_pages` on ``client`` (botocore parses every page again)."""
    client.meta.events.unregister(EVENT, unique_id=HANDLER_ID)


def _default_timestamps() -> Any:
    from botocore.parsers import DEFAULT_TIMESTAMP_PARSER  # boto3 is an optional extra

    return DEFAULT_TIMESTAMP_PARSER


def _custom_timestamps(client: Any) -> bool:
    """Whether the client's parsers were given their own timestamp parser (as the AWS CLI
    does); the values would differ from botocore's defaults, so the reader stays out."""
    factory = getattr(getattr(client, "_endpoint", None), "_response_parser_factory", None)
    defaults = getattr(factory, "_defaults", None)
    return isinstance(defaults, dict) and defaults.get("timestamp_parser") is not None
