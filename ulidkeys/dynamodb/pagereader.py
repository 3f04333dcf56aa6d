"""The fast reader of DynamoDB pages (Query, Scan, GetItem, BatchGetItem): the item maps of an
answer's JSON body converted in one pass, into botocore's typed values or straight into boto3's
plain ones, all or nothing. It parses only; :mod:`ulidkeys.dynamodb.pages` installs it on a
client (botocore's event handlers, the checks of the client's configuration).

botocore walks every attribute value of a page through its JSON shape parser, and boto3's
TypeDeserializer walks it again; this reads the body with :func:`json.loads` once. Every page
it cannot fully read is botocore's (:meth:`PageReader.read` returns None).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from typing import Any, NamedTuple

from ulidkeys.dynamodb.itemshapes import Shapes

# Where the item maps of each operation's answer are: a list of maps, one map, or a map of
# table names to lists of maps. Other members (Count, LastEvaluatedKey, ConsumedCapacity,
# UnprocessedKeys) are left to botocore.
_LIST, _ONE, _TABLES = range(3)
#: Operation -> (its output member holding items, how they are held).
READS: dict[str, tuple[str, int]] = {
    "Query": ("Items", _LIST),
    "Scan": ("Items", _LIST),
    "GetItem": ("Item", _ONE),
    "BatchGetItem": ("Responses", _TABLES),
}
#: The attribute value types the reader knows (botocore's ``AttributeValue`` members).
TAGS = frozenset({"S", "N", "B", "SS", "NS", "BS", "M", "L", "NULL", "BOOL"})


class Read(NamedTuple):
    """A page read: the item member as botocore builds it, as boto3's plain values (when
    asked for), and the rest of the body (JSON, for botocore to parse)."""

    typed: Any
    plain: Any
    rest: bytes


class _Unrecognised(Exception):
    """The page holds something this reader does not build: botocore parses it."""


def _strings(value: Any) -> list[str]:
    """A list of strings (a set's members), or the page is not this reader's."""
    if value.__class__ is not list:
        raise _Unrecognised
    for member in value:
        if member.__class__ is not str:
            raise _Unrecognised
    return value


class PageReader:
    """Converts the item maps of a parsed JSON body, all or nothing.

    ``typed`` gives what botocore's parser builds (``{"N": "1.5"}``, ``{"B": b"..."}``: blobs
    base64-decoded with ``blob``, the client's blob parser); ``plain`` what boto3's
    TypeDeserializer makes of that (``number``: its ``DYNAMODB_CONTEXT.create_decimal``,
    ``binary``: its ``Binary``). Both raise on any value not of DynamoDB's own forms (a
    ``null``, a value of the wrong JSON type, a map with no type or two, an unknown type).
    """

    def __init__(
        self,
        number: Callable[[str], Any],
        binary: Callable[[bytes], Any],
        blob: Callable[[str], bytes] = base64.b64decode,
    ) -> None:
        if blob is base64.b64decode:
            # what b64decode does (validate=False) without its Python steps: the same bytes,
            # and a ValueError for the same texts (non-ASCII; binascii.Error is one)
            blob = binascii.a2b_base64
        self.number, self.binary, self.blob = number, binary, blob
        self.plain_map, self.plain_value = self._plain()
        self.typed_map = self._typed()

    def read(
        self,
        body: bytes,
        member: str,
        form: int,
        plain: bool,
        known: frozenset[str] | None = None,
    ) -> Read | None:
        """``member`` of ``body`` converted, or None: the page is botocore's to read (also
        when it has a member not in ``known``, the output shape's)."""
        try:
            document = json.loads(body.decode("utf-8"))  # botocore's own decoding
        except Exception:
            return None  # not JSON (cut short, an HTML error page): botocore decides
        if document.__class__ is not dict or (known is not None and not known.issuperset(document)):
            return None
        value = document.pop(member, None)
        if value is None:
            return None  # nothing to read (or a null, which botocore reads its own way)
        # plain: converting decodes the blobs of ``value`` in place, which leaves it typed too
        convert = self.plain_map if plain else self.typed_map
        items: Any
        try:
            if form == _LIST:
                items = self._list(value, convert)
            elif form == _ONE:
                items = convert(value)
            else:
                if value.__class__ is not dict:
                    raise _Unrecognised
                items = {name: self._list(found, convert) for name, found in value.items()}
        except Exception:  # a value of another form, a bad number or base64: botocore's
            return None
        # the member stays in the rest, empty: botocore puts it where it puts it (the items
        # read replace it in place), so the response's members keep botocore's order
        document[member] = [] if form == _LIST else {}
        rest = json.dumps(document).encode()
        return Read(value, items, rest) if plain else Read(items, None, rest)

    @staticmethod
    def _list(value: Any, convert: Callable[[Any], dict[str, Any]]) -> list[dict[str, Any]]:
        if value.__class__ is not list:
            raise _Unrecognised
        return list(map(convert, value))

    def _plain(self) -> tuple[Callable[[Any], dict[str, Any]], Callable[[Any], Any]]:
        """The plain converters (boto3's values), as closures: this is the hot loop. Maps go
        through code compiled for their shape (:mod:`ulidkeys.dynamodb.itemshapes`) once it
        comes again; the generic conversion here is the reference, for every map the
        compiled code does not take."""
        number, binary, blob = self.number, self.binary, self.blob

        def generic_map(item: Any) -> dict[str, Any]:
            out = {}
            for name, value in item.items():
                # one key, or ValueError; a tag is a str, so indexing a non-dict with it fails
                (tag,) = value
                raw = value[tag]
                if raw.__class__ is str:
                    if tag == "S":
                        out[name] = raw
                        continue
                    if tag == "N":
                        out[name] = number(raw)
                        continue
                out[name] = other(value, tag, raw)
            return out

        def plain_value(value: Any) -> Any:
            (tag,) = value
            raw = value[tag]
            if raw.__class__ is str:  # as in generic_map: a list's strings and numbers
                if tag == "S":
                    return raw
                if tag == "N":
                    return number(raw)
            return other(value, tag, raw)

        def other(value: dict[str, Any], tag: str, raw: Any) -> Any:
            kind = raw.__class__
            if kind is str:
                if tag == "S":
                    return raw
                if tag == "N":
                    return number(raw)
                if tag == "B":
                    data = value[tag] = blob(raw)
                    return binary(data)
            elif kind is bool:
                if tag == "BOOL":
                    return raw
                if tag == "NULL":
                    return None
            elif kind is dict:
                if tag == "M":
                    return plain_map(raw)
            elif kind is list:
                if tag == "L":
                    return list(map(plain_value, raw))
                if tag == "SS":
                    return set(_strings(raw))
                if tag == "NS":
                    return set(map(number, _strings(raw)))
                if tag == "BS":
                    blobs = value[tag] = list(map(blob, _strings(raw)))
                    return set(map(binary, blobs))
            raise _Unrecognised

        env = {"number": number, "binary": binary, "blob": blob, "convert_value": plain_value}
        shapes = Shapes(True, env, generic_map)
        plain_map = shapes.converter()  # a page's items (and maps in lists)
        return plain_map, plain_value

    def _typed(self) -> Callable[[Any], dict[str, Any]]:
        """The typed converter (botocore's values): checks every value and decodes blobs in
        place (the parsed JSON is this reader's own; a page it gives up on is thrown away).
        Maps go through code compiled for their shape, as in :meth:`_plain`."""
        blob = self.blob

        def generic_map(item: Any) -> dict[str, Any]:
            for value in item.values():
                (tag,) = value  # as in plain_map
                raw = value[tag]
                if raw.__class__ is str and (tag == "S" or tag == "N"):
                    continue
                typed_value(value)
            return item  # type: ignore[no-any-return]

        def typed_value(value: Any) -> None:
            (tag,) = value
            raw = value[tag]
            kind = raw.__class__
            if kind is str:
                if tag == "B":
                    value[tag] = blob(raw)
                elif tag != "S" and tag != "N":
                    raise _Unrecognised
            elif kind is bool:
                if tag != "BOOL" and tag != "NULL":
                    raise _Unrecognised
            elif kind is dict:
                if tag != "M":
                    raise _Unrecognised
                typed_map(raw)
            elif kind is list:
                if tag == "L":
                    for member in raw:
                        typed_value(member)
                elif tag == "BS":
                    value[tag] = list(map(blob, _strings(raw)))
                elif tag == "SS" or tag == "NS":
                    _strings(raw)
                else:
                    raise _Unrecognised
            else:
                raise _Unrecognised

        env: dict[str, Any] = {"blob": blob, "convert_value": typed_value}
        typed_map = Shapes(False, env, generic_map).converter()
        return typed_map
