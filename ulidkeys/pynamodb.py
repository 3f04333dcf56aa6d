"""PynamoDB models with time-sortable ids: an attribute that stores an id (inside a template such
as ``Post#{id}``) and gives it back as the library's value, the exact half-open window condition,
and a window query that yields model instances with the library's cursors.

Needs PynamoDB (``pip install 'ulidkeys[pynamodb]'``); imported only when used. What it offers:

- :class:`IdAttribute`: a model attribute holding an id (in a template such as ``Post#{id}``);
- :func:`window_condition`: the exact ``BETWEEN`` of a time window on such an attribute;
- :func:`query_window`: a window's model instances, as a :class:`WindowQuery` (an iterator
  with ``.cursor``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Generic, TypeVar

from pynamodb.attributes import Attribute
from pynamodb.constants import STRING
from pynamodb.expressions.condition import Between
from pynamodb.expressions.operand import Path, Value
from pynamodb.models import Model

from ulidkeys.errors import (
    InvalidCursor,
    InvalidKeyTemplate,
    InvalidType,
    InvalidValue,
    InvalidWindow,
    KeyMismatch,
    describe,
    require_bool,
    require_count,
)
from ulidkeys.ids.interop import coerce_id
from ulidkeys.ids.protocol import IdScheme, id_range, is_id_scheme
from ulidkeys.ids.registry import scheme_named
from ulidkeys.planning.collection import Collection
from ulidkeys.planning.plans import Cursor, resolve_window, scope_of
from ulidkeys.planning.sortkeys import key_after, key_before
from ulidkeys.timeinput import TimeInput
from ulidkeys.ulid import ULID

__all__ = ["IdAttribute", "WindowQuery", "query_window", "window_condition"]

M = TypeVar("M", bound=Model)
_PLACEHOLDER = "{id}"


class IdAttribute(Attribute[Any]):
    """A string attribute holding an id of ``scheme``, inside ``template`` (``"Post#{id}"``;
    default ``"{id}"``, the id alone). Set it to an id in any spelling the scheme (or
    ``ULID.parse``) reads, or an id object of another library; it is stored as the template
    around the canonical text, and read back as a :class:`~ulidkeys.ULID` for ULIDs, else as the
    canonical text; a stored key of another kind (a child's) is read back as its text.
    """

    attr_type = STRING

    def __init__(
        self, scheme: str | IdScheme = "ulid", template: str = _PLACEHOLDER, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.scheme = scheme_named(scheme) if isinstance(scheme, str) else scheme
        if not is_id_scheme(self.scheme):
            raise InvalidType(f"scheme={describe(scheme)} must be an id scheme or its name")
        if not isinstance(template, str):
            raise InvalidType(f"template={describe(template)} must be a str holding {_PLACEHOLDER}")
        if template.count(_PLACEHOLDER) != 1:
            raise InvalidKeyTemplate(
                f"template={describe(template)} must hold {_PLACEHOLDER} exactly once"
            )
        self.template = template
        self.before, _, self.after = template.partition(_PLACEHOLDER)
        if "{" in self.before + self.after or "}" in self.before + self.after:
            raise InvalidKeyTemplate(
                f"template={describe(template)}: only {_PLACEHOLDER} may be a placeholder"
            )

    def id_text(self, value: Any) -> str:
        """The canonical text of an id given in any form the scheme reads."""
        return coerce_id(self.scheme, value, self.attr_name or "id")

    def serialize(self, value: Any) -> str:
        return self.before + self.id_text(value) + self.after

    def deserialize(self, value: Any) -> Any:
        # Another kind of key in the same range (a child, ``Post#<id>#Comment#...``) is given
        # back as its text, so reading it as this model does not fail; query_window skips it.
        if not isinstance(value, str) or not self.fits(value):
            return value
        text = value[len(self.before) : len(value) - len(self.after)]
        return ULID.parse(text) if self.scheme.name == "ulid" else text

    def id_of_key(self, key: object) -> str:
        """The id in a stored key of this template; KeyMismatch for another kind of key."""
        if not isinstance(key, str) or not self.fits(key):
            raise KeyMismatch(
                f"{self.attr_name}={describe(key)} does not fit the template {self.template!r}"
            )
        return key[len(self.before) : len(key) - len(self.after)]

    def holds_id(self, value: object) -> bool:
        """Whether a deserialized value is an id (not the text of another kind of key)."""
        if isinstance(value, ULID):
            return True
        if not isinstance(value, str):
            return False
        try:
            return self.scheme.parse(value) == value
        except (InvalidValue, InvalidType):
            return False

    def fits(self, key: str) -> bool:
        """Whether ``key`` is this template around a canonical id (a child key is not)."""
        if not key.startswith(self.before) or not key.endswith(self.after):
            return False
        text = key[len(self.before) : len(key) - len(self.after)]
        try:
            return self.scheme.parse(text) == text
        except (InvalidValue, InvalidType):
            return False

    def key_bounds(self, start_ms: int, end_ms: int) -> tuple[str, str] | None:
        """``(lo, hi)`` with ``lo <= key < hi`` for the keys of ids with time in the window
        (None when no id has its time there)."""
        lo_id, hi_id = id_range(self.scheme, start_ms, end_ms)
        if lo_id >= hi_id:
            return None
        return self.before + lo_id, self.before + hi_id


def window_condition(
    attribute: IdAttribute, since: TimeInput | None = None, until: TimeInput | None = None
) -> Between:
    """The range key condition selecting the ids with time in ``[since, until)``: ``BETWEEN lo
    AND <the largest key below hi>`` - the exact half-open range, the end exclusive whatever
    follows the id. Children (``Post#<id>#Comment#...``) of ids in the window lie inside any
    key range and are left out by :func:`query_window` (which filters them as it reads);
    InvalidWindow for a window no id can fall in."""
    if not isinstance(attribute, IdAttribute):
        raise InvalidType(f"attribute={describe(attribute)} must be an IdAttribute")
    start, end = resolve_window(since, until)
    bounds = attribute.key_bounds(start, end)
    if bounds is None:
        raise InvalidWindow("the window selects no id, so there is no key condition")
    return _between(attribute, bounds[0], key_before(bounds[1]))


def _between(attribute: IdAttribute, low: str, high: str) -> Between:
    # Value() without the attribute: the bounds are key text, not ids to serialize again
    return Between(Path(attribute), Value(low), Value(high))  # type: ignore[no-untyped-call]


class WindowQuery(Generic[M]):
    """The model instances of one window, in order; ``.cursor`` resumes just past the last one
    given (None before the first), as the library's listings do."""

    def __init__(self, items: Iterator[M], cursor_of: Any) -> None:
        self._items = items
        self._cursor_of = cursor_of
        self._last: tuple[str, str] | None = None

    def __iter__(self) -> WindowQuery[M]:
        return self

    def __next__(self) -> M:
        item = next(self._items)
        self._last = self._position_of(item)
        return item

    def _position_of(self, item: M) -> tuple[str, str]:
        attribute = _range_attribute(type(item))
        key = attribute.serialize(_range_value(item))
        return attribute.id_of_key(key), key

    @property
    def cursor(self) -> str | None:
        return None if self._last is None else str(self._cursor_of(self._last))


def query_window(
    model: type[M],
    hash_key: Any,
    since: TimeInput | None = None,
    until: TimeInput | None = None,
    *,
    newest_first: bool = False,
    limit: int | None = None,
    cursor: str | None = None,
    page_size: int | None = None,
) -> WindowQuery[M]:
    """The items of ``model`` in partition ``hash_key`` whose range key id has its time in
    ``[since, until)`` (default: the epoch to now; with only ``cursor``, the cursor's window),
    as model instances: oldest first or ``newest_first``, at most ``limit``, resumed just past
    ``cursor``. Only keys of the range key's template are given (children are read past).
    ``page_size`` (DynamoDB's ``Limit`` per call) is at least 1, checked here and not at the
    first page (PynamoDB would fail on 0 with a bare IndexError)."""
    attribute = _range_attribute(model)
    if hash_key is None:  # PynamoDB's own answer is a bare IndexError
        raise InvalidType("hash_key=None: a query needs the partition's hash key")
    require_bool(newest_first, "newest_first")
    require_count(limit, "limit", 0, optional=True)
    require_count(page_size, "page_size", 1, optional=True)
    start, end = resolve_window(since, until, cursor)
    scope = scope_of(
        "pynamodb", model.Meta.table_name, hash_key, attribute.template, attribute.scheme.name
    )
    bounds = attribute.key_bounds(start, end)
    if cursor is not None:
        position = Cursor.decode(cursor).check(scope, newest_first, start, end)
        if not attribute.fits(position[1]):
            raise InvalidCursor(f"cursor={describe(cursor)} does not end at a key of this query")
        if bounds is not None:
            low, high = bounds
            bounds = (key_after(position[1]), high) if not newest_first else (low, position[1])

    def cursor_of(position: tuple[str, str]) -> str:
        return Cursor(scope, newest_first, start, end, position).encode()

    def items() -> Iterator[M]:
        if bounds is None or bounds[0] >= bounds[1] or limit == 0:
            return
        condition = _between(attribute, bounds[0], key_before(bounds[1]))
        given = 0
        found = model.query(
            hash_key,
            range_key_condition=condition,
            scan_index_forward=not newest_first,
            page_size=page_size,
        )
        for item in found:
            if not attribute.holds_id(_range_value(item)):
                continue  # a child or another kind of key in the range: read past
            yield item
            given += 1
            if limit is not None and given >= limit:
                return

    return WindowQuery(items(), cursor_of)


def _range_attribute(model: type[Model]) -> IdAttribute:
    if isinstance(model, (Collection, tuple, list)):
        raise InvalidType(
            f"model={describe(model)}: query_window reads one PynamoDB model (its items are "
            "instances of that class); for several kinds of one partition in id-time order, "
            "declare them as ulidkeys Entities in a Collection and read it with "
            "ulidkeys.dynamodb.Table(client, collection)"
        )
    if not (isinstance(model, type) and issubclass(model, Model)):
        raise InvalidType(f"model={describe(model)} must be a PynamoDB Model class")
    attribute = model._range_key_attribute()  # type: ignore[no-untyped-call]
    if not isinstance(attribute, IdAttribute):
        raise InvalidType(
            f"{model.__name__}'s range key must be an IdAttribute (it is "
            f"{type(attribute).__name__})"
        )
    return attribute


def _range_value(item: Model) -> Any:
    """The item's range key value (by its Python name, which may differ from the stored one)."""
    attribute = _range_attribute(type(item))
    name = next(n for n, a in type(item).get_attributes().items() if a is attribute)
    return getattr(item, name)
