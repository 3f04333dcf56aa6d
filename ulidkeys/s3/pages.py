"""The fast reader of ``ListObjectsV2`` pages, installed on the boto3 client a Bucket lists with.

botocore's XML parser spends ~50 µs per listed key under the GIL; this reads a page into exactly
the dicts botocore would build and leaves anything it does not recognise to botocore: the
model's members as botocore reads them, XML text (references, timestamps), runs of records of
one shape (an object's elements) each matched by one learnt regular expression and built a
column at a time, in C where it can be; and the handler on the client's own event system that
hands botocore the page it read. A listing that wants columns (:data:`WANTED`, set around
its call) gets the objects' members as lists instead, with no dict per object
(:data:`COLUMNS`).
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, tzinfo
from itertools import repeat
from operator import itemgetter
from typing import Any

from ulidkeys.clientevents import emits_before_parse

# Kinds of model members the reader builds; anything else is left to botocore.
STRING, INTEGER, BOOLEAN, TIMESTAMP, STRUCTURE = range(5)
_KINDS = {
    "string": STRING,
    "integer": INTEGER,
    "long": INTEGER,
    "boolean": BOOLEAN,
    "timestamp": TIMESTAMP,
    "structure": STRUCTURE,
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
        fields = model_fields(item) if kind == STRUCTURE else None
        out[xml] = Member(name, kind if supported else None, rank, flat, fields)
    return out


NAME = "[A-Za-z][A-Za-z0-9]*"
# Text: what expat reads as it is. The characters XML 1.0 forbids, and CR, are looked for
# once in the body's bytes before (``ulidkeys.s3.pages``), so this need not exclude them.
TEXT = "[^<]"

# An element holding leaf elements and elements of leaf elements (an object, with its Owner
# or RestoreStatus; a common prefix): the shape a record template is learnt from (the
# template itself checks every character).
_RECORD = re.compile(
    f"<({NAME})>[ \t\n]*((?:<({NAME})>(?:[^<]*|[ \t\n]*(?:<{NAME}>[^<]*</{NAME}>[ \t\n]*)+)"
    "</\\3>[ \t\n]*)*)</\\1>"
)
_TAG = re.compile(f"<(/?)({NAME})>")
_REFERENCE = re.compile(r"&(?:(lt|gt|amp|quot|apos)|#([0-9]{1,7})|#x([0-9A-Fa-f]{1,6}));|&")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
# The timestamps S3 sends, read here (dateutil reads them the same way); any other form goes
# through botocore's own parser.
_ISO_Z = "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\\.[0-9]{1,6})?Z"
_ISO_Z_MATCH = re.compile(_ISO_Z).fullmatch
#: Record shapes remembered per element (a server writes one or two).
MAX_TEMPLATES = 8


class Unrecognised(Exception):
    """The page holds something this reader does not build: botocore parses it."""


def _xml_char(code: int) -> str:
    if code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD:
        return chr(code)
    if 0x10000 <= code <= 0x10FFFF:
        return chr(code)
    raise Unrecognised  # expat refuses a reference to a character XML does not allow


def _reference(match: re.Match[str]) -> str:
    named, decimal, hexadecimal = match.groups()
    if named:
        return _NAMED[named]
    if decimal:
        return _xml_char(int(decimal))
    if hexadecimal:
        return _xml_char(int(hexadecimal, 16))
    raise Unrecognised  # a bare "&" or an entity XML does not predefine


def unescape(text: str) -> str:
    """``text`` with its references read as expat reads them (:class:`Unrecognised` for one
    expat refuses: a bare "&", an entity XML does not predefine, a forbidden character)."""
    return _REFERENCE.sub(_reference, text)


class Moments:
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
        try:  # 3.11+ reads the "Z" (UTC: the same fields; combine drops the zone it gives)
            read = list(map(datetime.fromisoformat, keys if _READS_Z else map(_BEFORE_Z, keys)))
        except ValueError:
            return self._exact(texts)
        moments = list(map(datetime.combine, read, map(datetime.time, read), repeat(self.zone)))
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
            raise Unrecognised from error
        if not isinstance(moment, datetime):
            raise Unrecognised
        return moment


#: A record's shape: its elements in document order, each a leaf's tag or an element of
#: leaves, as (tag, its leaves' tags).
Shape = tuple[str | tuple[str, tuple[str, ...]], ...]


def _shape(children: str) -> Shape:
    """The shape of a record whose children ``children`` matched ``_RECORD``."""
    tokens = _TAG.findall(children)
    entries: list[str | tuple[str, tuple[str, ...]]] = []
    i = 0
    while i < len(tokens):
        tag = tokens[i][1]
        if tokens[i + 1] == ("/", tag):  # a leaf: its closing tag follows
            entries.append(tag)
            i += 2
            continue
        leaves = []  # an element of leaves: <Leaf>, </...> pairs up to its own closing tag
        i += 1
        while tokens[i] != ("/", tag):
            leaves.append(tokens[i][1])
            i += 2
        entries.append((tag, tuple(leaves)))
        i += 1
    return tuple(entries)


def _fits(shape: Shape, fields: Mapping[str, Member]) -> bool:
    """Whether a template builds records of ``shape``: each element once, leaves of the
    kinds read from text, elements of leaves that are structures of the model."""
    tags = [entry if isinstance(entry, str) else entry[0] for entry in shape]
    if len(set(tags)) != len(tags):
        return False
    for entry in shape:
        if isinstance(entry, str):
            if entry not in fields or fields[entry].kind not in LEAF_KINDS:
                return False
            continue
        tag, leaves = entry
        member = fields.get(tag)
        if member is None or member.kind != STRUCTURE or member.fields is None:
            return False
        if not _fits(leaves, member.fields):
            return False
    return True


class Template:
    """One record shape (its elements, in document order: leaves, or elements of leaves):
    regular expressions that match a record of that shape and check each value's form
    (``tight``: S3's own form, no whitespace between elements, a sixth faster; ``match``:
    any whitespace there), and how its dict is built (each level in model order, values
    converted as botocore converts them)."""

    def __init__(self, outer: str, shape: Shape, fields: Mapping[str, Member]) -> None:
        leaves: list[Member] = []  # every leaf, nested or not, in document order
        #: the record's own leaves (not those of its elements) by member name: their values'
        #: places in a matched record
        self.top: dict[str, int] = {}
        self._outer, self._shape, self._fields = outer, shape, fields
        # the expressions that capture only some of the record's own leaves, by their names
        self._narrow: dict[tuple[str, ...], tuple[Matcher, Matcher, dict[str, int]]] = {}

        def expression(entries: Shape, fields: Mapping[str, Member], top: bool) -> str:
            # the dict display of one level, its members in model order
            items: list[tuple[int, str]] = []
            for entry in entries:
                if isinstance(entry, str):
                    member = fields[entry]
                    value = f"v{len(leaves)}"
                    if top:
                        self.top[member.name] = len(leaves)
                    leaves.append(member)
                else:
                    member = fields[entry[0]]
                    assert member.fields is not None  # _fits checked it
                    value = expression(entry[1], member.fields, False)
                items.append(
                    (member.rank, f"{member.name!r}: {f'[{value}]' if member.flat else value}")
                )
            return "{" + ", ".join(item for _, item in sorted(items)) + "}"

        self.tight, self.match = self._matchers(None)
        self.dict = _record_builder(expression(shape, fields, True), len(leaves))

        def where(kind: int) -> tuple[int, ...]:
            return tuple(i for i, member in enumerate(leaves) if member.kind == kind)

        self.integers, self.timestamps, self.booleans = (
            where(INTEGER),
            where(TIMESTAMP),
            where(BOOLEAN),
        )
        # read as XML text (``({TEXT}*)``: any reference may be there), unescaped first
        self.texts = where(STRING) + self.booleans

    def build(self, rows: list[tuple[str, ...]], moments: Moments) -> list[dict[str, Any]]:
        """The dicts of a run of records (their values by element, in document order):
        converted a column at a time, which keeps most of the work in C."""
        columns: list[Any] = list(zip(*rows, strict=True))
        if not columns:
            return [{} for _ in rows]
        for i, texts in enumerate(columns):
            columns[i] = self._values(i, texts, moments)
        return list(map(self.dict, *columns))

    def _matchers(self, keep: Collection[str] | None) -> tuple[Matcher, Matcher]:
        """``tight`` and ``match`` of this shape, capturing every leaf (``keep`` None) or only
        the record's own leaves named in ``keep``: the same records, checked the same way."""
        outer, shape, fields = self._outer, self._shape, self._fields
        gap = "[ \t\n]*"
        tight = re.compile(f"<{outer}>{_pattern(shape, fields, '', keep)}</{outer}>").match
        loose = f"<{outer}>{gap}{_pattern(shape, fields, gap, keep)}</{outer}>{gap}"
        return tight, re.compile(loose).match

    def columns(self, inner: str, pos: int, moments: Moments, into: dict[str, list[Any]]) -> int:
        """Add the values of the run of records at ``pos`` to the columns of ``into`` (by
        member name; a member the records lack adds None) and return where the run ends: the
        values :meth:`build` puts in their dicts, only the columns asked for captured and
        converted."""
        if "Key" not in self.top:
            raise Unrecognised  # objects without a key: botocore reads them its own way
        names = tuple(into)
        narrow = self._narrow.get(names)
        if narrow is None:
            keep = set(names)
            captured = [name for name in sorted(self.top, key=self.top.__getitem__) if name in keep]
            narrow = (*self._matchers(keep), {name: k for k, name in enumerate(captured)})
            if len(self._narrow) < MAX_TEMPLATES:
                self._narrow[names] = narrow
        tight, match, places = narrow
        rows, pos = _records(tight, match, inner, pos)
        for name, column in into.items():
            k = places.get(name)
            if k is None:
                column += repeat(None, len(rows))
            else:
                column += self._values(self.top[name], list(map(itemgetter(k), rows)), moments)
        return pos

    def _values(self, i: int, texts: Sequence[str], moments: Moments) -> Sequence[Any]:
        """The values of leaf number ``i`` of a run of records, from their texts: converted
        a column at a time, as botocore converts each one."""
        if i in self.texts:  # strings and booleans: the columns that may hold references
            joined = "".join(texts)
            if "&" in joined:  # a reference to read (S3 escapes every quote of an ETag)
                texts = _unescape_column(texts, joined)
        if i in self.integers:
            return list(map(int, texts))
        if i in self.timestamps:
            return moments.column(texts)
        if i in self.booleans:  # botocore: true only for the text "true", once unescaped
            return list(map(_TRUE.__eq__, texts))
        return texts


