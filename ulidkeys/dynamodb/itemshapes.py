"""Item maps converted by code compiled once per shape: the fast DynamoDB page reader's
(:mod:`ulidkeys.dynamodb.pagereader`) hot loop, for maps whose attribute names come again.

The items of a page nearly always share a few shapes: the same attribute names, in the same
order, each with the same type. Walking each item generically costs a loop, a tag test chain
and a function call per value; a function compiled for one shape reads each value with a
fixed subscript and builds the item with one dict display. It is only an accelerator: it
converts a map exactly when the map has the shape it was compiled for, and otherwise fails
*before changing anything* (:class:`ShapeMiss`, a KeyError or a TypeError), so the caller
converts that map generically, which stays the reference for every value.

The shape of a map is its names in order (the key its functions are cached under) and, for
each value, its type tag and its JSON type (a few shapes per names: an optional value may
come as NULL). Nested maps and lists are left to the caller's converters (passed in; nested
maps are looked up by their own shape there), so a shape does not depend on what a list
holds or on the names of a nested map.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
    (as in :class:`~ulidkeys.dynamodb.pagereader.PageReader`) and ``convert_value`` (the
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
