"""Structural checks evaluate on their own: scoring code imports `smellkit.checks` without libcst
and without the injectors, and every smell's kinds are there.

The checks run in a fresh interpreter where `import libcst` fails, on a small repository with one
place per smell; their params have the shapes the injectors write."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

SMELLS = ("feature_envy", "god_class", "data_clumps", "shotgun_surgery", "dead_code",
          "interface_segregation", "deep_inlining", "duplicated_code")

FILES = {
    "pkg/__init__.py": "",
    "pkg/rules.py": """\
        from math import floor


        def cents(amount, rate):
            return floor(amount * 100) * rate
        """,
    "pkg/one.py": """\
        from pkg.rules import cents


        def fee(amount):
            return cents(amount, 0.02) + cents(amount, 0.01)
        """,
    "pkg/marks.py": """\
        CONTEXT = object()


        def pass_context(f):
            f.needs = CONTEXT
            return f
        """,
    "pkg/two.py": """\
        from pkg.marks import pass_context


        @pass_context
        def title(context, value):
            return value.title()


        @pass_context
        def upper(context, value):
            return value.upper()
        """,
    "pkg/names.py": 'STATUS = "order_status"\n',
    "pkg/three.py": """\
        from pkg.names import STATUS


        def status_of(row):
            return row[STATUS]


        def peek(row):
            return row.get("order_status")
        """,
    "pkg/orders.py": """\
        class Order:
            def __init__(self, price, quantity, discount):
                self.price = price
                self.quantity = quantity
                self.discount = discount

            def total(self):
                return self.price * self.quantity * (1 - self.discount)


        class Invoice:
            def __init__(self, order):
                self.order = order

            def describe(self):
                order = self.order
                return f"{order.price} x {order.quantity} - {order.discount}"


        class Store:
            def get(self, key):
                raise NotImplementedError

            def lock(self, key):
                raise NotImplementedError


        class Memory(Store):
            def get(self, key):
                return key


        def ship(order, street, city, zip_code):
            return f"{order}: {street}, {city} {zip_code}"


        def bill(order, street, city, zip_code):
            return f"{order} billed to {street}, {city} {zip_code}"


        def _unused():
            return 1


        def closing(order):
            return order.total()
            print("never")


        def main():
            order = Order(1.0, 2, 0.1)
            print(ship(order, "a", "b", "c"), bill(order, "a", "b", "c"), closing(order))
            print(Invoice(order).describe(), Memory().get("k"))


        if __name__ == "__main__":
            main()
        """,
}

CHECKS: list[tuple[str, dict[str, Any], bool]] = [
    ("defined", {"qualname": "pkg.orders.Order"}, True),
    ("defined", {"qualname": "pkg.orders.Missing"}, False),
    ("max_lines", {"qualname": "pkg.orders.Order.total", "lines": 2}, True),
    ("max_lines", {"qualname": "pkg.orders.main", "lines": 3}, False),
    ("data_clumps.not_together", {"names": ["street", "city", "zip_code"],
                                  "functions": ["pkg.orders.ship", "pkg.orders.bill"],
                                  "max_holders": 1}, False),
    ("data_clumps.not_together", {"names": ["street", "city", "zip_code"],
                                  "functions": ["pkg.orders.ship", "pkg.orders.main"],
                                  "max_holders": 1}, True),
    ("dead_code.absent_or_used", {"qualname": "pkg.orders._unused", "what": "function"}, False),
    ("dead_code.absent_or_used", {"qualname": "pkg.orders.ship", "what": "function"}, True),
    ("dead_code.reachable_body", {"qualname": "pkg.orders.closing"}, False),
    ("dead_code.reachable_body", {"qualname": "pkg.orders.main"}, True),
    ("deep_inlining.calls_one_of", {"caller": "pkg.one.fee",
                                    "callees": ["pkg.rules.cents", "pkg.money.cents"]}, True),
    ("deep_inlining.calls_one_of", {"caller": "pkg.orders.main",
                                    "callees": ["pkg.rules.cents"]}, False),
    ("duplicated_code.not_cloned", {"qualname": "pkg.orders.ship"}, True),
    ("feature_envy.not_envious", {"method": "pkg.orders.Invoice.describe",
                                  "envied": "pkg.orders.Order"}, False),
    ("feature_envy.not_envious", {"method": "pkg.orders.Order.total",
                                  "envied": "pkg.orders.Invoice"}, True),
    ("god_class.at_most_methods", {"cls": "pkg.orders.Order", "methods": 1}, False),
    ("god_class.at_most_methods", {"cls": "pkg.orders.Order", "methods": 2}, True),
    ("interface_segregation.not_required", {"interface": "pkg.orders.Store",
                                            "methods": ["lock"]}, False),
    ("interface_segregation.no_stubs", {"classes": ["pkg.orders.Memory"],
                                        "methods": ["lock"]}, False),
    ("interface_segregation.no_stubs", {"classes": ["pkg.orders.Memory"],
                                        "methods": ["get"]}, True),
    ("shotgun_surgery.literal_copies", {"value": "order_status", "max_copies": 0}, False),
    ("shotgun_surgery.literal_copies", {"value": "order_status", "max_copies": 1}, True),
    ("shotgun_surgery.helper_copies", {"helper": "pkg.rules.cents", "max_copies": 0}, True),
    ("shotgun_surgery.helper_copies", {"helper": "pkg.orders.Missing", "max_copies": 0}, False),
    ("shotgun_surgery.marker_copies", {"decorator": "pkg.marks.pass_context",
                                       "max_copies": 0}, True),
    ("shotgun_surgery.marker_copies", {"decorator": "pkg.orders.main", "max_copies": 0}, False),
]

SCRIPT = """\
import json, sys
sys.modules["libcst"] = None  # `import libcst` raises ImportError from here on
import smellkit.checks
from smellkit.models import StructuralCheck
from smellkit.project import Project

