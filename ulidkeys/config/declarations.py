"""What a config file declares: its ``[layouts.NAME]``, ``[entities.NAME]`` and
``[collections.NAME]`` tables checked (known keys of the right TOML type, usable names, what
each layout, entity or collection needs) and built into :class:`NamedLayout`,
:class:`NamedEntity` and :class:`NamedCollection`. Every mistake is an
:class:`~ulidkeys.errors.InvalidConfig` of one line naming the file and the dotted path of the
table or key as the file spells it. Finding and reading the file is
:mod:`ulidkeys.config.files`; users import all of it from :mod:`ulidkeys.config`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ulidkeys.config.files import PYPROJECT, shown_path, toml_tables
from ulidkeys.dynamodb import Collection, Entity, Index, Table
from ulidkeys.errors import (
    InvalidConfig,
    KeyAttributeClash,
    UlidkeysError,
    describe,
    require_str,
)
from ulidkeys.ids.registry import scheme_named
from ulidkeys.planning.locations import check_prefix, split_s3_url
from ulidkeys.s3 import Bucket, KeyLayout

#: What a layout or entity name may hold: the rule, as messages state it. A name is typed on the
#: command line (``ulidkeys ls NAME``), so it is what a shell word and a TOML bare key both take.
NAME_RULE = "ASCII letters, digits, '_' and '-', not starting with '-'"
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")
#: What a GSI name (``[entities.NAME.gsi.INDEX]``) and a table name hold: DynamoDB's own rule.
DYNAMODB_NAME_RULE = "3 to 255 ASCII letters, digits, '_', '-' and '.' (DynamoDB's rule)"
_DYNAMODB_NAME = re.compile(r"[A-Za-z0-9_.-]{3,255}")
#: A table may also be named by its ARN (DynamoDB takes either as TableName).
_TABLE_ARN = re.compile(r"arn:[a-z0-9-]+:dynamodb:[a-z0-9-]+:[0-9]{12}:table/[A-Za-z0-9_.-]{3,255}")
#: A TOML bare key: written as is in a dotted path; any other key is written quoted.
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
#: String settings that may be empty: ``suffix = ""`` is the default (any extension).
_MAY_BE_EMPTY = frozenset({"suffix"})

#: What a ``[layouts.NAME]`` table takes, and the TOML type of each key.
LAYOUT_KEYS: Mapping[str, type] = {
    "location": str,
    "shards": int,
    "period": str,
    "suffix": str,
    "scheme": str,
    "newest_first": bool,
}
#: What an ``[entities.NAME]`` table takes.
ENTITY_KEYS: Mapping[str, type] = {
    "table": str,
    "pk": str,
    "sk": str,
    "pk_attr": str,
    "sk_attr": str,
    "bucket": str,
    "shards": int,
    "scheme": str,
    "separator": str,
    "id_field": str,
    "newest_first_keys": bool,
    "gsi": dict,
}
#: What a ``[collections.NAME]`` table takes: the names of ``[entities.NAME]`` tables.
COLLECTION_KEYS: Mapping[str, type] = {"entities": list}
#: What an ``[entities.NAME.gsi.INDEX]`` table takes.
INDEX_KEYS: Mapping[str, type] = {
    "pk": str,
    "sk": str,
    "pk_attr": str,
    "sk_attr": str,
    "sparse": bool,
}
_REQUIRED = {
    "layouts": ("location",),
    "entities": ("table", "pk", "sk"),
    "collections": ("entities",),
}
_KEYS = {"layouts": LAYOUT_KEYS, "entities": ENTITY_KEYS, "collections": COLLECTION_KEYS}
_EXAMPLES = {
    "location": '"s3://photos/uploads/"',
    "shards": "4",
    "period": '"hour"',
    "suffix": '".jpg"',
    "scheme": '"uuid7"',
    "newest_first": "false",
    "table": '"app"',
    "pk": '"Org#{org}"',
    "sk": '"Post#{id}"',
    "pk_attr": '"PK"',
    "sk_attr": '"SK"',
    "bucket": '"day"',
    "separator": '"#"',
    "id_field": '"id"',
    "newest_first_keys": "false",
    "gsi": '{ GSI1 = { pk = "User#{author}", sk = "Post#{id}" } }',
    "sparse": "false",
    "entities": '["posts", "comments", "likes"]',
}

#: A declaration (NamedLayout, NamedEntity, NamedCollection), for the lookup of any of them.
_Named = TypeVar("_Named")


@dataclass(frozen=True)
class NamedLayout:
    """A ``[layouts.NAME]`` table: the bucket and the :class:`KeyLayout` of its keys."""

    name: str
    bucket_name: str
    layout: KeyLayout
    settings: Mapping[str, Any]

    def bucket(self, client: Any) -> Bucket:
        """The layout bound to an S3 client."""
        return Bucket(client, self.bucket_name, self.layout)


@dataclass(frozen=True)
class _NamedKeys:
    """What :class:`NamedEntity` and :class:`NamedCollection` share: the declaration's name,
    its DynamoDB table's name, and the binding of its keys to that table."""

    name: str
    table_name: str

    def _keys(self) -> Entity | Collection:
        raise NotImplementedError

    def table(self, table_or_client: Any) -> Table:
        """The entity or collection bound to a ``Table`` resource or a DynamoDB client."""
        return Table(table_or_client, self._keys(), table_name=self.table_name)


