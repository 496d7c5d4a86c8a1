"""Run one call-graph case under `sys.setprofile` and print the calls between its own functions.

    python callgraph_trace.py CASE_DIR

prints `{"caller": ["callee", ...]}` as JSON: every call from a function, lambda or module of the
case to a function or lambda of the case that happened while `main.py` ran. Names follow
`callgraph_cases/README.md`, worked out here from each file's `ast` (not from smellkit, so the
check does not share the analysis' naming):

- a call made in a class body or a comprehension belongs to the enclosing function or module;
- a call made by code outside the case (the stdlib's `contextlib`, a C builtin such as `map`, the
  `__init__` a dataclass generates) belongs to the nearest frame of the case below it, as the
  call that led there was made from that frame;
- running a module (an import) and a class body are not calls.

Standard library only: it runs with the case folder as the import root, as `python main.py` would.
"""

from __future__ import annotations

import ast
import json
import os
import runpy
import sys
from types import CodeType, FrameType
from typing import Any

_COMPREHENSIONS = frozenset({"<genexpr>", "<listcomp>", "<setcomp>", "<dictcomp>"})


class Names:
    """Qualified names of a case's code objects, from its source files."""

    def __init__(self, root: str):
        self.root = os.path.realpath(root)
        self.modules: dict[str, str] = {}  # file -> module name
        self.defs: dict[tuple[str, int, str], tuple[str, str]] = {}
        """(file, first line, code name) -> (qualified name, kind: function | class)."""
        self.lambdas: dict[tuple[str, int], list[tuple[tuple[int, int], tuple[int, int], str]]]
        self.lambdas = {}
        """(file, line) -> (start, end of the body, qualified name) of the lambdas there."""
        self.spans: dict[str, list[tuple[tuple[int, int], tuple[int, int], str]]] = {}
        """file -> (start, end, qualified name) of every function and lambda, for
        comprehensions."""
        self.parents: dict[str, str] = {}
        self.classes: set[str] = set()
        for folder, _, files in os.walk(self.root):
            for file in sorted(files):
                if file.endswith(".py"):
                    self._read(os.path.join(folder, file))

    def _read(self, path: str) -> None:
        relative = os.path.relpath(path, self.root)[:-3].replace(os.sep, ".")
        module = relative[:-len(".__init__")] if relative.endswith(".__init__") else relative
        self.modules[path] = module
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
        self.spans[path] = []
        self._scope(path, tree, module)

    def _scope(self, path: str, node: ast.AST, qualname: str) -> None:
        """Name the definitions directly inside `node` (whose name is `qualname`)."""
        lambdas: list[ast.Lambda] = []
        for child in _children_in_scope(node):
            if isinstance(child, ast.Lambda):
                lambdas.append(child)
                continue
            assert isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            name = f"{qualname}.{child.name}"
            first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
            kind = "class" if isinstance(child, ast.ClassDef) else "function"
            self.defs[(path, first, child.name)] = (name, kind)
            self.parents[name] = qualname
            if kind == "class":
                self.classes.add(name)
            else:
                self.spans[path].append(((child.lineno, child.col_offset),
                                         (child.end_lineno or 0, child.end_col_offset or 0),
                                         name))
            self._scope(path, child, name)
        lambdas.sort(key=lambda item: (item.lineno, item.col_offset))
        for number, item in enumerate(lambdas, 1):
            name = f"{qualname}.<lambda{number}>"
            body = item.body
            self.lambdas.setdefault((path, item.lineno), []).append(
                ((body.lineno, body.col_offset), (body.end_lineno or 0, body.end_col_offset or 0),
                 name))
            self.parents[name] = qualname
            self.spans[path].append(((item.lineno, item.col_offset),
                                     (item.end_lineno or 0, item.end_col_offset or 0), name))
            self._scope(path, item, name)

    def of(self, code: CodeType) -> tuple[str, str] | None:
        """(qualified name, kind: module | function | class | comprehension), or None for code
        outside the case."""
        path = code.co_filename
        module = self.modules.get(path)
        if module is None:
            return None
        name = code.co_name
        if name == "<module>":
            return module, "module"
        if name == "<lambda>":
            return self._lambda(path, code), "function"
        if name in _COMPREHENSIONS:
            return self._enclosing(path, code), "comprehension"
        found = self.defs.get((path, code.co_firstlineno, name))
        if found is None:
            raise LookupError(f"no definition of {name} at {path}:{code.co_firstlineno}")
        return found

    def _positions(self, code: CodeType) -> list[tuple[int, int]]:
        """Where the code's instructions are (the entry and exit ones have no column)."""
        return [(line, column) for line, _, column, end in code.co_positions()
                if line is not None and column is not None and (column, end) != (0, 0)]

    def _lambda(self, path: str, code: CodeType) -> str:
        candidates = self.lambdas[(path, code.co_firstlineno)]
        if len(candidates) == 1:
            return candidates[0][2]
        # several lambdas on one line: the innermost whose body holds the code's instructions
        inside = self._positions(code)
        holding = [(start, name) for start, end, name in candidates
                   if inside and all(start <= position <= end for position in inside)]
        if not holding:
            raise LookupError(f"cannot tell the lambdas at {path}:{code.co_firstlineno} apart")
        return max(holding)[1]

    def _enclosing(self, path: str, code: CodeType) -> str:
        """The innermost function or lambda holding a comprehension, else its module."""
        positions = self._positions(code)
        where = min(positions) if positions else (code.co_firstlineno, 0)
        best: tuple[tuple[int, int], str] | None = None
        for start, end, name in self.spans[path]:
            if start <= where <= end and (best is None or start > best[0]):
                best = (start, name)
        return best[1] if best else self.modules[path]

    def caller(self, name: str) -> str:
        """Calls made in a class body belong to the scope the class statement runs in."""
        while name in self.classes:
            name = self.parents[name]
        return name


