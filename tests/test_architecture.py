"""The package's import architecture: layers, no cycles, no hidden imports, modest modules.

The checker reads every ``.py`` file under ``ulidkeys/`` with :mod:`ast` (nothing is
imported) and builds the graph of imports between the package's modules.

Layers, lowest first; a module may import from its own layer and the layers below. The folders
under ``ulidkeys/`` name them::

    core       ulidkeys.errors, ulidkeys.base32, ulidkeys.timeinput, ulidkeys.ulid[.*]
    ids        ulidkeys.ids[.*]
    planning   ulidkeys.planning[.*]   (time windows and prefix covers included)
    emit       ulidkeys.emit[.*]       (what other programs read: Athena SQL, aws CLI lines,
                                        S3 Batch manifests)
    execution  ulidkeys.engine[.*]     (machines, slicing, scheduling, search, operations,
                                        newest, folders, consumers; the asyncio shell and
                                        the thread shell generated from it)
    survey     ulidkeys.survey[.*]     (what a prefix or partition holds, and the inference
                                        behind it: key shapes, counts, suggestions, pasted
                                        keys; the adapters re-export ``survey``, so it sits
                                        below them)
    adapters   ulidkeys.s3[.*], ulidkeys.dynamodb[.*]   (S3 and DynamoDB never import each other),
               ulidkeys.aio[.*] (asyncio twins; ulidkeys.aio.s3 and .dynamodb likewise),
               ulidkeys.clients (where a client connects, carried to workers and executors),
               ulidkeys.clientevents (what a client's botocore event system does)
    top        ulidkeys.cli[.*] (with its helpers: progress, tour, baselines), ulidkeys.config[.*],
               the integrations (pydantic, pynamodb, polars, dask, spark), ulidkeys.__main__

``ulidkeys/__init__.py`` is a facade: it may import core, ids and planning only, and only
the top layer may import it (``import ulidkeys`` / ``from ulidkeys import Name``).
``from ulidkeys import base32`` names the submodule, so it is an edge to ``ulidkeys.base32``.

Edges: every import statement naming a ``ulidkeys`` module, wherever it is, except that
imports under a module-level ``if TYPE_CHECKING:`` are not runtime edges (they do not count
for cycles, but they must respect the layers). Python running a package's ``__init__.py``
before its submodules is not an edge. Imports inside functions are forbidden except for the
optional third-party packages in ``OPTIONAL_PACKAGES``.

A new module fails ``test_every_module_is_assigned_to_a_layer`` until it is added to
``LAYERS`` below. At most ``MAX_TOP_MODULES`` modules sit directly under ``ulidkeys/``, and every
module says in its docstring the one concept it holds (no line count: a module's size follows
from its concept).
"""

from __future__ import annotations

import ast
import itertools
import json
import subprocess
import sys
import textwrap
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = "ulidkeys"
PROJECT_ROOT = Path(__file__).resolve().parent.parent
THIS_FILE = "tests/test_architecture.py"

# (layer name, module names); a name covers the module itself and, if it is a package,
# everything under it. Lowest layer first.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("core", ("ulidkeys.errors", "ulidkeys.base32", "ulidkeys.timeinput", "ulidkeys.ulid")),
    ("ids", ("ulidkeys.ids",)),
    ("planning", ("ulidkeys.planning",)),
    ("emit", ("ulidkeys.emit",)),
    ("execution", ("ulidkeys.engine",)),
    ("survey", ("ulidkeys.survey",)),
    (
        "adapters",
        (
            "ulidkeys.s3",
            "ulidkeys.dynamodb",
            "ulidkeys.aio",
            "ulidkeys.clients",
            "ulidkeys.clientevents",
        ),
    ),
    (
        "top",
        (
            "ulidkeys.cli",
            "ulidkeys.config",
            "ulidkeys.pydantic",
            "ulidkeys.pynamodb",
            "ulidkeys.polars",
            "ulidkeys.dask",
            "ulidkeys.spark",
            "ulidkeys.__main__",
        ),
    ),
)
FACADE = "facade"  # the layer of the package root, ulidkeys/__init__.py
FACADE_MAY_IMPORT = frozenset({"core", "ids", "planning"})
FACADE_IMPORTED_BY = frozenset({"top"})
# Groups of modules that must not import one another.
INDEPENDENT: tuple[tuple[str, ...], ...] = (
    ("ulidkeys.s3", "ulidkeys.dynamodb"),
    ("ulidkeys.aio.s3", "ulidkeys.aio.dynamodb"),
    ("ulidkeys.aio.s3", "ulidkeys.dynamodb"),
    ("ulidkeys.aio.dynamodb", "ulidkeys.s3"),
)
# Only these may be imported inside a function (they are optional dependencies).
OPTIONAL_PACKAGES = frozenset({"boto3", "botocore", "moto", "shtab", "pydantic_core", "matplotlib"})
# Never imported at module level by these layers: they must work without boto3.
AWS_PACKAGES = frozenset({"boto3", "botocore"})
AWS_FREE_LAYERS = frozenset({"core", "ids", "planning", FACADE})
# Imported in a subprocess with boto3 and botocore blocked (plus every module of
# AWS_FREE_LAYERS found in the tree).
AWS_FREE_IMPORTS = ("ulidkeys", "ulidkeys.ids", "ulidkeys.planning")

