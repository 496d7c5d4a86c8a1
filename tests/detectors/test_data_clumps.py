"""Data clumps: the detector's examples, functional fixtures, options, a reviewed run on real code.

The examples and the functional fixtures run generically, with every detector's, in
`tests/detectors/test_functional.py` (SMELLKIT_REGENERATE=1 rewrites the fixtures' expectations).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smellkit.detectors.data_clumps import _related
from smellkit.detectors.runner import run_detectors
from smellkit.errors import ConfigError
from smellkit.project import Project
from tests.detectors import functional
from tests.detectors.functional import (
    check_real_code_review,
    fixture_folder,
)

SMELL = "data_clumps"
FIXTURES = fixture_folder(SMELL)


def load(root: Path) -> Project:
    """With the project's tests: data clumps there count, or are left alone by a guard."""
    return functional.load(root, include_tests=True)


def test_renamed_occurrence_completes_a_clump() -> None:
    (finding,) = run_detectors(load(FIXTURES / "connection_settings"), [SMELL])
    evidence = finding.evidence
    assert evidence["parameters"] == ["host", "port", "timeout"]
    assert evidence["occurrences"] == 3 and evidence["exact_occurrences"] == 2
    assert evidence["renamed"] == {"net.probe.Probe.ping": ["hostname", "port_number", "timeout"]}
    assert "renamed" in evidence["rule"] and "1 of them renamed" in finding.message
    assert finding.confidence < 0.75  # weaker than an exact clump of the same size
    found = run_detectors(load(FIXTURES / "connection_settings"), [SMELL],
                          options={SMELL: {"renamed": False}})
    assert found == []
    json.dumps(finding.model_dump())  # evidence is JSON-serializable


def test_subsets_are_reported_only_with_occurrences_of_their_own() -> None:
    found = run_detectors(load(FIXTURES / "report_range"), [SMELL])
    assert sorted(tuple(finding.evidence["parameters"]) for finding in found) == [
        ("start_date", "end_date", "currency"),
        ("start_date", "end_date", "currency", "region"),
    ]
    (subset,) = [finding for finding in found if len(finding.evidence["parameters"]) == 3]
    assert subset.evidence["occurrences"] == 6
    assert subset.evidence["often_with"] == {"region": 3}


def test_classes_that_hold_the_clump() -> None:
    (finding,) = run_detectors(load(FIXTURES / "model_fields"), [SMELL])
    assert finding.evidence["classes_with_these_fields"] == ["shop.models.Address"]
    assert "shop.models.Address already holds them" in finding.message
    assert "shop.models.Address" in [location.qualname for location in finding.related]


def test_related_names() -> None:
    assert _related("host", "hostname") and _related("port", "port_number")
    assert _related("table_name", "name") and _related("max_cols", "max_columns")
    assert not _related("x", "xs") and not _related("start", "stop")
    assert not _related("source", "target")


# -- options ---------------------------------------------------------------------------------------


def test_pyproject_options_change_the_result() -> None:
    folder = FIXTURES / "options_pairs"  # its pyproject.toml sets min-group-size = 2
    (finding,) = run_detectors(load(folder), [SMELL])
    assert finding.evidence["parameters"] == ["width", "height"]
    assert finding.evidence["rule"].startswith("2+ names")
    assert run_detectors(load(folder), [SMELL], options={SMELL: {}}) == []


def test_red_herrings_need_their_guards() -> None:
    project = load(FIXTURES / "protocols_and_tests")
    assert run_detectors(project, [SMELL]) == []
    found = run_detectors(project, [SMELL], options={SMELL: {"min-name-length": 1}})
    assert [finding.evidence["parameters"] for finding in found] == [["x", "y", "z"]]
    # overloads count once: parse (three stubs and the implementation) and parse_header
    (pair,) = run_detectors(project, [SMELL], options={SMELL: {"min-modules": 1,
                                                                 "min-occurrences": 2}})
    assert pair.evidence["parameters"] == ["text", "strict", "encoding"]
    assert pair.evidence["occurrences"] == 2


