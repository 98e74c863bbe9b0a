"""The import graph of the runtime (``evalschema``), and its check: no cycle between packages, no
arrow from a lower layer to a higher one, and no import of the generator (``codegen``).

    python scripts/import_graph.py          # prints the graph; exits 1 on a cycle (of packages or of modules), an
                                            # upward arrow, a private name taken across modules or codegen

Layers, lowest first (issue 17; mirrored by js/src): core < io < schemas < engine < rules < summary < pipeline <
features < report < sources < cli < api (the package's ``__init__``). A node is a subpackage or a top-level module
(``evalschema.core``, ``evalschema.pipeline``); imports inside a node are not drawn. Lazy imports (inside
functions) count: they are arrows all the same.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

PACKAGE = "evalschema"
GENERATOR = "codegen"

LAYERS: dict[str, tuple[str, ...]] = {
    "core": ("core",),
    "io": ("io",),
    "schemas": ("schemas",),
    "engine": ("engine",),
    "rules": ("rules",),
    "summary": ("summary",),
    "pipeline": ("pipeline", "validate"),
    "features": ("compare", "interop", "migrate", "columnar", "sql", "casesfile"),
    "report": ("report",),
    "sources": ("sources",),  # the report entries of one source, for one process, -j and Dask alike
    "cli": ("cli", "__main__"),
    "api": ("", "api"),  # evalschema/__init__.py: the public API, above everything
}
ORDER = list(LAYERS)


def node(module: str) -> str:
    """The graph node of a module: ``evalschema.core.findings`` -> ``evalschema.core``."""
    parts = module.split(".")
    return ".".join(parts[:2])


def layer(name: str) -> str | None:
    """The layer of a node, ``None`` if it has none (a new module: a finding of its own)."""
    leaf = name.split(".", 1)[1] if "." in name else ""
    for layer_name, members in LAYERS.items():
        if leaf in members:
            return layer_name
    return None


def edges_of_package() -> dict[str, set[str]]:
    """Node -> the nodes it imports (``codegen`` included, as a node of its own, if anything imports it)."""
    import grimp

    graph = grimp.build_graph(PACKAGE, include_external_packages=True)
    edges: dict[str, set[str]] = {}
    for module in sorted(graph.modules):
        if module != PACKAGE and not module.startswith(PACKAGE + "."):
            continue
        source = node(module)
        edges.setdefault(source, set())
        for imported in graph.find_modules_directly_imported_by(module):
            if imported == GENERATOR or imported.startswith(GENERATOR + "."):
                edges[source].add(GENERATOR)
            elif imported == PACKAGE or imported.startswith(PACKAGE + "."):
                target = node(imported)
                if target != source:
                    edges[source].add(target)
    return edges


def _cycles(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def problems(edges: Mapping[str, Iterable[str]]) -> list[str]:
    """What is wrong with a node graph: cycles, upward arrows, nodes of no layer, imports of the generator."""
    out = [f"cycle: {' <-> '.join(cycle)}" for cycle in _cycles(edges)]
    for source in sorted(edges):
        if layer(source) is None:
            out.append(f"no layer: {source} (add it to LAYERS in scripts/import_graph.py)")
        for target in sorted(edges[source]):
            if target == GENERATOR:
                out.append(f"the runtime imports the generator: {source} -> {GENERATOR}")
                continue
            low, high = layer(source), layer(target)
            if low is not None and high is not None and ORDER.index(low) < ORDER.index(high):
                out.append(f"upward: {source} ({low}) -> {target} ({high})")
    return out


def render(edges: Mapping[str, Iterable[str]]) -> str:
    """The graph by layer, lowest first: each node with the nodes it imports."""
    lines = []
    for layer_name in ORDER:
        nodes = sorted(n for n in edges if layer(n) == layer_name)
        if not nodes:
            continue
        lines.append(f"[{layer_name}]")
        for name in nodes:
            targets = sorted(edges[name], key=lambda t: (ORDER.index(layer(t) or "api"), t))
            lines.append(f"  {name} -> {', '.join(targets) if targets else '(nothing)'}")
    return "\n".join(lines)


# --- the module level (issue 38 item 6) ---------------------------------------------------------------------------
#
# The package graph above cuts names to packages, so a cycle between two modules of one package, or one hidden by an
# import inside a function, does not show. Below, every module is a node and every import counts, wherever it is
# written (at the top, inside a function, under ``if TYPE_CHECKING`` excepted: it never runs). What is wrong at this
# level: a cycle between modules; a name starting with ``_`` taken from another module; an import inside a function
# of anything but an optional extra (a lazy import hides an arrow, and its cost, from whoever reads the top).

EXTRAS = ("pyarrow", "duckdb", "dask", "distributed", "fsspec", "inspect_ai", "ruamel")


class Import(NamedTuple):
    importer: str  # module
    imported: str  # module (the package's own) or the top-level name of another distribution
    names: tuple[str, ...]  # the names taken (``from x import a, b``); () for ``import x``
    lazy: bool  # written inside a function
    line: int


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(importer: str, is_package: bool, level: int, module: str | None) -> str:
    if level == 0:
        return module or ""
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, module] if module else base)


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(root: Path, package: str = PACKAGE) -> list[Import]:
    """Every import statement of the package's modules that runs (``if TYPE_CHECKING`` blocks skipped)."""
    out: list[Import] = []
    for path in sorted((root / package).rglob("*.py")):
        importer = _module_name(path, root)
        is_package = path.name == "__init__.py"

        def walk(node: ast.AST, lazy: bool, importer: str = importer, is_package: bool = is_package) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.If) and _type_checking(child):
                    for other in child.orelse:
                        walk(other, lazy)
                    continue
                inner = lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                if isinstance(child, ast.Import):
                    out.extend(Import(importer, alias.name, (), inner, child.lineno) for alias in child.names)
                elif isinstance(child, ast.ImportFrom):
                    target = _resolve(importer, is_package, child.level, child.module)
                    names = tuple(alias.name for alias in child.names)
                    submodules = [n for n in names if _is_module(root, f"{target}.{n}")]
                    out.extend(Import(importer, f"{target}.{n}", (), inner, child.lineno) for n in submodules)
                    rest = tuple(n for n in names if n not in submodules)
                    if rest or not submodules:
                        out.append(Import(importer, target, rest, inner, child.lineno))
                walk(child, inner)

        walk(ast.parse(path.read_text(encoding="utf-8")), False)
    return out


