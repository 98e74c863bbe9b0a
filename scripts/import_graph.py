"""The package-level import graph of the runtime (``evalschema``), and its check: no cycle between packages, no
arrow from a lower layer to a higher one, and no import of the generator (``codegen``).

    python scripts/import_graph.py          # prints the graph; exits 1 on a cycle, an upward arrow or codegen

Layers, lowest first (issue 17; mirrored by js/src): core < io < schemas < engine < rules < summary < pipeline <
features < report < sources < cli < api (the package's ``__init__``). A node is a subpackage or a top-level module
(``evalschema.core``, ``evalschema.pipeline``); imports inside a node are not drawn. Lazy imports (inside
functions) count: they are arrows all the same.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping

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
    "api": ("",),  # evalschema/__init__.py: the public API, above everything
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


def main() -> int:
    edges = edges_of_package()
    print(render(edges))
    found = problems(edges)
    for problem in found:
        print(f"error: {problem}", file=sys.stderr)
    print(f"{len(edges)} nodes, {sum(len(t) for t in edges.values())} arrows, {len(found)} problems")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
