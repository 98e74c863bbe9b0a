"""The runtime's layout is its pipeline: scripts/import_graph.py finds no cycle between packages, no arrow from a
lower layer to a higher one, and no import of the generator — and it does find each of them when there is one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tools import load_script

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "import_graph.py"


def test_the_runtime_graph_is_layered() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "[core]" in done.stdout and "[cli]" in done.stdout
    assert ", 0 problems" in done.stdout


def test_the_check_finds_an_upward_arrow_a_cycle_and_the_generator() -> None:
    graph = load_script(SCRIPT)
    clean = {
        "evalschema.core": set(),
        "evalschema.pipeline": {"evalschema.core", "evalschema.rules"},
        "evalschema.rules": {"evalschema.core"},
    }
    assert graph.problems(clean) == []
    upward = {**clean, "evalschema.core": {"evalschema.cli"}, "evalschema.cli": set()}
    assert "upward: evalschema.core (core) -> evalschema.cli (cli)" in graph.problems(upward)
    circle = {**clean, "evalschema.compare": {"evalschema.interop"}, "evalschema.interop": {"evalschema.compare"}}
    assert graph.problems(circle) == ["cycle: evalschema.compare <-> evalschema.interop"]
    generator = {**clean, "evalschema.cli": {"codegen"}}
    assert graph.problems(generator) == ["the runtime imports the generator: evalschema.cli -> codegen"]
    stray = {**clean, "evalschema.newthing": set()}
    assert graph.problems(stray) == ["no layer: evalschema.newthing (add it to LAYERS in scripts/import_graph.py)"]


def test_the_module_check_finds_a_cycle_a_private_name_and_a_lazy_import() -> None:
    graph = load_script(SCRIPT)
    Import = graph.Import
    clean = [Import("evalschema.a", "evalschema.b", ("f",), False, 1), Import("evalschema.c", "pyarrow", (), True, 3)]
    assert graph.module_problems(clean) == []
    found = graph.module_problems(
        [
            *clean,
            Import("evalschema.b", "evalschema.a", (), True, 7),  # hidden in a function: an arrow all the same
            Import("evalschema.c", "evalschema.b", ("_private",), False, 2),
        ]
    )
    assert found == [
        "cycle: evalschema.a <-> evalschema.b",
        "lazy: evalschema.b:7 imports evalschema.a inside a function",
        "private: evalschema.c:2 takes _private from evalschema.b",
    ]


def test_the_modules_have_no_cycle_and_take_no_private_name_across_modules() -> None:
    """Issue 38 item 6, over modules (imports inside functions included): no cycle, no private name taken from
    another module."""
    graph = load_script(SCRIPT)
    found = graph.module_problems(graph.imports_of(SCRIPT.parent.parent))
    assert [p for p in found if p.startswith(("cycle:", "private:"))] == []
