"""God class cohesion: which attributes and methods of its class each method uses, TCC, and
the responsibility clusters a god class falls into. The detector judges with it, the injector
checks that the classes it merges stay apart."""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

import networkx as nx

from smellkit.analysis.access import DataAccess, MethodData
from smellkit.facts import Definition
from smellkit.metrics.oo import CONSTRUCTORS

Cluster = dict[str, list[str]]
"""Method and attribute names of one responsibility."""


class Cohesion:
    """The methods of one class, the attributes of the class each uses, and the methods of the
    class each uses (calls, or reads as a property): TCC and the responsibility clusters.

    Cohesion methods are the class's methods minus constructors, stubs and accessors, as in
    `smellkit.metrics.oo` (which keeps accessors)."""

    def __init__(self, definitions: dict[str, Definition], access: DataAccess, cls: str,
                 methods: list[str], accessors: set[str]):
        self.definitions = definitions
        self.data = {qualname: access.methods.get(qualname) or MethodData(qualname, cls)
                     for qualname in methods}
        method_set = set(methods)
        self.fields = {qualname: {attribute for attribute in entry.through_self
                                  if attribute not in method_set}
                       for qualname, entry in self.data.items()}
        self.uses = {qualname: (access.calls(entry) | entry.local) & method_set - {qualname}
                     for qualname, entry in self.data.items()}
        self.members = [qualname for qualname in methods if qualname not in accessors
                        and definitions[qualname].name not in CONSTRUCTORS
                        and not definitions[qualname].is_stub]

    def reach(self, method: str) -> set[str]:
        """Attributes a method uses directly or through the class's methods it uses."""
        seen, stack, found = {method}, [method], set()
        while stack:
            current = stack.pop()
            found.update(self.fields[current])
            for used in self.uses[current] - seen:
                seen.add(used)
                stack.append(used)
        return found

    def tcc(self) -> float | None:
        """Bieman and Kang's TCC: the share of pairs of visible cohesion methods that use a
        common attribute, directly or through methods of the class; None under two methods."""
        visible = [qualname for qualname in self.members
                   if is_visible(self.definitions[qualname].name)]
        if len(visible) < 2:
            return None
        reach = {qualname: self.reach(qualname) for qualname in visible}
        connected = sum(1 for first, second in combinations(visible, 2)
                        if not reach[first].isdisjoint(reach[second]))
        return connected / (len(visible) * (len(visible) - 1) // 2)

    def clusters(self, hub_share: float) -> tuple[list[Cluster], Cluster, list[str]]:
        """Connected components of the cohesion methods (linked by a common attribute or a use
        of one by the other), biggest first, with the attributes they use.

        Attributes and methods that most cohesion methods use (the share `hub_share`, and at
        least three) are shared infrastructure, not a responsibility: they would glue every group
        into one, so they link nothing and are returned apart. Methods linked to nothing come
        last, apart."""
        members = self.members
        threshold = max(3.0, hub_share * len(members))
        attribute_users: dict[str, list[str]] = defaultdict(list)
        method_users: dict[str, list[str]] = defaultdict(list)
        for qualname in members:
            for attribute in self.fields[qualname]:
                attribute_users[attribute].append(qualname)
            for used in self.uses[qualname]:
                method_users[used].append(qualname)
        hub_attributes = {attribute for attribute, users in attribute_users.items()
                          if len(users) >= threshold}
        hub_methods = {method for method, users in method_users.items()
                       if len(users) >= threshold}
        graph = nx.Graph()
        graph.add_nodes_from(members)
        member_set = set(members)
        for attribute, users in attribute_users.items():
            if attribute not in hub_attributes:
                graph.add_edges_from((users[0], other) for other in users[1:])
        for qualname in members:
            graph.add_edges_from((qualname, used) for used in self.uses[qualname]
                                 if used in member_set and used not in hub_methods
                                 and qualname not in hub_methods)
        name = self._name
        clusters: list[Cluster] = []
        unattached: list[str] = []
        for component in nx.connected_components(graph):
            attributes = {attribute for qualname in component
                          for attribute in self.fields[qualname]} - hub_attributes
            if len(component) == 1 and not attributes:
                unattached.extend(name(qualname) for qualname in component)
                continue
            clusters.append({"methods": sorted(name(qualname) for qualname in component),
                             "attributes": sorted(name(attribute) for attribute in attributes)})
        clusters.sort(key=lambda cluster: (-len(cluster["methods"]), cluster["methods"]))
        shared = {"methods": sorted(name(method) for method in hub_methods),
                  "attributes": sorted(name(attribute) for attribute in hub_attributes)}
        return clusters, shared, sorted(unattached)

    @staticmethod
    def _name(qualname: str) -> str:
        return qualname.rpartition(".")[2]


def is_visible(name: str) -> bool:
    return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))
