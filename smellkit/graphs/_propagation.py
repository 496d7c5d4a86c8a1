"""The propagation machinery under the points-to solver: nodes holding sets of abstract values,
subset edges between them, rules that fire on each value arriving at a node, and one worklist.

A node keeps at most `_MAX_VALUES` values, chosen in a fixed order (instances and classes first,
then sorted), so that generic helpers receiving everything cost little and results are the same
from run to run; containers become `O` where many meet (`smellkit.graphs.pointsto` says what the
values are).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ANY_CONTAINER = "O"
NO_BIND = 0
_WIDEN_AT = 24
_MAX_VALUES = 32
MAX_STEPS = 20_000_000
Handler = Callable[[Any, Any, str], None]


def _priority(value: str) -> tuple[int, str]:
    """Which values a full node keeps: instances and classes decide method calls."""
    return ("icbfsmaeoEON".find(value[0]), value)


class Propagation:
    """Nodes, edges, rules and the worklist; `run` propagates to the fixpoint."""

    def __init__(self) -> None:
        self.pts: list[set[str]] = []
        self.succ: list[list[int]] = []
        self.xform: list[int] = []
        self.edges: set[int] = set()
        self.rules: list[list[tuple[Handler, Any, Any]] | None] = []
        self.pending: list[set[str] | None] = []
        self.work: list[int] = []
        self.consts: dict[str, int] = {}
        self.const_ids: set[int] = set()
        self.is_const: list[bool] = []
        """Per node: whether it is a constant (`const_ids` as a list, for the hot paths)."""
        self.steps = 0
        self.empty = self._new()
        assert self.empty == 0

    def _bind_value(self, value: str, transform: int) -> str:
        """What a value becomes on arriving at a node made with `transform`."""
        raise NotImplementedError

    def _new(self, transform: int = NO_BIND) -> int:
        pts = self.pts
        node = len(pts)
        pts.append(set())
        self.succ.append([])
        self.xform.append(transform)
        self.rules.append(None)
        self.pending.append(None)
        self.is_const.append(False)
        return node

    def _const(self, value: str) -> int:
        node = self.consts.get(value)
        if node is None:
            node = self.consts[value] = self._new()
            self.pts[node].add(value)
            self.const_ids.add(node)
            self.is_const[node] = True
        return node

    def _add(self, node: int, values: set[str]) -> None:
        transform = self.xform[node]
        if transform:
            values = {self._bind_value(value, transform) for value in values}
            values.discard("")
        current = self.pts[node]
        new = values - current
        if not new:
            return
        if len(current) + len(new) > _WIDEN_AT:
            new = {ANY_CONTAINER if value[0] == "o" else value for value in new} - current
            room = _MAX_VALUES - len(current)
            if len(new) > room:
                if room <= 0:
                    return
                new = set(sorted(new, key=_priority)[:room])
            if not new:
                return
        current |= new
        waiting = self.pending[node]
        if waiting is None:
            self.pending[node] = new
            self.work.append(node)
        else:
            waiting |= new

    def _edge(self, source: int, target: int) -> None:
        # the empty node is node 0
        if source == target or not source or not target:
            return
        key = (source << 32) | target
        edges = self.edges
        if key in edges or self.is_const[target]:
            return
        edges.add(key)
        self.succ[source].append(target)
        pts = self.pts
        values = pts[source]
        if values:
            current = pts[target]
            if self.xform[target] or len(current) + len(values) > _WIDEN_AT:
                self._add(target, values)
                return
            # `_add`'s common case inline: no transform, no widening
            new = values - current
            if new:
                current |= new
                waiting = self.pending[target]
                if waiting is None:
                    self.pending[target] = new
                    self.work.append(target)
                else:
                    waiting |= new

    def _rule(self, node: int, handler: Handler, first: Any, second: Any) -> None:
        """Attach a rule to a node and apply it to the values already there."""
        if not node:  # the empty node
            return
        if self.is_const[node]:  # nothing more will arrive: apply once, keep nothing
            for value in self.pts[node]:
                handler(first, second, value)
            return
        rules = self.rules[node]
        if rules is None:
            self.rules[node] = [(handler, first, second)]
        else:
            rules.append((handler, first, second))
        values = self.pts[node]
        if values:
            waiting = self.pending[node]
            if waiting:  # those are applied when the worklist reaches the node
                values = values - waiting
            for value in sorted(values) if len(values) > 1 else list(values):
                handler(first, second, value)

    def run(self) -> None:
        pending, work, succ, rules, add = self.pending, self.work, self.succ, self.rules, self._add
        pts, xform = self.pts, self.xform
        pop, push = work.pop, work.append
        steps = self.steps
        try:
            while work and steps < MAX_STEPS:
                node = pop()
                delta = pending[node]
                pending[node] = None
                if delta is None:
                    continue
                size = len(delta)
                steps += size
                room = _WIDEN_AT - size
                for target in succ[node]:
                    # `_add`'s common case inline: no transform, no widening
                    current = pts[target]
                    if xform[target] or len(current) > room:
                        add(target, delta)
                        continue
                    new = delta - current
                    if new:
                        current |= new
                        waiting = pending[target]
                        if waiting is None:
                            pending[target] = new
                            push(target)
                        else:
                            waiting |= new
                node_rules = rules[node]
                if node_rules:
                    ordered = sorted(delta) if size > 1 else list(delta)
                    if len(node_rules) == 1:
                        handler, first, second = node_rules[0]
                        for value in ordered:
                            handler(first, second, value)
                    else:
                        for handler, first, second in list(node_rules):
                            for value in ordered:
                                handler(first, second, value)
        finally:
            self.steps = steps

