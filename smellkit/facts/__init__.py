"""Per-file facts: everything later stages need, extracted from one stdlib `ast` parse.

Nothing here looks at another file. The fact types live in `smellkit.facts.types`, the walk that
records them in `smellkit.facts._extractor` and the name helpers in `smellkit.facts.names`; they are
re-exported here, where the rest of the package reads them.
"""

from __future__ import annotations

import ast
import re

from smellkit.facts._extractor import Extractor
from smellkit.facts.blocks import function_blocks
from smellkit.facts.fingerprints import NO_FINGERPRINTS, fingerprint_module
from smellkit.facts.names import annotation_names, dotted, resolve_relative
from smellkit.facts.reachability import NO_LIVENESS, liveness
from smellkit.facts.types import (
    FACTS_SCHEMA,
    UNKNOWN,
    Alts,
    Assignment,
    Attr,
    AttributeAccess,
    CallOf,
    CallSite,
    ClassAttribute,
    ClassInfo,
    Const,
    Definition,
    DefRef,
    DictLit,
    Expr,
    FileFacts,
    ImportFact,
    Iter,
    Name,
    Param,
    Return,
    Seq,
    Sub,
    Unknown,
)
from smellkit.metrics.complexity import measure_module

__all__ = [
    "FACTS_SCHEMA",
    "UNKNOWN",
    "Alts",
    "Assignment",
    "Attr",
    "AttributeAccess",
    "CallOf",
    "CallSite",
    "ClassAttribute",
    "ClassInfo",
    "Const",
    "DefRef",
    "Definition",
    "DictLit",
    "Expr",
    "FileFacts",
    "ImportFact",
    "Iter",
    "Name",
    "Param",
    "Return",
    "Seq",
    "Sub",
    "Unknown",
    "annotation_names",
    "dotted",
    "extract",
    "resolve_relative",
]

_TYPE_COMMENT = re.compile(r"#\s*type:\s*(?!ignore\b)([^#\n]+)")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def type_comment_names(source: str) -> set[str]:
    """Names read by `# type:` comments (`x = None  # type: Optional[_ExcInfo]`): the parse
    leaves them out, yet they are annotations that keep a type alias alive."""
    return {name for match in _TYPE_COMMENT.finditer(source)
            for name in _IDENTIFIER.findall(match.group(1))}


_RUNS_CODE = frozenset({"exec", "eval", "compile"})
_CODE_MARK = re.compile(r"[(.=:\n]")


def compiled_names(tree: ast.Module) -> set[str]:
    """Identifiers in the code-like strings of a module that runs code from strings (it reads
    the builtin `exec`, `eval` or `compile`): generated code (attrs' `__hash__` and `__repr__`
    templates) reads names no other code mentions. Docstrings, and strings without a code mark
    (`(`, `.`, `=`, `:`, a line break), are prose or keys and are left out."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                       ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in docstrings and _CODE_MARK.search(node.value)):
            found.update(_IDENTIFIER.findall(node.value))
    return found


def extract(tree: ast.Module, source: str, path: str, module: str, is_package: bool, *,
            detailed: bool = True) -> FileFacts:
    """Every fact of one parsed module; without `detailed`, only those the graphs and metrics
    need: the detectors' liveness, clone hashes and block shapes (a third of the extraction's
    work) are left empty."""
    module_measure, measures = measure_module(tree, source)
    extractor = Extractor(module, is_package, measures)
    extractor.visit_all(tree.body)
    if detailed:
        if "type:" in source:
            extractor.reads.names.update(type_comment_names(source))
        if not _RUNS_CODE.isdisjoint(extractor.reads.names):
            extractor.reads.names.update(compiled_names(tree))
        live = liveness(tree, module, extractor.reads)
        fingerprints = fingerprint_module(tree, source, module)
        shapes = function_blocks(tree, module)
    else:
        live, fingerprints, shapes = NO_LIVENESS, NO_FINGERPRINTS, ()
    return FileFacts(
        path=path, module=module, is_package=is_package,
        definitions=tuple(extractor.definitions), classes=tuple(extractor.classes),
        calls=tuple(extractor.calls), assignments=tuple(extractor.assignments),
        returns=tuple(extractor.returns), accesses=tuple(extractor.accesses),
        imports=tuple(extractor.imports), globals_declared=tuple(extractor.globals_declared),
        dunder_all=tuple(extractor.dunder_all) if extractor.dunder_all is not None else None,
        measure=module_measure, string_constants=tuple(extractor.strings),
        liveness=live, fingerprints=fingerprints, shapes=shapes, detailed=detailed,
    )
