"""The fast reader of DynamoDB pages (:mod:`ulidkeys.dynamodb.pagereader`) installed on the boto3
or aiobotocore client a Table reads with: a ``before-parse`` handler on the client's own event
system, the checks that the client's configuration gives botocore's and boto3's values, and,
for the library's own calls, items read straight into boto3's plain values (:func:`plain_items`).

botocore walks every attribute value of a page through its JSON shape parser, and boto3's
TypeDeserializer walks it again; the reader reads the body with :func:`json.loads` and converts
the item maps in one pass. Everything else of the answer, and every page it cannot fully read,
is botocore's.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, cast

from ulidkeys.clientevents import (
    emits_before_parse,
    handlers_of,
    hierarchical_emitter,
    is_retry_machinery,
)
from ulidkeys.dynamodb.pagereader import READS, TAGS, PageReader

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