def _is_module(root: Path, name: str) -> bool:
    path = root.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def module_problems(imports: Iterable[Import], package: str = PACKAGE) -> list[str]:
    """What is wrong at the module level: cycles, private names across modules, lazy imports of no extra."""
    edges: dict[str, set[str]] = {}
    out: list[str] = []
    for found in imports:
        edges.setdefault(found.importer, set())
        own = found.imported == package or found.imported.startswith(package + ".")
        if own and found.imported != found.importer:
            edges[found.importer].add(found.imported)
        private = [n for n in found.names if n.startswith("_") and not n.startswith("__")]
        if own and private and found.imported != found.importer:
            out.append(f"private: {found.importer}:{found.line} takes {', '.join(private)} from {found.imported}")
        if found.lazy and found.imported.split(".")[0] not in EXTRAS:
            out.append(f"lazy: {found.importer}:{found.line} imports {found.imported} inside a function")
    out[:0] = [f"cycle: {' <-> '.join(cycle)}" for cycle in _cycles(edges)]
    return out


def main() -> int:
    edges = edges_of_package()
    print(render(edges))
    found = problems(edges)
    for problem in found:
        print(f"error: {problem}", file=sys.stderr)
    print(f"{len(edges)} nodes, {sum(len(t) for t in edges.values())} arrows, {len(found)} problems")
    remaining = module_problems(imports_of(Path(__file__).resolve().parent.parent))
    for kind in ("cycle", "private", "lazy"):
        listed = [p for p in remaining if p.startswith(kind + ":")]
        print(f"module level: {len(listed)} {kind} problem(s) remain")
        for problem in listed:
            print(f"  {problem}")
    # a module cycle or a private name taken across modules fails the check; lazy imports of our own modules are
    # listed (they keep the command's start-up small: a module a command may not need is imported when it is)
    broken = [p for p in remaining if p.startswith(("cycle:", "private:"))]
    return 1 if found or broken else 0


if __name__ == "__main__":
    sys.exit(main())
