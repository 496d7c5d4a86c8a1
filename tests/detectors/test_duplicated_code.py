"""Duplicated code: the detector's examples, functional fixtures, options, a reviewed run on real
code.

The examples and the functional fixtures run generically, with every detector's, in
`tests/detectors/test_functional.py` (SMELLKIT_REGENERATE=1 rewrites the fixtures' expectations).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from smellkit.detectors.duplicated_code import DuplicatedCode
from smellkit.detectors.runner import run_detectors
from smellkit.errors import ConfigError
from tests.detectors.functional import (
    check_real_code_review,
    fixture_folder,
    load,
    write,
)

SMELL = "duplicated_code"
FIXTURES = fixture_folder(SMELL)


def where(location: Any) -> str:
    return f"{location.qualname}:{location.kind}:{location.start_line}-{location.end_line}"


def test_clone_groups_and_evidence() -> None:
    (group,) = [finding for finding in run_detectors(load(FIXTURES / "three_copies"), [SMELL])
                if finding.evidence["occurrences"] == 3]
    assert group.location.kind == "statement"
    assert group.location.qualname == "forms.contact.ContactForm.clean_phone"
    assert [location.qualname for location in group.related] == [
        "forms.profile.ProfileForm.clean_twitter", "forms.signup.SignupForm.clean_username"]
    assert group.evidence["clone_type"] == 2 and group.evidence["lines"] >= 6
    assert group.evidence["rule"] == "type-2 clone of >= 6 lines occurring >= 2 times"
    assert [span[0] for span in group.evidence["spans"]] == [
        "forms/contact.py", "forms/profile.py", "forms/signup.py"]
    assert "forms.profile.ProfileForm.clean_twitter" in group.message
    json.dumps(group.model_dump())  # evidence is JSON-serializable


def test_maximal_clones_only() -> None:
    """Two identical classes: one finding at the class, none for their methods' bodies."""
    findings = [finding for finding in run_detectors(load(FIXTURES / "three_copies"), [SMELL])
                if finding.location.path.startswith("forms/fields/")]
    assert [(finding.location.qualname, finding.location.kind) for finding in findings] == [
        ("forms.fields.note.Note", "class")]
    assert findings[0].evidence["clone_type"] == 1  # only the class names differ


def test_layout_and_comments_do_not_matter() -> None:
    (finding,) = run_detectors(load(FIXTURES / "copied_function"), [SMELL])
    assert finding.evidence["clone_type"] == 1
    assert where(finding.location) == "billing.invoices.render_invoice:function:6-17"
    assert [where(location) for location in finding.related] == [
        "billing.legacy.render_invoice:function:10-23"]


# -- options ---------------------------------------------------------------------------------------


def test_pyproject_options_change_the_result() -> None:
    folder = FIXTURES / "options_min_lines"  # its pyproject.toml sets min-lines = 4
    found = run_detectors(load(folder), [SMELL])
    assert [finding.location.qualname for finding in found] == [
        "tools.ftp.retrying", "tools.ftp.store"]
    assert all(finding.evidence["rule"].endswith(">= 4 lines occurring >= 2 times")
               for finding in found)
    assert run_detectors(load(folder), [SMELL], options={SMELL: {}}) == []


def test_exact_only_and_occurrences() -> None:
    project = load(FIXTURES / "three_copies")
    exact = run_detectors(project, [SMELL], options={SMELL: {"exact-only": True}})
    assert [finding.location.qualname for finding in exact] == ["forms.fields.note.Note"]
    three = run_detectors(project, [SMELL], options={SMELL: {"min-occurrences": 3}})
    assert [finding.location.qualname for finding in three] == [
        "forms.contact.ContactForm.clean_phone"]


def test_option_validation() -> None:
    with pytest.raises(ConfigError):
        run_detectors(load(FIXTURES / "copied_function"), [SMELL],
                      options={SMELL: {"min-lines": 2}})  # below what fingerprints keep


def test_suppression_comment(tmp_path: Path) -> None:
    files = dict(DuplicatedCode.examples[0].files)
    files["shop/admin/export.py"] = files["shop/admin/export.py"].replace(
        "\ndef monthly_report", "\n# smellkit: ignore[duplicated_code]\ndef monthly_report")
    assert run_detectors(load(write(tmp_path, files)), [SMELL]) == []


# -- real code ------------------------------------------------------------------------------------

