"""Alternative correct fixes of the click cases that tests/evaluate/test_fix_sets.py scores: per
smell, a refactoring that removes the smell in another sound way than the ground truth (other
names, another placement, another decomposition), written as a small transformation of the
smelly files, so that the scoring is shown to measure the smell and not the shape of the
ground truth.

Each fix takes the case and its smelly source folder, finds what it edits by qualified name (the
case's targets, locations and check parameters) and by the shape of the code, never by line
number, and returns the new text of every file it changes (None deletes the file). The edits
are made on `ast` positions (`Text`), or with libcst where a definition moves (`god_class`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import libcst as cst

from smellkit.models import Case

Files = dict[str, str | None]


class Source:
    """The smelly version's source folder (the case's `source_path`), read by module or path."""

    def __init__(self, root: Path):
        self.root = root

    def read(self, path: str) -> str:
        return (self.root / path).read_text(encoding="utf-8")

    def path_of(self, qualname: str) -> str:
        """The file of a module, or of the module a definition's qualified name starts with."""
        parts = qualname.split(".")
        for end in range(len(parts), 0, -1):
            path = "/".join(parts[:end]) + ".py"
            if (self.root / path).is_file():
                return path
        raise LookupError(f"no module of {qualname} under {self.root}")

    def module_of(self, qualname: str) -> str:
        return self.path_of(qualname).removesuffix(".py").replace("/", ".")


Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def find(tree: ast.Module, name: str) -> Definition:
    """A definition by its dotted name inside the module (`Class.method`)."""
    body: list[ast.stmt] = tree.body
    found: Definition | None = None
    for part in name.split("."):
        found = next((node for node in body if isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == part),
            None)
        if found is None:
            raise LookupError(f"{name} is not defined here")
        body = found.body
    assert found is not None
    return found


def local_name(qualname: str, module: str) -> str:
    return qualname.removeprefix(module + ".")


def first_line(node: ast.stmt) -> int:
    """Where a statement starts, its decorators included."""
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno, *(item.lineno for item in decorators)])


class Text:
    """Edits of one file's text at `ast` positions, applied together (so every position refers
    to the text as it was read). Deleted statements take the blank lines around them along,
    leaving as many as the wider of the two gaps (two between top-level definitions)."""

    def __init__(self, text: str):
        self.text = text
        self.tree = ast.parse(text)
        self.lines = text.splitlines(keepends=True)
        self._starts = [0]
        for line in self.lines:
            self._starts.append(self._starts[-1] + len(line))
        self._edits: list[tuple[int, int, str]] = []
        self._deleted: set[int] = set()

    def offset(self, line: int, column: int) -> int:
        """The character offset of an `ast` position (its column counts UTF-8 bytes)."""
        prefix = self.lines[line - 1].encode("utf-8")[:column].decode("utf-8")
        return self._starts[line - 1] + len(prefix)

    def source(self, node: ast.AST) -> str:
        segment = ast.get_source_segment(self.text, node)
        assert segment is not None
        return segment

    def replace(self, node: ast.expr | ast.stmt, new: str) -> None:
        assert node.end_lineno is not None and node.end_col_offset is not None
        self._edits.append((self.offset(node.lineno, node.col_offset),
                            self.offset(node.end_lineno, node.end_col_offset), new))

    def replace_lines(self, first: int, last: int, new: str) -> None:
        """Lines first..last (1-based, inclusive) become `new` (whole lines)."""
        self._edits.append((self._starts[first - 1], self._starts[last], new))

    def insert_before(self, line: int, new: str) -> None:
        self._edits.append((self._starts[line - 1], self._starts[line - 1], new))

    def delete(self, node: ast.stmt) -> None:
        assert node.end_lineno is not None
        self._deleted.update(range(first_line(node), node.end_lineno + 1))

    def _blank(self, line: int) -> bool:
        return not self.lines[line - 1].strip()

    def _deletions(self) -> Iterator[tuple[int, int, str]]:
        runs: list[list[int]] = []
        for line in sorted(self._deleted):
            if runs and all(self._blank(between) for between in range(runs[-1][1] + 1, line)):
                runs[-1][1] = line
            else:
                runs.append([line, line])
        for first, last in runs:
            above, below = first, last
            while above > 1 and self._blank(above - 1):
                above -= 1
            while below < len(self.lines) and self._blank(below + 1):
                below += 1
            keep = 0 if above == 1 or below == len(self.lines) else \
                max(first - above, below - last)
            yield self._starts[above - 1], self._starts[below], "\n" * keep

    def result(self) -> str:
        text = self.text
        edits = sorted([*self._edits, *self._deletions()], reverse=True)
        for (start, _, _), (_, earlier_end, _) in pairwise(edits):
            assert earlier_end <= start, "overlapping edits"
        for start, end, new in edits:
            text = text[:start] + new + text[end:]
        return text.rstrip("\n") + "\n"


