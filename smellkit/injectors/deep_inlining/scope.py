"""What a definition reads and binds at module level, for moving it to another module: the
names its body, defaults and annotations read, the names a top-level statement binds (itself or
in blocks that may not run), and the parts of a statement that run at import time."""

from __future__ import annotations

import libcst as cst

from smellkit.injectors.deep_inlining.names import names_of


def import_time(statement: cst.BaseStatement) -> list[cst.CSTNode]:
    """The parts of a top-level statement that run when the module is imported: all of it but
    the bodies of functions (a class body runs, its methods' bodies do not)."""
    if isinstance(statement, cst.FunctionDef):
        return [*statement.decorators, statement.params,
                *([statement.returns] if statement.returns else [])]
    if isinstance(statement, cst.ClassDef):
        parts: list[cst.CSTNode] = [*statement.decorators, *statement.bases,
                                    *statement.keywords]
        body = statement.body.body if isinstance(statement.body, cst.IndentedBlock) else []
        for item in body:
            parts.extend(import_time(item) if isinstance(item, (cst.FunctionDef,
                                                                 cst.ClassDef)) else [item])
        return parts
    return [statement]


def free_names(node: cst.FunctionDef, *, definition_time: bool = False) -> set[str]:
    """Global names a definition reads: in its body, defaults and annotations; with
    `definition_time`, only those read when the `def` runs (defaults and annotations)."""
    params = node.params
    parameters = [*params.params, *params.kwonly_params, *params.posonly_params]
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            parameters.append(star)
    early: list[cst.CSTNode] = [item for param in parameters
                                for item in (param.default, param.annotation) if item]
    if node.returns:
        early.append(node.returns)
    read_early = names_of(early).used
    if definition_time:
        return read_early
    # defaults and annotations run in the enclosing scope: a parameter named like the module
    # its annotation reads (`nodes: t.Iterable[nodes.Node]`) does not bind it there
    found = names_of([node.body])
    return (found.used - found.bound - {param.name.value for param in parameters}) | read_early


class _Definitions(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.names.add(node.name.value)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.names.add(node.name.value)
        return False


def binds(statement: cst.CSTNode, *, top: bool) -> set[str]:
    """Names a top-level statement binds: itself (`top`), or inside its blocks (`if`, `try`,
    `for`, `with` at module level, which may or may not run)."""
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        return {statement.name.value} if top else set()
    if isinstance(statement, cst.SimpleStatementLine):
        if not top:
            return set()
        found = names_of([statement]).bound
        for small in statement.body:
            if isinstance(small, cst.Import):
                found |= {cst.Module([]).code_for_node(alias.name).split(".")[0]
                          for alias in small.names if alias.asname is None}
            elif isinstance(small, cst.ImportFrom) and not isinstance(small.names,
                                                                      cst.ImportStar):
                found |= {cst.Module([]).code_for_node(alias.name) for alias in small.names
                          if alias.asname is None}
        return found
    if top:
        return set()
    definitions = _Definitions()
    statement.visit(definitions)
    return names_of([statement]).bound | definitions.names