project = Project.load(sys.argv[1])
checks = [StructuralCheck(kind=kind, description=kind, params=params)
          for kind, params in json.loads(sys.argv[2])]
results = smellkit.checks.evaluate(project, checks)
print(json.dumps({
    "results": [[item.check.kind, item.passed, item.detail] for item in results],
    "kinds": sorted(smellkit.checks.check_kinds()),
    "injectors": sorted(name for name in sys.modules if name.startswith("smellkit.injectors")),
    "libcst": sorted(name for name in sys.modules
                     if name.partition(".")[0] == "libcst" and sys.modules[name] is not None),
}))
"""


def _write(root: Path) -> Path:
    for relative, text in FILES.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def test_checks_evaluate_without_libcst_or_the_injectors(tmp_path: Path) -> None:
    repo = _write(tmp_path / "repo")
    env = {**os.environ, "SMELLKIT_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [
               os.environ.get("PYTHONPATH")])])}
    checks = [[kind, params] for kind, params, _ in CHECKS]
    process = subprocess.run([sys.executable, "-c", SCRIPT, str(repo), json.dumps(checks)],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert process.returncode == 0, process.stderr
    out = json.loads(process.stdout.splitlines()[-1])
    assert out["injectors"] == [], "evaluating checks imported the injectors"
    assert out["libcst"] == []
    for smell in SMELLS:
        assert any(kind.startswith(smell + ".") for kind in out["kinds"]), smell
    assert {"defined", "not_defined", "no_finding", "max_lines", "calls",
            "not_calls"} <= set(out["kinds"])
    got = [(kind, passed) for kind, passed, _ in out["results"]]
    assert got == [(kind, expected) for kind, _, expected in CHECKS], "\n".join(
        f"{kind} {params}: {detail}" for (kind, params, _), (_, _, detail) in
        zip(CHECKS, out["results"]))


def test_every_check_module_is_listed_and_registers_kinds() -> None:
    """A smell needs a check module only for kinds of its own; the generic ones serve the rest."""
    import pkgutil

    import smellkit.checks
    from smellkit.checks import BUILTIN_CHECKS, check_kinds

    modules = {f"smellkit.checks.{info.name}" for info in pkgutil.iter_modules(
        smellkit.checks.__path__)}
    assert BUILTIN_CHECKS[0] == "smellkit.checks.generic"
    assert set(BUILTIN_CHECKS) == modules, "list every module of smellkit/checks in BUILTIN_CHECKS"
    kinds = check_kinds()
    for module in BUILTIN_CHECKS[1:]:
        smell = module.rpartition(".")[2]
        assert any(kind.startswith(f"{smell}.") for kind in kinds), f"{module} registers no kind"
