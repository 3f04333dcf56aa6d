"""griffe extension (mkdocstrings loads it): the Sphinx cross-reference roles of the package's
docstrings (``:class:`Registration```, ``:meth:`~ulidkeys.s3.Bucket.put_new```, ``:mod:`.chains```)
become cross-references when the site is built, so the docstrings stay as written.

The ``sphinx`` docstring style parses fields (``:param x:``), not roles: left alone, a role is
raw text on the page. Each role of ``ROLES`` is resolved the way Sphinx reads it, relative to
the object whose docstring holds it: a full path; else a name in the scope of that object, its
class (inherited members too), its module and the packages above (members and imports); else a
name some module of the package exports (``__all__``), the nearest exporter winning; else the
one object of the package defined under that name. A target in the package becomes an
autorefs cross-reference to its canonical path, which mkdocstrings registers wherever the
object is rendered (under a public alias too): a link when the reference documents it, plain
code when it is private. A target outside the package (the standard library, boto3, an
optional extra) is plain code, checked where its module is installed: the site loads no
inventory. Written ``!name`` (Sphinx's "no link") a role is plain code, unchecked.

A role whose target resolves to nothing, a role not in ``ROLES``, or a name that stands for two
objects is a warning naming the file, the line, the object, the role and why: the strict build
fails on it, so a role can never render raw or point at nothing.
"""

from __future__ import annotations

import builtins
import html
import importlib
import importlib.util
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from griffe import (
    Alias,
    AliasResolutionError,
    CyclicAliasError,
    Extension,
    Module,
    Object,
    logger,
)

#: The roles of Sphinx's Python domain that name an object.
ROLES = frozenset({"class", "func", "meth", "attr", "exc", "mod", "data", "obj", "const"})
#: ``:role:`body``` (``:py:role:`` too), not inside a double-backquoted literal.
ROLE = re.compile(r"(?<!`):(?:py:)?(?P<role>[a-z]+):`(?P<body>[^`]+)`")
#: ``title <target>``: a role with an explicit title.
EXPLICIT = re.compile(r"(?P<title>.*\S)\s*<(?P<target>[^<>]+)>\s*", re.S)
_LOOKUP_ERRORS = (KeyError, ValueError, AliasResolutionError, CyclicAliasError)


class Unresolved(Exception):
    """A role's target is no object: the message says what was looked for."""


@dataclass(frozen=True)
class Role:
    """One role as written: its kind, the text shown, the target and whether it links."""

    kind: str
    title: str
    target: str
    link: bool


def parse_role(kind: str, body: str) -> Role:
    """Sphinx's reading of a role's body: ``title <target>``, ``~a.b.c`` (shown as ``c``),
    ``!name`` (no link), ``.name`` (a name searched from the current scope)."""
    body = " ".join(body.split())
    explicit = EXPLICIT.fullmatch(body)
    if explicit:
        target = explicit["target"].strip()
        title = explicit["title"]
    else:
        target = body
        title = body.lstrip("!~").lstrip(".")
        if body.lstrip("!").startswith("~"):
            title = title.rsplit(".", 1)[-1]
    link = not target.startswith("!")
    return Role(kind, title, target.lstrip("!~"), link)


def _scopes(obj: Object) -> Iterator[Object]:
    """The object, then its parents up to the top package."""
    scope: Object | None = obj
    while scope is not None:
        yield scope
        scope = scope.parent