@dataclass(frozen=True)
class NamedEntity(_NamedKeys):
    """An ``[entities.NAME]`` table: the DynamoDB table name and the :class:`Entity`."""

    entity: Entity
    settings: Mapping[str, Any]

    def _keys(self) -> Entity:
        return self.entity


@dataclass(frozen=True)
class NamedCollection(_NamedKeys):
    """A ``[collections.NAME]`` table: the DynamoDB table name and the :class:`Collection` of
    the entities it names (every one of them in that table)."""

    collection: Collection
    settings: Mapping[str, Any]

    def _keys(self) -> Collection:
        return self.collection


@dataclass(frozen=True)
class Config:
    """What a config file declares (``path`` None: no file was found, nothing declared)."""

    path: Path | None = None
    layouts: Mapping[str, NamedLayout] = field(default_factory=dict)
    entities: Mapping[str, NamedEntity] = field(default_factory=dict)
    collections: Mapping[str, NamedCollection] = field(default_factory=dict)

    def layout(self, name: str) -> NamedLayout:
        """The layout declared as ``[layouts.NAME]``; InvalidConfig naming the ones there are."""
        return self._declared("layouts", name, self.layouts)

    def entity(self, name: str) -> NamedEntity:
        """The entity declared as ``[entities.NAME]``."""
        return self._declared("entities", name, self.entities)

    def collection(self, name: str) -> NamedCollection:
        """The collection declared as ``[collections.NAME]``."""
        return self._declared("collections", name, self.collections)

    def _declared(self, kind: str, name: str, declared: Mapping[str, _Named]) -> _Named:
        """The declaration ``name`` of a ``kind`` of table (``layouts``, ...); InvalidConfig
        naming the ones there are when there is none."""
        if require_str(name, "name") not in declared:
            raise self._missing(kind, name, declared)
        return declared[name]

    def _missing(self, kind: str, name: str, found: Mapping[str, object]) -> InvalidConfig:
        path = self.path
        none = "(no config file found: see `ulidkeys config`)"
        where = f"in {shown_path(path)}" if path else none
        base = ("tool", "ulidkeys") if path is not None and path.name == PYPROJECT else ()
        table = _Where("", base, kind, name).table()
        declared = ", ".join(found) or "none"
        other = "s3://BUCKET/PREFIX" if kind == "layouts" else "--pk and --sk"
        return InvalidConfig(f"no {table} {where} (declared: {declared}); or give {other}")

    def bucket(self, name: str, client: Any) -> Bucket:
        """The layout ``name`` bound to an S3 client: ``load().bucket("photos", s3)``."""
        return self.layout(name).bucket(client)

    def table(self, name: str, table_or_client: Any) -> Table:
        """The entity ``name`` bound to a DynamoDB table or client."""
        return self.entity(name).table(table_or_client)


def is_name(text: str) -> bool:
    """Whether ``text`` may name a layout or an entity (:data:`NAME_RULE`)."""
    return _NAME.fullmatch(text) is not None


def _key(key: str) -> str:
    """One key of a dotted path as TOML writes it: bare, or quoted (shortened if very long)."""
    if _BARE_KEY.fullmatch(key) and len(key) <= 80:
        return key
    if len(key) > 80:
        key = key[:77] + "..."
    escaped = "".join(
        "\\" + char
        if char in '"\\'
        else char
        if char.isprintable()
        else f"\\u{ord(char):04X}"
        if ord(char) < 0x10000
        else f"\\U{ord(char):08X}"
        for char in key
    )
    return f'"{escaped}"'


