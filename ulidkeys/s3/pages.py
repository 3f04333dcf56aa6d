"""A fast reader of ``ListObjectsV2`` pages, installed on the boto3 client a Bucket lists with.

botocore's XML parser spends ~50 µs per listed key under the GIL; this reads a page with one
regular expression into exactly the dicts botocore would build, and leaves anything it does
not recognise to botocore.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from itertools import repeat
from operator import itemgetter
from typing import Any

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

# Kinds of model members the reader builds; anything else is left to botocore.
_STRING, _INTEGER, _BOOLEAN, _TIMESTAMP, _STRUCTURE = range(5)
_KINDS = {
    "string": _STRING,
    "integer": _INTEGER,
    "long": _INTEGER,
    "boolean": _BOOLEAN,
    "timestamp": _TIMESTAMP,
    "structure": _STRUCTURE,
}


@dataclass(frozen=True)
class Member:
    """How botocore reads one XML element of a structure: the member it fills, its kind, its
    rank in the model (botocore builds dicts in model order) and, for a structure, its fields
    by XML name. ``flat``: a flattened list, one element per item."""

    name: str
    kind: int | None  # None: a kind the reader does not build (botocore reads the page)
    rank: int
    flat: bool = False
    fields: Mapping[str, Member] | None = None


def model_fields(shape: Any) -> dict[str, Member]:
    """The XML elements of a botocore structure shape, read the way botocore's XML parser
    names them (``_member_key_name``); header members are left out (botocore reads them)."""
    out: dict[str, Member] = {}
    for rank, (name, member) in enumerate(shape.members.items()):
        serialization = member.serialization
        if serialization.get("location") or serialization.get("eventheader"):
            continue
        item, flat = member, False
        if member.type_name == "list" and serialization.get("flattened"):
            item, flat = member.member, True
            xml = item.serialization.get("name") or serialization.get("name") or name
        else:
            xml = serialization.get("name") or name
        kind = _KINDS.get(item.type_name)
        supported = not serialization.get("xmlAttribute") and not getattr(
            item, "is_tagged_union", False
        )
        fields = model_fields(item) if kind == _STRUCTURE else None
        out[xml] = Member(name, kind if supported else None, rank, flat, fields)
    return out


# --- reading a page ----------------------------------------------------------------------

# S3's own prolog and root; any other (a BOM, a DOCTYPE, another encoding) goes to botocore.
_PROLOG = re.compile(
    r'(?:<\?xml version="1\.0"(?: encoding="(?i:utf-8)")?[ \t\n]*\?>)?[ \t\n]*'
    r'<ListBucketResult(?: xmlns="[^"<>&]*")?>'
)
_ROOT_END = "</ListBucketResult>"
_NAME = "[A-Za-z][A-Za-z0-9]*"
# Text: what expat reads as it is. A page holding a character XML 1.0 forbids, or CR (expat
# reads a literal CR as LF), is botocore's to parse or to refuse: looked for once in the body's
# bytes (in C), so the patterns need not test every character against them (a third faster).
_TEXT = "[^<]"
_REFUSED_BYTES = bytes([*range(0x00, 0x09), *range(0x0B, 0x20)])
_REFUSED_UTF8 = ("\ufffe".encode(), "\uffff".encode())
# One token: a leaf element with its text, an opening, closing or empty tag, text between
# elements, or a "<" that starts none of these (comments, CDATA, attributes, prefixes).
_TOKEN = re.compile(
    f"<({_NAME})>({_TEXT}*)</({_NAME})>"  # leaf
    f"|<(/?)({_NAME})(/?)>"  # tag
    f"|({_TEXT}+)"  # text between elements
    "|([\\s\\S])"  # anything else
)
# An element holding only leaf elements (an object without Owner, a common prefix): the
# shape a record template is learnt from (the template itself checks every character).
_RECORD = re.compile(f"<({_NAME})>[ \t\n]*((?:<({_NAME})>[^<]*</\\3>[ \t\n]*)*)</\\1>")
_OPENING = re.compile(f"<({_NAME})>")
_REFERENCE = re.compile(r"&(?:(lt|gt|amp|quot|apos)|#([0-9]{1,7})|#x([0-9A-Fa-f]{1,6}));|&")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
# The timestamps S3 sends, read here (dateutil reads them the same way); any other form goes
# through botocore's own parser.
_ISO_Z = "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\\.[0-9]{1,6})?Z"
_ISO_Z_MATCH = re.compile(_ISO_Z).fullmatch
#: Record shapes remembered per element (a server writes one or two).
MAX_TEMPLATES = 8


class _Unrecognised(Exception):
    """The page holds something this reader does not build: botocore parses it."""


def _xml_char(code: int) -> str:
    if code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD:
        return chr(code)
    if 0x10000 <= code <= 0x10FFFF:
        return chr(code)
    raise _Unrecognised  # expat refuses a reference to a character XML does not allow


def _reference(match: re.Match[str]) -> str:
    named, decimal, hexadecimal = match.groups()
    if named:
        return _NAMED[named]
    if decimal:
        return _xml_char(int(decimal))
    if hexadecimal:
        return _xml_char(int(hexadecimal, 16))
    raise _Unrecognised  # a bare "&" or an entity XML does not predefine


def _unescape(text: str) -> str:
    return _REFERENCE.sub(_reference, text)


class _Moments:
    """Timestamps as botocore's parser reads them: a record column in C maps, any other text
    read once per page (the same conversion either way)."""

    def __init__(self, zone: tzinfo | None, parse: Callable[[str], Any]) -> None:
        self.zone, self.parse = zone, parse
        self.seen: dict[str, datetime] = {}

    def __call__(self, text: str) -> datetime:
        moment = self.seen.get(text)
        if moment is None:
            moment = self.seen[text] = self._read(text)
        return moment

    def column(self, texts: Sequence[str]) -> list[datetime]:
        """The values of ``texts``, each in S3's form (``_ISO_Z``: the record's pattern
        checked it): converted by C maps with no Python step per value, the way ``_read``
        converts one text. A text ``fromisoformat`` refuses (a 30th of February; a fraction
        of other than 3 or 6 digits on 3.10) sends the column through ``_read`` per text."""
        distinct = set(texts)
        # S3 writes whole seconds: a window of many keys a second repeats its texts, and a
        # dict of the distinct ones is then cheaper than converting every value
        keys = list(distinct) if len(distinct) * 3 < len(texts) * 2 else texts
        try:
            naive = list(map(datetime.fromisoformat, map(_BEFORE_Z, keys)))
        except ValueError:
            return self._exact(texts)
        moments = list(map(datetime.combine, naive, map(datetime.time, naive), repeat(self.zone)))
        if keys is texts:
            return moments
        return list(map(dict(zip(keys, moments, strict=True)).__getitem__, texts))

    def _exact(self, texts: Sequence[str]) -> list[datetime]:
        seen = self.seen
        for text in set(texts).difference(seen):
            seen[text] = self._read(text)
        return list(map(seen.__getitem__, texts))

    def _read(self, text: str) -> datetime:
        if _ISO_Z_MATCH(text):
            try:  # dateutil gives the same fields, truncates past µs and adds ``zone``
                naive = datetime.fromisoformat(text[:-1])
            except ValueError:
                pass  # not a date: botocore's parser raises its own error
            else:  # combine: a third of the CPU of naive.replace(tzinfo=...), same value
                return datetime.combine(naive, naive.time(), self.zone)
        try:
            moment = self.parse(text)
        except Exception as error:  # botocore's own error, raised again by its own parse
            raise _Unrecognised from error
        if not isinstance(moment, datetime):
            raise _Unrecognised
        return moment


class _Template:
    """One record shape (its leaf elements, in document order): regular expressions that
    match a record of that shape and check each value's form (``tight``: S3's own form, no
    whitespace between elements, a sixth faster; ``match``: any whitespace there), and how
    its dict is built (in model order, values converted as botocore converts them)."""

    def __init__(self, outer: str, tags: Sequence[str], fields: Mapping[str, Member]) -> None:
        members = [fields[tag] for tag in tags]
        forms: dict[int | None, str] = {_INTEGER: "([0-9]+)", _TIMESTAMP: f"({_ISO_Z})"}

        def pattern(gap: str) -> re.Pattern[str]:
            # tags are names (letters and digits): safe inside a pattern
            leaves = "".join(
                f"<{tag}>{forms.get(member.kind, f'({_TEXT}*)')}</{tag}>{gap}"
                for tag, member in zip(tags, members, strict=True)
            )
            return re.compile(f"<{outer}>{gap}{leaves}</{outer}>{gap}")

        self.tight, self.match = pattern("").match, pattern("[ \t\n]*").match
        self.order = order = sorted(range(len(members)), key=lambda i: members[i].rank)
        self.dict = _record_builder([(members[i].name, members[i].flat) for i in order])

        def where(kind: int) -> tuple[int, ...]:
            return tuple(i for i, member in enumerate(members) if member.kind == kind)

        self.strings, self.integers = where(_STRING), where(_INTEGER)
        self.timestamps, self.booleans = where(_TIMESTAMP), where(_BOOLEAN)

    def build(self, rows: list[tuple[str, ...]], moments: _Moments) -> list[dict[str, Any]]:
        """The dicts of a run of records (their values by element, in document order):
        converted a column at a time, which keeps most of the work in C."""
        columns: list[Any] = list(zip(*rows, strict=True))
        if not columns:
            return [{} for _ in rows]
        for i in self.strings:
            joined = "".join(columns[i])
            if "&" in joined:  # a reference to read (S3 escapes every quote of an ETag)
                columns[i] = _unescape_column(columns[i], joined)
        for i in self.integers:
            columns[i] = list(map(int, columns[i]))
        for i in self.timestamps:
            columns[i] = moments.column(columns[i])
        for i in self.booleans:
            columns[i] = list(map(_TRUE.__eq__, columns[i]))
        return list(map(self.dict, *[columns[i] for i in self.order]))


_TRUE = "true"
_BEFORE_Z = itemgetter(slice(None, -1))


def _unescape_column(texts: Sequence[str], joined: str) -> list[str]:
    """``texts`` unescaped (``joined``: their concatenation). Quotes, the only references
    S3 writes in a page it lists, are replaced in C; a "&" in text always starts a reference,
    so that is what ``_unescape`` reads them as, and any other reference goes through it."""
    quotes = joined.count("&quot;")
    out = list(map(str.replace, texts, repeat("&quot;"), repeat('"'))) if quotes else texts
    if joined.count("&") == quotes:
        return list(out)
    return [_unescape(text) if "&" in text else text for text in out]


def _record_builder(members: Sequence[tuple[str, bool]]) -> Callable[..., dict[str, Any]]:
    """A function of a record's values (in model order) that returns its dict: a dict
    display, half the CPU of ``dict(zip(names, values))``, with each flattened list's one
    item in a list. Generated code, as ``collections.namedtuple`` writes: the names are
    written as ``repr`` literals, the parameters are ``v0``, ``v1``..."""
    items = ", ".join(
        f"{name!r}: [v{i}]" if flat else f"{name!r}: v{i}" for i, (name, flat) in enumerate(members)
    )
    parameters = ", ".join(f"v{i}" for i in range(len(members)))
    builder: Callable[..., dict[str, Any]] = eval(f"lambda {parameters}: {{{items}}}")
    return builder


_LEAF_KINDS = frozenset({_STRING, _INTEGER, _BOOLEAN, _TIMESTAMP})


class PageReader:
    """Reads ``ListObjectsV2`` bodies into botocore's dicts, for one output shape's members.

    ``timestamps`` is the client's timestamp parser (botocore's ``parse_timestamp``): values
    in S3's own form are built here with the time zone it gives them, any other form is
    passed to it, so every value is the one botocore would return. Records of one shape (an
    object's leaf elements in one order) are read by one regular expression, learnt from the
    first such record; anything else is read element by element.
    """

    def __init__(self, fields: Mapping[str, Member], timestamps: Callable[[str], Any]) -> None:
        self.fields, self.timestamps = fields, timestamps
        self._zones: dict[tuple[str, ...], tzinfo | None] = {}
        self._templates: dict[str, dict[tuple[str, ...], _Template | None]] = {}

    def _zone(self) -> tzinfo | None:
        # dateutil gives "...Z" the local zone when that is named "UTC", else tzutc(): ask it
        # once per local zone name (the only input that choice reads)
        names = tuple(time.tzname)
        if names not in self._zones:
            self._zones[names] = self.timestamps("1970-01-01T00:00:00Z").tzinfo
        return self._zones[names]

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
        inner = text[start.end() : end]
        try:
            return self._build(inner, _Moments(self._zone(), self.timestamps))
        except _Unrecognised:
            return None

    def _template(self, inner: str, pos: int, member: Member) -> _Template | None:
        """The template of the record at ``pos`` (learnt if new), None if it has none."""
        found = _RECORD.match(inner, pos)
        if found is None or member.fields is None:
            return None
        outer = found.group(1)
        tags = tuple(_OPENING.findall(found.group(2)))
        known = self._templates.setdefault(outer, {})
        if tags in known:
            return known[tags]
        fields = member.fields
        fit = len(set(tags)) == len(tags) and all(
            tag in fields and fields[tag].kind in _LEAF_KINDS for tag in tags
        )
        template = _Template(outer, tags, fields) if fit else None
        if len(known) < MAX_TEMPLATES:
            known[tags] = template
        return template

    def _build(self, inner: str, moments: _Moments) -> dict[str, Any]:
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
                    raise _Unrecognised
                member = fields.get(leaf)
                if member is None:
                    raise _Unrecognised  # botocore skips what its model lacks: let it
                value = self._leaf(member, text, moments)
            elif tag is not None:
                if slash:  # a closing tag: the structure on top of the stack is complete
                    if empty or not stack or stack[-1][4] != tag:
                        raise _Unrecognised
                    done = _ordered(out, fields) if shuffled else out
                    fields, out, rank, shuffled, _tag, member = stack.pop()
                    value = done
                elif (member := fields.get(tag)) is None or member.kind is None:
                    raise _Unrecognised
                elif empty:  # <Tag/>: what botocore reads from an element with no text
                    value = self._leaf(member, "", moments)
                elif member.kind != _STRUCTURE or member.fields is None:
                    raise _Unrecognised
                elif member.flat and (template := self._template(inner, pos, member)):
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
                raise _Unrecognised  # markup this reader does not know, or text expat checks
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
                raise _Unrecognised  # a repeated element: botocore reads it its own way
            else:
                out[name] = value
            shuffled = shuffled or member.rank < rank
            rank = member.rank
        if stack:
            raise _Unrecognised
        return _ordered(out, fields) if shuffled else out

    @staticmethod
    def _leaf(member: Member, text: str, moments: _Moments) -> Any:
        """A leaf element's value as botocore reads it (an empty element reads as "")."""
        kind = member.kind
        if "&" in text:
            text = _unescape(text)
        if kind == _STRING:
            return text
        if kind == _TIMESTAMP:
            return moments(text)
        if kind == _INTEGER:
            if not (text.isascii() and text.isdigit()):
                raise _Unrecognised  # int() reads more forms than digits: botocore decides
            return int(text)
        if kind == _BOOLEAN:
            return text == "true"
        if kind == _STRUCTURE and not text.strip(" \t\n"):
            return {}  # an element with no members
        raise _Unrecognised


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
    whether it is installed: not on clients that are no botocore S3 client, nor on one whose
    session parses timestamps its own way. Installing twice keeps one handler.

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
    if _custom_timestamps(client):
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