REVIEW: list[tuple[str, str, str]] = [
    # click 8.1.7
    ("click._compat._find_binary_reader", "tp",
     "_find_binary_writer is the same function with _is_binary_writer for _is_binary_reader"),
    ("click._compat._force_correct_text_reader", "tp",
     "the writer twin differs only in the names of the helpers and of the force flag"),
    ("click._winconsole._get_text_stdin", "tp",
     "three functions building a console stream, differing in reader/writer and handle"),
    ("click.core.Group.command", "tp",
     "Group.group repeats the argument juggling of Group.command line for line"),
    ("click.decorators.argument", "tp",
     "option() is argument() with Option for Argument: a textbook copy"),
    ("click.decorators.version_option", "tp",
     "help_option repeats the setdefault block of version_option"),
    ("click.shell_completion.BashComplete", "tp",
     "ZshComplete repeats get_completion_args exactly and format_completion with other"
     " strings"),
    ("click.testing.CliRunner.isolation", "tp",
     "the restore-one-variable block is written out twice, exactly"),
    ("click.types.Path.convert", "tp",
     "file/directory and permission checks of one shape (the six self.fail(...) calls alone,"
     " calls of one function, are no longer reported)"),
    ("click.types.Choice.convert", "tp",
     "the choice/format error message block is repeated in DateTime.convert; two normalising"
     " blocks inside Choice.convert"),
    ("click.core.Option.to_info_dict", "fp",
     "same shape (super, update with six keywords, return) but every keyword differs:"
     " nothing to extract"),
    # jinja2 3.1.4
    ("jinja2.bccache.FileSystemBytecodeCache._get_default_cache_dir", "tp",
     "the ownership check of the cache folder is pasted twice, exactly"),
    ("jinja2.compiler.CodeGenerator.visit_If", "tp",
     "the if and elif branches are written out twice"),
    ("jinja2.compiler.CodeGenerator.visit_Getattr", "tp",
     "visit_Getitem starts with the same async wrapping and environment call"),
    ("jinja2.compiler.CodeGenerator.pull_dependencies", "fp",
     "writeline/indent/writeline/outdent around two unrelated raise statements: an idiom of"
     " the code generator, nothing to share"),
    ("jinja2.environment.Template.render_async", "tp",
     "NativeTemplate.render_async copies it (type 2); generate_async repeats its first six"
     " lines exactly"),
    ("jinja2.environment.Template._get_default_module", "tp",
     "the async variant differs only by await and the _async method names"),
    ("jinja2.filters.sync_do_groupby", "tp", "the case-insensitive tail is copied into"
     " do_groupby"),
    ("jinja2.lexer.compile_rules", "tp",
     "the line-statement and line-comment rules are appended by the same block"),
    ("jinja2.idtracking.Symbols.find_load", "tp", "find_ref is the same lookup on refs"),
    ("jinja2.nodes.BinExpr.as_const", "tp", "UnaryExpr.as_const repeats the sandbox check"),
    ("jinja2.parser.Parser.parse_or", "tp", "parse_and is parse_or with And for Or"),
    ("jinja2.runtime.LoopContext.nextitem", "tp", "the async twin only adds await"),
]
"""(qualname, verdict, reason) for every finding on click 8.1.7 and jinja2 3.1.4, read by hand in
the source: "tp" must stay reported; "fp" is a known false positive, still reported."""

FIXED: list[tuple[str, str]] = [
    ("click._termui_impl.ProgressBar.__exit__", "a five-line __exit__ signature around a one-line"
     " body: signature lines are not code"),
    ("click.decorators", "overload stubs and TYPE_CHECKING blocks are declarations"),
    ("click.core.Parameter", "get_default overload stubs repeated in Option"),
    ("jinja2.tests.test_boolean", "one line of code under a docstring"),
    ("jinja2.nodes.Include", "class-level field declarations of two node classes"),
    ("jinja2.nodes.For", "class-level field declarations"),
    # given up when the detector was calibrated on the labelled corpus (benchmarks/labels):
    ("click.core.Option.add_to_parser", "two parser.add_option calls: a block of calls of one"
     " function is declaration, not logic (judged true here before)"),
    ("jinja2.compiler.CodeGenerator._make_finalize", "one statement (the pass_arg lookup dict)"
     " over seven lines, renamed: short renamed pairs of one or two statements were true for 0"
     " of 8 in the corpus; this one was judged true here, a known loss"),
    ("jinja2.environment.Template.__repr__", "two six-line __repr__ of one statement, renamed"
     " (judged true here, false in the corpus)"),
    ("jinja2.ext.InternationalizationExtension.parse", "`in` against `not in`, a known false"
     " positive, now under min-lines-renamed"),
    ("jinja2.filters", "sync/async filter pairs: one-line wrappers (judged true here before)"),
]
"""(qualname, reason): findings of earlier versions that must not come back: false positives, and
true ones given up by the calibration on the labelled corpus (said so)."""

COUNTS = {"click": 12, "jinja2": 13}
"""Findings per project when the review was made; a large drift means: review again."""


@pytest.mark.slow
def test_real_code_review() -> None:
    check_real_code_review(SMELL, COUNTS, REVIEW, FIXED)
