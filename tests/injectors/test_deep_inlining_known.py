"""Deep inlining simplifies a pasted body by what its call site knows (`known.py`): the
decided branches go, everything else stays, and the result behaves as the body did."""

from __future__ import annotations

import itertools
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import libcst as cst

from smellkit.injectors.base import InjectionContext
from smellkit.injectors.deep_inlining.inline import Inliner
from smellkit.injectors.deep_inlining.known import (
    Known,
    module_constants,
    shadowing,
    simplified,
)
from smellkit.injectors.deep_inlining.plans import Plan
from smellkit.injectors.deep_inlining.sites import SiteFinder
from tests.injectors.support import load

# marshmallow's `store_error([message], index=index)` with `merge_errors` pasted in: the
# call site passes a list and leaves `field_name` at its default, the constant SCHEMA
STORE_ERROR = '''\
messages = [message]
# field error  -> store/merge error messages under field name key
if SCHEMA != SCHEMA or not isinstance(messages, dict):
    messages = {SCHEMA: messages}
if index is not None:
    messages = {index: messages}
# Deeply merge two error messages.
errors1 = store.errors
if not errors1:
    store.errors = messages
elif not messages:
    store.errors = errors1
elif isinstance(errors1, list):
    if isinstance(messages, list):
        store.errors = errors1 + messages
    elif isinstance(messages, dict):
        store.errors = dict(messages, **{SCHEMA: [errors1, messages.get(SCHEMA)]})
    else:
        store.errors = errors1 + [messages]
elif isinstance(errors1, dict):
    if isinstance(messages, list):
        store.errors = dict(errors1, **{SCHEMA: [errors1.get(SCHEMA), messages]})
    elif isinstance(messages, dict):
        errors = dict(errors1)
        for key, val in messages.items():
            errors[key] = [errors[key], val] if key in errors else val
        store.errors = errors
    else:
        store.errors = dict(errors1, **{SCHEMA: [errors1.get(SCHEMA), messages]})
elif isinstance(messages, list):
    store.errors = [errors1] + messages
elif isinstance(messages, dict):
    store.errors = dict(messages, **{SCHEMA: [errors1, messages.get(SCHEMA)]})
else:
    store.errors = [errors1, messages]
'''


def _simplified(source: str, facts: dict[str, Known] | None = None,
                shadowed: frozenset[str] = frozenset()) -> str:
    body = cst.parse_module(textwrap.dedent(source)).body
    out = simplified(body, facts or {}, shadowed)
    return cst.Module(body=[item for item in out if isinstance(
        item, (cst.SimpleStatementLine, cst.BaseCompoundStatement))]).code


def _run(source: str, **names: Any) -> dict[str, Any]:
    scope = {"SCHEMA": "_schema", **names}
    exec(compile(source, "pasted", "exec"), scope)
    return scope


def test_a_pasted_merge_keeps_only_the_branches_its_call_site_can_take() -> None:
    """The list passed and the default left at SCHEMA decide every test on `messages`: what
    is left is what runs there, comments kept, and it stores the same errors as the helper on
    every store and index."""
    out = _simplified(STORE_ERROR, module_constants({"SCHEMA": "str"}))
    assert out == textwrap.dedent('''\
        messages = [message]
        # field error  -> store/merge error messages under field name key
        messages = {SCHEMA: messages}
        if index is not None:
            messages = {index: messages}
        # Deeply merge two error messages.
        errors1 = store.errors
        if not errors1:
            store.errors = messages
        elif isinstance(errors1, list):
            store.errors = dict(messages, **{SCHEMA: [errors1, messages.get(SCHEMA)]})
        elif isinstance(errors1, dict):
            errors = dict(errors1)
            for key, val in messages.items():
                errors[key] = [errors[key], val] if key in errors else val
            store.errors = errors
        else:
            store.errors = dict(messages, **{SCHEMA: [errors1, messages.get(SCHEMA)]})
        ''')
    stores = [None, [], ["a"], {}, {"_schema": ["b"], 0: "c"}, {1: "d"}, "e"]
    for errors, index in itertools.product(stores, [None, 0, 1]):
        before = SimpleNamespace(errors=errors)
        after = SimpleNamespace(errors=errors)
        _run(STORE_ERROR, store=before, index=index, message="m")
        _run(out, store=after, index=index, message="m")
        assert after.errors == before.errors, (errors, index)


def test_a_constant_of_unknown_type_or_an_unknown_name_decides_nothing() -> None:
    """`message` comes from the caller (its type unknown); a float constant need not equal
    itself (NaN); the messages bound from it are unknown too."""
    source = '''\
        messages = message
        if RATE != RATE or not isinstance(messages, dict):
            messages = {RATE: messages}
        '''
    assert _simplified(source, module_constants({"RATE": "float"})) == textwrap.dedent(source)
    known = source.replace("message\n", "[message]\n", 1)
    assert _simplified(known, module_constants({"RATE": "str"})) == (
        "messages = [message]\nmessages = {RATE: messages}\n")


def test_a_builtin_shadowed_where_the_body_is_pasted_decides_nothing() -> None:
    source = '''\
        found = []
        if isinstance(found, list):
            keep(found)
        '''
    assert _simplified(source) == "found = []\nkeep(found)\n"
    assert _simplified(source, shadowed=frozenset({"list"})) == textwrap.dedent(source)
    assert shadowing([cst.parse_module("def f(list):\n    return list\n")]) == {"list"}


