"""Shotgun surgery: one change that must be made in many classes and files at once.

Three forms, each reported at the one place a change starts, with every place it reaches in
`related` (one location per line):

- **callers** (off unless `callers` is set: many callers of one definition is usually the cure,
  a stable utility, not scattered knowledge; Lanza and Marinescu, "Object-Oriented Metrics in
  Practice", 2006): a function or
  method called by more than `max-changing-methods` distinct functions (CM, changing methods) in
  more than `max-changing-classes` distinct classes (CC, changing classes: a module-level caller
  counts as its module; the callee's own class does not count). Left out as stable by nature: tiny
  leaf helpers (at most `tiny-lines` source lines, no branch, no call into the repository),
  logging getters, dunder methods, constructors, and callers in tests.
- **literals**: one string literal written in at least `min-literal-files` modules (and
  `min-literal-occurrences` times): renaming the key or option means editing every copy. Prose,
  format strings, forward-reference annotations and names of the repository's own definitions,
  dunders, and common vocabulary (encodings, file modes, platforms, dtype names) are ignored. A
  constant defined once and imported by name is the cure: its single literal is never reported.
  Only a value some named constant of the repository holds is reported (the knowledge has a
  name, the copies bypass it); without one a repeated literal is mostly protocol or library
  vocabulary (`'Content-Length'`, `'store_true'`), reported only with `unnamed-literals`.
- **registry keys**: the same string key used on the same module-level or class-level mapping
  (`REGISTRY["csv"]`, `self.handlers["csv"]`, `registry.get("csv")`) in at least
  `min-registry-files` modules. A key reported this way is not reported again as a literal.
- **bypassed constants**: a module-level string constant (`RETRY_KEY = "retry_limit"`, bound
  once) whose value other modules spell out as a literal at least `min-constant-copies` times:
  the constant was meant to be the one place to change, and the copies will not follow it. A
  constant made by `intern("...")`/`sys.intern("...")` counts. A literal passed as the attribute
  name of `getattr`/`hasattr`/`setattr`/`delattr` is not a copy, unless code passes the constant
  itself as an attribute name (`getattr(meta, "exclude")` is a Meta option, not `EXCLUDE`). A
  copy counts in a module that imports from the constant's module, or anywhere when the value is
  more than one plain lowercase word (`"param"` elsewhere may mean something else). A constant
  named as a default (`DEFAULT_ROLE = "title-reference"`) names a choice, not the value: the
  value written elsewhere is the thing chosen, no copy of the choice. Reported at the first copy;
  not reported again as a literal.
- **bypassed helpers**: a module-level function whose body is one distinctive expression
  (`return len(strip_ansi(x))`) that other modules write out again at least `min-helper-copies`
  times, its names meaning the same there: a change of the rule misses the copies
  (`_shotgun_surgery_helpers`). Reported at the first copy.
- **bypassed decorators**: a decorator that only marks what it decorates (`f.attr = value` or
  `registry.add(f)`, then `return f`) written out by hand after definitions of other modules at
  least `min-helper-copies` times (`_shotgun_surgery_markers`). Reported at the first copy.
- **bypassed type aliases**: a module-level type alias (`Names = Union[Sequence[str],
  AbstractSet[str]]`) whose expansion annotations of other modules write out at least
  `min-alias-copies` times instead of naming it (`_shotgun_surgery_aliases`). Reported at the
  first copy.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator

from pydantic import Field

from smellkit.analysis.context import Context
from smellkit.analysis.keys import COMMON_LITERALS, DTYPE, KEY_LIKE, Registries, Scopes
from smellkit.analysis.smells import Smell
from smellkit.config import is_test_path
from smellkit.detectors.base import Detector, DetectorOptions, Example
from smellkit.detectors.shotgun_surgery.aliases import ALIAS_EXAMPLES, alias_findings
from smellkit.detectors.shotgun_surgery.constants import (
    attribute_name_constants,
    attribute_name_lines,
    imports_from,
    string_constants,
)
from smellkit.detectors.shotgun_surgery.helpers import (
    HELPER_EXAMPLES,
    helper_copies,
    helper_findings,
    severity_of,
)
from smellkit.detectors.shotgun_surgery.markers import MARKER_EXAMPLES, marker_findings
from smellkit.models import Finding, Location


def _names(qualnames: list[str]) -> str:
    return ", ".join(f"`{name}`" for name in qualnames[:3]) + (
        f" and {len(qualnames) - 3} more" if len(qualnames) > 3 else "")


_LOGGING = re.compile(r"_?(get_?logger|getLogger|logger|log)", re.I)


def places_text(finding: Finding) -> str:
    """Every place of a finding (its location, then the related ones), by file: `a.py:3, 9;
    b.py:12`, so the message names each place the knowledge is written."""
    lines: dict[str, list[int]] = {}
    for location in (finding.location, *finding.related):
        found = lines.setdefault(location.path, [])
        if location.start_line not in found:
            found.append(location.start_line)
    return "; ".join(f"{path}:{', '.join(str(line) for line in sorted(found))}"
                     for path, found in lines.items())


def names_a_choice(constant: str) -> bool:
    """`DEFAULT_INTERPRETED_ROLE`, `ENCODING_DEFAULT`: the constant says which value is chosen."""
    return "DEFAULT" in constant.rpartition(".")[2].upper().split("_")


class ShotgunSurgeryOptions(DetectorOptions):
    callers: bool = Field(
        default=False, description="Report functions with many callers in many classes (the "
        "Lanza-Marinescu form). Off by default: many callers of one definition is usually the "
        "cure for scattered knowledge (a stable utility), and on the labelled corpus none of "
        "these findings was right.")
    max_changing_methods: int = Field(
        default=7, ge=0, description="CM threshold (Lanza-Marinescu's short memory cap): a "
        "function called by more distinct functions than this may be shotgun surgery.")
    max_changing_classes: int = Field(
        default=5, ge=0, description="CC threshold: ... and its callers sit in more distinct "
        "classes (a module-level caller counts as its module) than this.")
    min_caller_files: int = Field(
        default=2, ge=1, description="The callers must also span at least this many files.")
    skip_leaf_functions: bool = Field(
        default=True, description="Functions that call nothing in the repository (leaf "
        "utilities such as a warning-level finder or a flag getter) are stable by nature: "
        "nothing inside can ripple into them. Not reported for their callers.")
    tiny_lines: int = Field(
        default=3, ge=0, description="A branch-free leaf function of at most this many source "
        "lines is a stable utility, never reported for its callers.")
    include_constructors: bool = Field(
        default=False, description="Also count calls of classes (constructors).")
    literals: bool = Field(default=True, description="Report string literals scattered "
                                                      "across modules.")
    min_literal_files: int = Field(
        default=4, ge=2, description="A literal must appear in at least this many modules.")
    min_literal_occurrences: int = Field(
        default=6, ge=2, description="... and at least this many times in all.")
    min_literal_length: int = Field(
        default=4, ge=1, description="Shorter literals are ignored.")
    unnamed_literals: bool = Field(
        default=False, description="Also report repeated literals no named constant of the "
        "repository holds. Off by default: without a constant they are mostly protocol or "
        "library vocabulary (`'Content-Length'`, `'store_true'`), not the project's knowledge.")
    plain_words: bool = Field(
        default=False, description="Also report literals that are one plain lowercase word "
        "(`context`, `root`): those often mean different things in different modules.")
    ignore_literals: tuple[str, ...] = Field(
        default=(), description="Extra literal values never reported (exact strings).")
    registries: bool = Field(
        default=True, description="Report string keys of one registry used across modules.")
    min_registry_files: int = Field(
        default=3, ge=2, description="A registry key must be used in at least this many modules.")
    constants: bool = Field(default=True, description="Report string constants whose value "
                                                      "other modules write out as literals.")
    min_constant_copies: int = Field(
        default=2, ge=1, description="A bypassed constant needs at least this many literal "
        "copies in other modules.")
    helpers: bool = Field(default=True, description="Report one-expression helpers whose "
                          "expression other modules write out instead of calling them, and "
                          "marking decorators they write out instead of applying them.")
    min_helper_copies: int = Field(
        default=2, ge=1, description="A bypassed helper needs at least this many copies of its "
        "expression in other modules.")
    aliases: bool = Field(default=True, description="Report type aliases whose expansion the "
                          "annotations of other modules write out instead of naming the alias.")
    min_alias_copies: int = Field(
        default=2, ge=1, description="A bypassed type alias needs at least this many annotations "
        "writing it out in other modules.")


class ShotgunSurgery(Detector[ShotgunSurgeryOptions]):
    """Changes that ripple into many classes and files."""

    smell = Smell(
        name="shotgun_surgery",
        description=("A function whose callers are spread over many functions, classes and files "
                     "(Lanza-Marinescu CM/CC), or a string key repeated across modules: one change "
                     "means editing all of them."),
        phrases=(
            "shotgun surgery: one small responsibility spread over many places, so a change to "
            "it means edits in many files",
            "shotgun surgery: a piece of knowledge repeated across files instead of living in "
            "one place",
        ),
        needs_call_graph=True,
    )
    Options = ShotgunSurgeryOptions
    early = (helper_copies,)
    _ambiguity: dict[str, set[tuple[int, str]]]
    examples = (
        Example(
            "a function called from nine functions in six classes of three files (with the "
            "callers form turned on)",
            {"pyproject.toml": ("[project]\nname = 'pkg'\nversion = '1'\n\n"
                                "[tool.smellkit.detectors.shotgun_surgery]\ncallers = true\n"),
             "pkg/__init__.py": "",
             "pkg/money.py": ("def _symbol(currency):\n"
                              "    return {'EUR': 'E', 'USD': '$'}.get(currency, currency)\n\n\n"
                              "def format_price(amount, currency):\n"
                              "    if amount < 0:\n        raise ValueError(amount)\n"
                              "    return f'{amount:.2f} {_symbol(currency)}'\n"),
             **{f"pkg/view{n}.py": "from pkg.money import format_price\n\n\n" + "\n\n".join(
                 f"class V{n}{k}:\n    def show(self, x):\n"
                 f"        return format_price(x, 'EUR')\n" for k in range(3))
                for n in range(3)}},
            ("pkg.money.format_price",)),
        Example(
            "the same option key spelled out in four modules, though two modules name it",
            {"pkg/__init__.py": "",
             **{f"pkg/m{n}.py": (f"RETRY = 'retry_limit'\n\n\ndef read{n}(options):\n"
                                 f"    return options['retry_limit'], options['retry_limit']\n")
                for n in range(2)},
             **{f"pkg/m{n}.py": (f"def read{n}(options):\n"
                                 f"    return options['retry_limit'], options['retry_limit']\n")
                for n in range(2, 4)}},
            ("pkg.m0",)),
        Example(
            "a protocol header written in four modules, with no constant for it anywhere",
            {"pkg/__init__.py": "",
             "pkg/read.py": ("def body(stream, headers):\n"
                             "    return stream.read(int(headers['Content-Length']))\n"),
             "pkg/write.py": ("def send(sock, data):\n"
                              "    sock.send({'Content-Length': str(len(data))})\n"
                              "    sock.send(data)\n"),
             "pkg/proxy.py": ("def forward(headers, out):\n"
                              "    out['Content-Length'] = headers['Content-Length']\n"
                              "    del headers['Content-Length']\n"),
             "pkg/check.py": ("def empty(headers):\n"
                              "    return headers.get('Content-Length', '0') == '0'\n")},
            ()),
        Example(
            "a tiny stable helper called everywhere is not shotgun surgery",
            {"pkg/__init__.py": "",
             "pkg/util.py": "def identity(x):\n    return x\n",
             **{f"pkg/view{n}.py": "from pkg.util import identity\n\n\n" + "\n\n".join(
                 f"class V{n}{k}:\n    def show(self, x):\n        return identity(x)\n"
                 for k in range(3)) for n in range(3)}},
            ()),
        Example(
            "a constant's value written out again where the constant should be imported",
            {"pkg/__init__.py": "",
             "pkg/keys.py": "RETRY_LIMIT = 'retry_limit'\nTIMEOUT = 'timeout_seconds'\n",
             "pkg/client.py": ("from pkg.keys import TIMEOUT\n\n\n"
                               "def limits(options):\n"
                               "    return options['retry_limit'], options[TIMEOUT]\n\n\n"
                               "def reset(options):\n    options.pop('retry_limit')\n")},
            ("pkg.client.limits",)),
        Example(
            "one plain word in a module that does not import the constant is another word",
            {"pkg/__init__.py": "",
             "pkg/modes.py": "PARAM = 'param'\n",
             "pkg/html.py": "def tag(name):\n    return {'param': name, 'kind': 'param'}\n"},
            ()),
        Example(
            "a constant defined once and imported by name is the cure",
            {"pkg/__init__.py": "",
             "pkg/keys.py": "RETRY_LIMIT = 'retry_limit'\n",
             **{f"pkg/m{n}.py": ("from pkg.keys import RETRY_LIMIT\n\n\n"
                                 f"def read{n}(options):\n    return options[RETRY_LIMIT]\n")
                for n in range(4)}},
            ()),
        *HELPER_EXAMPLES,
        *MARKER_EXAMPLES,
        *ALIAS_EXAMPLES,
    )

    def detect(self, context: Context) -> Iterable[Finding]:
        for finding in self._findings(context):
            yield finding.model_copy(update={
                "message": f"{finding.message} Places: {places_text(finding)}."})

    def _findings(self, context: Context) -> Iterator[Finding]:
        if self.options.callers:
            yield from self._callers(context)
        keys: set[str] = set()
        if self.options.registries:
            for finding in self._registries(context):
                keys.add(str(finding.evidence["key"]))
                yield finding
        if self.options.constants:
            for finding in self._constants(context, keys):
                keys.add(str(finding.evidence["key"]))
                yield finding
        if self.options.literals:
            yield from self._literals(context, keys)
        if self.options.helpers:
            yield from helper_findings(context, self.options.min_helper_copies)
            yield from marker_findings(context, self.options.min_helper_copies)
        if self.options.aliases:
            yield from alias_findings(context, self.options.min_alias_copies)

    # -- callers (Lanza-Marinescu) ----------------------------------------------------------

    def _stable(self, context: Context, qualname: str) -> str | None:
        """Why a callee is stable by nature, or None."""
        definition = context.index.definitions[qualname]
        name = definition.name
        if name.startswith("__") and name.endswith("__"):
            return "dunder"
        if _LOGGING.fullmatch(name):
            return "logging getter"
        graph = context.call_graph
        leaf = not any(not graph.nodes[callee].get("external", False)
                       for callee in graph.successors(qualname))
        if leaf and self.options.skip_leaf_functions:
            return "leaf"
        measure = definition.measure
        if leaf and measure is not None and measure.sloc <= self.options.tiny_lines and \
                measure.cc <= 1:
            return "tiny"
        return None

    def _ambiguous(self, context: Context, caller: str) -> set[tuple[int, str]]:
        """(line, name) of the caller's sites that resolved to several definitions of one name:
        points-to could not tell which class's method runs, so no single one is charged."""
        found = self._ambiguity.get(caller)
        if found is None:
            definitions = context.index.definitions
            graph = context.call_graph
            seen: dict[tuple[int, str], int] = {}
            for callee, data in graph.succ[caller].items():
                definition = definitions.get(callee)
                if definition is None:
                    continue
                for line in data.get("lines", ()):
                    key = (line, definition.name)
                    seen[key] = seen.get(key, 0) + 1
            found = self._ambiguity[caller] = {key for key, count in seen.items() if count > 1}
        return found

    def _callers(self, context: Context) -> Iterator[Finding]:
        index = context.index
        graph = context.call_graph
        options = self.options
        self._ambiguity = {}
        tests: dict[str, bool] = {}
        units: dict[str, str] = {}
        paths: dict[str, str | None] = {}

        def path_of(qualname: str) -> str | None:
            if qualname not in paths:
                facts = context.file_of(qualname)
                paths[qualname] = facts.path if facts is not None else None
            return paths[qualname]

        def in_tests(path: str) -> bool:
            if path not in tests:
                tests[path] = is_test_path(path)
            return tests[path]

        kinds = {"function", "method"} | ({"class"} if options.include_constructors else set())
        candidates = [node for node, degree in graph.in_degree()
                      if degree > options.max_changing_methods]
        for callee in sorted(candidates):
            definition = index.definitions.get(callee)
            if definition is None or definition.kind not in kinds:
                continue
            callee_path = path_of(callee)
            if callee_path is None or in_tests(callee_path):
                continue
            if self._stable(context, callee) is not None:
                continue
            own_class = index.class_of.get(callee, callee if definition.kind == "class" else None)
            family = self._family(context, own_class)
            methods: list[str] = []
            classes: set[str] = set()
            files: set[str] = set()
            sites: list[tuple[str, str, int]] = []
            name = definition.name
            for caller, data in graph.pred[callee].items():
                if caller == callee or caller.startswith(callee + "."):
                    continue
                caller_path = path_of(caller)
                if caller_path is None or in_tests(caller_path):
                    continue
                unit = units.get(caller)
                if unit is None:
                    unit = units[caller] = self._unit(context, caller)
                if unit in family:
                    continue  # its own class hierarchy: overrides calling `super()`, templates
                ambiguous = self._ambiguous(context, caller)
                lines = [line for line in data.get("lines", ()) or (0,)
                         if (line, name) not in ambiguous]
                if not lines:
                    continue
                methods.append(caller)
                classes.add(unit)
                files.add(caller_path)
                sites.extend((caller_path, caller, line) for line in lines)
            cm, cc = len(methods), len(classes)
            if (cm <= options.max_changing_methods or cc <= options.max_changing_classes
                    or len(files) < options.min_caller_files):
                continue
            location = context.location(callee)
            assert location is not None
            related = tuple(self._site(context, path, caller, line)
                            for path, caller, line in sorted(
                                sites, key=lambda site: (site[0], site[2], site[1])))
            ratio = min(cm / max(options.max_changing_methods, 1),
                        cc / max(options.max_changing_classes, 1))
            overridden = self._polymorphic(context, callee)
            exported = self._exported(context, callee)
            confidence = 0.8
            if overridden:
                confidence -= 0.2
            if exported:
                confidence -= 0.3
            yield Finding(
                smell=self.name, location=location, severity="error" if ratio >= 2.0 else "warning",
                confidence=round(confidence, 2),
                message=(f"`{callee}` is called by {cm} functions in {cc} other classes or "
                         f"modules across {len(files)} files: changing it means editing all of "
                         "them."),
                evidence={"rule": f"CM > {options.max_changing_methods} and CC > "
                                  f"{options.max_changing_classes}",
                          "form": "callers", "cm": cm, "cc": cc, "files": len(files),
                          "call_sites": len(sites), "polymorphic": overridden,
                          "public_api": exported,
                          "changing_classes": sorted(classes)[:50]},
                related=related)

    @staticmethod
    def _family(context: Context, cls: str | None) -> set[str]:
        """A class with its ancestors and descendants in the repository."""
        if cls is None:
            return set()
        index = context.index
        family = {base for base in index.mro(cls) if base in index.classes}
        family.update(index.descendants(cls))
        return family

    @staticmethod
    def _exported(context: Context, qualname: str) -> bool:
        """Public API re-exported by its top-level package: its signature is frozen by outside
        users anyway, so many inside callers add little risk."""
        index = context.index
        top = index.scope_module(qualname).split(".")[0]
        package = index.modules.get(top)
        if package is None or not package.is_package:
            return False
        name = index.definitions[qualname].name
        return any(item.bound == name and index.resolve_dotted(item.target) == qualname
                   for item in package.imports) or name in (package.dunder_all or ())

    def _unit(self, context: Context, caller: str) -> str:
        """The class a caller belongs to, or its module for module-level code."""
        index = context.index
        scope = caller
        while scope in index.definitions:
            cls = index.class_of.get(scope)
            if cls is not None:
                return cls
            parent = index.definitions[scope].parent
            if parent in index.classes:
                return parent
            scope = parent
        return index.scope_module(caller)

    def _polymorphic(self, context: Context, qualname: str) -> bool:
        index = context.index
        cls = index.class_of.get(qualname)
        if cls is None:
            return False
        name = index.definitions[qualname].name
        if any(index.lookup_method(base, name) for base in index.mro(cls)[1:]
               if base in index.classes):
            return True
        return any(name in index.children.get(sub, {}) for sub in index.subclasses(cls))

    @staticmethod
    def _site(context: Context, path: str, qualname: str, line: int) -> Location:
        if line <= 0:
            found = context.location(qualname)
            if found is not None:
                return found
        return context.line_location(qualname, path, max(line, 1))

    # -- literals ---------------------------------------------------------------------------

    def _ignored_literal(self, value: str, names: set[str]) -> bool:
        if self.ignored_value(value):
            return True
        if not self.options.plain_words and value.isalpha() and value.islower():
            return True
        last = value.replace(":", ".").rpartition(".")[2]
        return value in names or last in names  # a forward reference or a definition's name

    def _literal_sites(self, context: Context) -> dict[str, list[tuple[str, int]]]:
        names = {definition.name for definition in context.index.definitions.values()}
        for facts in context.index.modules.values():  # outside types too: "Timestamp"
            names.update(item.bound for item in facts.imports)
        names.update(module.rpartition(".")[2] for module in context.index.modules)
        names.update(context.index.modules)
        sites: dict[str, list[tuple[str, int]]] = defaultdict(list)
        ignored: dict[str, bool] = {}
        for facts in context.index.modules.values():
            if is_test_path(facts.path):
                continue
            for value, line in facts.string_constants:
                skip = ignored.get(value)
                if skip is None:
                    skip = ignored[value] = self._ignored_literal(value, names)
                if not skip:
                    sites[value].append((facts.module, line))
        return sites

    def _literals(self, context: Context, skip: set[str]) -> Iterator[Finding]:
        options = self.options
        scopes: dict[str, Scopes] = {}
        named = string_constants(context, interned=True)
        for value, found in sorted(self._literal_sites(context).items()):
            modules = {module for module, _ in found}
            holders = sorted(qualname for qualname, _, _ in named.get(value, ())
                             if not qualname.rpartition(".")[2].startswith("__")
                             and not names_a_choice(qualname))
            if ((not holders and not options.unnamed_literals) or value in skip
                    or len(modules) < options.min_literal_files
                    or len(found) < options.min_literal_occurrences):
                continue
            places: list[Location] = []
            for module, line in sorted(set(found), key=lambda item: (
                    context.index.modules[item[0]].path, item[1])):
                facts = context.index.modules[module]
                if module not in scopes:
                    scopes[module] = Scopes(facts)
                places.append(context.line_location(scopes[module].at(line), facts.path, line))
            ratio = min(len(modules) / options.min_literal_files,
                        len(found) / options.min_literal_occurrences)
            yield Finding(
                smell=self.name, location=places[0], severity=severity_of(ratio / 2),
                confidence=0.5 if len(modules) < 2 * options.min_literal_files else 0.6,
                message=(f"The literal {value!r} is written {len(found)} times in "
                         f"{len(modules)} modules: renaming it means editing every copy ("
                         + (f"{_names(holders)} already name it: use that)." if holders else
                            "define it once as a constant or an enum).")),
                evidence={"rule": f"literal in >= {options.min_literal_files} modules and >= "
                                  f"{options.min_literal_occurrences} places",
                          "form": "literal", "key": value, "occurrences": len(found),
                          "files": len(modules), "constants": holders},
                related=tuple(places[1:]))

    # -- bypassed constants -----------------------------------------------------------------

    def _constants(self, context: Context, skip: set[str]) -> Iterator[Finding]:
        index = context.index
        options = self.options
        defined = {value: owners[0] for value, owners in string_constants(
                       context, interned=True).items()
                   if len(owners) == 1 and value not in skip and not self.ignored_value(value)
                   and not names_a_choice(owners[0][0])}
        attribute_constants = attribute_name_constants(context)
        sites: dict[str, list[tuple[str, int, str]]] = defaultdict(list)
        for facts in index.modules.values():
            if is_test_path(facts.path):
                continue
            attribute_lines = attribute_name_lines(facts)
            for value, line in facts.string_constants:
                if value in defined and facts.module != defined[value][1] and (
                        line not in attribute_lines or defined[value][0] in attribute_constants):
                    sites[value].append((facts.path, line, facts.module))
        for value, (constant, module, line) in sorted(defined.items()):
            plain = value.isalpha() and value.islower()
            copies = sorted(site for site in sites.get(value, ())
                            if not plain or imports_from(context, site[2], module))
            if len(copies) < options.min_constant_copies:
                continue
            places = [context.line_location(Scopes(index.modules[other]).at(at), path, at)
                      for path, at, other in copies]
            files = {path for path, _, _ in copies}
            yield Finding(
                smell=self.name, location=places[0],
                severity=severity_of(len(copies) / options.min_constant_copies / 2),
                confidence=0.7,
                message=(f"`{constant}` names {value!r}, but {len(copies)} places in "
                         f"{len(files)} other modules write the literal instead: changing the "
                         "constant will not change them."),
                evidence={"rule": f"constant's value copied >= {options.min_constant_copies} "
                                  "times in other modules",
                          "form": "constant", "key": value, "constant": constant,
                          "occurrences": len(copies), "files": len(files)},
                related=(*places[1:], context.line_location(
                    constant, index.modules[module].path, line, "attribute")))

    def ignored_value(self, value: str) -> bool:
        """Too short, common vocabulary, a format string, a dunder or a dtype: not a key."""
        return (len(value) < self.options.min_literal_length or value in COMMON_LITERALS
                or value in self.options.ignore_literals or not KEY_LIKE.fullmatch(value)
                or "%" in value or "{" in value or (value.startswith("__")
                                                    and value.endswith("__"))
                or bool(DTYPE.fullmatch(value)))

    # -- registries -------------------------------------------------------------------------

    def _registries(self, context: Context) -> Iterator[Finding]:
        registries = Registries(context)
        uses = registries.uses()
        options = self.options
        for (registry, key), sites in sorted(uses.items()):
            files = {path for path, _, _ in sites}
            if len(files) < options.min_registry_files:
                continue
            places = [context.line_location(scope, path, line) for path, scope, line in
                      sorted(sites, key=lambda site: (site[0], site[2], site[1]))]
            target = registries.location(registry) or places[0]
            yield Finding(
                smell=self.name, location=target,
                severity=severity_of(len(files) / options.min_registry_files / 2),
                confidence=0.7,
                message=(f"The key {key!r} of `{registry}` is used in {len(files)} modules: "
                         "renaming or removing the entry means editing all of them."),
                evidence={"rule": f"registry key in >= {options.min_registry_files} modules",
                          "form": "registry", "registry": registry, "key": key,
                          "occurrences": len(sites), "files": len(files)},
                related=tuple(place for place in places if place != target))