RUNTIME = "module"  # import executed when the module is imported
TYPE_CHECKING_ONLY = "type-checking"  # under a module-level `if TYPE_CHECKING:`
IN_FUNCTION = "function"  # inside a function or method body


# --------------------------------------------------------------------------- the checker


@dataclass(frozen=True)
class Import:
    """One imported name: ``source`` (a module of the package) imports ``target``.

    ``target`` is a resolved module of the package when ``internal``, else the imported
    dotted name (``boto3.dynamodb.types``).
    """

    source: str
    target: str
    internal: bool
    file: str
    line: int
    kind: str
    statement: str

    @property
    def top_level(self) -> str:
        return self.target.partition(".")[0]

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def describe(self) -> str:
        context = {TYPE_CHECKING_ONLY: " (TYPE_CHECKING)", IN_FUNCTION: " (in a function)"}
        return f"{self.where}: {self.statement}{context.get(self.kind, '')}"


@dataclass(frozen=True)
class Tree:
    """The package's modules (name -> file relative to the root) and their imports."""

    root: Path
    modules: dict[str, str]
    imports: tuple[Import, ...]

    def internal(self, *kinds: str) -> list[Import]:
        return [imp for imp in self.imports if imp.internal and (not kinds or imp.kind in kinds)]


def module_name(path: Path, package_dir: Path) -> str:
    parts = [package_dir.name, *path.relative_to(package_dir).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def discover_modules(root: Path, package: str = PACKAGE) -> dict[str, str]:
    package_dir = root / package
    return {
        module_name(path, package_dir): path.relative_to(root).as_posix()
        for path in sorted(package_dir.rglob("*.py"))
    }


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _dynamic_import(node: ast.Call) -> str | None:
    """The literal name of ``importlib.import_module("x")`` / ``__import__("x")``."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name not in ("import_module", "__import__") or not node.args:
        return None
    first = node.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    return None


def _walk(
    node: ast.AST, kind: str = RUNTIME
) -> Iterator[tuple[ast.Import | ast.ImportFrom | ast.Call, str]]:
    """Every import in ``node`` with its kind (runtime, TYPE_CHECKING-only, in a function)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield from _walk(child, IN_FUNCTION)
        elif isinstance(child, ast.If) and kind != IN_FUNCTION and _is_type_checking(child.test):
            for stmt in child.body:
                yield from _walk_stmt(stmt, TYPE_CHECKING_ONLY)
            for stmt in child.orelse:
                yield from _walk_stmt(stmt, kind)
        else:
            yield from _walk_stmt(child, kind)


def _walk_stmt(
    node: ast.AST, kind: str
) -> Iterator[tuple[ast.Import | ast.ImportFrom | ast.Call, str]]:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        yield node, kind
    elif isinstance(node, ast.Call) and _dynamic_import(node) is not None:
        yield node, kind
        yield from _walk(node, kind)
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        yield from _walk(node, IN_FUNCTION)
    else:
        yield from _walk(node, kind)


def _resolve_from(source: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = source.split(".") if is_package else source.split(".")[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _is_internal(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _statement(node: ast.Import | ast.ImportFrom | ast.Call) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 90 else text[:87] + "..."


def _targets(
    node: ast.Import | ast.ImportFrom | ast.Call,
    source: str,
    is_package: bool,
    modules: dict[str, str],
    package: str,
) -> list[str]:
    """The modules one import statement (or literal dynamic import) names."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.Call):
        return [_dynamic_import(node) or ""]
    base = _resolve_from(source, is_package, node)
    if not _is_internal(base, package):
        return [base]
    # `from ulidkeys.s3 import layout` names the submodule when there is one
    submodules = (f"{base}.{alias.name}" for alias in node.names)
    return list(dict.fromkeys(name if name in modules else base for name in submodules))


def parse_imports(root: Path, package: str = PACKAGE) -> Tree:
    """Read every module of ``root/package`` and resolve its imports."""
    modules = discover_modules(root, package)
    imports: list[Import] = []
    for source, file in modules.items():
        is_package = file.endswith("/__init__.py")
        tree = ast.parse((root / file).read_text(encoding="utf-8"), filename=file)
        for node, kind in _walk(tree):
            for target in _targets(node, source, is_package, modules, package):
                internal = _is_internal(target, package)
                if internal and target == source:
                    continue  # a module importing itself, or a package a name of its own
                imports.append(
                    Import(source, target, internal, file, node.lineno, kind, _statement(node))
                )
    return Tree(root, modules, tuple(imports))


def layer_of(module: str, layers: Sequence[tuple[str, Sequence[str]]] = LAYERS) -> str | None:
    if module == PACKAGE:
        return FACADE
    for layer, names in layers:
        if any(module == name or module.startswith(name + ".") for name in names):
            return layer
    return None


def unassigned_modules(tree: Tree) -> list[str]:
    return [
        f"{file}: assign {module} to a layer in {THIS_FILE}"
        for module, file in tree.modules.items()
        if layer_of(module) is None
    ]


def layer_violations(tree: Tree) -> list[str]:
    """Imports pointing to a higher layer (TYPE_CHECKING and function imports included)."""
    rank = {layer: index for index, (layer, _) in enumerate(LAYERS)}
    problems = []
    for imp in tree.internal():
        src, dst = layer_of(imp.source), layer_of(imp.target)
        if src is None or dst is None:
            if dst is None:
                problems.append(
                    f"{imp.describe()}: {imp.target} is not assigned to a layer "
                    f"(assign it in {THIS_FILE})"
                )
            continue  # an unassigned source is reported by its own test
        if dst == FACADE:
            ok = src in FACADE_IMPORTED_BY
            why = (
                "the package root (facade) is for users; import the module that defines "
                "the name instead"
            )
        elif src == FACADE:
            ok = dst in FACADE_MAY_IMPORT
            why = f"the package root may import {', '.join(sorted(FACADE_MAY_IMPORT))} only"
        else:
            ok = rank[dst] <= rank[src]
            why = "upward import"
        if not ok:
            problems.append(
                f"{imp.describe()}: {imp.source} ({src}) -> {imp.target} ({dst}): {why}"
            )
    return problems


def independence_violations(tree: Tree) -> list[str]:
    def group_of(module: str, group: Sequence[str]) -> str | None:
        return next((g for g in group if module == g or module.startswith(g + ".")), None)

    problems = []
    for imp in tree.internal():
        for group in INDEPENDENT:
            src, dst = group_of(imp.source, group), group_of(imp.target, group)
            if src and dst and src != dst:
                problems.append(f"{imp.describe()}: {src} must not import {dst}")
    return problems


def function_level_violations(tree: Tree) -> list[str]:
    problems = []
    for imp in tree.imports:
        if imp.kind != IN_FUNCTION:
            continue
        if imp.internal:
            problems.append(
                f"{imp.describe()}: {imp.source} imports {imp.target} inside a function; "
                "move it to module level"
            )
        elif imp.top_level not in OPTIONAL_PACKAGES:
            problems.append(
                f"{imp.describe()}: only optional packages "
                f"({', '.join(sorted(OPTIONAL_PACKAGES))}) may be imported inside a function"
            )
    return problems


def aws_import_violations(tree: Tree) -> list[str]:
    return [
        f"{imp.describe()}: {imp.source} ({layer_of(imp.source)}) must import without boto3; "
        "import it inside the function that needs it, or move the code to an adapter"
        for imp in tree.imports
        if imp.kind == RUNTIME
        and not imp.internal
        and imp.top_level in AWS_PACKAGES
        and layer_of(imp.source) in AWS_FREE_LAYERS
    ]


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm (iterative); components of more than one node only."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


def find_cycles(imports: Iterable[Import], limit: int = 100) -> list[list[str]]:
    """Elementary cycles of the runtime graph, each as ``[a, b, ..., a]``."""
    graph: dict[str, set[str]] = defaultdict(set)
    for imp in imports:
        if imp.internal and imp.kind != TYPE_CHECKING_ONLY:
            graph[imp.source].add(imp.target)
            graph.setdefault(imp.target, set())
    cycles: list[list[str]] = []
    for component in _strongly_connected(graph):
        members = set(component)
        for start in component:  # sorted: each cycle is found from its smallest module
            allowed = {m for m in members if m >= start}
            path = [start]
            work = [iter(sorted(graph[start] & allowed))]
            while work and len(cycles) < limit:
                child = next(work[-1], None)
                if child is None:
                    work.pop()
                    path.pop()
                elif child == start:
                    cycles.append([*path, start])
                elif child not in path:
                    path.append(child)
                    work.append(iter(sorted(graph[child] & allowed)))
    return sorted(cycles)


def cycle_report(tree: Tree, limit: int = 100) -> list[str]:
    edges: dict[tuple[str, str], list[Import]] = defaultdict(list)
    for imp in tree.internal(RUNTIME, IN_FUNCTION):
        edges[imp.source, imp.target].append(imp)
    cycles = find_cycles(tree.imports, limit)
    reports = []
    for cycle in cycles:
        lines = [" -> ".join(cycle)]
        for hop in itertools.pairwise(cycle):
            lines += [f"    {imp.describe()}" for imp in edges[hop]]
        reports.append("\n".join(lines))
    if len(cycles) >= limit:
        reports.append(f"(stopped after {limit} cycles)")
    return reports


def imports_without_aws(root: Path, names: Sequence[str]) -> list[str]:
    """Import ``names`` from ``root`` in a fresh interpreter where boto3 cannot be imported."""
    script = textwrap.dedent(
        """
        import importlib, json, sys
        sys.path.insert(0, sys.argv[1])
        # an editable install would find its own copy of the package first
        sys.meta_path = [f for f in sys.meta_path if "__editable__" not in f.__module__]
        for blocked in ("boto3", "botocore", "moto"):
            sys.modules[blocked] = None  # `import boto3` now raises ImportError
        failed = {}
        for name in json.loads(sys.argv[2]):
            try:
                importlib.import_module(name)
            except BaseException as exc:
                failed[name] = f"{type(exc).__name__}: {exc}"
        print(json.dumps(failed))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(root), json.dumps(list(names))],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
        check=False,
    )
    if result.returncode != 0:
        return [f"the import check crashed: {result.stderr.strip()}"]
    failed = json.loads(result.stdout.strip().splitlines()[-1])
    return [f"import {name}: {error}" for name, error in failed.items()]


def failure(title: str, problems: Sequence[str]) -> str:
    return f"{len(problems)} {title}:\n" + "\n".join(f"  {p}" for p in problems)


# ------------------------------------------------------------------------ the real package


@pytest.fixture(scope="module")
def tree() -> Tree:
    return parse_imports(PROJECT_ROOT)


def test_every_module_is_assigned_to_a_layer(tree: Tree) -> None:
    problems = unassigned_modules(tree)
    assert not problems, failure("modules without a layer", problems)


def test_no_import_cycles(tree: Tree) -> None:
    problems = cycle_report(tree)
    assert not problems, failure("import cycles (TYPE_CHECKING imports excluded)", problems)


def test_no_upward_imports(tree: Tree) -> None:
    problems = layer_violations(tree)
    assert not problems, failure("imports across the layers", problems)


def test_s3_and_dynamodb_are_independent(tree: Tree) -> None:
    problems = independence_violations(tree)
    assert not problems, failure("imports between independent adapters", problems)


def test_no_imports_inside_functions(tree: Tree) -> None:
    problems = function_level_violations(tree)
    assert not problems, failure("imports inside functions", problems)


def test_core_ids_and_planning_do_not_import_boto3(tree: Tree) -> None:
    problems = aws_import_violations(tree)
    assert not problems, failure("module-level imports of boto3/botocore", problems)


#: What the registry's readers may import of ``ulidkeys.ids``: the protocol and the registry,
#: never a scheme module (then a scheme would be listed twice: in the registry and there).
REGISTRY_READERS = ("ulidkeys.ids.inspection",)
REGISTRY_SIDE = frozenset(
    {"ulidkeys.ids.protocol", "ulidkeys.ids.registration", "ulidkeys.ids.registry"}
)


def registry_bypasses(tree: Tree) -> list[str]:
    return [
        f"{imp.where}: {imp.source} imports {imp.target}; read schemes from the registry"
        for imp in tree.internal()
        if imp.source in REGISTRY_READERS
        and imp.target.startswith("ulidkeys.ids.")
        and imp.target not in REGISTRY_SIDE
    ]


def test_inspect_reads_schemes_only_from_the_registry(tree: Tree) -> None:
    problems = registry_bypasses(tree)
    assert not problems, failure("scheme lists outside the registry", problems)


#: The executor's I/O-free machines and programs: driven by both shells, importing neither, nor
#: anything that waits.
IO_FREE = (
    "ulidkeys.engine.chains",
    "ulidkeys.engine.slicing",
    "ulidkeys.engine.scheduling",
    "ulidkeys.engine.search",
    "ulidkeys.engine.operations",
    "ulidkeys.engine.newest",
    "ulidkeys.engine.folders",
    "ulidkeys.survey",
)
SHELLS = (
    "ulidkeys.engine.threads",
    "ulidkeys.engine.tasks",
    "ulidkeys.engine.pools",
    "ulidkeys.aio",
)
WAITING = frozenset({"asyncio", "concurrent", "threading", "time"})


def io_free_violations(tree: Tree) -> list[str]:
    return [
        f"{imp.where}: {imp.source} imports {imp.target}"
        for imp in tree.imports
        if imp.source in IO_FREE
        and (
            (imp.internal and imp.target.startswith(SHELLS))
            or (not imp.internal and imp.top_level in WAITING)
        )
    ]


def test_the_machines_import_no_shell_and_nothing_that_waits(tree: Tree) -> None:
    problems = io_free_violations(tree)
    assert not problems, failure("I/O in the executor's machines", problems)


#: What an adapter may use of the layers below: their public names only (a planner's or the
#: machines' ``_private`` helpers stay behind their module's API).
ADAPTERS = ("ulidkeys.s3", "ulidkeys.dynamodb", "ulidkeys.aio")
BELOW_ADAPTERS = ("ulidkeys.planning", "ulidkeys.engine", "ulidkeys.ids")


def private_imports(root: Path, sources: Sequence[str], targets: Sequence[str]) -> list[str]:
    """``from <target> import _name`` statements in the modules of ``sources``."""
    problems = []
    for path in sorted((root / PACKAGE).rglob("*.py")):
        module = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        if not module.startswith(sources):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(targets):
                problems += [
                    f"{path.relative_to(root)}:{node.lineno}: {alias.name} from {node.module}"
                    for alias in node.names
                    if alias.name.startswith("_")
                ]
    return problems


def test_adapters_import_no_planner_internals() -> None:
    problems = private_imports(PROJECT_ROOT, ADAPTERS, BELOW_ADAPTERS)
    assert not problems, failure("adapters importing private names of the layers below", problems)


def test_fake_private_import_is_found(tmp_path: Path) -> None:
    (tmp_path / PACKAGE / "s3").mkdir(parents=True)
    (tmp_path / PACKAGE / "s3" / "bucket.py").write_text(
        "from ulidkeys.planning.listings import plan_listing, _ordered_call\n"
    )
    (tmp_path / PACKAGE / "s3" / "ok.py").write_text("from ulidkeys.planning.plans import Plan\n")
    found = private_imports(tmp_path, ADAPTERS, BELOW_ADAPTERS)
    assert found == ["ulidkeys/s3/bucket.py:1: _ordered_call from ulidkeys.planning.listings"]


def test_core_ids_and_planning_import_without_boto3(tree: Tree) -> None:
    names = {*AWS_FREE_IMPORTS, *(m for m in tree.modules if layer_of(m) in AWS_FREE_LAYERS)}
    problems = imports_without_aws(PROJECT_ROOT, sorted(names))
    assert not problems, failure("modules that do not import with boto3 blocked", problems)


# ------------------------------------------------------------- the checker, on fake trees


def make_tree(root: Path, files: dict[str, str]) -> Tree:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return parse_imports(root)


def edges(tree: Tree, *kinds: str) -> set[tuple[str, str]]:
    return {(imp.source, imp.target) for imp in tree.internal(*kinds)}


CLEAN = {
    "ulidkeys/__init__.py": "from ulidkeys.ulid import ULID\nfrom ulidkeys import errors\n",
    "ulidkeys/errors.py": "",
    "ulidkeys/base32.py": "from ulidkeys.errors import Error\n",
    "ulidkeys/ulid.py": "from ulidkeys import base32, errors\n",
    "ulidkeys/ids/__init__.py": "from .schemes import Scheme\n",
    "ulidkeys/ids/schemes.py": "from ..ulid import ULID\nfrom .. import base32\n",
    "ulidkeys/s3/__init__.py": "from .layout import KeyLayout\n",
    "ulidkeys/s3/layout.py": (
        "from typing import TYPE_CHECKING\n"
        "from ulidkeys.ulid import ULID\n"
        "if TYPE_CHECKING:\n"
        "    from ulidkeys.s3.listing import Listing\n"
        "def list_it(client):\n"
        "    import boto3\n"
        "    from botocore.exceptions import ClientError\n"
    ),
    "ulidkeys/s3/listing.py": "from ulidkeys.s3 import layout\nfrom . import layout as again\n",
    "ulidkeys/cli.py": (
        "import ulidkeys\nfrom ulidkeys import ULID\nfrom ulidkeys.s3 import KeyLayout\n"
    ),
}


def test_fake_clean_tree_passes(tmp_path: Path) -> None:
    tree = make_tree(tmp_path, CLEAN)
    assert unassigned_modules(tree) == []
    assert cycle_report(tree) == []
    assert layer_violations(tree) == []
    assert independence_violations(tree) == []
    assert function_level_violations(tree) == []
    assert aws_import_violations(tree) == []


def test_fake_imports_are_resolved(tmp_path: Path) -> None:
    tree = make_tree(tmp_path, CLEAN)
    assert set(tree.modules) == {
        "ulidkeys", "ulidkeys.errors", "ulidkeys.base32", "ulidkeys.ulid", "ulidkeys.ids",
        "ulidkeys.ids.schemes", "ulidkeys.s3", "ulidkeys.s3.layout", "ulidkeys.s3.listing",
        "ulidkeys.cli",
    }  # fmt: skip
    assert edges(tree, RUNTIME) == {
        ("ulidkeys", "ulidkeys.ulid"),
        ("ulidkeys", "ulidkeys.errors"),  # `from ulidkeys import errors`: the submodule
        ("ulidkeys.base32", "ulidkeys.errors"),
        ("ulidkeys.ulid", "ulidkeys.base32"),
        ("ulidkeys.ulid", "ulidkeys.errors"),
        ("ulidkeys.ids", "ulidkeys.ids.schemes"),  # relative, from a package __init__
        ("ulidkeys.ids.schemes", "ulidkeys.ulid"),  # `from ..ulid import ULID`
        ("ulidkeys.ids.schemes", "ulidkeys.base32"),  # `from .. import base32`
        ("ulidkeys.s3", "ulidkeys.s3.layout"),
        ("ulidkeys.s3.layout", "ulidkeys.ulid"),
        ("ulidkeys.s3.listing", "ulidkeys.s3.layout"),  # submodule through its package
        ("ulidkeys.cli", "ulidkeys"),  # `import ulidkeys` and `from ulidkeys import ULID`
        ("ulidkeys.cli", "ulidkeys.s3"),  # a name defined in the package __init__
    }
    assert edges(tree, TYPE_CHECKING_ONLY) == {("ulidkeys.s3.layout", "ulidkeys.s3.listing")}
    external = {(i.target, i.kind, i.line) for i in tree.imports if not i.internal}
    assert external == {
        ("typing", RUNTIME, 1),
        ("boto3", IN_FUNCTION, 6),
        ("botocore.exceptions", IN_FUNCTION, 7),
    }


def test_fake_cycle_is_found(tmp_path: Path) -> None:
    tree = make_tree(
        tmp_path,
        {
            **CLEAN,
            "ulidkeys/s3/plan.py": "from ulidkeys.s3.writing import put\n",
            "ulidkeys/s3/writing.py": "from . import listing\n",
            "ulidkeys/s3/listing.py": "import ulidkeys.s3.plan\n",
        },
    )
    assert find_cycles(tree.imports) == [
        ["ulidkeys.s3.listing", "ulidkeys.s3.plan", "ulidkeys.s3.writing", "ulidkeys.s3.listing"]
    ]
    [report] = cycle_report(tree)
    assert report.splitlines() == [
        "ulidkeys.s3.listing -> ulidkeys.s3.plan -> ulidkeys.s3.writing -> ulidkeys.s3.listing",
        "    ulidkeys/s3/listing.py:1: import ulidkeys.s3.plan",
        "    ulidkeys/s3/plan.py:1: from ulidkeys.s3.writing import put",
        "    ulidkeys/s3/writing.py:1: from . import listing",
    ]


def test_fake_cycle_through_a_function_import_is_found(tmp_path: Path) -> None:
    tree = make_tree(
        tmp_path,
        {
            **CLEAN,
            "ulidkeys/cli.py": "def main():\n    from ulidkeys.demo import run\n",
            "ulidkeys/demo.py": "from ulidkeys.cli import describe\n",
        },
    )
    assert find_cycles(tree.imports) == [["ulidkeys.cli", "ulidkeys.demo", "ulidkeys.cli"]]
    assert function_level_violations(tree) == [
        "ulidkeys/cli.py:2: from ulidkeys.demo import run (in a function): ulidkeys.cli "
        "imports ulidkeys.demo inside a function; move it to module level"
    ]


def test_fake_separate_cycles_are_all_reported(tmp_path: Path) -> None:
    tree = make_tree(
        tmp_path,
        {
            **CLEAN,
            "ulidkeys/errors.py": "from ulidkeys import base32\n",  # errors <-> base32
            "ulidkeys/ulid.py": "import ulidkeys.ulid\nfrom . import ulid\n",  # itself: no
            "ulidkeys/s3/listing.py": "from ulidkeys.s3.layout import A\n",
            "ulidkeys/s3/layout.py": "from ulidkeys.s3.listing import B\nimport ulidkeys.s3\n",
        },
    )
    assert find_cycles(tree.imports) == [
        ["ulidkeys.base32", "ulidkeys.errors", "ulidkeys.base32"],
        ["ulidkeys.s3", "ulidkeys.s3.layout", "ulidkeys.s3"],
        ["ulidkeys.s3.layout", "ulidkeys.s3.listing", "ulidkeys.s3.layout"],
    ]


def test_fake_type_checking_import_is_not_a_runtime_edge(tmp_path: Path) -> None:
    tree = make_tree(
        tmp_path,
        {
            **CLEAN,
            "ulidkeys/s3/listing.py": "from ulidkeys.s3.layout import KeyLayout\n",
            "ulidkeys/dynamodb/__init__.py": "",
            "ulidkeys/dynamodb/plan.py": (
                "import typing\n"
                "from ulidkeys.dynamodb.entity import Entity\n"
                "if typing.TYPE_CHECKING:\n"
                "    from ulidkeys.dynamodb.query import Query\n"
                "else:\n"
                "    from ulidkeys.errors import Error\n"
            ),
            "ulidkeys/dynamodb/entity.py": "from ulidkeys.dynamodb.query import run\n",
            "ulidkeys/dynamodb/query.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    from ulidkeys.dynamodb.plan import Plan\n"
                "    from ulidkeys.cli import main\n"  # upward, even if type-only
            ),
        },
    )
    assert ("ulidkeys.s3.layout", "ulidkeys.s3.listing") in edges(tree, TYPE_CHECKING_ONLY)
    assert ("ulidkeys.dynamodb.query", "ulidkeys.dynamodb.plan") in edges(tree, TYPE_CHECKING_ONLY)
    assert ("ulidkeys.dynamodb.plan", "ulidkeys.errors") in edges(tree, RUNTIME)  # else branch
    assert find_cycles(tree.imports) == []
    assert layer_violations(tree) == [
        "ulidkeys/dynamodb/query.py:4: from ulidkeys.cli import main (TYPE_CHECKING): "
        "ulidkeys.dynamodb.query (adapters) -> ulidkeys.cli (top): upward import"
    ]


def test_fake_upward_imports_are_found(tmp_path: Path) -> None:
    tree = make_tree(
        tmp_path,
        {
            **CLEAN,
            "ulidkeys/ulid.py": "from ulidkeys.ids import Scheme\n",  # core -> ids
            "ulidkeys/ids/schemes.py": "def f():\n    from ulidkeys.s3 import layout\n",
            "ulidkeys/s3/listing.py": "from ulidkeys import ULID\n",  # through the facade
            "ulidkeys/__init__.py": "from ulidkeys.s3 import KeyLayout\n",
        },
    )
    assert layer_violations(tree) == [
        "ulidkeys/__init__.py:1: from ulidkeys.s3 import KeyLayout: ulidkeys (facade) -> "
        "ulidkeys.s3 (adapters): the package root may import core, ids, planning only",
        "ulidkeys/ids/schemes.py:2: from ulidkeys.s3 import layout (in a function): "
        "ulidkeys.ids.schemes (ids) -> ulidkeys.s3.layout (adapters): upward import",
        "ulidkeys/s3/listing.py:1: from ulidkeys import ULID: ulidkeys.s3.listing (adapters) "
        "-> ulidkeys (facade): the package root (facade) is for users; import the module "
        "that defines the name instead",
        "ulidkeys/ulid.py:1: from ulidkeys.ids import Scheme: ulidkeys.ulid (core) -> "
        "ulidkeys.ids (ids): upward import",
    ]


def test_fake_adapters_do_not_import_each_other(tmp_path: Path) -> None:
    tree = make_tree(
        tmp_path,
        {
            **CLEAN,
            "ulidkeys/dynamodb/__init__.py": "from ulidkeys.s3.layout import KeyLayout\n",
        },
    )
    assert layer_violations(tree) == []  # same layer
    assert independence_violations(tree) == [
        "ulidkeys/dynamodb/__init__.py:1: from ulidkeys.s3.layout import KeyLayout: "
        "ulidkeys.dynamodb must not import ulidkeys.s3"
    ]


def test_fake_function_imports_are_found(tmp_path: Path) -> None:
    tree = make_tree(
        tmp_path,
        {
            **CLEAN,
            "ulidkeys/s3/layout.py": """\
                import importlib

                class KeyLayout:
                    from ulidkeys.errors import Error  # class body: module level

                    def plan(self):
                        from .listing import plan
                        import boto3
                        import json

                    async def later(self):
                        return importlib.import_module("ulidkeys.s3.listing")

                    sorter = lambda: __import__("ulidkeys.ulid")  # noqa: E731
                """,
        },
    )
    problems = function_level_violations(tree)
    assert [p.split(": ", 1)[0] for p in problems] == [
        "ulidkeys/s3/layout.py:7",
        "ulidkeys/s3/layout.py:9",
        "ulidkeys/s3/layout.py:12",
        "ulidkeys/s3/layout.py:14",
    ]
    assert "imports ulidkeys.s3.listing inside a function" in problems[0]
    assert (
        "only optional packages (boto3, botocore, matplotlib, moto, pydantic_core, shtab)"
        in problems[1]
    )
    assert ("ulidkeys.s3.layout", "ulidkeys.errors") in edges(tree, RUNTIME)


def test_fake_unassigned_module_is_found(tmp_path: Path) -> None:
    tree = make_tree(
        tmp_path,
        {**CLEAN, "ulidkeys/extras.py": "", "ulidkeys/cli.py": "from ulidkeys import extras\n"},
    )
    assert unassigned_modules(tree) == [
        f"ulidkeys/extras.py: assign ulidkeys.extras to a layer in {THIS_FILE}"
    ]
    assert layer_violations(tree) == [
        "ulidkeys/cli.py:1: from ulidkeys import extras: ulidkeys.extras is not assigned to "
        f"a layer (assign it in {THIS_FILE})"
    ]


def test_fake_boto3_at_module_level_is_found(tmp_path: Path) -> None:
    tree = make_tree(
        tmp_path,
        {
            **CLEAN,
            "ulidkeys/ulid.py": "try:\n    import boto3\nexcept ImportError:\n    boto3 = None\n",
            "ulidkeys/ids/schemes.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    from botocore.client import BaseClient\n"  # type-only: fine
                "def f():\n"
                "    import boto3\n"  # lazy: fine
            ),
            "ulidkeys/__init__.py": "from botocore.exceptions import ClientError\n",
            "ulidkeys/s3/listing.py": "import boto3\n",  # adapters may
        },
    )
    assert [p.split(": ", 1)[0] for p in aws_import_violations(tree)] == [
        "ulidkeys/__init__.py:1",
        "ulidkeys/ulid.py:2",
    ]


