"""What a surveyed shape means as code to copy: the ``KeyLayout(...)`` that makes it, the
``[layouts.NAME]`` and ``[entities.NAME]`` tables of a config file (TOML strings escaped), and a
config name for a prefix.
"""

from __future__ import annotations

import re

from ulidkeys.planning.layout import KeyLayout


def python_of(layout: KeyLayout) -> str:
    """The layout as Python that makes it."""
    args = [repr(layout.prefix)]
    if layout.shards:
        args.append(f"shards={layout.shards}")
    if layout.partition is not None:
        args.append(f"period={layout.partition.size!r}")
    if layout.suffix:
        args.append(f"suffix={layout.suffix!r}")
    if layout.scheme.name != "ulid":
        args.append(f"scheme=scheme_named({layout.scheme.name!r})")
    if layout.newest_first:
        args.append("newest_first=True")
    return f"KeyLayout({', '.join(args)})"


def toml_of(name: str, bucket: str, layout: KeyLayout) -> str:
    """The ``[layouts.NAME]`` table of a config file (``ulidkeys ls NAME`` then lists it)."""
    lines = [f"[layouts.{name}]", f"location = {_toml_string(f's3://{bucket}/{layout.prefix}')}"]
    if layout.shards:
        lines.append(f"shards = {layout.shards}")
    if layout.partition is not None:
        lines.append(f"period = {_toml_string(layout.partition.size)}")
    if layout.suffix:
        lines.append(f"suffix = {_toml_string(layout.suffix)}")
    lines.append(f"scheme = {_toml_string(layout.scheme.name)}")
    if layout.newest_first:
        lines.append("newest_first = true")
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