def trace(root: str) -> dict[str, list[str]]:
    names = Names(root)
    edges: dict[str, set[str]] = {}
    memo: dict[CodeType, tuple[str, str] | None] = {}

    def name_of(code: CodeType) -> tuple[str, str] | None:
        if code not in memo:
            memo[code] = names.of(code)
        return memo[code]

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        callee = name_of(frame.f_code)
        if callee is None or callee[1] != "function":
            return
        outer = frame.f_back
        while outer is not None and name_of(outer.f_code) is None:
            outer = outer.f_back
        if outer is None:
            return
        caller = name_of(outer.f_code)
        assert caller is not None
        edges.setdefault(names.caller(caller[0]), set()).add(callee[0])

    sys.path.insert(0, names.root)
    os.chdir(names.root)
    sys.setprofile(profile)
    try:
        runpy.run_path(os.path.join(names.root, "main.py"), run_name="__main__")
    finally:
        sys.setprofile(None)
    return {caller: sorted(callees) for caller, callees in sorted(edges.items())}


def _children_in_scope(node: ast.AST) -> list[ast.AST]:
    """Function, class and lambda nodes whose nearest enclosing scope is `node`: in its body,
    and in the decorators, defaults and bases of definitions there (evaluated outside them)."""
    found: list[ast.AST] = []
    if isinstance(node, ast.Lambda):
        stack: list[ast.AST] = [node.body]
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
        stack = list(node.body)
    else:
        stack = list(ast.iter_child_nodes(node))
    while stack:
        child = stack.pop()
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            found.append(child)
            stack.extend(child.args.defaults)
            stack.extend(default for default in child.args.kw_defaults if default is not None)
            if not isinstance(child, ast.Lambda):
                stack.extend(child.decorator_list)
        elif isinstance(child, ast.ClassDef):
            found.append(child)
            stack.extend([*child.decorator_list, *child.bases,
                          *(keyword.value for keyword in child.keywords)])
        else:
            stack.extend(ast.iter_child_nodes(child))
    return found


if __name__ == "__main__":
    result = trace(sys.argv[1])
    sys.stdout.flush()
    print("\n" + json.dumps(result))