def indent_of(text: Text, node: ast.stmt | ast.expr) -> str:
    line = text.lines[node.lineno - 1]
    return line[:len(line) - len(line.lstrip())]


def names_read(tree: ast.AST) -> set[str]:
    """Every bare name the code loads."""
    return {node.id for node in ast.walk(tree)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


def imports_from(tree: ast.Module, module: str) -> Iterator[ast.ImportFrom]:
    """The module-level `from .module import ...` statements (relative, one level)."""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module == module:
            yield node


def check_params(case: Case, kind: str) -> dict[str, Any]:
    """The parameters of the case's (first) check of a kind."""
    return next(dict(check.params) for check in case.checks if check.kind == kind)


# ---------------------------------------------------------------------------------------------
# One fix per smell.


def feature_envy(case: Case, source: Source) -> Files:
    """Move Method, leaving a delegate. The envious method the injection put in a mixin of the
    holder (`Option`) keeps its name and signature, but its body becomes one call of the same
    method on the envied object (`self.type`, a `_NumberRangeBase`), which holds the data. The
    ground truth deletes the mixin instead and calls the envied class at the call site."""
    target = case.targets[0].location
    path = source.path_of(target.qualname)
    text = Text(source.read(path))
    method = find(text.tree, local_name(target.qualname, source.module_of(target.qualname)))
    assert isinstance(method, ast.FunctionDef)
    envied = str(check_params(case, "feature_envy.not_envious")["envied"])
    read = {node.value.attr for node in ast.walk(method)
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute)
            and isinstance(node.value.value, ast.Name) and node.value.value.id == "self"}
    (attribute,) = read  # `type_ = self.type`: the envied object the body works on
    envied_tree = ast.parse(source.read(source.path_of(envied)))
    find(envied_tree, f"{local_name(envied, source.module_of(envied))}.{method.name}")
    body = method.body
    docstring = isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
    first = body[1] if docstring else body[0]
    indent = indent_of(text, first)
    assert body[-1].end_lineno is not None
    text.replace_lines(first_line(first), body[-1].end_lineno,
                       f"{indent}return self.{attribute}.{method.name}()\n")
    return {path: text.result()}


class _Hoist(cst.CSTTransformer):
    """Takes the named methods out of a class (libcst keeps their text, docstrings included)."""

    def __init__(self, cls: str, methods: dict[str, str]):
        self.cls, self.methods = cls, methods
        self.moved: list[cst.FunctionDef] = []

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        if original.name.value != self.cls:
            return updated
        kept: list[cst.BaseStatement | cst.BaseSmallStatement] = []
        for item in updated.body.body:
            if isinstance(item, cst.FunctionDef) and item.name.value in self.methods:
                decorators = [entry.decorator for entry in item.decorators]
                assert decorators and all(
                    isinstance(decorator, cst.Name) and decorator.value == "staticmethod"
                    for decorator in decorators), "only static methods move out as they are"
                self.moved.append(item.with_changes(
                    name=cst.Name(self.methods[item.name.value]), decorators=(),
                    leading_lines=(cst.EmptyLine(), cst.EmptyLine())))
            else:
                kept.append(item)
        return updated.with_changes(body=updated.body.with_changes(body=kept))


