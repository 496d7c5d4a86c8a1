"""The call-graph edges of click 8.1.7 for this tree against a git revision: what was added, what
was lost, and the added edges sorted by how they arise.

Each tree builds the graph in a process of its own (`Project.load(...).index.calls`, astroid
included unless `--no-astroid`). An added edge is classed by the sites that make it: `implicit`
when only implicit calls (operators, `with`, `for`, decorators) make it, else by whether the
callee's name (the class's for an `__init__`) is written on the line of an explicit call that
makes it: `named` edges are plain calls, `unnamed` ones come from values flowing to the callee
expression (callbacks, `cls()`, overrides, containers), where spurious edges show up first.

    python benchmarks/diff_callgraph_edges.py [--baseline main] [--no-astroid] [--list KIND]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import json, sys
from smellkit.graphs.calls import build_call_graph
from smellkit.project import Project

project = Project.load(sys.argv[1], use_cache=False)
graph = build_call_graph(project.index, budget=None if sys.argv[2] == "astroid" else 0)
sites = graph.solver.sites
made = {}
for call, targets in graph.targets.items():
    site = sites[call]
    for target in targets:
        made.setdefault(f"{site.scope} {target}", []).append(
            [site.line, bool(site.implicit or getattr(site, "protocol", ""))])
print(json.dumps(made))
"""


def edges_of(code: Path, source: Path, astroid: bool) -> dict[str, list[list[object]]]:
    """caller + " " + callee -> [(line, implicit)] of the sites making the edge."""
    done = subprocess.run([sys.executable, "-c", CHILD, str(source),
                           "astroid" if astroid else "none"],
                          env=dict(os.environ, PYTHONPATH=str(code)), capture_output=True,
                          text=True, cwd=code)
    if done.returncode:
        raise SystemExit(f"the graph with {code} failed:\n{done.stderr[-3000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def source_lines(source: Path, module_of: str) -> dict[int, str]:
    """The lines of the module holding `module_of` (a qualified name), by number."""
    parts = module_of.split(".")
    for length in range(len(parts), 0, -1):
        for candidate in (source.joinpath(*parts[:length]).with_suffix(".py"),
                          source.joinpath(*parts[:length], "__init__.py")):
            if candidate.is_file():
                text = candidate.read_text(encoding="utf-8").splitlines()
                return dict(enumerate(text, 1))
    return {}


def kind_of(edge: str, made: list[list[object]], source: Path) -> str:
    """`implicit`, `named` or `unnamed` (module docstring)."""
    caller, callee = edge.split(" ")
    explicit = [int(str(line)) for line, implicit in made if not implicit]
    if not explicit:
        return "implicit"
    parts = callee.split(".")
    name = parts[-2] if parts[-1] == "__init__" and len(parts) > 1 else parts[-1]
    lines = source_lines(source, caller)
    return "named" if any(name in lines.get(line, "") for line in explicit) else "unnamed"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="main")
    parser.add_argument("--no-astroid", action="store_true")
    parser.add_argument("--list", choices=("implicit", "named", "unnamed", "lost", "all"),
                        help="print the added edges of that kind (or the lost ones)")
    parser.add_argument("--source", type=Path,
                        default=Path.home() / ".cache" / "smellkit-test-data" / "click-8.1.7")
    options = parser.parse_args()
    source = options.source / "src"
    with tempfile.TemporaryDirectory(prefix="smellkit-edges-") as scratch:
        checkout = Path(scratch) / "baseline"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet",
                        str(checkout), options.baseline], check=True)
        try:
            before = edges_of(checkout, source, not options.no_astroid)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(checkout)], check=False)
    after = edges_of(ROOT, source, not options.no_astroid)
    added = {edge: kind_of(edge, after[edge], source) for edge in sorted(after.keys() - before)}
    lost = sorted(before.keys() - after)
    kinds = Counter(added.values())
    print(f"click 8.1.7 call-graph edges ({'no ' if options.no_astroid else ''}astroid): "
          f"{options.baseline} {len(before)}, this tree {len(after)}; "
          f"added {len(added)} ({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}), "
          f"lost {len(lost)}")
    if options.list == "lost":
        for edge in lost:
            print("  -", edge)
    elif options.list:
        for edge, kind in added.items():
            if options.list in ("all", kind):
                lines = sorted({line for line, _ in after[edge]})
                print(f"  + {kind:8} {edge} {lines}")


if __name__ == "__main__":
    main()