class _Where:
    """Where in a config file a table is, for messages: the file, and the dotted path as the
    file spells it (``tool.ulidkeys.`` before it in a pyproject)."""

    def __init__(self, shown: str, base: tuple[str, ...], *keys: str) -> None:
        self.shown, self.base, self.keys = shown, base, keys

    def at(self, *keys: str) -> _Where:
        """The table ``keys`` inside this one."""
        return _Where(self.shown, self.base, *self.keys, *keys)

    def dotted(self, *keys: str) -> str:
        """The dotted path of ``keys`` inside this table: ``tool.ulidkeys.layouts.p``."""
        return ".".join(_key(key) for key in (*self.base, *self.keys, *keys))

    def table(self) -> str:
        """This table as its header: ``[layouts.p]``."""
        return f"[{self.dotted()}]"

    def file_error(self, text: str) -> InvalidConfig:
        """``FILE: text``: for a message that names the path itself."""
        return InvalidConfig(f"{self.shown}: {text}")

    def error(self, text: str, *, sentence: bool = False) -> InvalidConfig:
        """``FILE: [TABLE]: text`` (``FILE: [TABLE] text`` as a ``sentence``; ``FILE: text`` at
        the top of the file)."""
        label = f"{self.table()}{' ' if sentence else ': '}" if self.keys or self.base else ""
        return InvalidConfig(f"{self.shown}: {label}{text}")


def parse(text: str, path: Path) -> Config:
    """A Config from TOML text (``path`` names the file in errors; a file named
    ``pyproject.toml`` declares its tables under ``[tool.ulidkeys]``)."""
    shown = shown_path(path)
    data: Any = toml_tables(shown, text)
    top = _Where(shown, ())
    base: tuple[str, ...] = ()
    if path.name == PYPROJECT:
        for key in ("tool", "ulidkeys"):
            data = data.get(key, {})
            base = (*base, key)
            if not isinstance(data, dict):
                raise top.error(
                    f"{top.dotted(*base)} = {describe(data)} must be a table: a pyproject "
                    "declares [tool.ulidkeys.layouts.NAME] and [tool.ulidkeys.entities.NAME]"
                )
    where = _Where(shown, base)
    for key, value in data.items():
        if key not in _KEYS:
            what = (
                f"table [{where.dotted(key)}]"
                if isinstance(value, dict)
                else f"key {where.dotted(key)} = {describe(value)}"
            )
            raise top.error(
                f"unknown {what}; a config declares [{where.dotted('layouts', 'NAME')}], "
                f"[{where.dotted('entities', 'NAME')}] and [{where.dotted('collections', 'NAME')}]"
            )
    layouts = {
        name: _layout(where.at("layouts", name), name, settings)
        for name, settings in _tables(top, where, data, "layouts").items()
    }
    entities = {
        name: _entity(where.at("entities", name), name, settings)
        for name, settings in _tables(top, where, data, "entities").items()
    }
    collections = {
        name: _collection(where.at("collections", name), name, settings, entities)
        for name, settings in _tables(top, where, data, "collections").items()
    }
    return Config(path, layouts, entities, collections)


def _tables(
    top: _Where, where: _Where, data: Mapping[str, Any], kind: str
) -> dict[str, Mapping[str, Any]]:
    """The ``[KIND.NAME]`` tables, each name usable and each table of known keys and types."""
    tables = data.get(kind, {})
    if not isinstance(tables, dict):
        raise top.error(
            f"{where.dotted(kind)} = {describe(tables)} must be tables: "
            f"[{where.dotted(kind, 'NAME')}]"
        )
    keys = _KEYS[kind]
    for name, settings in tables.items():
        table = where.at(kind, name)
        if not is_name(name):
            what, example = {
                "layouts": ("a layout", "photos"),
                "entities": ("an entity", "posts"),
                "collections": ("a collection", "activity"),
            }[kind]
            raise table.error(
                f"{describe(name)} cannot name {what}: a name is {NAME_RULE} (e.g. "
                f"[{where.dotted(kind, example)}])"
            )
        if not isinstance(settings, dict):
            raise table.file_error(
                f"{table.dotted()} = {describe(settings)} must be a table of settings: "
                f"{table.table()}"
            )
        _check_keys(table, settings, keys, required=_REQUIRED[kind])
        for index, declared in settings.get("gsi", {}).items():
            _check_index(table, index, declared)
        missing = [key for key in _REQUIRED[kind] if key not in settings]
        if missing:
            example = _EXAMPLES[missing[0]]
            raise table.error(f"needs {missing[0]} (e.g. {missing[0]} = {example})", sentence=True)
    return tables


def _check_keys(
    table: _Where, settings: Mapping[str, Any], keys: Mapping[str, type], required: Iterable[str]
) -> None:
    """Every key of a table known, of its TOML type, and not an empty string."""
    for key, value in settings.items():
        if key not in keys:
            raise table.error(f"unknown key {describe(key)}; the keys are {', '.join(keys)}")
        expected = keys[key]
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            names: dict[type, str] = {str: "string", dict: "table", list: "array"}
            kind = names.get(expected, expected.__name__)
            raise table.error(
                f"{key} = {describe(value)} must be a TOML {kind}, e.g. {key} = {_EXAMPLES[key]}"
            )
        if value == "" and key not in _MAY_BE_EMPTY:
            default = "" if key in required else f", or leave {key} out for the default"
            raise table.error(
                f"{key} = '' is empty; give a value (e.g. {key} = {_EXAMPLES[key]}){default}"
            )