def god_class(case: Case, source: Source) -> Files:
    """Move the absorbed static methods out of the class as module-level functions of the same
    module, under names that say what they do (`OptionParser.style` -> `_ansi_style`,
    `OptionParser.open_stream` -> `_open_file_or_stdio`); the public functions that delegated
    to the class (`termui.style`, `_compat.open_stream`) call those. The ground truth moves the
    bodies back into the public functions."""
    cls = case.targets[0].location.qualname
    path = source.path_of(cls)
    absorbed = [item.qualname for item in case.locations
                if item.qualname.rpartition(".")[0] == cls and item.kind == "method"]
    names = {"style": "_ansi_style", "open_stream": "_open_file_or_stdio"}
    renamed = {qualname.rpartition(".")[2]: names[qualname.rpartition(".")[2]]
               for qualname in absorbed}
    hoist = _Hoist(cls.rpartition(".")[2], renamed)
    module = cst.parse_module(source.read(path)).visit(hoist)
    assert len(hoist.moved) == len(absorbed) > 0
    files: Files = {path: module.with_changes(body=(*module.body, *hoist.moved)).code}
    owner = cls.rpartition(".")[2]
    parser_module = source.module_of(cls).rpartition(".")[2]
    for delegate in case.locations:  # the public functions that call `Class.method`
        name = delegate.qualname.rpartition(".")[2]
        if delegate.qualname in absorbed or name not in renamed:
            continue
        home = source.path_of(delegate.qualname)
        text = Text(source.read(home))
        function = find(text.tree, name)
        assert function.end_lineno is not None
        body = "".join(text.lines[function.lineno - 1:function.end_lineno])
        call, imported = f"{owner}.{name}(", f"from .{parser_module} import {owner}\n"
        assert call in body and imported in body, (delegate.qualname, body)
        body = body.replace(imported, f"from .{parser_module} import {renamed[name]}\n")
        text.replace_lines(function.lineno, function.end_lineno,
                           body.replace(call, f"{renamed[name]}("))
        files[home] = text.result()
    return files


def data_clumps(case: Case, source: Source) -> Files:
    """Introduce Parameter Object. The exceptions' messages go through a small frozen dataclass
    of where and how to echo them (`_ErrorOutput(file, color).echo(message)`), so no wrapper
    restates echo's (message, file, nl, err, color); the forwarding module goes. The ground
    truth calls `echo` at each call site instead."""
    functions = [str(name) for name in check_params(case, "data_clumps.not_together")[
        "functions"]]
    forwarders = functions[1:]  # the clump's owner, echo, comes first
    files: Files = {}
    gone: set[str] = set()
    for forwarder in forwarders:  # a module holding nothing but the forwarder goes whole
        tree = ast.parse(source.read(source.path_of(forwarder)))
        if [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))] \
                == [find(tree, forwarder.rpartition(".")[2])]:
            files[source.path_of(forwarder)] = None
            gone.add(source.module_of(forwarder).rpartition(".")[2])
    (wrapper,) = [name for name in forwarders if source.path_of(name) not in files]
    path = source.path_of(wrapper)
    name = local_name(wrapper, source.module_of(wrapper))
    text = Text(source.read(path))
    text.delete(find(text.tree, name))
    for node in text.tree.body:
        if isinstance(node, ast.ImportFrom) and node.module in gone:
            text.delete(node)
    calls = [node for node in ast.walk(text.tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Name) and node.func.id == name]
    assert calls
    for call in calls:
        (message,) = call.args
        options = {keyword.arg: text.source(keyword.value) for keyword in call.keywords}
        assert set(options) <= {"file", "color"}, options
        arguments = ", ".join(f"{key}={value}" for key, value in options.items())
        if call.lineno == call.end_lineno:
            text.replace(call, f"_ErrorOutput({arguments}).echo({text.source(message)})")
        else:  # laid out over lines as the call was
            indent = indent_of(text, call)
            text.replace(call, f"_ErrorOutput({arguments}).echo(\n{indent}    "
                               f"{text.source(message)}\n{indent})")
    wrapper_node = find(text.tree, name)
    anchor = next(node for node in text.tree.body if node is not wrapper_node
                  and isinstance(node, (ast.FunctionDef, ast.ClassDef)))
    text.insert_before(first_line(anchor), '''\
@dataclass(frozen=True)
class _ErrorOutput:
    """Where an exception's message is echoed, and whether in colour."""

    file: t.Optional[t.IO[t.Any]] = None
    color: t.Optional[bool] = None

    def echo(self, message: str) -> None:
        echo(message, file=self.file, color=self.color)


''')
    first_from = next(node for node in text.tree.body if isinstance(node, ast.ImportFrom))
    text.insert_before(first_from.lineno, "from dataclasses import dataclass\n")
    files[path] = text.result()
    return files


