"""The emulator's modules import each other in one direction: no cycle, ever.

Every ``import`` in every module counts, wherever it stands (top level, under
``TYPE_CHECKING``, inside a function): a cycle that only the type checker sees is still a
cycle in the design. Read with ``ast``, so nothing is imported to find out.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import mediagen_nb.emulator

PACKAGE = "mediagen_nb.emulator"
ROOT = Path(mediagen_nb.emulator.__file__).parent
Graph = dict[str, set[str]]


def _targets(node: ast.Import | ast.ImportFrom) -> list[str]:
    """Absolute names a single import statement refers to (modules and their members)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level == 0:
        base = node.module or ""
    else:
        parts = PACKAGE.split(".")[: len(PACKAGE.split(".")) - (node.level - 1)]
        base = ".".join([*parts, node.module] if node.module else parts)
    return [base] + [f"{base}.{alias.name}" for alias in node.names]


def imports_of(path: Path) -> set[str]:
    """Every module name an emulator source file imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.update(_targets(node))
    return found


def emulator_graph() -> Graph:
    """Module -> the emulator modules it imports (the package ``__init__`` excluded)."""
    modules = {p.stem: p for p in ROOT.glob("*.py") if p.stem != "__init__"}
    graph: Graph = {}
    for name, path in modules.items():
        targets = imports_of(path)
        graph[name] = {
            other
            for other in modules
            if other != name
            and any(
                t == f"{PACKAGE}.{other}" or t.startswith(f"{PACKAGE}.{other}.") for t in targets
            )
        }
    return graph


def find_cycle(graph: Graph) -> list[str] | None:
    """One cycle of ``graph`` as a closed path (``[a, b, a]``), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            cycle = visit(start)
            if cycle:
                return cycle
    return None


def test_the_cycle_finder_finds_cycles_and_passes_a_dag() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"a"}}) == ["a", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_relative_and_absolute_imports_are_both_read(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "from . import _a\n"
        "from ._b import thing\n"
        "if TYPE_CHECKING:\n"
        "    from mediagen_nb.emulator._c import Other\n"
        "def f():\n"
        "    import mediagen_nb.emulator._d\n",
        encoding="utf-8",
    )
    found = imports_of(source)
    for name in ("_a", "_b", "_c", "_d"):
        assert f"{PACKAGE}.{name}" in found


def test_the_emulator_package_has_no_import_cycle() -> None:
    graph = emulator_graph()
    assert len(graph) >= 17  # every module was read
    assert "_tasks" in graph["_state"]  # the graph is real: the state holds the stores
    assert find_cycle(graph) is None, f"import cycle: {' -> '.join(find_cycle(graph) or [])}"


def test_no_module_imports_the_package_front_door() -> None:
    """``mediagen_nb.emulator`` itself imports the app and server: a module below them that
    took a name from it would close a loop the graph of submodules cannot show."""
    modules = {p.stem for p in ROOT.glob("*.py")}
    offenders = []
    for path in ROOT.glob("*.py"):
        if path.stem == "__init__":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (
                (node.level == 0 and node.module == PACKAGE)
                or (node.level == 1 and not node.module)
            ):
                names = [a.name for a in node.names if a.name not in modules]
                if names:
                    offenders.append(f"{path.stem}: {names}")
            elif isinstance(node, ast.Import) and any(a.name == PACKAGE for a in node.names):
                offenders.append(f"{path.stem}: import {PACKAGE}")
    assert offenders == []


@pytest.mark.parametrize(
    ("module", "must_not_reach"),
    [
        ("_runtime", {"_state", "_tasks", "_assets", "_journal", "_asset_journal"}),
        ("_journal", {"_state", "_tasks", "_assets", "_render", "_runtime"}),
        ("_asset_journal", {"_state", "_tasks", "_assets", "_render"}),
        ("_assets", {"_state", "_tasks", "_conventions", "_render"}),
        ("_conventions", {"_state", "_tasks", "_assets"}),
        ("_render", {"_state", "_tasks", "_assets"}),
        ("_tasks", {"_state"}),
    ],
)
def test_layers_run_one_way(module: str, must_not_reach: set[str]) -> None:
    """Runtime and journals at the bottom, stores above them, the state above the stores."""
    graph = emulator_graph()
    reached: set[str] = set()
    todo = [module]
    while todo:
        for nxt in graph[todo.pop()]:
            if nxt not in reached:
                reached.add(nxt)
                todo.append(nxt)
    assert not reached & must_not_reach, sorted(reached & must_not_reach)


def test_the_emulator_imports_no_client_history_or_widgets() -> None:
    """The emulator stands beside the layers: of the project's packages, catalog and types."""
    outside = {
        target
        for path in ROOT.glob("*.py")
        for target in imports_of(path)
        if target.startswith("mediagen_nb.") and not target.startswith(PACKAGE)
    }
    packages = {t.split(".")[1] for t in outside if not t.split(".")[1].startswith("_")}
    assert packages == {"catalog", "types"}, sorted(outside)