def _check_index(entity: _Where, index: str, declared: object) -> None:
    table = entity.at("gsi", index)
    if _DYNAMODB_NAME.fullmatch(index) is None:
        raise table.error(
            f"{describe(index)} cannot name an index: an index name is {DYNAMODB_NAME_RULE}"
        )
    if not isinstance(declared, dict):
        raise table.file_error(
            f"{table.dotted()} = {describe(declared)} must be a table with pk and sk: "
            f"{table.table()}"
        )
    _check_keys(table, declared, INDEX_KEYS, required=("pk", "sk"))
    for key in ("pk", "sk"):
        if key not in declared:
            raise table.error(f"needs {key} (e.g. {key} = {_EXAMPLES[key]})", sentence=True)


def indexes(settings: Mapping[str, Any]) -> dict[str, Index]:
    """The GSIs an entity's settings declare (``gsi``), as :class:`~ulidkeys.dynamodb.Index`."""
    return {name: Index(**declared) for name, declared in settings.get("gsi", {}).items()}


def _layout(table: _Where, name: str, settings: Mapping[str, Any]) -> NamedLayout:
    try:
        bucket, prefix = split_s3_url(settings["location"])
        if prefix:
            check_prefix(prefix, location=settings["location"])
        layout = KeyLayout(
            prefix=prefix,
            shards=settings.get("shards") or None,
            period=settings.get("period"),
            suffix=settings.get("suffix", ""),
            scheme=scheme_named(settings.get("scheme", "ulid")),
            newest_first=settings.get("newest_first", False),
        )
    except UlidkeysError as error:
        raise table.error(str(error)) from None
    return NamedLayout(name, bucket, layout, dict(settings))


def _entity(table: _Where, name: str, settings: Mapping[str, Any]) -> NamedEntity:
    table_name = settings["table"]
    if _DYNAMODB_NAME.fullmatch(table_name) is None and _TABLE_ARN.fullmatch(table_name) is None:
        raise table.error(
            f"table = {describe(table_name)} is not a DynamoDB table name: a table name is "
            f"{DYNAMODB_NAME_RULE}, or the table's ARN"
        )
    skipped = ("table", "scheme", "gsi")
    options = {key: value for key, value in settings.items() if key not in skipped}
    if "shards" in options:  # shards = 0 is no shards, as in a layout and as query --shards 0
        options["shards"] = options["shards"] or None
    try:
        entity = Entity(
            name=name,
            scheme=scheme_named(settings.get("scheme", "ulid")),
            gsi=indexes(settings),
            **options,
        )
    except KeyAttributeClash as clash:
        raise InvalidConfig(_clash_message(table, clash)) from None
    except UlidkeysError as error:
        raise table.error(str(error)) from None
    return NamedEntity(name, table_name, entity, dict(settings))


def _collection(
    table: _Where, name: str, settings: Mapping[str, Any], entities: Mapping[str, NamedEntity]
) -> NamedCollection:
    names = settings["entities"]
    if name in entities:
        raise table.error(
            f"{describe(name)} names an entity too; `ulidkeys query {name}` could not tell "
            "which one it means: give the collection another name"
        )
    for member in names:
        if not isinstance(member, str) or member not in entities:
            declared = ", ".join(entities) or "none"
            raise table.error(
                f"entities = {describe(names)}: {describe(member)} is not an entity of this "
                f"file (declared: {declared}); list the names of [entities.NAME] tables"
            )
    if not names:
        raise table.error(f"entities = [] is empty; e.g. entities = {_EXAMPLES['entities']}")
    tables = sorted({entities[member].table_name for member in names})
    if len(tables) > 1:
        raise table.error(
            f"entities = {describe(names)} are in different tables ({', '.join(tables)}); a "
            "collection reads one partition of one table"
        )
    try:
        collection = Collection(*(entities[member].entity for member in names), name=name)
    except UlidkeysError as error:
        raise table.error(str(error)) from None
    return NamedCollection(name, tables[0], collection, dict(settings))


def _clash_message(table: _Where, clash: KeyAttributeClash) -> str:
    """An index key attribute clash named by the dotted path of the index's table as the file
    spells it (``[tool.ulidkeys.entities.posts.gsi.GSI1]`` in a pyproject) and its key."""
    if clash.defaulted:
        given = f"{clash.setting} (not set: the default {json.dumps(clash.attr)})"
    else:
        given = f"{clash.setting} = {json.dumps(clash.attr)}"
    return f"{table.shown}: [{table.dotted('gsi', clash.index)}] {given} {clash.reason}"
