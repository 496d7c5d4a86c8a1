"""The tests a function's code makes on the values it reads, for the generator to aim inputs at.

A neighbour of one recorded value reaches a branch guarded by one comparison; a branch behind
two (`self.default is not None and self.nargs == -1`) needs both values set at once, and
pairing every value with every other runs out of any budget long before it gets there. So the
comparisons are read from the function's code: each test is the clauses of one boolean
expression (`a and b`, `a or b`), or of an `if` and an `if` directly inside it, or one
comparison alone; each clause names the value it reads (`nargs` for a parameter `nargs`,
`self.nargs`, `attrs.get("nargs")` or `attrs["nargs"]`; for a local variable, the value it was
read from: `_origins`), the comparison, and the constant it is compared against. The
generator (`_generator.py`) turns each clause into values that meet it and sets them, alone and
together, on recorded inputs.

Read from the smelly version's source here (smellkit parses), sent to the generator as JSON.
"""

from __future__ import annotations

import ast
from typing import Any

from smellkit._internal import pyast

Clause = tuple[str, str, Any]
"""(the value's name, the comparison, the JSON constant): `("nargs", "==", -1)`; the
comparisons are `==`, `!=`, `is`, `is not`, `<`, `<=`, `>`, `>=`, `in` (a list constant), and
`truthy`/`falsy` for a value tested alone (`if multiple and ...`)."""

MAX_TESTS = 60
"""Tests kept per function (in the order its code makes them)."""
MAX_TEXT = 40

_OPERATORS: dict[type[ast.cmpop], str] = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Is: "is", ast.IsNot: "is not", ast.Lt: "<",
    ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.In: "in",
}
_MIRRORED = {"==": "==", "!=": "!=", "is": "is", "is not": "is not", "<": ">", "<=": ">=",
             ">": "<", ">=": "<="}
"""The comparison with its sides swapped (`-1 == nargs`); `in` has none."""
_NEGATED = {"==": "!=", "!=": "==", "is": "is not", "is not": "is", "<": ">=", "<=": ">",
            ">": "<=", ">=": "<", "truthy": "falsy", "falsy": "truthy"}
_LOOKUPS = frozenset({"get", "pop", "setdefault"})
_RECEIVERS = frozenset({"self", "cls"})
_MISSING = object()


def read_tests(source: str, def_line: int) -> list[list[Clause]]:
    """The tests of the function whose `def` is on `def_line` of `source` (its nested
    functions' too); empty when there is none or the source does not parse."""
    try:
        tree = pyast.parse(source)
    except (SyntaxError, ValueError):
        return []
    function = next((node for node in ast.walk(tree)
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and
                     node.lineno == def_line), None)
    if function is None:
        return []
    found: list[list[Clause]] = []
    consumed: set[int] = set()
    nested: list[list[Clause]] = []
    origins = _origins(function)
    for node in ast.walk(function):  # outer expressions first: a nested `and` joins its parent
        if isinstance(node, (ast.BoolOp, ast.Compare, ast.UnaryOp)) and \
                id(node) not in consumed and (not isinstance(node, ast.UnaryOp) or (
                    isinstance(node.op, ast.Not) and isinstance(node.operand, ast.BoolOp))):
            operands = _operands(node, consumed)
            clauses = [_traced(clause, origins) for clause in map(_clause, operands)
                       if clause is not None]
            if clauses:
                found.append(clauses)
        if isinstance(node, ast.If):
            outer = [_traced(clause, origins) for clause in _test_clauses(node.test)]
            for inner in node.body:
                if isinstance(inner, ast.If) and outer:
                    both = [*outer, *(_traced(clause, origins)
                                      for clause in _test_clauses(inner.test))]
                    if len({name for name, _, _ in both}) > 1:
                        nested.append(both)
    unique: list[list[Clause]] = []
    for test in [*found, *nested]:
        if test not in unique:
            unique.append(test)
    return unique[:MAX_TESTS]