class Resolver:
    """Resolves role targets against one package loaded by griffe."""

    def __init__(self, package: Module) -> None:
        self.package = package
        self.collection = package.modules_collection
        self._exports: dict[str, list[tuple[str, str]]] | None = None
        self._imported: set[str] | None = None
        self._defined_names: dict[str, list[str]] | None = None

    def lookup(self, path: str) -> str:
        """The canonical path of the package object at ``path`` (members inherited too)."""
        try:
            return str(self.collection[path].canonical_path)
        except _LOOKUP_ERRORS:
            raise Unresolved(f"{path} is not an object of the package") from None

    def exports(self) -> dict[str, list[tuple[str, str]]]:
        """Exported name -> (exporting module, canonical path of what it names), for every
        module of the package with an ``__all__``."""
        if self._exports is None:
            found: dict[str, list[tuple[str, str]]] = {}
            for module in _modules(self.package):
                for name in module.exports or ():
                    try:
                        canonical = self.lookup(f"{module.path}.{name}")
                    except Unresolved:
                        continue
                    found.setdefault(str(name), []).append((module.path, canonical))
            self._exports = found
        return self._exports

    def resolve(self, obj: Object, target: str) -> str | None:
        """The canonical path of the package object ``target`` names in the docstring of
        ``obj``; None for an object outside the package. Raises :class:`Unresolved`."""
        path = target.lstrip(".")
        head, _, rest = path.partition(".")
        if not head:
            raise Unresolved(f"{target!r} names nothing")
        if head == self.package.name:
            return self.lookup(path)
        for scope in _scopes(obj):
            base = self._in_scope(scope, head)
            if base is None:
                continue
            full = f"{base}.{rest}" if rest else base
            if base.split(".", 1)[0] != self.package.name:
                self._check_outside(full, target)
                return None
            return self.lookup(full)
        found = self._exported(obj, head, target) or self._defined(head, target)
        if found is not None:
            return self.lookup(f"{found}.{rest}" if rest else found)
        if hasattr(builtins, head) or "." in path:
            self._check_outside(path, target)
            return None
        raise Unresolved(
            f"{target!r} is no name in the scope of {obj.path}, no name the package exports "
            "and no built-in"
        )

    def _check_outside(self, path: str, target: str) -> None:
        """Checks a name outside the package (``json.loads``, ``ValueError``) where its module
        is installed; one of a module the package imports but this machine lacks (an optional
        extra) is taken as written. The site has nothing to link such a name to."""
        parts = path.split(".")
        if len(parts) == 1 and hasattr(builtins, path):
            return
        if importlib.util.find_spec(parts[0]) is None:
            if parts[0] in self.imported():
                return
            raise Unresolved(f"{target!r}: no module {parts[0]!r} is installed or imported")
        for split in range(len(parts), 0, -1):
            try:
                value: Any = importlib.import_module(".".join(parts[:split]))
            except ImportError:
                continue
            for attribute in parts[split:]:
                if not hasattr(value, attribute):
                    module = ".".join(parts[:split])
                    raise Unresolved(f"{target!r}: {module} has no {attribute!r}")
                value = getattr(value, attribute)
            return
        raise Unresolved(f"{target!r}: no module of it imports")  # pragma: no cover

    def imported(self) -> set[str]:
        """The top-level modules some module of the package imports."""
        if self._imported is None:
            self._imported = {
                str(path).split(".", 1)[0]
                for module in _modules(self.package)
                for path in module.imports.values()
            }
        return self._imported

    @staticmethod
    def _in_scope(scope: Object, name: str) -> str | None:
        """The path ``name`` stands for in ``scope`` (a member, inherited or imported)."""
        if scope.is_class:
            members = scope.all_members
        elif scope.is_module:
            members = scope.members
        else:
            return None
        if name in members:
            member = members[name]
            return str(member.target_path if isinstance(member, Alias) else member.path)
        if scope.is_module and name in scope.imports:
            return str(scope.imports[name])
        return None

    def _defined(self, name: str, target: str) -> str | None:
        """The one object of the package defined under ``name`` (in any module or class), as
        Sphinx finds a ``.name``; two or more are ambiguous."""
        if self._defined_names is None:
            self._defined_names = {}
            for obj in _documented(self.package):
                self._defined_names.setdefault(obj.name, []).append(obj.path)
        found = self._defined_names.get(name, [])
        if len(found) > 1:
            raise Unresolved(f"{target!r} is ambiguous: the package defines {', '.join(found)}")
        return found[0] if found else None

    def _exported(self, obj: Object, name: str, target: str) -> str | None:
        """What the nearest module exporting ``name`` gives (nearest: the longest shared
        leading part of the dotted paths); two different objects at that distance are
        ambiguous."""
        exporters = self.exports().get(name)
        if not exporters:
            return None
        here = obj.canonical_path.split(".")

        def shared(module: str) -> int:
            parts = module.split(".")
            count = 0
            while count < min(len(parts), len(here)) and parts[count] == here[count]:
                count += 1
            return count

        nearest = max(shared(module) for module, _ in exporters)
        found = sorted({path for module, path in exporters if shared(module) == nearest})
        if len(found) > 1:
            raise Unresolved(f"{target!r} is ambiguous: the package exports {', '.join(found)}")
        return found[0]


def _modules(module: Module) -> Iterator[Module]:
    yield module
    for member in module.members.values():
        if not member.is_alias and member.is_module:
            yield from _modules(member)  # type: ignore[arg-type]


def _documented(obj: Object) -> Iterator[Object]:
    """Every object of the tree under ``obj`` that owns its docstring (aliases excluded)."""
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _documented(member)  # type: ignore[arg-type]


def render(role: Role, path: str | None) -> str:
    """Markdown for a resolved role: an optional autorefs cross-reference to ``path`` (a link
    where the site renders that object, else plain code), or plain code."""
    code = f"`{role.title}`"
    if path is None:
        return code
    return f'<autoref identifier="{html.escape(path)}" optional>{code}</autoref>'


def _where(obj: Object, text: str, offset: int) -> str:
    """``file:line`` of the role at ``offset`` of ``obj``'s docstring, and the object."""
    docstring = obj.docstring
    line = (docstring.lineno or 0) + text.count("\n", 0, offset) if docstring else 0
    try:
        path = str(obj.relative_filepath)
    except ValueError:
        path = str(obj.filepath)
    return f"{path}:{line} ({obj.path})"


def rewrite(text: str, obj: Object, resolver: Resolver, problems: list[str]) -> str:
    """``text`` (a docstring of ``obj``) with every role rendered; a role that cannot be is
    left as written and described in ``problems``."""

    def replace(match: re.Match[str]) -> str:
        kind = match["role"]
        if kind not in ROLES:
            problems.append(
                f"{_where(obj, text, match.start())}: {match[0]!r}: "
                f"not a role of {', '.join(sorted(ROLES))}"
            )
            return match[0]
        role = parse_role(kind, match["body"])
        if not role.link:
            return render(role, None)
        try:
            path = resolver.resolve(obj, role.target)
        except Unresolved as error:
            problems.append(f"{_where(obj, text, match.start())}: {match[0]!r}: {error}")
            return match[0]
        return render(role, path)

    return ROLE.sub(replace, text)


class SphinxRoles(Extension):
    """Rewrites the roles of every docstring of a package once it is loaded."""

    def on_package(self, *, pkg: Module, loader: Any, **kwargs: Any) -> None:
        resolver = Resolver(pkg)
        problems: list[str] = []
        for obj in _documented(pkg):
            if obj.docstring is not None:
                obj.docstring.value = rewrite(obj.docstring.value, obj, resolver, problems)
        for problem in problems:
            logger.warning("Sphinx role not resolved: %s", problem)
