"""smellkit's import graph, read with `ast` (function-level imports included), against DESIGN.md's
dependency direction: layers import downward only, no cycle, no other package's private module.

Imports under `if TYPE_CHECKING:` never run and are left out; every other import counts, at module
level or inside a function."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "smellkit"

LAYERS: dict[str, int] = {
    "_version": 0, "errors": 0,
    "_internal": 1, "config": 1, "models": 1,
    "facts": 2,
    "graphs": 3,
    "project": 4,
    "metrics": 5,
    "analysis": 6,
    "detectors": 7,
    "checks": 8, "formats": 8, "scanning": 8, "sandbox": 8,
    "injectors": 9,
    "bench": 10, "evaluate": 10,
    "agents": 11,  # a run prepares each case's smelly tree as scoring does (evaluate.workspace)
    "judge": 11,  # judges scored predictions: reads evaluate's Score rows and inputs
    "report": 12,
    "cli": 13, "__main__": 14,
}
"""Each top-level part of smellkit and its rank: a module imports only parts of lower or equal
rank (equal: only its own part), so the core never reaches the layers above it."""

ALLOWED_UPWARD = {
    # radon's per-function measures are taken during the one ast walk
    ("facts", "smellkit.metrics.complexity"), ("project", "smellkit.metrics.complexity"),
}
FORBIDDEN = {
    ("evaluate", "injectors"), ("judge", "injectors"), ("agents", "injectors"),
    ("checks", "injectors"),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in PACKAGE.rglob("*.py")}


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node but those under `if TYPE_CHECKING:`."""
    found: list[ast.AST] = []
    pending = [tree]
    while pending:
        node = pending.pop()
        found.append(node)
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            pending.extend(node.orelse)
        else:
            pending.extend(ast.iter_child_nodes(node))
    return found


def _imports(modules: dict[str, Path]) -> nx.DiGraph:
    graph = nx.DiGraph()
    for name, path in modules.items():
        graph.add_node(name)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _runtime_nodes(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parent, base] if base else parent)
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                           for alias in node.names]
            for target in targets:
                if target.split(".")[0] == "smellkit" and target != name:
                    while target not in modules and "." in target:
                        target = target.rpartition(".")[0]
                    graph.add_edge(name, target, line=node.lineno)
    return graph


@pytest.fixture(scope="module")
def graph() -> nx.DiGraph:
    return _imports(_modules())


def _part(module: str) -> str:
    return module.split(".")[1] if "." in module else ""


def test_every_top_level_part_has_a_layer() -> None:
    parts = {_part(name) for name in _modules()} - {""}
    assert parts <= set(LAYERS), f"give these a layer in LAYERS: {sorted(parts - set(LAYERS))}"


def test_no_import_cycle(graph: nx.DiGraph) -> None:
    cycles = sorted(" -> ".join([*cycle, cycle[0]]) for cycle in nx.simple_cycles(graph))
    assert not cycles, "import cycles (function-level imports count):\n" + "\n".join(cycles[:20])


def test_imports_follow_the_dependency_direction(graph: nx.DiGraph) -> None:
    wrong = []
    for source, target, data in graph.edges(data=True):
        low, high = _part(source), _part(target)
        if target == "smellkit":
            wrong.append(f"{source}:{data['line']} imports the top-level smellkit package")
        elif not low or not high or low == high:
            continue
        elif (low, high) in FORBIDDEN or (
                LAYERS[high] >= LAYERS[low] and (low, target) not in ALLOWED_UPWARD):
            wrong.append(f"{source}:{data['line']} -> {target}")
    assert not wrong, "imports against the dependency direction:\n" + "\n".join(sorted(wrong))


def test_no_private_module_of_another_package(graph: nx.DiGraph) -> None:
    wrong = []
    for source, target, data in graph.edges(data=True):
        leaf = target.rpartition(".")[2]
        package = target.rpartition(".")[0]
        importer_package = source if (PACKAGE.parent / source.replace(".", "/")).is_dir() \
            else source.rpartition(".")[0]
        if leaf.startswith("_") and leaf != "_internal" and not \
                (importer_package == package or importer_package.startswith(package + ".")):
            wrong.append(f"{source}:{data['line']} -> {target}")
    assert not wrong, "private modules imported from another package:\n" + "\n".join(sorted(wrong))


def test_folders_stay_small() -> None:
    """A folder that outgrows 20 modules wants subpackages; the root holds the public surface."""
    sizes = {folder: len(list(folder.glob("*.py")))
             for folder in [PACKAGE, *PACKAGE.rglob("*/")] if folder.name != "__pycache__"}
    assert sizes[PACKAGE] <= 8
    assert max(sizes.values()) <= 20, {str(k): v for k, v in sizes.items() if v > 20}
