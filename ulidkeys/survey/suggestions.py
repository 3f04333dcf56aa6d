"""What a surveyed shape means as code to copy: the ``KeyLayout(...)`` that makes it, the
``[layouts.NAME]`` and ``[entities.NAME]`` tables of a config file (TOML strings escaped), and a
config name for a prefix.
"""

from __future__ import annotations

import re

from ulidkeys.planning.layout import KeyLayout


def _settings(layout: KeyLayout) -> list[tuple[str, str | int | bool]]:
    """The layout's settings after its prefix, in the order both forms write them: those that
    differ from the default, and its scheme's name always (a config file names it)."""
    settings: list[tuple[str, str | int | bool]] = []
    if layout.shards:
        settings.append(("shards", layout.shards))
    if layout.partition is not None:
        settings.append(("period", layout.partition.size))
    if layout.suffix:
        settings.append(("suffix", layout.suffix))
    settings.append(("scheme", layout.scheme.name))
    if layout.newest_first:
        settings.append(("newest_first", True))
    return settings


def python_of(layout: KeyLayout) -> str:
    """The layout as Python that makes it."""
    args = [repr(layout.prefix)]
    for name, value in _settings(layout):
        if name != "scheme":
            args.append(f"{name}={value!r}")
        elif value != "ulid":
            args.append(f"scheme=scheme_named({value!r})")
    return f"KeyLayout({', '.join(args)})"


def toml_of(name: str, bucket: str, layout: KeyLayout) -> str:
    """The ``[layouts.NAME]`` table of a config file (``ulidkeys ls NAME`` then lists it)."""
    lines = [f"[layouts.{name}]", f"location = {_toml_string(f's3://{bucket}/{layout.prefix}')}"]
    for setting, value in _settings(layout):
        lines.append(f"{setting} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


def layout_name(prefix: str) -> str:
    """A config name for a prefix: its last folder, in letters, digits and ``_``."""
    last = prefix.rstrip("/").rpartition("/")[2]
    name = re.sub(r"[^A-Za-z0-9_]", "_", last).strip("_")
    return name if name and not name[0].isdigit() else f"keys_{name}" if name else "surveyed"


def _toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    escaped = []
    for char in text:
        if char in '"\\':
            escaped.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            escaped.append(f"\\u{ord(char):04x}")
        else:
            escaped.append(char)
    return '"' + "".join(escaped) + '"'


def _toml_value(value: str | int | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if isinstance(value, int) else _toml_string(value)


def entity_toml_of(
    name: str, table: str, pk: str, sk: str, scheme: str, pk_attr: str, sk_attr: str
) -> str:
    """The ``[entities.NAME]`` table of a config file (``ulidkeys query NAME`` then runs)."""
    lines = [
        f"[entities.{name}]",
        f"table = {_toml_string(table)}",
        f"pk = {_toml_string(pk)}",
        f"sk = {_toml_string(sk)}",
        f"scheme = {_toml_string(scheme)}",
    ]
    if pk_attr != "PK":
        lines.append(f"pk_attr = {_toml_string(pk_attr)}")
    if sk_attr != "SK":
        lines.append(f"sk_attr = {_toml_string(sk_attr)}")
    return "\n".join(lines) + "\n"
