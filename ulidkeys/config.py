"""Named key layouts and entities in a config file, so a layout is declared once, not on every
command: ``ulidkeys ls photos --since 2h`` and ``ulidkeys.config.load().bucket("photos", s3)``.

Found like other tools find theirs: ``--config FILE``; else ``ulidkeys.toml`` or a
``pyproject.toml`` with ``[tool.ulidkeys]`` in the working directory or the nearest parent; else
the user's ``$XDG_CONFIG_HOME/ulidkeys/config.toml`` (``~/.config/...``). Every mistake (unknown
key, wrong type, a layout that contradicts itself) is an :class:`~ulidkeys.errors.InvalidConfig`
naming the file, the table and the key, with the fix.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ulidkeys.dynamodb import Entity, Index, Table
from ulidkeys.errors import InvalidConfig, KeyAttributeClash, UlidkeysError, describe
from ulidkeys.ids.registry import scheme_named
from ulidkeys.planning.locations import check_prefix, split_s3_url
from ulidkeys.s3 import Bucket, KeyLayout

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 reads TOML with the backport
    import tomli as tomllib

#: The file names looked for in the working directory and its parents.
CONFIG_FILE = "ulidkeys.toml"
PYPROJECT = "pyproject.toml"

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
#: What an ``[entities.NAME.gsi.INDEX]`` table takes.
INDEX_KEYS: Mapping[str, type] = {
    "pk": str,
    "sk": str,
    "pk_attr": str,
    "sk_attr": str,
    "sparse": bool,
}
_REQUIRED = {"layouts": ("location",), "entities": ("table", "pk", "sk")}
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
}


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
class NamedEntity:
    """An ``[entities.NAME]`` table: the DynamoDB table name and the :class:`Entity`."""

    name: str
    table_name: str
    entity: Entity
    settings: Mapping[str, Any]

    def table(self, table_or_client: Any) -> Table:
        """The entity bound to a ``Table`` resource or a DynamoDB client."""
        return Table(table_or_client, self.entity, table_name=self.table_name)


@dataclass(frozen=True)
class Config:
    """What a config file declares (``path`` None: no file was found, nothing declared)."""

    path: Path | None = None
    layouts: Mapping[str, NamedLayout] = field(default_factory=dict)
    entities: Mapping[str, NamedEntity] = field(default_factory=dict)

    def layout(self, name: str) -> NamedLayout:
        """The layout declared as ``[layouts.NAME]``; InvalidConfig naming the ones there are."""
        if name not in self.layouts:
            raise self._missing("layouts", name, self.layouts)
        return self.layouts[name]

    def entity(self, name: str) -> NamedEntity:
        """The entity declared as ``[entities.NAME]``."""
        if name not in self.entities:
            raise self._missing("entities", name, self.entities)
        return self.entities[name]

    def _missing(self, kind: str, name: str, found: Mapping[str, object]) -> InvalidConfig:
        where = f"in {self.path}" if self.path else "(no config file found: see `ulidkeys config`)"
        declared = ", ".join(found) or "none"
        other = "s3://BUCKET/PREFIX" if kind == "layouts" else "--pk and --sk"
        return InvalidConfig(f"no [{kind}.{name}] {where} (declared: {declared}); or give {other}")

    def bucket(self, name: str, client: Any) -> Bucket:
        """The layout ``name`` bound to an S3 client: ``load().bucket("photos", s3)``."""
        return self.layout(name).bucket(client)

    def table(self, name: str, table_or_client: Any) -> Table:
        """The entity ``name`` bound to a DynamoDB table or client."""
        return self.entity(name).table(table_or_client)


def user_config_path() -> Path:
    """``$XDG_CONFIG_HOME/ulidkeys/config.toml``, or ``~/.config/ulidkeys/config.toml``."""
    home = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(home) / "ulidkeys" / "config.toml"


def find(start: Path | None = None) -> Path | None:
    """The config file that applies in ``start`` (default: the working directory)."""
    folder = (start or Path.cwd()).resolve()
    for directory in (folder, *folder.parents):
        own = directory / CONFIG_FILE
        if own.is_file():
            return own
        pyproject = directory / PYPROJECT
        if pyproject.is_file() and _has_tool_table(pyproject):
            return pyproject
    user = user_config_path()
    return user if user.is_file() else None


def _has_tool_table(path: Path) -> bool:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False  # someone else's broken pyproject is not ours to report
    tool = data.get("tool")
    return isinstance(tool, dict) and "ulidkeys" in tool


def load(path: str | os.PathLike[str] | None = None) -> Config:
    """The config at ``path``, or the one :func:`find` finds (an empty Config if none)."""
    chosen = Path(path) if path is not None else find()
    if chosen is None:
        return Config()
    try:
        text = chosen.read_text(encoding="utf-8")
    except OSError as error:
        raise InvalidConfig(f"{chosen}: cannot be read ({error.strerror or error})") from None
    except UnicodeDecodeError:
        raise InvalidConfig(f"{chosen}: is not UTF-8 text") from None
    return parse(text, chosen)


def parse(text: str, path: Path) -> Config:
    """A Config from TOML text (``path`` names the file in errors)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise InvalidConfig(f"{path}: not valid TOML: {error}") from None
    if path.name == PYPROJECT:
        data = data.get("tool", {}).get("ulidkeys", {})
        where = "[tool.ulidkeys]"
    else:
        where = ""
    unknown = sorted(set(data) - {"layouts", "entities"})
    if unknown:
        raise InvalidConfig(
            f"{path}: unknown table {where or '['}{unknown[0]}{']' if not where else ''}; a "
            "config declares [layouts.NAME] and [entities.NAME]"
        )
    layouts = {
        name: _layout(path, name, settings)
        for name, settings in _tables(path, data, "layouts").items()
    }
    entities = {
        name: _entity(path, name, settings)
        for name, settings in _tables(path, data, "entities").items()
    }
    return Config(path, layouts, entities)


