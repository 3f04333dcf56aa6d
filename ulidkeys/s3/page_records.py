"""The values of a ``ListObjectsV2`` page, for :mod:`ulidkeys.s3.pages`: the model's members
as botocore reads them, XML text (references, timestamps), and runs of records of one shape
(an object's elements), each run matched by one learnt regular expression and built a column
at a time, in C where it can be.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from itertools import repeat
from operator import itemgetter
from typing import Any

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
        forms: dict[int | None, str] = {INTEGER: "([0-9]+)", TIMESTAMP: f"({_ISO_Z})"}
        leaves: list[Member] = []  # every leaf, nested or not, in document order

        def pattern(entries: Shape, fields: Mapping[str, Member], gap: str) -> str:
            # tags are names (letters and digits): safe inside a pattern
            parts = []
            for entry in entries:
                if isinstance(entry, str):
                    form = forms.get(fields[entry].kind, f"({TEXT}*)")
                    parts.append(f"<{entry}>{form}</{entry}>{gap}")
                else:
                    tag, inside = entry
                    nested = fields[tag].fields
                    assert nested is not None  # _fits checked it
                    parts.append(f"<{tag}>{gap}{pattern(inside, nested, gap)}</{tag}>{gap}")
            return "".join(parts)

        def expression(entries: Shape, fields: Mapping[str, Member]) -> str:
            # the dict display of one level, its members in model order
            items: list[tuple[int, str]] = []
            for entry in entries:
                if isinstance(entry, str):
                    member = fields[entry]
                    value = f"v{len(leaves)}"
                    leaves.append(member)
                else:
                    member = fields[entry[0]]
                    assert member.fields is not None  # _fits checked it
                    value = expression(entry[1], member.fields)
                items.append(
                    (member.rank, f"{member.name!r}: {f'[{value}]' if member.flat else value}")
                )
            return "{" + ", ".join(item for _, item in sorted(items)) + "}"

        self.tight = re.compile(f"<{outer}>{pattern(shape, fields, '')}</{outer}>").match
        gap = "[ \t\n]*"
        self.match = re.compile(f"<{outer}>{gap}{pattern(shape, fields, gap)}</{outer}>{gap}").match
        self.dict = _record_builder(expression(shape, fields), len(leaves))

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
        for i in self.texts:  # strings and booleans: the columns that may hold references
            joined = "".join(columns[i])
            if "&" in joined:  # a reference to read (S3 escapes every quote of an ETag)
                columns[i] = _unescape_column(columns[i], joined)
        for i in self.integers:
            columns[i] = list(map(int, columns[i]))
        for i in self.timestamps:
            columns[i] = moments.column(columns[i])
        for i in self.booleans:  # botocore: true only for the text "true", once unescaped
            columns[i] = list(map(_TRUE.__eq__, columns[i]))
        return list(map(self.dict, *columns))


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
