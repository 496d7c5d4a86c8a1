"""The walk behind `smellkit.facts.extract`: one pass over a module's tree that records every
definition, call, assignment, return, attribute access, import and string constant, with the
expressions in the small language of `smellkit.facts.types`."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any, NamedTuple

from smellkit.facts._expr_forms import ExprForms
from smellkit.facts.names import annotation_names, dotted, resolve_relative
from smellkit.facts.reachability import Reads
from smellkit.facts.types import (
    UNKNOWN,
    Assignment,
    Attr,
    AttributeAccess,
    CallOf,
    CallSite,
    ClassAttribute,
    ClassInfo,
    Definition,
    DefRef,
    Expr,
    ImportFact,
    Iter,
    Name,
    Param,
    Return,
    Seq,
    Sub,
)
from smellkit.metrics.complexity import CodeMeasure


def _is_stub(body: list[ast.stmt]) -> bool:
    statements = body
    if (statements and isinstance(statements[0], ast.Expr)
            and isinstance(statements[0].value, ast.Constant)
            and isinstance(statements[0].value.value, str)):
        statements = statements[1:]
    if not statements:
        return True
    if len(statements) != 1:
        return False
    only = statements[0]
    if isinstance(only, ast.Pass):
        return True
    if isinstance(only, ast.Expr) and isinstance(only.value, ast.Constant):
        return only.value.value is Ellipsis
    if isinstance(only, ast.Return):
        return only.value is None or (
            isinstance(only.value, ast.Constant) and only.value.value is None)
    if isinstance(only, ast.Raise) and only.exc is not None:
        exc = only.exc.func if isinstance(only.exc, ast.Call) else only.exc
        return dotted(exc) == "NotImplementedError"
    return False


_PARAM_KINDS = ("positional_only", "positional", "var_positional", "keyword_only", "var_keyword")


class _Scope(NamedTuple):
    qualname: str
    kind: str  # module | class | function | lambda
    self_name: str | None  # first parameter of a method
    class_qualname: str | None  # the class a method belongs to
    code: str  # where code in this scope runs (a class body: its enclosing function or module)
    namespace: str  # where names are bound and looked up (a class body: the class)


class Extractor(ast.NodeVisitor):
    """One walk over a module that fills every fact list; post-order for expressions."""

    def __init__(self, module: str, is_package: bool, measures: dict[tuple[int, int], CodeMeasure]):
        self.module = module
        self.is_package = is_package
        self.measures = measures
        self.scopes: list[_Scope] = [_Scope(module, "module", None, None, module, module)]
        self.definitions: list[Definition] = []
        self.classes: list[ClassInfo] = []
        self.class_attrs: dict[str, list[ClassAttribute]] = {}
        self.calls: list[CallSite] = []
        self.assignments: list[Assignment] = []
        self.returns: list[Return] = []
        self.accesses: list[AttributeAccess] = []
        self.imports: list[ImportFact] = []
        self.globals_declared: list[tuple[str, str]] = []
        self.dunder_all: list[str] | None = None
        self.strings: list[tuple[str, int]] = []
        self.lambda_counters: dict[str, int] = {}
        self.type_checking = 0
        forms = ExprForms()  # its tables are filled here as the walk meets calls and lambdas
        self.ir = forms.ir
        self.call_index, self.lambda_names = forms.call_index, forms.lambda_names
        self.receivers, self.name_ir = forms.receivers, forms.name_ir
        # What the module reads, for `reachability.liveness`: this walk meets every node.
        self.reads = Reads()
        self.read_names = self.reads.names

    # -- traversal -------------------------------------------------------------------------

    def visit(self, node: ast.AST) -> None:
        """Dispatch by type through a per-class table (NodeVisitor's string lookup is slow)."""
        kind = type(node)
        method = _DISPATCH.get(kind)
        if method is None:
            method = self._method(kind)
        method(self, node)

    def visit_all(self, nodes: list[Any]) -> None:
        """Visit a statement list (one call for the list, not one more per statement)."""
        dispatch = _DISPATCH
        for node in nodes:
            kind = node.__class__
            (dispatch.get(kind) or self._method(kind))(self, node)

    def _method(self, kind: type[ast.AST]) -> Callable[[Extractor, Any], None]:
        found: Callable[[Extractor, Any], None] = getattr(
            type(self), f"visit_{kind.__name__}", Extractor.generic_visit)
        _DISPATCH[kind] = found
        return found

    def generic_visit(self, node: ast.AST) -> None:
        node_type = type(node)
        fields = _CHILD_FIELDS.get(node_type)
        if fields is None:
            fields = _CHILD_FIELDS[node_type] = tuple(
                field for field in node_type._fields if field not in _NON_CHILD_FIELDS)
        dispatch = _DISPATCH
        for field in fields:
            value: Any = getattr(node, field, None)
            for item in value if value.__class__ is list else (value,):
                item_type = item.__class__
                if item_type is _CONSTANT_NODE:
                    text = item.value
                    if text.__class__ is str and 2 < len(text) <= 64 and "\n" not in text:
                        self.strings.append((text, item.lineno))
                elif item_type is _NAME_NODE:
                    if item.ctx.__class__ is _LOAD_CONTEXT:
                        self.read_names.add(item.id)
                elif isinstance(item, ast.AST):
                    (dispatch.get(item_type) or self._method(item_type))(self, item)

    def visit_Name(self, node: ast.Name) -> None:
        """A name has no children: only what it reads matters."""
        if node.ctx.__class__ is _LOAD_CONTEXT:
            self.read_names.add(node.id)

    # -- helpers ---------------------------------------------------------------------------

    @property
    def scope(self) -> _Scope:
        return self.scopes[-1]

    def push_scope(self, qualname: str, kind: str, self_name: str | None = None,
                   class_qualname: str | None = None) -> None:
        """Enter a scope; where its code runs and binds is worked out once, here."""
        code = self.scopes[-1].code if kind == "class" else qualname
        self.scopes.append(_Scope(qualname, kind, self_name, class_qualname, code,
                                  qualname if kind == "class" else code))

    def code_scope(self) -> str:
        """Where code runs: class bodies execute in their enclosing function or module."""
        return self.scopes[-1].code

    def namespace(self) -> str:
        """Where names are looked up and bound: a class body binds in its class."""
        return self.scopes[-1].namespace

    def bind(self, target: ast.AST, value: Expr, line: int,
             annotation: tuple[str, ...] = ()) -> None:
        """Record an assignment, splitting tuple targets element by element."""
        kind = target.__class__
        if kind is _NAME_NODE:  # the common case first
            current = self.scopes[-1]
            name = target.id  # type: ignore[attr-defined]
            self.assignments.append(_new(Assignment, (current.namespace, Name(name), value,
                                                      line, annotation)))
            if current.kind == "class":
                self.class_attrs[current.qualname].append(ClassAttribute(
                    name, line, "class", annotation, value, current.qualname))
            return
        if kind is ast.Tuple or kind is ast.List:
            for position, element in enumerate(target.elts):  # type: ignore[attr-defined]
                if isinstance(element, ast.Starred):
                    self.bind(element.value, Iter(value), line)
                elif isinstance(value, Seq) and position < len(value.items):
                    self.bind(element, value.items[position], line)
                else:
                    self.bind(element, Sub(value, position), line)
            return
        scope = self.code_scope()
        if isinstance(target, ast.Attribute):
            receiver = self.ir(target.value)
            self.assignments.append(
                Assignment(scope, Attr(receiver, target.attr), value, line, annotation))
            current = self.scope
            if (current.self_name and isinstance(receiver, Name)
                    and receiver.id == current.self_name and current.class_qualname):
                self.class_attrs[current.class_qualname].append(ClassAttribute(
                    target.attr, line, "instance", annotation, value, current.qualname))
        elif isinstance(target, ast.Subscript):
            self.assignments.append(Assignment(scope, self.ir(target), value, line, annotation))

    # -- definitions -----------------------------------------------------------------------

    def _define(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str:
        parent = self.scope
        qualname = f"{parent.qualname}.{node.name}"
        for decorator in node.decorator_list:
            self.visit(decorator)
        return qualname

    def _decorate(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
                  qualname: str) -> None:
        """Bind the defined name, through its decorators applied bottom-up as implicit calls."""
        value: Expr = DefRef(qualname)
        scope = self.code_scope()
        namespace = self.namespace()
        for decorator in reversed(node.decorator_list):
            self.calls.append(CallSite(scope, self.ir(decorator), (value,), (),
                                       decorator.lineno, decorator.col_offset, True, namespace))
            value = CallOf(len(self.calls) - 1)
        self.assignments.append(Assignment(namespace, Name(node.name), value, node.lineno, ()))

    def _params(self, args: ast.arguments) -> tuple[Param, ...]:
        params: list[Param] = []
        positional = [*args.posonlyargs, *args.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
        defaults.extend(args.defaults)
        for index, arg in enumerate(positional):
            kind = _PARAM_KINDS[0] if index < len(args.posonlyargs) else _PARAM_KINDS[1]
            default = defaults[index]
            params.append(Param(arg.arg, kind, annotation_names(arg.annotation),
                                self.ir(default) if default is not None else None))
        if args.vararg:
            params.append(Param(args.vararg.arg, _PARAM_KINDS[2],
                                annotation_names(args.vararg.annotation), None))
        for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults):
            params.append(Param(arg.arg, _PARAM_KINDS[3], annotation_names(arg.annotation),
                                self.ir(kw_default) if kw_default is not None else None))
        if args.kwarg:
            params.append(Param(args.kwarg.arg, _PARAM_KINDS[4],
                                annotation_names(args.kwarg.annotation), None))
        return tuple(params)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        qualname = self._define(node)
        parent = self.scope
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.visit(default)
        annotations: list[ast.expr] = []
        for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs,
                    node.args.vararg, node.args.kwarg]:
            if arg is not None and arg.annotation is not None:
                self.visit(arg.annotation)
                annotations.append(arg.annotation)
        if node.returns is not None or annotations:  # string annotations are read too
            self.reads.annotations(node.returns, *annotations)
        if parent.kind == "class":
            kind = "method"
        elif parent.kind == "module":
            kind = "function"
        else:
            kind = "nested_function"
        params = self._params(node.args)
        decorators = tuple(dotted(d.func if isinstance(d, ast.Call) else d) or ""
                           for d in node.decorator_list)
        self_name = None
        if kind == "method" and params and "staticmethod" not in decorators:
            self_name = params[0].name
        self.definitions.append(Definition(
            qualname, node.name, kind, parent.qualname, node.lineno,
            node.end_lineno or node.lineno, node.col_offset, decorators, params,
            annotation_names(node.returns), isinstance(node, ast.AsyncFunctionDef),
            _is_stub(node.body), self.measures.get((node.lineno, node.col_offset))))
        self.push_scope(qualname, "function", self_name,
                        parent.qualname if kind == "method" else None)
        for param in params:
            if param.annotation:
                self.assignments.append(Assignment(qualname, Name(param.name), UNKNOWN,
                                                   node.lineno, param.annotation))
        self.visit_all(node.body)
        self.scopes.pop()
        self._decorate(node, qualname)

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        qualname = self._define(node)
        parent = self.scope
        for base in node.bases:
            self.visit(base)
        metaclass = None
        for keyword in node.keywords:
            self.visit(keyword.value)
            if keyword.arg == "metaclass":
                metaclass = dotted(keyword.value)
        decorators = tuple(dotted(d.func if isinstance(d, ast.Call) else d) or ""
                           for d in node.decorator_list)
        self.definitions.append(Definition(
            qualname, node.name, "class", parent.qualname, node.lineno,
            node.end_lineno or node.lineno, node.col_offset, decorators, (), (), False,
            _is_stub(node.body), self.measures.get((node.lineno, node.col_offset))))
        self.class_attrs[qualname] = []
        self.push_scope(qualname, "class")
        self.visit_all(node.body)
        self.scopes.pop()
        self.classes.append(ClassInfo(
            qualname, tuple(self.ir(base) for base in node.bases),
            tuple(dotted(base.value if isinstance(base, ast.Subscript) else base) or ""
                  for base in node.bases), metaclass,
            tuple(self.class_attrs.pop(qualname))))
        self._decorate(node, qualname)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        parent = self.scope
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.visit(default)
        count = self.lambda_counters.get(parent.qualname, 0) + 1
        self.lambda_counters[parent.qualname] = count
        qualname = f"{parent.qualname}.<lambda{count}>"
        self.lambda_names[id(node)] = qualname
        self.definitions.append(Definition(
            qualname, f"<lambda{count}>", "lambda", parent.qualname, node.lineno,
            node.end_lineno or node.lineno, node.col_offset, (), self._params(node.args), (),
            False, False, None))
        self.push_scope(qualname, "lambda")
        self.visit(node.body)
        self.returns.append(Return(qualname, self.ir(node.body)))
        self.scopes.pop()

    # -- statements ------------------------------------------------------------------------

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        targets = node.targets
        for target in targets:
            if target.__class__ is not _NAME_NODE:  # a bound name reads nothing
                self.visit(target)
        value = self.ir(node.value)
        for target in targets:
            self.bind(target, value, node.lineno)
        if (len(self.scopes) == 1 and any(isinstance(t, ast.Name) and t.id == "__all__"
                                          for t in targets)):
            self._read_all(node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
        self.visit(node.target)
        self.reads.annotations(node.annotation)
        names = annotation_names(node.annotation)
        value = self.ir(node.value) if node.value is not None else UNKNOWN
        self.bind(node.target, value, node.lineno, names)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        self.visit(node.target)
        if (len(self.scopes) == 1 and isinstance(node.target, ast.Name)
                and node.target.id == "__all__"):
            self._read_all(node.value)

    def _read_all(self, value: ast.AST) -> None:
        if isinstance(value, (ast.List, ast.Tuple)):
            names = [e.value for e in value.elts
                     if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            self.dunder_all = [*(self.dunder_all or []), *names]

    def visit_Return(self, node: ast.Return) -> None:
        if node.value is not None:
            self.visit(node.value)
            self.returns.append(Return(self.code_scope(), self.ir(node.value)))

    def visit_Yield(self, node: ast.Yield) -> None:
        if node.value is not None:
            self.visit(node.value)
            self.returns.append(Return(self.code_scope(), self.ir(node.value)))

    def _loop(self, node: ast.For | ast.AsyncFor) -> None:
        self.visit(node.iter)
        self.visit(node.target)
        self.bind(node.target, Iter(self.ir(node.iter)), node.lineno)
        self.visit_all(node.body)
        self.visit_all(node.orelse)

    visit_For = _loop
    visit_AsyncFor = _loop

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self.visit(node.iter)
        self.visit(node.target)
        self.bind(node.target, Iter(self.ir(node.iter)), node.iter.lineno)
        for condition in node.ifs:
            self.visit(condition)

    def _with(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self.visit(item.optional_vars)
                self.bind(item.optional_vars, self.ir(item.context_expr), node.lineno)
        self.visit_all(node.body)

    visit_With = _with
    visit_AsyncWith = _with

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        self.bind(node.target, self.ir(node.value), node.lineno)

    def visit_Global(self, node: ast.Global) -> None:
        self.globals_declared.extend((self.code_scope(), name) for name in node.names)

    visit_Nonlocal = visit_Global  # type: ignore[assignment]

    def visit_If(self, node: ast.If) -> None:
        # `TYPE_CHECKING`, `typing.TYPE_CHECKING`, `t.TYPE_CHECKING` after `import typing as t`
        guard = (dotted(node.test) or "").rpartition(".")[2] == "TYPE_CHECKING"
        self.visit(node.test)
        self.type_checking += guard
        self.visit_all(node.body)
        self.type_checking -= guard
        self.visit_all(node.orelse)

    def visit_Import(self, node: ast.Import) -> None:
        scope = self.code_scope()
        for alias in node.names:
            if alias.asname:
                self.imports.append(ImportFact(scope, alias.asname, alias.name, node.lineno,
                                               False, 0, self.type_checking > 0))
            else:
                head = alias.name.split(".")[0]
                self.imports.append(ImportFact(scope, head, head, node.lineno, False, 0,
                                               self.type_checking > 0))
                if head != alias.name:  # `import a.b` also makes `a.b` reachable from `a`
                    self.imports.append(ImportFact(scope, alias.name, alias.name, node.lineno,
                                                   False, 0, self.type_checking > 0))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        scope = self.code_scope()
        base = resolve_relative(self.module, self.is_package, node.level, node.module)
        for alias in node.names:
            target = f"{base}.{alias.name}" if base else alias.name
            if alias.name == "*":
                self.imports.append(ImportFact(scope, "*", base, node.lineno, True, node.level,
                                               self.type_checking > 0))
            else:
                self.imports.append(ImportFact(scope, alias.asname or alias.name, target,
                                               node.lineno, True, node.level,
                                               self.type_checking > 0))

    # -- expressions -----------------------------------------------------------------------

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        func_type = func.__class__
        read_names = self.read_names
        dispatch = _DISPATCH
        if func_type is _NAME_NODE:
            read_names.add(func.id)  # type: ignore[attr-defined]
        elif func_type is _ATTRIBUTE_NODE:
            self.visit_Attribute(func, called=True)  # type: ignore[arg-type]
        else:
            (dispatch.get(func_type) or self._method(func_type))(self, func)
        args = node.args
        strings = self.strings
        for arg in args:
            arg_type = arg.__class__
            if arg_type is _NAME_NODE:
                read_names.add(arg.id)  # type: ignore[attr-defined]
            elif arg_type is _CONSTANT_NODE:  # as `visit_Constant`, without the call
                text = arg.value  # type: ignore[attr-defined]
                if text.__class__ is str and 2 < len(text) <= 64 and "\n" not in text:
                    strings.append((text, arg.lineno))
            else:
                (dispatch.get(arg_type) or self._method(arg_type))(self, arg)
        keywords = node.keywords
        for keyword in keywords:
            value = keyword.value
            if value.__class__ is _NAME_NODE:
                read_names.add(value.id)
            else:
                self.visit(value)
        scope = self.scopes[-1]
        calls = self.calls
        ir = self.ir
        callee = ir(func)  # before the arguments: equal forms are shared in first-seen order
        forms: tuple[Expr, ...] = ()
        if args:
            name_ir = self.name_ir
            values: list[Expr] = []
            for arg in args:
                arg_type = arg.__class__
                if arg_type is _NAME_NODE:  # the common case, without a call
                    values.append(name_ir.get(arg.id) or ir(arg))  # type: ignore[attr-defined]
                elif arg_type is _STARRED_NODE:
                    values.append(Iter(ir(arg.value)))  # type: ignore[attr-defined]
                else:
                    values.append(ir(arg))
            forms = tuple(values)
        calls.append(_new(CallSite, (
            scope.code, callee, forms,
            tuple([(keyword.arg, ir(keyword.value)) for keyword in keywords]) if keywords else (),
            node.lineno, node.col_offset, False, scope.namespace)))
        self.call_index[id(node)] = len(calls) - 1

    def visit_Attribute(self, node: ast.Attribute, called: bool = False) -> None:
        """`called`: the attribute is the callee of a call (`obj.attr(...)`)."""
        value = node.value
        scope = self.scopes[-1]
        if value.__class__ is _NAME_NODE:
            name = value.id
            self.read_names.add(name)
            receiver = self.name_ir.get(name) or self.ir(value)
            own = name == scope.self_name
        else:
            self.visit(value)
            receiver = self.ir(value)
            own = (scope.self_name is not None and isinstance(receiver, Name)
                   and receiver.id == scope.self_name)
        self.receivers[id(node)] = receiver
        load = node.ctx.__class__ is _LOAD_CONTEXT
        if load:
            self.reads.attributes.add(node.attr)
        self.accesses.append(_new(AttributeAccess, (
            scope.code, receiver, node.attr, not load, called, own,
            node.lineno)))

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        self.reads.fstring(node)
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        value = node.value  # (inlined in `generic_visit`, which meets most constants)
        if value.__class__ is str and 2 < len(value) <= 64 and "\n" not in value:
            self.strings.append((value, node.lineno))


_DISPATCH: dict[type[ast.AST], Callable[[Extractor, Any], None]] = {}
_new = tuple.__new__
"""Builds the most frequent facts without the Python-level `__new__` of named tuples (every
field given, defaults included)."""
_NAME_NODE, _ATTRIBUTE_NODE, _CALL_NODE = ast.Name, ast.Attribute, ast.Call
_CONSTANT_NODE, _STARRED_NODE, _LOAD_CONTEXT = ast.Constant, ast.Starred, ast.Load
_CHILD_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}
# Fields that hold markers (load/store contexts, operators) or plain values, never facts.
_NON_CHILD_FIELDS = frozenset(("ctx", "op", "ops", "id", "attr", "name", "arg", "asname",
                               "module", "level", "lineno", "col_offset", "end_lineno",
                               "end_col_offset", "type_comment", "kind", "is_async",
                               "conversion", "names"))