Matcher = Callable[[str, int], "re.Match[str] | None"]
#: The form of a leaf's text that a record's expression checks, by kind (any other: text).
_FORMS: dict[int | None, str] = {INTEGER: "[0-9]+", TIMESTAMP: _ISO_Z}


def _pattern(
    entries: Shape, fields: Mapping[str, Member], gap: str, keep: Collection[str] | None
) -> str:
    """The expression of a record's elements ``entries``, capturing the text of each leaf
    (``keep`` None) or of the record's own leaves named in ``keep`` (not its elements')."""
    parts = []
    for entry in entries:  # tags are names (letters and digits): safe inside a pattern
        if isinstance(entry, str):
            form = _FORMS.get(fields[entry].kind, f"{TEXT}*")
            captured = keep is None or fields[entry].name in keep
            parts.append(f"<{entry}>{'(' if captured else '(?:'}{form})</{entry}>{gap}")
        else:
            tag, inside = entry
            nested = fields[tag].fields
            assert nested is not None  # _fits checked it
            inner = _pattern(inside, nested, gap, None if keep is None else ())
            parts.append(f"<{tag}>{gap}{inner}</{tag}>{gap}")
    return "".join(parts)


def _records(tight: Matcher, match: Matcher, inner: str, pos: int) -> tuple[list[Any], int]:
    """The captured values of the records that follow one another from ``pos`` (a tuple a
    record), and where they end."""
    rows = []
    record = tight(inner, pos) or match(inner, pos)
    while record is not None:  # each record starts where the last one ended
        rows.append(record.groups())
        pos = record.end()
        record = tight(inner, pos) or match(inner, pos)
    return rows, pos