def test_fake_import_without_boto3(tmp_path: Path) -> None:
    make_tree(
        tmp_path,
        {
            "ulidkeys/__init__.py": "from ulidkeys.errors import Error\n",
            "ulidkeys/errors.py": "class Error(Exception): ...\n",
            "ulidkeys/ulid.py": "import boto3\n",
            "ulidkeys/ids/__init__.py": "",
            "ulidkeys/ids/schemes.py": "from ulidkeys import errors\ndef f():\n    import boto3\n",
        },
    )
    assert imports_without_aws(tmp_path, ["ulidkeys.ids.schemes", "ulidkeys.errors"]) == []
    assert imports_without_aws(tmp_path, ["ulidkeys.ulid", "ulidkeys.planning"]) == [
        "import ulidkeys.ulid: ModuleNotFoundError: import of boto3 halted; None in sys.modules",
        "import ulidkeys.planning: ModuleNotFoundError: No module named 'ulidkeys.planning'",
    ]


# ------------------------------------------------------------- the shape of the layout

#: Modules directly under ``ulidkeys/`` at most (``__init__`` included): the core, config and
#: the integrations; everything else lives in the folder of its layer.
MAX_TOP_MODULES = 12


def top_level_modules(root: Path) -> list[str]:
    return sorted(path.name for path in (root / PACKAGE).glob("*.py"))


