"""The fast reader of DynamoDB pages (Query, Scan, GetItem, BatchGetItem), installed on the
boto3 or aiobotocore client a Table reads with.

botocore walks every attribute value of a page through its JSON shape parser, and boto3's
TypeDeserializer walks it again; this reads the body with :func:`json.loads` once and converts
the item maps in one pass, into botocore's typed values or straight into boto3's plain ones
(for the library's own calls: :func:`plain_items`), all or nothing. Everything else of the
answer, and every page it cannot fully read, is botocore's (:meth:`PageReader.read` returns
None). The parts: item maps converted by code compiled once per shape (the hot loop, for maps
whose attribute names come again: it converts a map exactly when the map has the shape it was
compiled for and otherwise fails before changing anything, so the generic conversion stays
the reference for every value); the page reader; and its installation - a ``before-parse``
handler on the client's own event system, and the checks that the client's configuration
gives botocore's and boto3's values.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, NamedTuple, cast

from ulidkeys.clientevents import (
    emits_before_parse,
    handlers_of,
    hierarchical_emitter,
    is_retry_machinery,
)

#: The JSON type each tag's value has, in DynamoDB's own forms.
_KIND = {
    "S": "str",
    "N": "str",
    "B": "str",
    "BOOL": "bool",
    "NULL": "bool",
    "M": "dict",
    "L": "list",
    "SS": "list",
    "NS": "list",
    "BS": "list",
}
#: Maps with more attributes are converted generically (the compiled code grows with them).
MAX_ATTRIBUTES = 64
#: Shapes compiled per converter at most; beyond, new shapes are converted generically (a
#: page of ever-new shapes cannot make the reader compile without end).
MAX_SHAPES = 256
#: Shapes compiled per names at most (an attribute that is sometimes NULL makes two).
MAX_VARIANTS = 4
#: Shapes seen once, remembered to compile them when they come again (cleared when full).
MAX_SEEN = 1024


class ShapeMiss(Exception):
    """A map is not of the shape a function was compiled for (nothing of it was changed)."""


class Shapes:
    """The functions compiled for the shapes of one converter (plain or typed), by names,
    and the map conversions (:meth:`converter`) that use them.

    ``env`` holds the callables the compiled code calls: ``number``, ``binary`` and ``blob``
    (as in :class:`PageReader`) and ``convert_value`` (the
    converter's conversion of one value, for list members); ``generic`` is its generic map
    conversion, the reference. ``plain`` says which values the code builds: boto3's plain
    values (decoding blobs in place as well) or botocore's (the map checked and its blobs
    decoded in place, the map itself returned)."""

    def __init__(self, plain: bool, env: dict[str, Any], generic: Callable[[Any], Any]) -> None:
        self.plain = plain
        self.env = {**env, "converter": self.converter}
        self.generic = generic
        #: names -> the functions for maps of those names, one per shape (values of other
        #: types): read without a lock (a dict's get is atomic, a tuple is replaced whole,
        #: and two threads compiling one shape compile the same code).
        self.compiled: dict[tuple[str, ...], tuple[Callable[[Any], Any], ...]] = {}
        self._count = 0
        self._seen: dict[tuple[str, ...], None] = {}

    def converter(self) -> Callable[[Any], Any]:
        """A map conversion: by the code compiled for the map's shape, else the generic one.

        Each place maps are converted at (a page's items, one attribute of a shape) has its
        own: it tries the function of the last map it converted first (the compiled code
        checks the names itself, which costs less than looking the shape up), then the
        others compiled for the map's names, then compiles one for the map's shape."""
        compiled, learn, generic = self.compiled.get, self.learn, self.generic
        last: list[Callable[[Any], Any] | None] = [None]

        def convert_map(item: Any) -> Any:
            if item.__class__ is not dict:
                return generic(item)  # which raises
            tried = last[0]
            if tried is not None:
                try:
                    return tried(item)
                except Exception:  # another shape (nothing changed yet), or a bad value
                    pass
            names = tuple(item)
            for convert in compiled(names, ()):
                if convert is not tried:
                    try:
                        out = convert(item)
                    except Exception:
                        continue
                    last[0] = convert
                    return out
            learnt = learn(names, item)
            if learnt is None:
                return generic(item)
            last[0] = learnt
            try:
                return learnt(item)
            except Exception:
                return generic(item)  # a bad value: the generic conversion raises again

        return convert_map

    def learn(self, names: tuple[str, ...], sample: dict[str, Any]) -> Callable[[Any], Any] | None:
        """A function for maps of the shape of ``sample`` (named ``names``, not yet
        converted, of none of the shapes compiled for those names): None the first time
        the names are seen (most names seen once are never seen again), when enough shapes
        were compiled, or when ``sample`` is too wide or no DynamoDB map (a generic map
        conversion is never kept as a converter's last: it would take every map after)."""
        if names not in self._seen:
            if len(self._seen) >= MAX_SEEN:
                self._seen.clear()
            self._seen[names] = None
            return None
        known = self.compiled.get(names, ())
        if len(known) >= MAX_VARIANTS or self._count >= MAX_SHAPES:
            return None
        function = compile_shape(names, sample, self.plain, self.env)
        if function is None:
            return None  # too wide, or no DynamoDB map: the generic conversion says so
        self.compiled[names] = (*known, function)
        self._count += 1
        return function


def compile_shape(
    names: tuple[str, ...], sample: dict[str, Any], plain: bool, env: dict[str, Any]
) -> Callable[[Any], Any] | None:
    """A function converting maps of the shape of ``sample`` (named ``names``), or None if
    ``sample`` holds a value not of DynamoDB's forms or has too many attributes.

    The function checks the map's names, in order (unpacked: a ValueError if there are more
    or fewer), reads every value (a subscript by name, then by tag: a KeyError or a
    TypeError if the value is of another type), checks them all in a single condition (one
    key, the JSON type of its tag; then set members all strings), and only then converts
    and changes anything: nothing it does before can raise for a map of DynamoDB's forms,
    and everything it does after raises only where the generic conversion raises too."""
    if len(names) > MAX_ATTRIBUTES:
        return None
    tags = []
    for name in names:
        value = sample[name]
        if value.__class__ is not dict or len(value) != 1:
            return None
        (tag,) = value
        if _KIND.get(tag) != value[tag].__class__.__name__:
            return None
        tags.append(tag)
    reads, checks, joins, steps, fields = [], [], [], [], []
    namespace = {**env, "ShapeMiss": ShapeMiss}
    for i, (name, tag) in enumerate(zip(names, tags, strict=True)):
        v, r = f"v{i}", f"r{i}"
        # repr: a str's repr is always a str literal of the same text
        reads.append(f"    {v} = item[{name!r}]; {r} = {v}[{tag!r}]")
        checks.append(f"len({v}) != 1 or {r}.__class__ is not {_KIND[tag]}")
        if tag in ("SS", "NS", "BS"):
            joins.append(f"    ''.join({r})")  # a TypeError unless every member is a str
        out = r
        if tag == "N":
            out = f"number({r})"
        elif tag == "NULL":
            out = "None"
        elif tag == "B":
            steps.append(f"    {v}['B'] = {r} = blob({r})")
            out = f"binary({r})"
        elif tag == "BS":
            steps.append(f"    {v}['BS'] = {r} = list(map(blob, {r}))")
            out = f"set(map(binary, {r}))"
        elif tag == "SS":
            out = f"set({r})"
        elif tag == "NS":
            out = f"set(map(number, {r}))"
        elif tag == "M":
            namespace[f"convert_map{i}"] = env["converter"]()  # its own last shape
            out = f"convert_map{i}({r})"
        elif tag == "L":
            out = f"list(map(convert_value, {r}))"
            if not plain:
                steps.append(f"    for member in {r}: convert_value(member)")
        if plain:
            fields.append(f"{name!r}: {out}")
        elif tag == "M":
            steps.append(f"    {out}")
    # the names, in order: a ValueError if there are more or fewer, a ShapeMiss if others
    keys = [f"k{i}" for i in range(len(names))]
    if keys:
        unpacked = "".join(f"{k}, " for k in keys)
        others = " or ".join(f"{k} != {name!r}" for k, name in zip(keys, names, strict=True))
        lines = ["def convert(item):", f"    {unpacked}= item", f"    if {others}:"]
    else:
        lines = ["def convert(item):", "    if item:"]
    lines.append("        raise ShapeMiss")
    lines += reads
    if checks:
        lines.append(f"    if {' or '.join(checks)}:")
        lines.append("        raise ShapeMiss")
    lines += joins
    lines += steps
    lines.append(f"    return {{{', '.join(fields)}}}" if plain else "    return item")
    exec("\n".join(lines), namespace)  # the code built above: names only as their reprs
    function: Callable[[Any], Any] = namespace["convert"]
    return function


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
        through code compiled for their shape (:class:`Shapes`) once it
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


#: botocore emits ``before-parse.dynamodb.<Operation>`` before it parses an answer, with a dict
#: that is merged into the parsed response; the handler is registered last for all of them
#: (after every other handler) and keeps to the operations of :data:`READS`.
EVENT = "before-parse"
#: Registered under this id, so installing twice keeps one handler.
HANDLER_ID = "ulidkeys.dynamodb.pages"

# --- the library's own calls: plain items, read once ------------------------------------------


class PlainItems:
    """Where the handler leaves the plain items of one of the library's own calls."""

    __slots__ = ("deserializer", "items", "operation", "typed")

    def __init__(self, operation: str, deserializer: Any = None) -> None:
        self.operation = operation
        #: The TypeDeserializer the caller converts a plain client's items with (None: a new
        #: ``boto3.dynamodb.types.TypeDeserializer()``); a resource's client converts with
        #: boto3's own, whatever this is.
        self.deserializer = deserializer
        #: The plain items of the last answer read, or None.
        self.items: Any = None
        #: The same items as botocore's (the object handed to botocore), to recognise them.
        self.typed: Any = None

    def of(self, response: Mapping[str, Any]) -> Any:
        """The plain items of ``response`` if it still holds the items read (typed, or made
        plain by a resource's client), else None: take (and convert) the response's own."""
        if self.items is None:
            return None
        held = response.get(READS[self.operation][0])
        return self.items if held is self.items or held is self.typed else None


_WANTED: ContextVar[PlainItems | None] = ContextVar("ulidkeys.dynamodb.pages", default=None)


@contextmanager
def plain_items(operation: str = "Query", deserializer: Any = None) -> Iterator[PlainItems]:
    """For the ``operation`` call made inside: if the installed reader reads its answer, the
    item member (``Items``, ``Item``, ``Responses``) is also converted straight to boto3's
    plain values, left in the yielded :class:`PlainItems`; the response is what it would be
    without the reader, except that a resource's client does not convert those items again
    (its deserializer takes the ones read). Per thread and per asyncio task (a context
    variable).

    The items are read plain only when that gives what the deserializer in force would:
    ``deserializer`` (a plain client's; by default a new ``TypeDeserializer()``) or a
    resource's client's own is boto3's as shipped (class and methods unpatched, numbers read
    with the ``boto3.dynamodb.types.DYNAMODB_CONTEXT`` in force at the call), and no
    ``after-call`` handler sees or changes the items before they are converted. Otherwise
    ``items`` stays None and the caller converts the response's own items, as without the
    reader."""
    wanted = PlainItems(operation, deserializer)
    token = _WANTED.set(wanted)
    try:
        yield wanted
    finally:
        _WANTED.reset(token)


def _wanted(operation: str) -> PlainItems | None:
    wanted = _WANTED.get()
    return wanted if wanted is not None and wanted.operation == operation else None


# --- installing on a client ----------------------------------------------------------------

#: botocore logs every body its parsers read here (DEBUG): while it does, the reader leaves
#: pages to botocore, so the log shows the body DynamoDB sent, not the rest the reader leaves.
_PARSER_LOG = logging.getLogger("botocore.parsers")
#: Where and under which id boto3 hooks its deserializer onto a resource's client
#: (``boto3.dynamodb.transform.DynamoDBHighLevelResource``).
AFTER_CALL = "after-call.dynamodb"
BOTO3_OUTPUT_ID = "dynamodb-attr-value-output"


def install_fast_pages(client: Any) -> bool:
    """Read this client's DynamoDB pages with :class:`PageReader` (a handler on the client's
    own event system; other clients and boto3's defaults are untouched). Returns whether it
    is installed, which is whether the client's pages are read by it: not on clients that are
    no botocore DynamoDB client on the JSON protocol, nor on one whose botocore emits no
    ``before-parse`` (below botocore 1.35.16 and aiobotocore 2.15.0: the reader would never
    be called), nor on one whose session parses blobs or timestamps its own way. Installing
    twice keeps one handler. Works on boto3 and aiobotocore clients, and on a resource's
    client, whatever their retry mode (``legacy``, ``standard``, ``adaptive``).

    The handler runs after every other ``before-parse`` handler (registered last, on all of
    them) and reads a 200 answer's body with :func:`json.loads`; when every item map holds
    only DynamoDB's own value forms (and the answer only members the model knows), it hands
    botocore the items as botocore builds them in ``customized_response_dict`` (merged into
    the parsed response) and the rest of the body (Count, LastEvaluatedKey,
    ConsumedCapacity, UnprocessedKeys...), which botocore parses as before. Errors, other
    statuses, pages it cannot fully read, and every page while botocore's parser logs bodies
    (``botocore.parsers`` at DEBUG) go to botocore untouched. On a resource's client, boto3's
    after-call deserializer (``dynamodb-attr-value-output``) is replaced, in its place among
    the handlers, by one that hands on the items already read plain for the library's own
    calls (:func:`plain_items`) and calls boto3's for everything else. botocore's own retry
    bookkeeping on ``after-call`` (the ``standard`` and ``adaptive`` modes') is told from a
    user's hook by identity (:func:`~ulidkeys.clientevents.is_retry_machinery`): it does not
    keep the library's calls from taking plain items; a user's hook there does.
    """
    meta = getattr(client, "meta", None)
    events = getattr(meta, "events", None)
    model = getattr(meta, "service_model", None)
    if events is None or model is None or getattr(model, "service_name", None) != "dynamodb":
        return False
    if getattr(model, "resolved_protocol", getattr(model, "protocol", None)) != "json":
        return False
    if _custom_parsers(client) or not _known_model(model) or not emits_before_parse(client):
        return False
    from boto3.dynamodb import types  # boto3: an optional extra

    typed_reader = _boto3_reader()
    known = {operation: _members(model, operation) for operation in READS}
    emitter = hierarchical_emitter(events)
    # plain_ok: the library's own calls may take items read plain (the client's after-call
    # conversion is known: none, or boto3's, now ours in its place)
    plain_ok, output = _take_boto3_output(emitter) if emitter is not None else (False, None)
    shipped = _shipped_deserializer()
    if shipped is None:
        plain_ok = False
    # the reader of plain values, rebuilt when the number context or Binary in force changes
    current: list[Any] = [types.DYNAMODB_CONTEXT, types.Binary, typed_reader]

    def plain_reader() -> PageReader | None:
        context, binary = types.DYNAMODB_CONTEXT, types.Binary
        if context is not current[0] or binary is not current[1]:
            number = getattr(context, "create_decimal", None)
            if not callable(number):
                return None  # boto3 fails on every number: botocore's page, boto3's error
            current[:] = context, binary, PageReader(number, binary)
        return cast(PageReader, current[2])

    def plain_wanted(wanted: PlainItems, operation: str) -> bool:
        """Whether reading plain gives what the deserializer in force gives, and nothing
        sees the items between (checked per call: these can change at any time)."""
        if output is not None:
            deserializer = output.deserializer()
        elif wanted.deserializer is not None:
            deserializer = wanted.deserializer
        else:
            return _is_shipped(types.TypeDeserializer, shipped) and _runs_first(
                emitter, f"{AFTER_CALL}.{operation}", None
            )
        return _is_shipped_instance(deserializer, shipped) and _runs_first(
            emitter, f"{AFTER_CALL}.{operation}", output
        )

    def before_parse(
        operation_model: Any,
        response_dict: dict[str, Any],
        customized_response_dict: dict[str, Any],
        **_: Any,
    ) -> None:
        operation = getattr(operation_model, "name", None)
        if not isinstance(operation, str) or operation not in READS:
            return
        where = READS[operation]
        wanted = _wanted(operation)
        if wanted is not None:
            wanted.items = wanted.typed = None  # a retried call: only the last answer counts
        if response_dict.get("status_code") != 200 or _PARSER_LOG.isEnabledFor(logging.DEBUG):
            return
        body = response_dict.get("body")
        if not isinstance(body, bytes):
            return
        member, form = where
        reader: PageReader | None = typed_reader
        plain = wanted is not None and plain_ok and plain_wanted(wanted, operation)
        if plain:
            reader = plain_reader()
            if reader is None:
                return
        read = cast(PageReader, reader).read(body, member, form, plain, known[operation])
        if read is None:
            return
        if wanted is not None and plain:
            wanted.items, wanted.typed = read.plain, read.typed
        customized_response_dict[member] = read.typed
        response_dict["body"] = read.rest  # the rest, and the items as empty: botocore's

    # last of all: every other before-parse handler sees the body DynamoDB sent
    events.register_last(EVENT, before_parse, unique_id=HANDLER_ID)
    return True


def remove_fast_pages(client: Any) -> None:
    """Undo :func:`install_fast_pages` on ``client`` (botocore parses every page again, and a
    resource's client gets boto3's own deserializer back, in its place)."""
    events = client.meta.events
    events.unregister(EVENT, unique_id=HANDLER_ID)
    emitter = hierarchical_emitter(events)
    if emitter is not None:
        ours = emitter._unique_id_handlers.get(BOTO3_OUTPUT_ID, {}).get("handler")
        if isinstance(ours, _ResourceOutput):
            _replace(emitter, AFTER_CALL, BOTO3_OUTPUT_ID, ours, ours.boto3)


class _ResourceOutput:
    """boto3's deserializer of a resource's client's answers (the handler it registered,
    kept), except that the items of an answer the reader read for :func:`plain_items` are
    replaced by the plain ones it made (when no handler before this one swapped them); every
    other member, and every other answer, is boto3's to convert."""

    def __init__(self, boto3: Callable[..., None]) -> None:
        self.boto3 = boto3

    def deserializer(self) -> Any:
        """The TypeDeserializer boto3's handler converts with (read per call: it could be
        replaced)."""
        return getattr(getattr(self.boto3, "__self__", None), "_deserializer", None)

    def __call__(self, parsed: dict[str, Any], model: Any, **kwargs: Any) -> None:
        operation = getattr(model, "name", None)
        wanted = _wanted(operation) if isinstance(operation, str) else None
        if wanted is None or wanted.items is None or not isinstance(parsed, dict):
            self.boto3(parsed=parsed, model=model, **kwargs)
            return
        member = READS[wanted.operation][0]
        if parsed.get(member) is not wanted.typed:
            self.boto3(parsed=parsed, model=model, **kwargs)
            wanted.items = None  # the response's items are no longer the ones read
            return
        # kept in its place, empty: nothing to convert
        parsed[member] = [] if isinstance(wanted.typed, list) else {}
        self.boto3(parsed=parsed, model=model, **kwargs)
        parsed[member] = wanted.items


# botocore's event system offers no way to replace a handler in place: these change its
# HierarchicalEmitter (:mod:`ulidkeys.clientevents`). Where it is not as expected, nothing is
# replaced and the library's own calls are not read plain (botocore's values, boto3's
# conversion): slower, never different.


def _take_boto3_output(emitter: Any) -> tuple[bool, _ResourceOutput | None]:
    """(whether the library's own calls may be read plain, the resource's deserializer now
    ours): no after-call deserializer (a plain client), boto3's replaced in its place (a
    resource's client), or one not known (left alone, nothing read plain)."""
    from boto3.dynamodb.transform import TransformationInjector  # boto3: optional extra

    entry = emitter._unique_id_handlers.get(BOTO3_OUTPUT_ID)
    if entry is None:
        return True, None
    handler: Any = entry.get("handler") if isinstance(entry, dict) else None
    if isinstance(handler, _ResourceOutput):
        return True, handler  # installed before
    if (
        getattr(handler, "__func__", None)
        is not TransformationInjector.inject_attribute_value_output
    ):
        return False, None
    ours = _ResourceOutput(handler)
    if not _replace(emitter, AFTER_CALL, BOTO3_OUTPUT_ID, handler, ours):
        return False, None
    return True, ours


def _replace(emitter: Any, event: str, unique_id: str, old: Any, new: Any) -> bool:
    """Put ``new`` where ``old`` (registered for ``event`` under ``unique_id``) is, so every
    other handler keeps its order around it; whether it was done."""
    try:
        entry = emitter._unique_id_handlers[unique_id]
        if entry.get("handler") is not old or "count" in entry:
            return False
        node = emitter._handlers._root
        for part in event.split("."):
            node = node["children"][part]
        for section in node["values"]:
            for index, handler in enumerate(section):
                if handler is old:
                    section[index] = new
                    entry["handler"] = new
                    emitter._lookup_cache = {}
                    return True
    except Exception:
        return False
    return False


def _runs_first(hierarchical: Any, event: str, handler: Any) -> bool:
    """Whether ``handler`` is the first handler of ``event`` (None: whether it has none), so
    no other handler sees or changes an answer before it (or before the library does).
    botocore's own retry bookkeeping (:func:`~ulidkeys.clientevents.is_retry_machinery`,
    registered by the ``standard`` and ``adaptive`` retry modes) is passed over: it never
    sees the answer's body."""
    handlers = handlers_of(hierarchical, event)
    if handlers is None:
        return False
    others = [one for one in handlers if not is_retry_machinery(one)]
    return (others[0] if others else None) is handler


Shipped = tuple[type, dict[str, Any]]


def _shipped_deserializer() -> Shipped | None:
    """boto3's TypeDeserializer as shipped, and its members, or None if neither
    ``boto3.dynamodb.types`` nor ``boto3.dynamodb.transform`` holds it unpatched."""
    from boto3.dynamodb import transform, types  # boto3: an optional extra

    # transform imported the class by name: still the shipped one if only types' was swapped
    for cls in (types.TypeDeserializer, getattr(transform, "TypeDeserializer", None)):
        if (
            isinstance(cls, type)
            and cls.__module__ == types.__name__
            and cls.__qualname__ == "TypeDeserializer"
            and cls.__bases__ == (object,)
            and all(
                getattr(value, "__module__", types.__name__) == types.__name__
                and getattr(value, "__qualname__", f"TypeDeserializer.{name}")
                == f"TypeDeserializer.{name}"
                for name, value in vars(cls).items()
                if callable(value)
            )
        ):
            return cls, dict(vars(cls))
    return None


def _is_shipped(cls: Any, shipped: Shipped | None) -> bool:
    """Whether ``cls`` is boto3's TypeDeserializer, its members unchanged since install."""
    return shipped is not None and cls is shipped[0] and cls.__dict__ == shipped[1]


def _is_shipped_instance(deserializer: Any, shipped: Shipped | None) -> bool:
    """Whether ``deserializer`` is a plain instance of the shipped TypeDeserializer (no
    method set on the instance either)."""
    return _is_shipped(deserializer.__class__, shipped) and not getattr(
        deserializer, "__dict__", True
    )


def _boto3_reader() -> PageReader:
    """A reader of boto3's values with the number context and Binary in force now."""
    from boto3.dynamodb.types import DYNAMODB_CONTEXT, Binary  # boto3: an optional extra

    return PageReader(DYNAMODB_CONTEXT.create_decimal, Binary)


def _members(model: Any, operation: str) -> frozenset[str]:
    """The members of an operation's answer, by their names in the JSON body."""
    shape = model.operation_model(operation).output_shape
    return frozenset(m.serialization.get("name", name) for name, m in shape.members.items())


def _known_model(model: Any) -> bool:
    """Whether the client's model has the members and value types this reader builds."""
    try:
        for operation, (member, _form) in READS.items():
            if member not in model.operation_model(operation).output_shape.members:
                return False
        return set(model.shape_for("AttributeValue").members) == TAGS
    except Exception:
        return False


def _custom_parsers(client: Any) -> bool:
    """Whether the client's parsers were given their own blob or timestamp parser (as the AWS
    CLI does); the values would differ from botocore's defaults, so the reader stays out."""
    factory = getattr(getattr(client, "_endpoint", None), "_response_parser_factory", None)
    defaults = getattr(factory, "_defaults", None)
    return isinstance(defaults, dict) and any(
        defaults.get(name) is not None for name in ("blob_parser", "timestamp_parser")
    )