def test_option_validation() -> None:
    with pytest.raises(ConfigError):
        run_detectors(load(FIXTURES / "overrides"), [SMELL],
                      options={SMELL: {"min-occurrences": 1}})


# -- real code ------------------------------------------------------------------------------------

REVIEW: list[tuple[str, str, str]] = [
    # click 8.1.7
    ("click._compat.open_stream", "tp",
     "(filename, mode, encoding, errors, atomic) go from open_file to LazyFile to open_stream"),
    ("click.core.BaseCommand._main_shell_completion", "tp",
     "(ctx_args, prog_name, complete_var) are handed from the command to shell_complete and"
     " ShellComplete, which stores them"),
    ("click.core.Option.__init__", "tp",
     "Option keeps show_default, show_choices and type only to pass them to prompt(), which"
     " passes them to _build_prompt()"),
    # jinja2 3.1.4
    ("jinja2.bccache.BytecodeCache.get_bucket", "tp",
     "(name, filename, source) in twelve signatures, (environment, name, filename) in five:"
     " the template identity threads through lexer, parser, compiler and cache"),
    ("jinja2.compiler.generate", "tp",
     "generate, CodeGenerator and Environment._generate share name, filename, stream and"
     " defer_init"),
    ("jinja2.environment.Environment._filter_test_common", "tp",
     "call_filter, call_test and _filter_test_common pass (name, value, args, kwargs, context)"
     " on; the node class _FilterTestCommon holds part of it"),
    ("jinja2.environment.Environment._tokenize", "tp",
     "(source, name, filename, state) through _tokenize, tokenize, tokeniter and"
     " TokenStream"),
    ("jinja2.environment.Template", "tp",
     "new_context and Context take environment, globals, blocks and name that Template"
     " already holds"),
    ("jinja2.environment.Template.make_module", "tp",
     "(vars, shared, locals) in make_module, make_module_async and runtime.new_context;"
     " Template.new_context only forwards them to runtime.new_context, counted with it"),
    ("jinja2.ext.Extension.call_method", "tp",
     "(args, kwargs, dyn_args, dyn_kwargs) are the fields of nodes.Call and"
     " _FilterTestCommon, passed one by one to call_method"),
]
"""(qualname, verdict, reason) for every finding on click 8.1.7 and jinja2 3.1.4, read by hand in
the source: "tp" must stay reported; "fp" is a known false positive, still reported."""

FIXED: list[tuple[str, str]] = [
    ("click.core.Command.get_help_option.show_help", "the (ctx, param, value) callback signature"
     " is dictated by click's parameter callbacks: nested functions are not holders"),
    ("click.core.Parameter.__init__", "(type, default) came from merging the names of"
     " Parameter.__init__ with its overrides"),
    ("jinja2.environment.Environment.get_template", "the renamed match relied on"
     " `t.Union` annotations, which say nothing"),
]
"""(qualname, reason): false positives of earlier versions that must not come back."""

COUNTS = {"click": 3, "jinja2": 7}
"""Findings per project when the review was made; a large drift means: review again."""


@pytest.mark.slow
def test_real_code_review() -> None:
    check_real_code_review(SMELL, COUNTS, REVIEW, FIXED)


def test_forwarding_methods_count_with_the_function_they_forward_to(tmp_path: Path) -> None:
    (finding,) = run_detectors(load(FIXTURES / "shipping_quotes"), [SMELL])
    places = [finding.location.qualname, *(place.qualname for place in finding.related)]
    assert "shipping.api.ShippingClient.quote" not in places
    assert "shipping.service.quote_shipment" in places
    assert run_detectors(load(FIXTURES / "formatting_facade"), [SMELL]) == []
    # methods that forward to each other in a loop keep their own keys: still three occurrences
    root = functional.write(tmp_path, {
        "ring/a.py": "class Ring:\n    def first(self, host, port, user):\n"
                     "        return self.second(host, port, user)\n\n"
                     "    def second(self, host, port, user):\n"
                     "        return self.first(host, port, user)\n",
        "ring/c.py": "def third(host, port, user):\n    return host, port, user\n"})
    (looped,) = run_detectors(load(root), [SMELL])
    assert looped.evidence["occurrences"] == 3