def undescribed_modules(root: Path) -> list[str]:
    """Modules whose docstring does not say what they are for. A module is one concept, said in
    its docstring (its first sentence, a line or more); its size follows from the concept, so no
    line count is checked."""
    problems = []
    for path in sorted((root / PACKAGE).rglob("*.py")):
        name = path.relative_to(root).as_posix()
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        if path.name == "__main__.py":
            continue
        if not docstring or len(docstring.split()) < 6:
            problems.append(f"{name}: no docstring saying what the module is for")
    return problems


def test_at_most_a_dozen_modules_at_the_top() -> None:
    modules = top_level_modules(PROJECT_ROOT)
    assert len(modules) <= MAX_TOP_MODULES, failure(
        f"modules directly under {PACKAGE}/ (at most {MAX_TOP_MODULES}; move the others into "
        "the folder of their layer)",
        modules,
    )


def test_every_module_says_its_concept() -> None:
    problems = undescribed_modules(PROJECT_ROOT)
    assert not problems, failure("modules without a concept in their docstring", problems)


def test_fake_modules_without_a_docstring_are_found(tmp_path: Path) -> None:
    make_tree(
        tmp_path,
        {
            "ulidkeys/__init__.py": '"""The package: what it is for, in a sentence."""\n',
            "ulidkeys/bare.py": "x = 1\n",
            "ulidkeys/terse.py": '"""Helpers."""\n',
            "ulidkeys/ids/told.py": '"""Id schemes: one protocol, a registry of them."""\n',
        },
    )
    assert top_level_modules(tmp_path) == ["__init__.py", "bare.py", "terse.py"]
    assert undescribed_modules(tmp_path) == [
        "ulidkeys/bare.py: no docstring saying what the module is for",
        "ulidkeys/terse.py: no docstring saying what the module is for",
    ]