def _tables(path: Path, data: Mapping[str, Any], kind: str) -> dict[str, Mapping[str, Any]]:
    tables = data.get(kind, {})
    if not isinstance(tables, dict):
        raise InvalidConfig(f"{path}: {kind} must be tables: [{kind}.NAME]")
    keys = LAYOUT_KEYS if kind == "layouts" else ENTITY_KEYS
    for name, settings in tables.items():
        label = f"{path}: [{kind}.{name}]"
        if not isinstance(settings, dict):
            raise InvalidConfig(f"{label} must be a table of settings")
        _check_keys(label, settings, keys)
        if kind == "entities":
            for index, declared in settings.get("gsi", {}).items():
                _check_index(f"{path}: [{kind}.{name}.gsi.{index}]", declared)
        missing = [key for key in _REQUIRED[kind] if key not in settings]
        if missing:
            example = _EXAMPLES[missing[0]]
            raise InvalidConfig(f"{label} needs {missing[0]} (e.g. {missing[0]} = {example})")
    return tables


def _check_keys(label: str, settings: Mapping[str, Any], keys: Mapping[str, type]) -> None:
    """Every key of a table known and of its TOML type."""
    for key, value in settings.items():
        if key not in keys:
            raise InvalidConfig(f"{label}: unknown key {key!r}; the keys are {', '.join(keys)}")
        expected = keys[key]
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            names: dict[type, str] = {str: "string", dict: "table"}
            kind = names.get(expected, expected.__name__)
            raise InvalidConfig(
                f"{label}: {key} = {describe(value)} must be a TOML {kind}, e.g. "
                f"{key} = {_EXAMPLES[key]}"
            )


def _check_index(label: str, declared: object) -> None:
    if not isinstance(declared, dict):
        raise InvalidConfig(f"{label} must be a table with pk and sk")
    _check_keys(label, declared, INDEX_KEYS)
    for key in ("pk", "sk"):
        if key not in declared:
            raise InvalidConfig(f"{label} needs {key} (e.g. {key} = {_EXAMPLES[key]})")


def indexes(settings: Mapping[str, Any]) -> dict[str, Index]:
    """The GSIs an entity's settings declare (``gsi``), as :class:`~ulidkeys.dynamodb.Index`."""
    return {name: Index(**declared) for name, declared in settings.get("gsi", {}).items()}


def _layout(path: Path, name: str, settings: Mapping[str, Any]) -> NamedLayout:
    label = f"{path}: [layouts.{name}]"
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
        raise InvalidConfig(f"{label}: {error}") from None
    return NamedLayout(name, bucket, layout, dict(settings))


def _entity(path: Path, name: str, settings: Mapping[str, Any]) -> NamedEntity:
    label = f"{path}: [entities.{name}]"
    skipped = ("table", "scheme", "gsi")
    options = {key: value for key, value in settings.items() if key not in skipped}
    try:
        entity = Entity(
            name=name,
            scheme=scheme_named(settings.get("scheme", "ulid")),
            gsi=indexes(settings),
            **options,
        )
    except KeyAttributeClash as clash:
        raise InvalidConfig(_clash_message(path, name, clash)) from None
    except UlidkeysError as error:
        raise InvalidConfig(f"{label}: {error}") from None
    return NamedEntity(name, settings["table"], entity, dict(settings))


def _clash_message(path: Path, name: str, clash: KeyAttributeClash) -> str:
    """An index key attribute clash named by the dotted path of the index's table as the file
    spells it (``[tool.ulidkeys.entities.posts.gsi.GSI1]`` in a pyproject) and its key."""
    top = ["tool", "ulidkeys"] if path.name == PYPROJECT else []
    dotted = ".".join(_toml_key(part) for part in (*top, "entities", name, "gsi", clash.index))
    if clash.defaulted:
        given = f"{clash.setting} (not set: the default {json.dumps(clash.attr)})"
    else:
        given = f"{clash.setting} = {json.dumps(clash.attr)}"
    return f"{path}: [{dotted}] {given} {clash.reason}"


def _toml_key(key: str) -> str:
    """A TOML key as written: bare when it can be, else quoted."""
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)
