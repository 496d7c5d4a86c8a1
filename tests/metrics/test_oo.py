"""Object-oriented metrics on the `shop` fixture repository, each value worked out by hand.

The attribute graph is built here by hand, following the contract of `index.attribute_graph`
(edges scope -> "pkg.mod.Class.attr", attribute nodes with `owner` and `name`, edges with
`reads`, `writes`, `own`, `method`), so these tests pin the metrics down whatever the resolver
finds; `test_end_to_end_with_the_attribute_graph` runs them on the real graph.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import networkx as nx
import pytest

from smellkit.graphs.index import Index
from smellkit.metrics.oo import ClassMetrics, MethodMetrics, class_metrics, method_metrics
from smellkit.project import Project

FIXTURES = Path(__file__).parent.parent / "fixtures" / "metrics"


@pytest.fixture(scope="module")
def shop() -> Index:
    return Project.load(FIXTURES / "shop", use_cache=False, jobs=1).index


def _edge(graph: nx.DiGraph, scope: str, owner: str, name: str, *, own: bool = False,
          method: bool = False, reads: int = 1, writes: int = 0) -> None:
    node = f"{owner}.{name}"
    graph.add_node(node, kind="attribute", owner=owner, name=name)
    graph.add_edge(scope, node, reads=reads, writes=writes, own=own, method=method, lines=[1])


def shop_attributes() -> nx.DiGraph:
    """What the code of the `shop` fixture reads and writes, resolved by hand."""
    graph = nx.DiGraph()
    base, cart, checkout = "shop.base", "shop.cart", "shop.checkout"
    _edge(graph, f"{base}.Entity.__init__", f"{base}.Entity", "key", own=True, reads=0, writes=1)
    _edge(graph, f"{base}.Entity.describe", f"{base}.Entity", "key", own=True)
    _edge(graph, f"{base}.Named.__init__", f"{base}.Named", "name", own=True, reads=0, writes=1)
    _edge(graph, f"{base}.Priced.__init__", f"{base}.Priced", "price", own=True, reads=0,
          writes=1)
    _edge(graph, f"{cart}.Item.total", f"{base}.Priced", "price", own=True)
    _edge(graph, f"{cart}.Item.label", f"{base}.Named", "name", own=True)
    for name in ("owner", "items", "discount"):
        _edge(graph, f"{cart}.Cart.__init__", f"{cart}.Cart", name, own=True, reads=0, writes=1)
    _edge(graph, f"{cart}.Cart.count", f"{cart}.Cart", "items", own=True)
    _edge(graph, f"{cart}.Cart.clear", f"{cart}.Cart", "_reset", own=True, method=True)
    # Checkout.invoice: item.price, item.label (a property), self.cart.discount
    _edge(graph, f"{checkout}.Checkout.invoice", f"{base}.Priced", "price")
    _edge(graph, f"{checkout}.Checkout.invoice", f"{cart}.Item", "label")
    _edge(graph, f"{checkout}.Checkout.invoice", f"{checkout}.Checkout", "cart", own=True)
    _edge(graph, f"{checkout}.Checkout.invoice", f"{cart}.Cart", "discount")
    # Checkout.pay: self.paid = ..., self.cart.clear(), self.cart.items
    _edge(graph, f"{checkout}.Checkout.pay", f"{checkout}.Checkout", "paid", own=True, reads=0,
          writes=1)
    _edge(graph, f"{checkout}.Checkout.pay", f"{checkout}.Checkout", "cart", own=True, reads=2)
    _edge(graph, f"{checkout}.Checkout.pay", f"{cart}.Cart", "clear", method=True)
    _edge(graph, f"{checkout}.Checkout.pay", f"{cart}.Cart", "items")
    # the module-level function `checkout` is no class: its uses couple nothing
    _edge(graph, f"{checkout}.checkout", f"{cart}.Cart", "add", method=True)
    return graph


def test_class_metrics_by_hand(shop: Index) -> None:
    metrics = class_metrics(shop, attribute_graph=shop_attributes())
    assert set(metrics) == {"shop.base.Entity", "shop.base.Named", "shop.base.Priced",
                            "shop.cart.Item", "shop.cart.Cart", "shop.checkout.Checkout"}

    cart = metrics["shop.cart.Cart"]
    # WMC: __init__ 1 + add 1 + count 1 + apply (1 + if + or) 3 + describe 1 + _reset 1
    #      + clear 1 + stub 1 = 10
    assert cart.wmc == 10
    assert cart.nom == 8
    assert cart.noa == 3  # owner, items, discount
    assert cart.cbo == 1  # Checkout (pay calls clear, reads items; invoice reads discount)
    # RFC: 8 methods + {ValueError, len} (clear -> _reset is one of the 8) = 10
    assert cart.rfc == 10
    # Cohesion methods: add, count, apply, describe, _reset, clear (not __init__, not stub).
    # LCOM4 = 2: {add, count, _reset} share items, apply shares discount with _reset,
    # clear calls _reset; describe (owner) is alone.
    assert cart.lcom4 == 2
    # LCOM*: m = 6, attributes used {items, discount, owner}, a = 3;
    # uses: add 1 + count 1 + apply 1 + describe 1 + _reset 2 + clear 0 = 6; mean = 6 / 3 = 2;
    # (2 - 6) / (1 - 6) = 0.8
    assert cart.lcom_star == pytest.approx(0.8)
    # TCC over visible add, count, apply, describe, clear: 10 pairs. clear reaches
    # {items, discount} through _reset. Connected: add-count, add-clear, count-clear,
    # apply-clear = 4; 4 / 10 = 0.4
    assert cart.tcc == pytest.approx(0.4)
    assert (cart.dit, cart.noc) == (0, 0)

    item = metrics["shop.cart.Item"]
    # WMC: total (1 + if) 2 + label 1 = 3; no attribute assigned by Item itself
    assert (item.wmc, item.nom, item.noa) == (3, 2, 0)
    assert item.cbo == 1  # Checkout reads Item.label; Priced.price, Named.name are inherited
    assert item.rfc == 2  # total, label; `self.name.title()` has no known callee
    # total uses price, label uses name (both inherited data): LCOM4 = 2;
    # LCOM* = (2 / 2 - 2) / (1 - 2) = 1.0; TCC = 0 connected of 1 pair = 0.0
    assert (item.lcom4, item.lcom_star, item.tcc) == (2, 1.0, 0.0)
    assert (item.dit, item.noc) == (3, 0)  # Item -> Priced -> Named -> Entity

    entity = metrics["shop.base.Entity"]
    assert (entity.wmc, entity.nom, entity.noa) == (2, 2, 2)  # NOA: registry, key
    assert entity.cbo == 0  # Named calls Entity.__init__ through super(): a subclass
    assert entity.rfc == 3  # __init__, describe + <builtin>.type
    # one cohesion method (describe): one component, no pairs
    assert (entity.lcom4, entity.lcom_star, entity.tcc) == (1, None, None)
    assert (entity.dit, entity.noc) == (0, 1)

    named = metrics["shop.base.Named"]
    assert (named.wmc, named.nom, named.noa) == (1, 1, 1)
    assert named.cbo == 0  # only Entity (its base) and Priced (its subclass) use it
    assert named.rfc == 2  # Named.__init__ + Entity.__init__
    assert (named.lcom4, named.lcom_star, named.tcc) == (0, None, None)  # only a constructor
    assert (named.dit, named.noc) == (1, 1)

    priced = metrics["shop.base.Priced"]
    # NOA: currency, price; CBO: Checkout reads price (Named is its base)
    assert (priced.noa, priced.cbo, priced.dit, priced.noc) == (2, 1, 2, 1)

    checkout = metrics["shop.checkout.Checkout"]
    # WMC: __init__ 1 + invoice 1 + pay (1 + comprehension + its if) 3 = 5
    assert (checkout.wmc, checkout.nom, checkout.noa) == (5, 3, 2)
    assert checkout.cbo == 3  # Cart, Item (label), Priced (price)
    assert checkout.rfc == 4  # 3 methods + Cart.clear
    # invoice uses {cart}, pay uses {paid, cart}: LCOM4 = 1;
    # LCOM* = ((1 + 2) / 2 - 2) / (1 - 2) = 0.5; TCC = 1 / 1
    assert (checkout.lcom4, checkout.lcom_star, checkout.tcc) == (1, 0.5, 1.0)


def test_method_metrics_by_hand(shop: Index) -> None:
    metrics = method_metrics(shop, attribute_graph=shop_attributes())
    invoice = metrics["shop.checkout.Checkout.invoice"]
    # foreign: Priced.price, Item.label, Cart.discount -> ATFD 3, FDP 3 classes
    # local: cart -> LAA = 1 / (1 + 3) = 0.25
    # NOAV: item, quantity, subtotal + item.price, item.label, self.cart, self.cart.discount = 7
    assert invoice == MethodMetrics(atfd=3, laa=0.25, fdp=3, noav=7)
    pay = metrics["shop.checkout.Checkout.pay"]
    # foreign: Cart.items (Cart.clear is a method call) -> ATFD 1, FDP 1
    # local: paid, cart -> LAA = 2 / 3
    # NOAV: line (comprehension), LAST (global, also assigned) + self.paid, self.cart,
    # self.cart.items = 5
    assert (pay.atfd, pay.fdp, pay.noav) == (1, 1, 5)
    assert pay.laa == pytest.approx(2 / 3)
    # Item.total: self.price is inherited data, so local; NOAV: quantity, self.price
    assert metrics["shop.cart.Item.total"] == MethodMetrics(atfd=0, laa=1.0, fdp=0, noav=2)
    # Cart.clear only calls self._reset(): no attribute, so no LAA; no variable either
    assert metrics["shop.cart.Cart.clear"] == MethodMetrics(atfd=0, laa=None, fdp=0, noav=0)
    # Entity.describe: self.key; `type(self).__name__` is machinery, not a variable
    assert metrics["shop.base.Entity.describe"].noav == 1
    # Named.__init__: key, name, self.name (the super().__init__ call is no variable)
    assert metrics["shop.base.Named.__init__"].noav == 3
    # Cart.__init__: owner + self.owner, self.items, self.discount
    assert metrics["shop.cart.Cart.__init__"].noav == 4
    assert len(metrics) == 17  # every method of the six classes: 2 + 1 + 1 + 2 + 8 + 3


def test_own_accesses_from_lambdas_and_properties(tmp_path: Path) -> None:
    """`self` inside a lambda is still the method's own; a property is a method for cohesion."""
    (tmp_path / "mod.py").write_text(
        "class Box:\n"
        "    def __init__(self):\n"
        "        self.items = []\n"
        "        self.size = 0\n"
        "    @property\n"
        "    def weight(self):\n"
        "        return self.size\n"
        "    def sort(self):\n"
        "        return sorted(self.items, key=lambda item: item + self.weight)\n"
        "    def shape(self):\n"
        "        return self.__class__.__name__\n"
    )
    index = Project.load(tmp_path, use_cache=False, jobs=1).index
    box = class_metrics(index, attribute_graph=nx.DiGraph())["mod.Box"]
    # cohesion methods weight {size}, sort {items} + uses weight, shape {} (__class__ is not
    # data): components {weight, sort}, {shape} -> LCOM4 = 2
    assert box.lcom4 == 2
    # TCC: weight, sort, shape -> 3 pairs; sort reaches size through weight: weight-sort = 1
    assert box.tcc == pytest.approx(1 / 3)
    methods = method_metrics(index, attribute_graph=nx.DiGraph())
    # sort: local items and weight (reading a property is data access for LAA): LAA = 2 / 2;
    # NOAV: item (the lambda's parameter), self.items, self.weight = 3
    assert methods["mod.Box.sort"] == MethodMetrics(atfd=0, laa=1.0, fdp=0, noav=3)


def test_results_are_plain_values(shop: Index) -> None:
    classes = class_metrics(shop, attribute_graph=shop_attributes())
    methods = method_metrics(shop, attribute_graph=shop_attributes())
    assert pickle.loads(pickle.dumps((classes, methods))) == (classes, methods)
    assert all(isinstance(value, ClassMetrics) for value in classes.values())


def test_end_to_end_with_the_attribute_graph(shop: Index) -> None:
    pytest.importorskip("smellkit.graphs.attributes")
    classes = class_metrics(shop)
    methods = method_metrics(shop)
    # Cohesion, size and inheritance do not depend on how receivers resolve.
    cart = classes["shop.cart.Cart"]
    assert (cart.wmc, cart.nom, cart.noa, cart.lcom4, cart.tcc) == (10, 8, 3, 2, 0.4)
    invoice = methods["shop.checkout.Checkout.invoice"]
    # item: Item and self.cart (a Cart, from the annotated constructor parameter) resolve
    assert invoice.atfd == 3
    assert invoice.laa == pytest.approx(0.25)
    assert classes["shop.checkout.Checkout"].cbo >= 2
