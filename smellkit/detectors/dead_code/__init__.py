"""Dead code: definitions nothing uses, imports nothing reads, statements that can never run.

Use is decided over the whole repository and by name (see `_usage.py`; a call the call graph
resolves always names its callee, so names subsume it): a function, class, method, attribute or
module variable is dead when no code reads its name in any way and nothing marks it as used from
outside the code:

- names Python or a framework calls: dunders, `setUp`/`tearDown`, `test_*` and `Test*` in tests,
  `pytest_*`, `visit_*`/`leave_*`/`depart_*`, enum hooks (`_missing_`, ...), IPython `_repr_*_`;
- names built at run time: a definition starting with a prefix some string ends in
  (`getattr(self, f"parse_{kind}")`, `"_process_" + name`, `"_handle_{}".format(x)`), spelled
  by a string constant (`getattr(obj, "name")`), named in code strings of a module that runs
  `exec`/`eval`/`compile`, or in a `# type:` comment;
- configuration: the variables of a Sphinx `conf.py` (in a docs folder, or setting Sphinx's
  own variables), which Sphinx reads from the module's namespace;
- registration: decorators other than a short list of plain wrappers (`@app.route`,
  `@pytest.fixture`, `@x.setter`, `@overload`, `@abstractmethod`, `@register(...)`), classes whose
  base defines `__init_subclass__` or a metaclass;
- examples: names the doctests in the module's own docstrings read (`>>> _localize(tz, dt)`), which
  run in the module's namespace, in many projects' test suites;
- export: `__all__`, re-export by a package `__init__`, entry points of pyproject.toml, setup.cfg
  and setup.py;
- overrides: a method whose class has an outside base that has (standard library, checked by
  `dir()`) or may have (anything else) a member of that name; the attributes set by an
  `__init__` that stands in for an outside base's constructor (it calls no other `__init__`, and
  the class, or a subclass mixing it in, puts it before that base), which the base's code reads.

Confidence says how sure the verdict is: underscore-private and nested definitions nobody can see
from smellkit._internal import pyast
from outside are high; public names of a library package (its users may call them) are low, as are
definitions only tests use. The unused public API of a library is not reported unless `public-api`
is set: on the labelled corpus (benchmarks/bench_precision.py) most of it is API outside users
call. Unreachable statements (after `return`/`raise`/`continue`/`break`, after
a `while True` without `break`, after an `if`/`try`/`match` whose branches all exit) and branches of
constant conditions (`if 0:`, `while False:`) come from a worker-side pass
(`smellkit.facts.reachability`).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Iterator

from pydantic import Field

from smellkit.analysis.context import Context
from smellkit.analysis.smells import Smell
from smellkit.analysis.usage import Usage, import_used, usage_of
from smellkit.config import is_test_path
from smellkit.detectors.base import Detector, DetectorOptions, Example
from smellkit.detectors.dead_code.dynamic import (
    HOOK_NAMES,
    HOOK_PREFIXES,
    HOOK_VARIABLES,
    ClassFacts,
    decorator_verdict,
    doctest_names,
    duck_typed,
    is_dunder,
    is_sunder,
)
from smellkit.facts import Definition, DefRef, FileFacts, Iter, Name, Unknown
from smellkit.models import Finding, Location, Severity

_REASONS = {
    "return": "after a `return`", "raise": "after a `raise`", "continue": "after a `continue`",
    "break": "after a `break`", "loop": "after a `while True` loop that never breaks",
    "branches": "after a statement whose every branch returns, raises or jumps",
    "false": "under a condition that is always false", "true": "in the `else` of a condition "
    "that is always true",
}
_PUBLIC_NAME = "public name of a library module: outside users may use it"
_PUBLIC_METHOD = "public method of a public class: outside users may call it"
_PUBLIC_ATTRIBUTE = "public attribute of a public class: users may read it"
PUBLIC_API_REASONS = frozenset({_PUBLIC_NAME, _PUBLIC_METHOD, _PUBLIC_ATTRIBUTE})
"""The reasons of a finding about a library's public API, left out unless `public-api` is on."""