_TRUE = "true"
_BEFORE_Z = itemgetter(slice(None, -1))
_READS_Z = sys.version_info >= (3, 11)  # datetime.fromisoformat("...Z")


def _unescape_column(texts: Sequence[str], joined: str) -> list[str]:
    """``texts`` unescaped (``joined``: their concatenation). Quotes, the only references
    S3 writes in a page it lists, are replaced in C; a "&" in text always starts a reference,
    so that is what ``unescape`` reads them as, and any other reference goes through it."""
    quotes = joined.count("&quot;")
    out = list(map(str.replace, texts, repeat("&quot;"), repeat('"'))) if quotes else texts
    if joined.count("&") == quotes:
        return list(out)
    return [unescape(text) if "&" in text else text for text in out]


def _record_builder(display: str, count: int) -> Callable[..., dict[str, Any]]:
    """A function of a record's ``count`` values (``v0``, ``v1``... in document order) that
    returns ``display``, its dict display: half the CPU of ``dict(zip(names, values))``.
    Generated code, as ``collections.namedtuple`` writes: ``display`` holds the model's
    member names as ``repr`` literals, and the parameters' names."""
    parameters = ", ".join(f"v{i}" for i in range(count))
    builder: Callable[..., dict[str, Any]] = eval(f"lambda {parameters}: {display}")
    return builder