def _origins(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
    """The value each local variable assigned once stands for, where the code says: a local
    read from an attribute or a key (`envvar = self.envvar`), from a getter of the receiver
    (`default_value = self.get_default(ctx)`: `default`), or from a parameter through method
    calls (`norm = value.strip().lower()`: `value`). An input sets the value, not the local."""
    parameters = {item.arg for item in (*function.args.posonlyargs, *function.args.args,
                                        *function.args.kwonlyargs)}
    assigned: dict[str, list[ast.AST]] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name):
            assigned.setdefault(node.targets[0].id, []).append(node.value)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and \
                isinstance(node.target, ast.Name):
            assigned.setdefault(node.target.id, []).append(node.value or node)
    found: dict[str, str] = {}
    for local, values in assigned.items():
        if len(values) != 1 or local in parameters:
            continue
        origin = _origin(values[0])
        if origin is not None and origin != local:
            found[local] = origin
    return found


def _origin(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        owner = node.func.value
        if isinstance(owner, ast.Name) and owner.id in _RECEIVERS and \
                node.func.attr.startswith("get_") and len(node.func.attr) > 4:
            return node.func.attr[4:]
        while isinstance(owner, ast.Call) and isinstance(owner.func, ast.Attribute):
            owner = owner.func.value
        if isinstance(owner, ast.Name) and owner.id not in _RECEIVERS and \
                node.func.attr not in _LOOKUPS:
            return owner.id
    return _name(node) if isinstance(node, ast.expr) else None


def _traced(clause: Clause, origins: dict[str, str]) -> Clause:
    """The clause naming the value its local variable stands for (`_origins`)."""
    return (origins.get(clause[0], clause[0]), clause[1], clause[2])


def _operands(node: ast.expr, consumed: set[int]) -> list[ast.expr]:
    """The operands of a boolean expression, nested ones flattened (`a and (b or c)`: a, b, c;
    `not (a or b)`: not a, not b); each is marked consumed so it is not a test of its own."""
    consumed.add(id(node))
    if isinstance(node, ast.BoolOp):
        return [item for value in node.values for item in _operands(value, consumed)]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and \
            isinstance(node.operand, ast.BoolOp):
        return [ast.UnaryOp(op=ast.Not(), operand=item)
                for item in _operands(node.operand, consumed)]
    return [node]


def _test_clauses(test: ast.expr) -> list[Clause]:
    return [clause for clause in map(_clause, _operands(test, set())) if clause is not None]


def _clause(node: ast.expr) -> Clause | None:
    negated = False
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        negated, node = not negated, node.operand
    found: Clause | None = None
    if isinstance(node, ast.Compare):
        if len(node.ops) != 1 or type(node.ops[0]) not in _OPERATORS:
            return None
        operator = _OPERATORS[type(node.ops[0])]
        left, right = node.left, node.comparators[0]
        read, constant = _name(left), _constant(right)
        if read is None or constant is _MISSING:
            if operator not in _MIRRORED:
                return None
            read, constant, operator = _name(right), _constant(left), _MIRRORED[operator]
        if read is None or constant is _MISSING or (operator == "in") != isinstance(constant,
                                                                                   list):
            return None
        found = (read, operator, constant)
    else:
        read = _name(node)
        found = (read, "truthy", None) if read is not None else None
    if found is None or not negated:
        return found
    opposite = _NEGATED.get(found[1])
    return (found[0], opposite, found[2]) if opposite is not None else None


def _name(node: ast.expr) -> str | None:
    """The name of the value an expression reads: a variable, an attribute, a key looked up."""
    if isinstance(node, ast.Name):
        return node.id if node.id not in _RECEIVERS and not node.id.startswith("__") else None
    if isinstance(node, ast.Attribute):
        return node.attr if not node.attr.startswith("__") else None
    key: ast.expr | None = None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr in _LOOKUPS and node.args:
        key = node.args[0]
    elif isinstance(node, ast.Subscript):
        key = node.slice
    if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.isidentifier():
        return key.value
    return None


def _constant(node: ast.expr) -> Any:
    """A JSON constant (a list for a tuple, list or set of them), or _MISSING."""
    if isinstance(node, ast.Constant):
        value = node.value
        if value is None or isinstance(value, (bool, int, float)) or \
                (isinstance(value, str) and len(value) <= MAX_TEXT):
            return value
        return _MISSING
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and \
            isinstance(node.operand, ast.Constant) and \
            isinstance(node.operand.value, (int, float)) and \
            not isinstance(node.operand.value, bool):
        return -node.operand.value
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        items = [_constant(item) for item in node.elts]
        return items if items and all(item is not _MISSING for item in items) else _MISSING
    return _MISSING