def _copied(node: ast.AST, outer: str, inner: str) -> tuple[ast.Call, ast.expr] | None:
    """(the inner call, the argument `x`) when `node` is the call `outer(inner(x))`."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id == outer and len(node.args) == 1 and not node.keywords:
        call = node.args[0]
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and \
                call.func.id == inner and len(call.args) == 1 and not call.keywords:
            return call, call.args[0]
    return None


def shotgun_surgery(case: Case, source: Source) -> Files:
    """Call the helper through its module. Every place that wrote out `term_len`'s expression
    (`len(strip_ansi(x))`) calls `_compat.term_len(x)` after `from . import _compat`, and an
    import of `strip_ansi` nothing reads any more goes. The ground truth imports the name
    `term_len` into each module instead."""
    helper = str(check_params(case, "shotgun_surgery.helper_copies")["helper"])
    helper_module, _, helper_name = helper.rpartition(".")
    definition = find(ast.parse(source.read(source.path_of(helper))), helper_name)
    assert isinstance(definition, ast.FunctionDef)
    (returned,) = [node.value for node in definition.body if isinstance(node, ast.Return)]
    assert isinstance(returned, ast.Call) and isinstance(returned.func, ast.Name)
    inner = returned.args[0]
    assert isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)
    outer_name, inner_name = returned.func.id, inner.func.id  # len(strip_ansi(x))
    short = helper_module.rpartition(".")[2]
    files: Files = {}
    for path in case.files:
        text = Text(source.read(path))
        copies = [(node, found) for node in ast.walk(text.tree)
                  if (found := _copied(node, outer_name, inner_name)) is not None]
        if not copies:
            continue
        for node, (_, argument) in copies:
            assert isinstance(node, ast.Call)
            text.replace(node, f"{short}.{helper_name}({text.source(argument)})")
        inside = {id(call.func) for _, (call, _) in copies}
        still_read = any(isinstance(node, ast.Name) and node.id == inner_name
                         and isinstance(node.ctx, ast.Load) and id(node) not in inside
                         for node in ast.walk(text.tree))
        new_import = f"from . import {short}"
        statements = list(imports_from(text.tree, short))
        unread = [statement for statement in statements if not still_read
                  and [alias.name for alias in statement.names] == [inner_name]]
        if unread:  # `from ._compat import strip_ansi` gives way to the module's import
            text.replace(unread[0], new_import)
        else:
            text.insert_before(statements[0].lineno, new_import + "\n")
        files[path] = text.result()
    assert files
    return files


def dead_code(case: Case, source: Source) -> Files:
    """Take the pager's temporary-file fallback apart differently. The statement after the last
    `return` inside `try` never runs; instead of deleting it alone, the fallback `return` moves
    out of the `try` (the temporary file is only needed while `more` runs), which leaves nothing
    after it; the wrapper only that statement called (`_isatty_compat`) goes with its import."""
    target = case.targets[0].location.qualname
    path = source.path_of(target)
    text = Text(source.read(path))
    function = find(text.tree, local_name(target, source.module_of(target)))
    (block,) = [node for node in ast.walk(function) if isinstance(node, ast.Try)
                and node.finalbody and isinstance(node.body[-1], ast.Return)]
    returns = [node for node in block.body if isinstance(node, ast.Return)]
    fallback, unreachable = returns[-2], returns[-1]
    assert block.body[-2:] == [fallback, unreachable], "two returns in a row end the try"
    called = {node.func.id for node in ast.walk(unreachable)
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert block.end_lineno is not None and unreachable.end_lineno is not None
    text.replace_lines(fallback.lineno, unreachable.end_lineno, "")
    text.insert_before(block.end_lineno + 1,
                       indent_of(text, block) + text.source(fallback) + "\n")
    wrappers = [item.qualname for item in case.locations
                if item.qualname.rpartition(".")[2] in called]
    files: Files = {}
    for wrapper in wrappers:
        home = source.path_of(wrapper)
        other = Text(source.read(home))
        other.delete(find(other.tree, wrapper.rpartition(".")[2]))
        files[home] = other.result()
    for statement in text.tree.body:
        if isinstance(statement, ast.ImportFrom):
            names = [alias.name for alias in statement.names]
            dropped = [name for name in names if name in called]
            if dropped:
                kept = ", ".join(name for name in names if name not in dropped)
                text.replace(statement, f"from {'.' * statement.level}{statement.module} "
                                        f"import {kept}")
    files[path] = text.result()
    return files


def interface_segregation(case: Case, source: Source) -> Files:
    """Split the fat interface into role interfaces. The methods only some implementers support
    leave the base class for one small role class each (`_AcceptsSources.add_source`,
    `_AcceptsCommands.add_command`), which only the implementer that has the method inherits;
    the stub mixins the other implementers carried go. The ground truth only deletes the
    declarations and the stubs."""
    params = check_params(case, "interface_segregation.no_stubs")
    methods = [str(name) for name in params["methods"]]
    implementers = [str(name) for name in params["classes"]]
    interface = str(check_params(case, "interface_segregation.not_required")["interface"])
    path = source.path_of(interface)
    module = source.module_of(interface)
    text = Text(source.read(path))
    base = find(text.tree, local_name(interface, module))
    declarations = {node.name: node for node in base.body
                    if isinstance(node, ast.FunctionDef) and node.name in methods}
    assert set(declarations) == set(methods)
    roles = {"add_source": "_AcceptsSources", "add_command": "_AcceptsCommands"}
    blocks = []
    for name in methods:
        declaration = declarations[name]
        assert declaration.end_lineno is not None
        lines = text.lines[declaration.lineno - 1:declaration.end_lineno]
        blocks.append(f"class {roles[name]}:\n    \"\"\"What a multi command that accepts "
                      f"{name.removeprefix('add_')}s provides.\"\"\"\n\n" + "".join(lines)
                      + "\n\n")
        text.delete(declaration)
    stubs = {item.qualname.rpartition(".")[0] for item in case.locations
             if source.module_of(item.qualname) != module}  # MultiCommandDefaults, ...
    stub_names = {name.rpartition(".")[2] for name in stubs}
    classes = [find(text.tree, local_name(name, module)) for name in implementers]
    first = min(classes, key=lambda node: node.lineno)
    text.insert_before(first_line(first), "".join(blocks))
    for node in classes:
        assert isinstance(node, ast.ClassDef)
        own = {item.name for item in node.body if isinstance(item, ast.FunctionDef)}
        bases = [text.source(item) for item in node.bases
                 if not (isinstance(item, ast.Name) and item.id in stub_names)]
        bases += [roles[name] for name in methods if name in own]
        (header,) = [line for line in range(node.lineno, node.body[0].lineno)
                     if text.lines[line - 1].startswith(f"class {node.name}(")]
        text.replace_lines(header, header, f"class {node.name}({', '.join(bases)}):\n")
    files: Files = {source.path_of(name): None for name in stubs}
    for statement in text.tree.body:
        if isinstance(statement, ast.ImportFrom) and any(
                alias.name in stub_names for alias in statement.names):
            text.delete(statement)
    files[path] = text.result()
    return files


def deep_inlining(case: Case, source: Source) -> Files:
    """Call the helpers where they live now, under a clearer name. The blocks the injection
    inlined into the method become calls again: `normalize_opt(long_opt, self.ctx)` of the step
    module the injection moved it to (the ground truth moves it back into `parser.py` and
    deletes the step modules), and the method the short-option loop was copied from, renamed
    `_match_short_opt` -> `_match_short_options` for what it does (it matches a whole group of
    short options, `-abc`)."""
    target = case.targets[0].location.qualname
    path = source.path_of(target)
    text = Text(source.read(path))
    method = find(text.tree, local_name(target, source.module_of(target)))
    assert isinstance(method, ast.FunctionDef)
    statements = method.body
    # 1. The inlined normalize_opt: `opt = long_opt`, `ctx = self.ctx`, then an `if` that
    #    assigns `norm_long_opt` in both branches.
    (normalised,) = [index for index, node in enumerate(statements) if isinstance(node, ast.If)
                     and "norm_long_opt" in _assigned(node)]
    start = normalised
    bound: dict[str, str] = {}
    while start > 0 and isinstance(statements[start - 1], ast.Assign):
        assign = statements[start - 1]
        assert isinstance(assign, ast.Assign)
        (name,) = [item.id for item in assign.targets if isinstance(item, ast.Name)]
        bound[name] = text.source(assign.value)
        start -= 1
    assert set(bound) == {"opt", "ctx"}, bound
    last = statements[normalised].end_lineno
    assert last is not None
    text.replace_lines(statements[start].lineno, last,
                       f"{indent_of(text, statements[start])}norm_long_opt = "
                       f"normalize_opt({bound['opt']}, {bound['ctx']})\n")
    assert "normalize_opt" in {alias.asname or alias.name for node in text.tree.body
                               if isinstance(node, ast.ImportFrom) for alias in node.names}
    # 2. The inlined short-option loop: the body of the `if` that dispatches short options
    #    becomes a call of the method it was copied from, under its new name.
    callee = str(check_params(case, "calls")["callee"])
    old_name, new_name = callee.rpartition(".")[2], "_match_short_options"
    helper = find(text.tree, local_name(callee, source.module_of(callee)))
    header = text.lines[helper.lineno - 1]
    assert f"def {old_name}(" in header
    text.replace_lines(helper.lineno, helper.lineno,
                       header.replace(f"def {old_name}(", f"def {new_name}("))
    (short,) = [node for node in ast.walk(method) if isinstance(node, ast.If)
                and any(isinstance(item, ast.For) for item in node.body)
                and isinstance(node.body[-1], ast.Return)]
    indent = indent_of(text, short.body[0])
    assert short.body[-1].end_lineno is not None
    text.replace_lines(short.body[0].lineno, short.body[-1].end_lineno,
                       f"{indent}self.{new_name}(arg, state)\n{indent}return\n")
    assert f"{old_name}(" not in text.result()
    return {path: text.result()}


def _assigned(node: ast.AST) -> set[str]:
    return {target.id for item in ast.walk(node) if isinstance(item, ast.Assign)
            for target in item.targets if isinstance(target, ast.Name)}


def duplicated_code(case: Case, source: Source) -> Files:
    """Import the original under the copy's name. Each module's clone of `_compat.open_stream`
    becomes `from ._compat import open_stream as _open_stream`, so its call sites stay as they
    are, and the names of `_compat` only the clone used leave the imports. The ground truth
    renames every call site to `open_stream` instead."""
    files: Files = {}
    for target in case.targets:
        qualname = target.location.qualname
        path = source.path_of(qualname)
        module = source.module_of(qualname)
        name = local_name(qualname, module)
        text = Text(source.read(path))
        clone = find(text.tree, name)
        canonical = next(item.qualname for item in case.locations
                         if item.qualname.rpartition(".")[2] == name.lstrip("_")
                         and item.qualname != qualname)
        home, _, original = canonical.rpartition(".")
        short = home.rpartition(".")[2]
        text.delete(clone)
        rest = ast.Module(body=[node for node in text.tree.body if node is not clone],
                          type_ignores=[])
        used = names_read(rest)
        statements = list(imports_from(text.tree, short))
        placed = False
        for statement in statements:
            kept = [alias for alias in statement.names if (alias.asname or alias.name) in used]
            if len(kept) == len(statement.names):
                continue
            alias_line = f"from .{short} import {original} as {name}\n"
            if kept:
                listed = ", ".join(alias.name for alias in kept)
                text.replace(statement, f"from .{short} import {listed}")
            else:
                assert statement.end_lineno is not None
                text.replace_lines(statement.lineno, statement.end_lineno,
                                   "" if placed else alias_line)
                placed = True
        assert placed, f"no import of {short} only the clone used in {path}"
        files[path] = text.result()
    return files


FIXES: dict[str, Callable[[Case, Source], Files]] = {
    "feature_envy": feature_envy,
    "god_class": god_class,
    "data_clumps": data_clumps,
    "shotgun_surgery": shotgun_surgery,
    "dead_code": dead_code,
    "interface_segregation": interface_segregation,
    "deep_inlining": deep_inlining,
    "duplicated_code": duplicated_code,
}
"""The alternative fix of each smell, in DESIGN.md's order."""


def changed(files: Files, source: Source) -> Iterable[tuple[str, str | None, str | None]]:
    """(path, smelly text, new text) of each file a fix changes."""
    for path, new in sorted(files.items()):
        old = source.read(path) if (source.root / path).exists() else None
        if old != new:
            yield path, old, new