LEAF_KINDS = frozenset({STRING, INTEGER, BOOLEAN, TIMESTAMP})


class Templates:
    """The record templates a reader has learnt, by element name and shape."""

    def __init__(self) -> None:
        self.known: dict[str, dict[Shape, Template | None]] = {}

    def at(self, inner: str, pos: int, member: Member) -> Template | None:
        """The template of the record at ``pos`` (learnt if new), None if it has none."""
        found = _RECORD.match(inner, pos)
        if found is None or member.fields is None:
            return None
        outer = found.group(1)
        shape = _shape(found.group(2))
        known = self.known.setdefault(outer, {})
        if shape in known:
            return known[shape]
        template = Template(outer, shape, member.fields) if _fits(shape, member.fields) else None
        if len(known) < MAX_TEMPLATES:
            known[shape] = template
        return template


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
#: The listed objects' members a call wants as columns, set around the call by the listing that
#: makes it (per thread, per asyncio task): the handler then gives :data:`COLUMNS` instead of
#: ``Contents``. None (the default): the dicts, as botocore gives them.
WANTED: ContextVar[tuple[str, ...] | None] = ContextVar("ulidkeys_s3_wanted", default=None)
#: The member of a parsed answer that holds the columns of :meth:`PageReader.read`.
COLUMNS = "UlidkeysColumns"
_OBJECTS = "Contents"

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
    (:class:`Templates`); anything else is read element by element.
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

    def read(self, body: bytes, wanted: Sequence[str] | None = None) -> dict[str, Any] | None:
        """The body members botocore would parse from ``body``, or None: botocore's to read.

        ``wanted``: the listed objects' members (``Contents``) to give as columns instead of
        dicts: then the answer has no ``Contents`` but :data:`COLUMNS`, a dict of one list per
        wanted member (``"Key"`` first, always there), each object's value as botocore reads
        it (None for a member the object lacks), in the page's order."""
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
        columns: dict[str, list[Any]] | None = None
        if wanted is not None:
            columns = {name: [] for name in ("Key", *wanted)}
        try:
            out = self._build(inner, Moments(zone, self.timestamps), columns)
        except Unrecognised:
            return None
        if columns is not None:
            out[COLUMNS] = columns
        return out

    def _build(
        self, inner: str, moments: Moments, columns: dict[str, list[Any]] | None = None
    ) -> dict[str, Any]:
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
                    as_columns = columns is not None and not stack and member.name == _OBJECTS
                    items = out.get(member.name)
                    if items is None and not as_columns:
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
                    if as_columns:  # only the columns asked for, no dict per object
                        pos = template.columns(inner, pos, moments, columns)  # type: ignore[arg-type]
                    else:
                        rows, pos = _records(tight, match, inner, pos)
                        items += template.build(rows, moments)  # type: ignore[operator]
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
            if columns is not None and name == _OBJECTS and not stack:
                if "Key" not in value:
                    raise Unrecognised  # an object without a key (<Contents/>): botocore's
                for wanted, column in columns.items():  # an object read element by element
                    column.append(value.get(wanted))
                continue
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
        wanted = WANTED.get()
        parsed = reader.read(body) if wanted is None else reader.read(body, wanted)
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