class DeadCodeOptions(DetectorOptions):
    public_api_confidence: float = Field(
        default=0.3, ge=0.0, le=1.0, description="Confidence given to a public name of a library "
        "package that nothing in the repository uses: outside users may call it.")
    test_only_confidence: float = Field(
        default=0.3, ge=0.0, le=1.0, description="Highest confidence given to a definition only "
        "tests use.")
    public_api: bool = Field(
        default=False, description="Report public names of a library package that nothing in the "
        "repository uses (at `public-api-confidence`). Off by default: on the labelled corpus "
        "most are API that outside users call (benchmarks/bench_precision.py).")
    min_confidence: float = Field(
        default=0.2, ge=0.0, le=1.0, description="Findings below this confidence are not reported.")
    large_lines: int = Field(
        default=30, ge=1, description="A dead definition or block of at least this many lines, "
        "reported with confidence 0.8 or more, is an error rather than a warning.")
    unreachable: bool = Field(
        default=True, description="Report statements that can never run and constant conditions.")
    attributes: bool = Field(
        default=True, description="Report attributes that are written but never read.")
    imports: bool = Field(default=True, description="Report imports whose name is never read.")
    variables: bool = Field(
        default=True, description="Report module-level variables that are never read.")
    scan_tests: bool = Field(
        default=True, description="When tests are not part of the project, read the text of its "
        "test folders to tell definitions only tests use apart from unused ones.")
    read_docs: bool = Field(
        default=True, description="Read the project's `docs/` (reStructuredText, Markdown): a "
        "public name the documentation presents as API (autodoc, cross-references, inline "
        "code) is not reported.")
    ignore_names: tuple[str, ...] = Field(
        default=(), description="Glob patterns of names never reported (`visit_*`, `handle`).")
    ignore_decorators: tuple[str, ...] = Field(
        default=(), description="Glob patterns of decorators that mark a definition as used.")


# --------------------------------------------------------------------------------------------
# The detector.


def _private_module(module: str) -> bool:
    return any(part.startswith("_") and not is_dunder(part) for part in module.split("."))


def _severity(confidence: float, lines: int, large: int) -> Severity:
    if confidence >= 0.8 and lines >= large:
        return "error"
    return "warning" if confidence >= 0.5 else "info"