def test_truth_is_forgotten_once_anything_reads_the_name() -> None:
    """A read could empty the list (`found.clear()`, or a call handed it); its type stays."""
    source = '''\
        found = [item]
        if not found:
            log("none")
        drain(found)
        if not found:
            log("drained")
        if found is None or isinstance(found, tuple):
            log("never")
        '''
    assert _simplified(source) == textwrap.dedent('''\
        found = [item]
        drain(found)
        if not found:
            log("drained")
        ''')


def test_a_test_that_reads_the_name_before_its_truth_is_kept() -> None:
    """`drain(found) or not found`: the call runs first and may empty it; `not found or
    drain(found)` reads the truth first, known, and is left `drain(found)`."""
    source = '''\
        found = [item]
        if drain(found) or not found:
            log("empty")
        '''
    assert _simplified(source) == textwrap.dedent(source)
    source = source.replace("drain(found) or not found", "not found or drain(found)")
    assert _simplified(source) == 'found = [item]\nif drain(found):\n    log("empty")\n'


def test_a_name_rebound_in_a_loop_or_in_one_branch_is_unknown_there() -> None:
    """Nor is a name a nested function or lambda reads: calling it could rebind or empty it."""
    source = '''\
        parts = []
        for item in items:
            if isinstance(parts, list):
                parts = tuple(parts)
        if isinstance(parts, list):
            log(parts)
        names = ()
        if flag:
            names = [flag]
        if isinstance(names, tuple):
            log(names)
        if names is None:
            log("never")
        found = []
        reset = lambda: found.clear()
        run(reset)
        if found is None or not isinstance(found, list):
            log("never either: a lambda reads it")
        '''
    assert _simplified(source) == textwrap.dedent('''\
        parts = []
        for item in items:
            if isinstance(parts, list):
                parts = tuple(parts)
        if isinstance(parts, list):
            log(parts)
        names = ()
        if flag:
            names = [flag]
        if isinstance(names, tuple):
            log(names)
        found = []
        reset = lambda: found.clear()
        run(reset)
        if found is None or not isinstance(found, list):
            log("never either: a lambda reads it")
        ''')


def test_code_after_a_branch_that_returns_is_dropped_and_comments_stay() -> None:
    source = '''\
        kind = "plain"
        # the kind decides the wrapping
        if kind == kind and isinstance(kind, str):
            return wrap(value)
        # never reached
        return value
        '''
    assert _simplified(source, module_constants({"kind": "str"})) == textwrap.dedent('''\
        kind = "plain"
        # the kind decides the wrapping
        return wrap(value)
        ''')


def test_an_undecided_half_of_an_or_is_kept_as_the_whole_test() -> None:
    """`ready or isinstance(parts, dict)` with parts a list: `if ready:`; with parts a dict
    the test is True whatever `ready` is, and reading a name has no effect to keep."""
    source = '''\
        parts = {0: 1}
        if ready and isinstance(parts, dict):
            use(parts)
        '''
    assert _simplified(source) == "parts = {0: 1}\nif ready:\n    use(parts)\n"
    source = "parts = [0]\nif check(x) and isinstance(parts, dict):\n    use(parts)\n"
    assert _simplified(source) == source  # the call must still run: kept as written
    # a check reads nothing it could change: the truth of `parts` is still known after it
    source = "parts = [0]\nif key != KEY or isinstance(parts, dict):\n    use(key)\n" \
        "if not parts:\n    use(0)\n"
    assert _simplified(source) == "parts = [0]\nif key != KEY:\n    use(key)\n"


HELPERS = '''\
SEPARATOR = ", "


def report(lines, out, label=None, prefix=SEPARATOR):
    """Write the lines under a label."""
    if not isinstance(lines, list):
        lines = [lines]
    if label is not None:
        out.append(label)
    if prefix != SEPARATOR:
        out.append("custom")
    if not lines:
        out.append("nothing")
    out.append(prefix.join(lines))
'''

CALLER = '''\
from pkg.helpers import report


def summary(out, name):
    report([name, "total"], out, label="Summary")
    return out
'''


def test_an_inlined_helper_loses_the_branches_its_arguments_decide(tmp_path: Path) -> None:
    """`report([name, "total"], out, label="Summary")` pasted: the list, the label and the default
    prefix decide four tests; the summary reads as a person would write it and returns the
    same lines."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "helpers.py").write_text(HELPERS)
    (tmp_path / "pkg" / "caller.py").write_text(CALLER)
    context = InjectionContext(load(tmp_path))
    sites = SiteFinder(context).sites("pkg.caller.summary")
    text = Inliner(context, comments=False).rewrite(
        "pkg.caller.summary", [Plan(site) for site in sites]).module.code
    body = text.split("def summary")[1]
    assert "isinstance" not in body and "if " not in body, body
    assert 'out.append("Summary")' in body and ".join(lines)" in body, body
    sys.path.insert(0, str(tmp_path))
    try:
        smelly: dict[str, Any] = {"SEPARATOR": ", "}  # its import is added by `_edit`
        exec(compile(text, "smelly", "exec"), smelly)
        original: dict[str, Any] = {}
        exec(compile(CALLER, "caller", "exec"), original)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [name for name in sys.modules if name.startswith("pkg")]:
            del sys.modules[name]
    assert smelly["summary"]([], "net") == original["summary"]([], "net")