class DeadCode(Detector[DeadCodeOptions]):
    """Unused definitions, attributes, variables and imports; unreachable statements."""

    smell = Smell(
        name="dead_code",
        description=("Functions, classes, methods, attributes, variables and imports that nothing "
                     "in the repository uses, statements that can never run, and branches of "
                     "constant conditions."),
        phrases=(
            "dead code: definitions or branches that can never run or are never used",
            "dead code: code that nothing in the program reaches",
        ),
        smellbench_name="dead_code_elimination",
        needs_call_graph=False,
    )
    Options = DeadCodeOptions
    _by_path: dict[str, str]
    _dead: set[str]
    _doctests: dict[str, frozenset[str]]
    examples = (
        Example(
            "a private helper nothing calls, in a two-module package",
            {"pkg/__init__.py": "from pkg.core import run\n",
             "pkg/core.py": "from pkg.util import used\n\n\ndef run():\n    return used()\n",
             "pkg/util.py": "def used():\n    return 1\n\n\ndef _stale(x):\n    return x * 2\n"},
            ("pkg.util._stale",)),
        Example(
            "code after a return, and an `if False:` branch",
            {"app.py": ("def f(x):\n    return x\n    print('never')\n\n\n"
                        "def g(x):\n    if False:\n        x += 1\n    return x\n\n\n"
                        "if __name__ == '__main__':\n    g(f(1))\n")},
            ("app.f", "app.g")),
        Example(
            "a method called through getattr with a constant name, and a dispatch prefix",
            {"pkg/__init__.py": "from pkg.main import main\n",
             "pkg/ops.py": ("class Ops:\n    def run(self, kind):\n"
                            "        getattr(self, 'reset')()\n"
                            "        return getattr(self, f'do_{kind}')()\n\n"
                            "    def reset(self):\n        pass\n\n"
                            "    def do_add(self):\n        return 1\n"),
             "pkg/main.py": "from pkg.ops import Ops\n\n\ndef main():\n    Ops().run('add')\n"},
            ()),
        Example(
            "framework hooks, registering decorators and an entry point",
            {"pyproject.toml": ("[project]\nname = 'tool'\nversion = '1'\n\n[project.scripts]\n"
                                "tool = 'tool.cli:main'\n"),
             "tool/__init__.py": "",
             "tool/cli.py": ("import ast\nimport unittest\n\nREGISTRY = {}\n\n\n"
                             "def register(f):\n    REGISTRY[f.__name__] = f\n    return f\n\n\n"
                             "@register\ndef _plugin():\n    return 1\n\n\n"
                             "class _Names(ast.NodeVisitor):\n"
                             "    def visit_Name(self, node):\n        print(node.id)\n\n\n"
                             "class _Case(unittest.TestCase):\n    def setUp(self):\n"
                             "        self.x = 1\n\n    def test_x(self):\n"
                             "        assert self.x\n\n\n"
                             "def main():\n    _Names().visit(pyast.parse('a'))\n"
                             "    return REGISTRY, _Case\n")},
            ()),
    )

    def detect(self, context: Context) -> Iterable[Finding]:
        options = self.options
        usage = usage_of(context, scan_tests=options.scan_tests, read_docs=options.read_docs)
        classes = ClassFacts(context)
        library = any(facts.is_package for facts in context.index.modules.values())
        self._by_path = {facts.path: facts.module for facts in context.index.modules.values()}
        self._dead = set()
        self._doctests = {}
        for facts in sorted(context.index.modules.values(), key=lambda item: item.path):
            found: list[Finding] = []
            found.extend(self._definitions(context, facts, usage, classes, library))
            if options.attributes:
                found.extend(self._attributes(context, facts, usage, classes, library))
            if options.variables:
                found.extend(self._variables(context, facts, usage, library))
            if options.imports:
                found.extend(self._imports(context, facts, usage))
            if options.unreachable:
                found.extend(self._unreachable(context, facts))
            for finding in found:
                if not options.public_api and PUBLIC_API_REASONS.intersection(
                        finding.evidence.get("confidence_reasons", ())):
                    continue
                if finding.confidence >= options.min_confidence and not any(
                        fnmatch.fnmatchcase(finding.location.qualname.rpartition(".")[2],
                                            pattern) for pattern in options.ignore_names):
                    yield finding

    # -- rules -----------------------------------------------------------------------------

    def _in_doctests(self, context: Context, facts: FileFacts, name: str) -> bool:
        """The module's own doctest examples read `name` (its lines read once, when asked)."""
        names = self._doctests.get(facts.path)
        if names is None:
            names = self._doctests[facts.path] = doctest_names(context.lines(facts.path))
        return name in names

    def _hook(self, definition: Definition, facts: FileFacts, usage: Usage) -> str | None:
        name = definition.name
        if is_dunder(name) or is_sunder(name):
            return "dunder"
        if name in HOOK_NAMES or name.startswith(HOOK_PREFIXES):
            return "framework hook"
        if is_test_path(facts.path) and (name.startswith("test") or name.startswith("Test")):
            return "test"
        if name.startswith(usage.prefixes):
            return "name built at run time from a prefix"
        return None

    def _definitions(self, context: Context, facts: FileFacts, usage: Usage, classes: ClassFacts,
                     library: bool) -> Iterator[Finding]:
        index = context.index
        in_tests = is_test_path(facts.path)
        for definition in facts.definitions:
            kind = definition.kind
            if kind == "lambda":
                continue
            name, qualname = definition.name, definition.qualname
            if index.definitions.get(qualname) is not definition:
                continue  # a redefinition under the same name (platform branches): not judged
            if definition.parent in self._dead:
                self._dead.add(qualname)  # inside a dead definition: reported with it
                continue
            if kind == "nested_function":
                if name in usage.by_module.get(facts.module, ()):
                    continue
            elif (name in usage.prod or (in_tests and name in usage.test)
                  or usage.named_by_string(name, facts.path, (definition.start_line,))):
                continue  # helpers of tests exist for the tests: their use counts in full
            if qualname in usage.exported or qualname in usage.imported or \
                    qualname in usage.entry_points or name in usage.entry_points or \
                    self._hook(definition, facts, usage) is not None:
                continue
            cls = index.class_of.get(qualname)
            if _documented(name, cls, usage) or self._in_doctests(context, facts, name):
                continue
            decorated = decorator_verdict(context, facts, definition,
                                          self.options.ignore_decorators)
            if decorated == "used":
                continue
            reasons: list[str] = []
            if kind == "method" and cls is not None:
                if classes.is_protocol(cls) or duck_typed(name, index.children.get(cls, {})):
                    continue
                override = classes.override_of_outside(cls, name)
                if override == "known" or (cls in usage.entry_points and not name.startswith("_")):
                    continue  # an override, or the API of a class an entry point hands out
                if name.startswith("test") and any(
                        base.endswith("TestCase") for base in classes.outside_bases(cls)):
                    continue
                confidence = self._method_confidence(definition, cls, facts, library, reasons)
                if override == "possible":
                    if not name.startswith("_"):
                        continue
                    confidence *= 0.5
                    reasons.append("its class has an outside base it may override")
            elif kind == "class":
                if classes.registered(qualname):
                    continue
                confidence = self._module_level_confidence(name, facts, library, reasons)
            elif kind == "nested_function":
                confidence = 0.9
                reasons.append("a nested function is visible only in its file")
            else:
                confidence = self._module_level_confidence(name, facts, library, reasons)
            if decorated == "unknown":
                confidence *= 0.7
                reasons.append("a decorator may register it")
            test_users = usage.used_by_tests(name) if name in usage.test else []
            if test_users:
                confidence = min(confidence, self.options.test_only_confidence)
                reasons.append("only tests use it")
            self._dead.add(qualname)
            yield self._definition_finding(context, facts, definition, confidence, reasons,
                                           test_users)

    def _module_level_confidence(self, name: str, facts: FileFacts, library: bool,
                                 reasons: list[str]) -> float:
        if name.startswith("_"):
            reasons.append("a private name nothing references")
            return 0.9
        if library and not _private_module(facts.module) and not is_test_path(facts.path):
            if facts.dunder_all is not None:
                reasons.append("public name left out of the module's __all__")
                return max(0.6, self.options.public_api_confidence)
            reasons.append(_PUBLIC_NAME)
            return self.options.public_api_confidence
        reasons.append("public name in a private module or an application")
        return 0.7

    def _method_confidence(self, definition: Definition, cls: str, facts: FileFacts,
                           library: bool, reasons: list[str]) -> float:
        if definition.name.startswith("_"):
            reasons.append("a private method nothing references")
            return 0.85
        class_name = cls.rpartition(".")[2]
        if class_name.startswith("_") or not library or _private_module(facts.module) or \
                is_test_path(facts.path):
            reasons.append("public method of a private class or module")
            return 0.6
        reasons.append(_PUBLIC_METHOD)
        return self.options.public_api_confidence

    def _definition_finding(self, context: Context, facts: FileFacts, definition: Definition,
                            confidence: float, reasons: list[str],
                            test_users: list[str]) -> Finding:
        location = context.location(definition.qualname)
        assert location is not None
        lines = definition.end_line - definition.start_line + 1
        what = definition.kind.replace("_", " ")
        message = f"{what.capitalize()} `{definition.qualname}` is never used"
        message += (": only tests reference it." if test_users else
                    ": nothing in the repository calls, reads, imports or names it.")
        modules = self._by_path
        related = tuple(context.location(modules[path]) or location for path in test_users
                        if path in modules)
        return Finding(
            smell=self.name, location=location,
            severity=_severity(confidence, lines, self.options.large_lines),
            confidence=round(confidence, 3), message=message,
            evidence={"rule": "no reference by name, attribute, string, import, export, entry "
                              "point or resolved call outside tests",
                      "kind": definition.kind, "references": 0, "lines": lines,
                      "confidence_reasons": reasons, "test_files": test_users[:10]},
            related=related)

    def _attributes(self, context: Context, facts: FileFacts, usage: Usage, classes: ClassFacts,
                    library: bool) -> Iterator[Finding]:
        index = context.index
        in_tests = is_test_path(facts.path)
        for info in facts.classes:
            if index.classes.get(info.qualname) is not info or info.qualname in self._dead:
                continue
            writes: dict[str, list[int]] = {}
            kinds: dict[str, str] = {}
            for attribute in info.attributes:
                writes.setdefault(attribute.name, []).append(attribute.line)
                kinds.setdefault(attribute.name, attribute.kind)
            members = index.children.get(info.qualname, {})
            for name in sorted(writes):
                if (is_dunder(name) or is_sunder(name) or name in usage.prod or name in members
                        or (in_tests and name in usage.test)
                        or usage.named_by_string(name, facts.path, writes[name])
                        or name.startswith(usage.prefixes)
                        or name in HOOK_NAMES or name.startswith(HOOK_PREFIXES)):
                    continue
                if _documented(name, info.qualname, usage) or \
                        self._in_doctests(context, facts, name):
                    continue
                if kinds[name] == "class" and (not name.startswith("_")
                                               or classes.is_data_class(info.qualname)):
                    continue
                if classes.override_of_outside(info.qualname, name) is not None and \
                        not name.startswith("_"):
                    continue
                if classes.override_of_outside(info.qualname, name) == "known":
                    continue
                if any(attribute.name == name and attribute.scope == f"{info.qualname}.__init__"
                       for attribute in info.attributes) and \
                        classes.replaces_outside_init(info.qualname, facts):
                    continue  # the state of the outside base its constructor stands in for
                reasons: list[str] = []
                if name.startswith("_"):
                    confidence = 0.8
                    reasons.append("a private attribute written but never read")
                elif (library and not info.qualname.rpartition(".")[2].startswith("_")
                      and not _private_module(facts.module)):
                    confidence = self.options.public_api_confidence
                    reasons.append(_PUBLIC_ATTRIBUTE)
                else:
                    confidence = 0.6
                    reasons.append("public attribute of a private class or module")
                tests = usage.used_by_tests(name) if name in usage.test else []
                if tests:
                    confidence = min(confidence, self.options.test_only_confidence)
                    reasons.append("only tests read it")
                lines = sorted(writes[name])
                qualname = f"{info.qualname}.{name}"
                location = context.line_location(qualname, facts.path, lines[0], "attribute")
                related = tuple(context.line_location(qualname, facts.path, line, "attribute")
                                for line in lines[1:])
                yield Finding(
                    smell=self.name, location=location,
                    severity=_severity(confidence, 1, self.options.large_lines),
                    confidence=round(confidence, 3),
                    message=f"Attribute `{name}` of `{info.qualname}` is written "
                            f"{len(lines)} time(s) but never read.",
                    evidence={"rule": "attribute written, never read by name, attribute or "
                                      "string", "kind": "attribute", "writes": len(lines),
                              "confidence_reasons": reasons, "test_files": tests[:10]},
                    related=related)

    def _variables(self, context: Context, facts: FileFacts, usage: Usage,
                   library: bool) -> Iterator[Finding]:
        if sphinx_conf(facts):
            return  # Sphinx reads the module's namespace: every variable is configuration
        index = context.index
        module = facts.module
        defined = index.children.get(module, {})
        seen: dict[str, list[int]] = {}
        for assignment in facts.assignments:
            target = assignment.target
            if assignment.scope != module or not isinstance(target, Name):
                continue
            name = target.id
            value = assignment.value
            if isinstance(value, (DefRef, Iter)) or (isinstance(value, Unknown)
                                                     and assignment.annotation):
                continue
            seen.setdefault(name, []).append(assignment.line)
        globals_declared = {name for _, name in facts.globals_declared}
        in_tests = is_test_path(facts.path)
        for name in sorted(seen):
            if (is_dunder(name) or name == "_" or name in defined or name in usage.prod
                    or (in_tests and name in usage.test)
                    or name in HOOK_VARIABLES or _documented(name, None, usage)
                    or usage.named_by_string(name, facts.path, seen[name])
                    or name in globals_declared or name in (facts.dunder_all or ())
                    or f"{module}.{name}" in usage.exported or f"{module}.{name}" in usage.imported
                    or name.startswith(usage.prefixes)
                    or self._in_doctests(context, facts, name)):
                continue
            reasons: list[str] = []
            confidence = self._module_level_confidence(name, facts, library, reasons)
            tests = usage.used_by_tests(name) if name in usage.test else []
            if tests:
                confidence = min(confidence, self.options.test_only_confidence)
                reasons.append("only tests read it")
            lines = sorted(seen[name])
            qualname = f"{module}.{name}"
            yield Finding(
                smell=self.name,
                location=context.line_location(qualname, facts.path, lines[0], "attribute"),
                severity=_severity(confidence, 1, self.options.large_lines),
                confidence=round(confidence, 3),
                message=f"Module variable `{qualname}` is assigned but never read.",
                evidence={"rule": "module-level name assigned, never read by name, attribute, "
                                  "string or import", "kind": "variable",
                          "assignments": len(lines), "confidence_reasons": reasons,
                          "test_files": tests[:10]},
                related=tuple(context.line_location(qualname, facts.path, line, "attribute")
                              for line in lines[1:]))

    def _imports(self, context: Context, facts: FileFacts, usage: Usage) -> Iterator[Finding]:
        if facts.is_package or facts.module.rpartition(".")[2] == "__main__":
            return
        index = context.index
        reported: set[tuple[str, str]] = set()
        for item in facts.imports:
            bound = item.bound
            if (bound == "*" or "." in bound or import_used(usage, facts, bound)
                    or item.target.startswith("__future__") or (item.scope, bound) in reported
                    or (item.scope == facts.module and self._in_doctests(context, facts, bound))):
                continue
            reported.add((item.scope, bound))
            resolved = index.resolve_dotted(item.target)
            module_import = not item.is_from or item.target in index.modules or (
                resolved is not None and resolved in index.modules)
            if module_import:
                confidence = 0.6
                reason = "a module import may be kept for its side effects"
            else:
                confidence = 0.9
                reason = "the imported name is never read in this module"
            qualname = f"{item.scope}.{bound}"
            related: tuple[Location, ...] = ()
            if resolved is not None and resolved in index.definitions:
                target = context.location(resolved)
                related = (target,) if target is not None else ()
            yield Finding(
                smell=self.name,
                location=context.line_location(qualname, facts.path, item.line, "statement"),
                severity=_severity(confidence, 1, self.options.large_lines),
                confidence=confidence,
                message=f"Import of `{item.target}` as `{bound}` in `{facts.module}` is never "
                        "used.",
                evidence={"rule": "imported name never read in the importing module",
                          "kind": "import", "target": item.target,
                          "type_only": item.type_only, "confidence_reasons": [reason]},
                related=related)

    def _unreachable(self, context: Context, facts: FileFacts) -> Iterator[Finding]:
        for span in facts.liveness.unreachable:
            lines = span.end - span.start + 1
            constant = span.reason in ("false", "true")
            confidence = 0.9 if constant else 0.95
            scope = span.scope or facts.module
            yield Finding(
                smell=self.name,
                location=context.line_location(scope, facts.path, span.start, "statement",
                                               span.end),
                severity=_severity(confidence, lines, self.options.large_lines),
                confidence=confidence,
                message=f"Lines {span.start}-{span.end} of `{scope}` can never run: "
                        f"{_REASONS.get(span.reason, span.reason)}.",
                evidence={"rule": "constant condition" if constant else "unreachable statement",
                          "kind": "unreachable", "reason": span.reason, "lines": lines})


_DOCS_FOLDERS = frozenset({"doc", "docs", "documentation", "sphinx"})
_SPHINX_SETTINGS = frozenset({"extensions", "html_theme", "project", "master_doc",
                              "root_doc", "templates_path", "html_static_path"})


def sphinx_conf(facts: FileFacts) -> bool:
    """A Sphinx `conf.py`: in a documentation folder, or setting Sphinx's own variables."""
    parts = facts.path.split("/")
    if parts[-1] != "conf.py":
        return False
    if _DOCS_FOLDERS.intersection(part.lower() for part in parts[:-1]):
        return True
    assigned = {item.target.id for item in facts.assignments
                if item.scope == facts.module and isinstance(item.target, Name)}
    return len(assigned & _SPHINX_SETTINGS) >= 2


def _documented(name: str, cls: str | None, usage: Usage) -> bool:
    """A public name the documentation presents as API, or a member of a class documented
    with all its members."""
    if name.startswith("_"):
        return False
    return name in usage.documented or (
        cls is not None and cls.rpartition(".")[2] in usage.documented_classes)
