"""The injection engine with a small stand-in injector: records, patches, sampling, verify."""

from __future__ import annotations

import random
import subprocess
import textwrap
from collections.abc import Iterable, Iterator
from pathlib import Path

import libcst as cst
import pytest

from smellkit._internal import plugins
from smellkit.detectors.dead_code import DeadCode
from smellkit.errors import ConfigError, InjectionRefused, PatchError, UsageError
from smellkit.injectors import registry
from smellkit.injectors.base import Edit, InjectionContext, Injector, InjectorOptions
from smellkit.injectors.engine import (
    check_options,
    discover,
    find_candidates,
    inject,
    library_exclusions,
    verify,
)
from smellkit.injectors.patches import apply_patch, make_patch
from smellkit.injectors.sampling import stratified
from smellkit.models import (
    OUTSIDE_SOURCE,
    POORLY_COVERED,
    SHORT_FILE,
    UNCOVERED,
    Candidate,
    Difficulty,
    Injection,
    InjectionFailure,
    InjectionSkip,
    StructuralCheck,
)
from smellkit.project import Project


class UnusedCopy(Injector[InjectorOptions]):
    """Grafts an unused private copy of a module-level function next to it (dead code); the
    package's entry point `pkg.main`, in another file, is involved, so the smell spans the two
    files an easy case promises."""

    smell = DeadCode.smell
    description = "an unused copy of a function"

    def candidates(self, context: InjectionContext) -> Iterable[Candidate]:
        for definition in context.index.definitions.values():
            location = context.location(definition.qualname)
            assert location is not None
            if definition.kind == "function" and definition.name.startswith("_"):
                context.discard("private")
            elif definition.kind == "function" and not location.path.endswith("__init__.py"):
                yield Candidate(smell=self.name, target=location, files=(location.path,),
                                reason=f"{definition.name} is a public module-level function")

    def inject(self, context: InjectionContext, candidate: Candidate, difficulty: Difficulty,
               rng: random.Random) -> Edit:
        name = candidate.target.qualname.rpartition(".")[2]
        if name == "refuse_me":
            raise InjectionRefused("asked to refuse")
        copy = f"_{name}_unused"
        module = context.module(candidate.target.path)
        body: list[cst.BaseStatement] = []
        for statement in module.body:
            body.append(statement)
            if isinstance(statement, cst.FunctionDef) and statement.name.value == name:
                body.append(statement.with_changes(name=cst.Name(copy)))
        module_name = candidate.target.qualname.rpartition(".")[0]
        return Edit(changes={candidate.target.path: module.with_changes(body=body).code},
                    targets=((f"{module_name}.{copy}", "method"),), involved=("pkg.main",),
                    red_herrings=("pkg.core.step", "pkg.core.step"),  # named twice: kept once
                    checks=(StructuralCheck(kind="not_defined", description=f"{copy} is gone",
                                            params={"qualname": f"{module_name}.{copy}"}),))


@pytest.fixture()
def unused_copy(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    registry.injectors.cache_clear()
    monkeypatch.setattr(registry, "BUILTIN_INJECTORS", ("tests.injectors.test_engine:UnusedCopy",))
    monkeypatch.setattr(plugins, "entry_points", lambda group: [])
    yield
    registry.injectors.cache_clear()


def repo(tmp_path: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        target = tmp_path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))
    return tmp_path


PACKAGE = {
    "pkg/__init__.py": "from pkg.core import run\n\n\ndef main():\n    return run([1])\n",
    "pkg/core.py": """\
        def run(values):
            return [step(value) for value in values]


        def step(value):
            return value + 1


        def refuse_me():
            return None
        """,
}

NO_FILTER = {"min-file-lines": 0}


def test_inject_makes_a_record_that_verifies(tmp_path: Path, unused_copy: None) -> None:
    root = repo(tmp_path, PACKAGE)
    project = Project.load(root, use_cache=False)
    injection = inject(project, "dead_code", "easy", options=NO_FILTER, seed=3)
    assert isinstance(injection, Injection), injection
    assert injection.llm_tokens == 0 and injection.files == ("pkg/core.py",)
    (target,) = injection.targets
    assert target.location.qualname.endswith("_unused") and target.location.path == "pkg/core.py"
    assert set(injection.instructions) == {"open", "guided", "targeted"}
    assert "pkg/core.py" not in injection.instructions["open"]
    assert "pkg/core.py" in injection.instructions["guided"]
    assert "pkg/__init__.py" in injection.instructions["guided"]  # the involved entry point
    assert target.location.qualname in injection.instructions["targeted"]
    assert [item.qualname for item in injection.red_herrings] == ["pkg.core.step"]
    result = verify(root, injection, original=project)
    assert result.ok, result
    assert (root / "pkg/core.py").read_text() == textwrap.dedent(PACKAGE["pkg/core.py"])


def test_verify_never_uses_the_users_cache(tmp_path: Path, unused_copy: None,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """`verify` loads the original (when not given) and the smelly copy without the fact cache:
    the copy is a temporary folder, its untouched files take the original's facts."""
    user_cache = tmp_path / "user-cache"
    monkeypatch.setenv("SMELLKIT_CACHE_DIR", str(user_cache))
    root = repo(tmp_path / "repo", PACKAGE)
    project = Project.load(root, use_cache=False)
    injection = inject(project, "dead_code", "easy", options=NO_FILTER, seed=3)
    assert isinstance(injection, Injection), injection
    assert verify(root, injection).ok
    assert verify(root, injection, original=project).ok
    assert not user_cache.exists()


def test_same_seed_same_record_and_refusals_are_reported(tmp_path: Path, unused_copy: None) -> None:
    project = Project.load(repo(tmp_path, PACKAGE), use_cache=False)
    first = inject(project, "dead_code", "medium", options=NO_FILTER, seed=7)
    again = inject(project, "dead_code", "medium", options=NO_FILTER, seed=7)
    assert first == again
    # two files cannot make a medium case (3 or more): every candidate is refused by the engine
    assert isinstance(first, InjectionSkip), first
    assert "a medium case spans 3 or more files; this edit spans 2" in first.reason
    (refused,) = [item for item in find_candidates(project, "dead_code", options=NO_FILTER)
                  if item.target.qualname == "pkg.core.refuse_me"]
    skip = inject(project, "dead_code", "easy", options=NO_FILTER, candidate=refused)
    assert isinstance(skip, InjectionSkip) and skip.reason == "asked to refuse"


CHAIN = {
    "app/__init__.py": "from app.main import first, run\n",
    "app/util.py": "def parse(text, seps=frozenset(',')):\n    return text.strip().split(',')\n",
    "app/main.py": ("from app.util import parse\n\n\n"
                    "def run(text):\n    return parse(text)\n\n\n"
                    "def first(text):\n    items = parse(text)\n    return items[0]\n"),
    "app/extra.py": "def other():\n    return 1\n",
}


def test_a_part_that_refuses_makes_a_skip_with_its_reason(tmp_path: Path) -> None:
    """The real dead-code injector: a medium cluster needs a function of a third module tied to
    `first -> parse` by a call, and `app.extra`'s `other` neither calls nor is called by them."""
    project = Project.load(repo(tmp_path, CHAIN), use_cache=False)
    (candidate,) = [item for item in find_candidates(project, "dead_code", options=NO_FILTER)
                    if item.target.qualname == "app.main.first"]
    skip = inject(project, "dead_code", "medium", candidate=candidate, options=NO_FILTER)
    assert isinstance(skip, InjectionSkip), skip
    assert skip.candidate == candidate
    reason = ("no function of a further module calls, or is called by, the functions around "
              "`app.main.first` -> `app.util.parse` in a way their earlier versions could keep: "
              "the call graph ties no 3 modules into one dead chain")
    assert skip.reason == reason
    sampled = inject(project, "dead_code", "medium", options=NO_FILTER)
    assert isinstance(sampled, InjectionSkip) and sampled.candidate is None
    assert sampled.reason.startswith("every candidate was refused: ")
    assert f"app.main.first: {reason}" in sampled.reason


def _crash(self: UnusedCopy, context: InjectionContext, candidate: Candidate,
           difficulty: Difficulty, rng: random.Random) -> Edit:
    raise KeyError("pkg.core.missing")


def test_a_crashing_injector_is_a_failure_never_a_skip(
        tmp_path: Path, unused_copy: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(UnusedCopy, "inject", _crash)
    project = Project.load(repo(tmp_path, PACKAGE), use_cache=False)
    (step,) = [item for item in find_candidates(project, "dead_code", options=NO_FILTER)
               if item.target.qualname == "pkg.core.step"]
    failure = inject(project, "dead_code", "easy", candidate=step, options=NO_FILTER)
    assert isinstance(failure, InjectionFailure), failure
    assert failure.candidate == step and failure.error_type == "KeyError"
    assert failure.message == "'pkg.core.missing'"
    assert failure.reason == "internal error: KeyError: 'pkg.core.missing'"
    assert 'raise KeyError("pkg.core.missing")' in failure.traceback
    # sampling: the first crash ends the call (it is a bug, not a refusal to skip past)
    sampled = inject(project, "dead_code", "easy", options=NO_FILTER)
    assert isinstance(sampled, InjectionFailure) and sampled.candidate is not None
    assert InjectionFailure.model_validate_json(failure.model_dump_json()) == failure


def test_cli_reports_a_crash_as_an_internal_error(
        tmp_path: Path, unused_copy: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from smellkit.cli import INTERNAL_ERROR, main

    monkeypatch.setattr(UnusedCopy, "inject", _crash)
    root = repo(tmp_path / "repo", PACKAGE)
    crashed = CliRunner().invoke(main, ["inject", str(root), "--smell", "dead_code",
                                        "--difficulty", "easy", "--min-file-lines", "0",
                                        "--target", "pkg.core.step", "--no-cache"])
    assert crashed.exit_code == INTERNAL_ERROR != 1, crashed.output
    assert "internal error: KeyError: 'pkg.core.missing'" in crashed.stderr
    assert "Traceback" in crashed.stderr and crashed.stdout == ""


def test_coarse_filter_and_coverage_filter(tmp_path: Path, unused_copy: None) -> None:
    project = Project.load(repo(tmp_path, PACKAGE), use_cache=False)
    assert find_candidates(project, "dead_code") == []  # every file is under 500 lines
    covered = find_candidates(project, "dead_code", options=NO_FILTER,
                              covered=frozenset({"pkg.core.step"}))
    assert [item.target.qualname for item in covered] == ["pkg.core.step"]
    skip = inject(project, "dead_code", "easy")
    assert isinstance(skip, InjectionSkip)
    assert skip.reason == ("every candidate is in a file under min-file-lines: 3 found, 3 in a "
                           "file shorter than 500 lines (lower min-file-lines for small "
                           "repositories)")
    uncovered = inject(project, "dead_code", "easy", options=NO_FILTER, covered=frozenset())
    assert isinstance(uncovered, InjectionSkip)
    assert uncovered.reason == "no candidate covered by the tests: 3 found, 3 not covered by " \
        "the tests"
    with pytest.raises(ConfigError, match=r"injectors\.dead_code\.min-file-lines"):
        find_candidates(project, "dead_code", options={"min-file-lines": -1})


def test_candidates_whose_lines_the_tests_run_too_little_are_removed_and_counted(
        tmp_path: Path, unused_copy: None) -> None:
    """A case copied from code whose branches no test takes cannot meet the adequacy rule, so
    discovery drops targets run below 90% and says so; without line figures the rule is off."""
    project = Project.load(repo(tmp_path, PACKAGE), use_cache=False)
    covered = frozenset({"pkg.core.run", "pkg.core.step", "pkg.core.refuse_me"})
    lines = {"pkg.core.run": 1.0, "pkg.core.step": 0.89, "pkg.core.refuse_me": 0.9}
    found, report = discover(project, "dead_code", options=NO_FILTER, covered=covered,
                             line_coverage=lines)
    assert sorted(item.target.qualname for item in found) == ["pkg.core.refuse_me",
                                                              "pkg.core.run"]
    assert POORLY_COVERED == "less than 90% of its lines run by the tests"
    assert report.removed == {POORLY_COVERED: 1} and report.eligible == 2
    # not covered at all is counted as such, before the line rule; unknown lines are no reason
    _, report = discover(project, "dead_code", options=NO_FILTER,
                         covered=covered - {"pkg.core.run"},
                         line_coverage={"pkg.core.run": 0.0, "pkg.core.step": 0.5})
    assert report.removed == {UNCOVERED: 1, POORLY_COVERED: 1} and report.eligible == 1
    skip = inject(project, "dead_code", "easy", options=NO_FILTER, covered=covered,
                  line_coverage=dict.fromkeys(covered, 0.5))
    assert isinstance(skip, InjectionSkip)
    assert skip.reason == ("no candidate the tests run well enough: 3 found, 3 less than 90% of "
                           "its lines run by the tests")
    assert len(find_candidates(project, "dead_code", options=NO_FILTER, covered=covered)) == 3
    context = InjectionContext(project, covered=covered, line_coverage=lines)
    assert context.well_covered("pkg.core.run") and not context.well_covered("pkg.core.step")
    assert context.well_covered("pkg.main")  # no statements measured: nothing to run
    assert InjectionContext(project).well_covered("pkg.core.step")  # no test map
    with pytest.raises(UsageError, match="another project or coverage"):
        discover(project, "dead_code", options=NO_FILTER, covered=covered, context=context)


def test_the_report_counts_every_rule_and_the_injectors_discards(
        tmp_path: Path, unused_copy: None) -> None:
    files = {**PACKAGE, "pkg/more.py": "def _hidden():\n    return 2\n\n\ndef shown():\n"
             "    return _hidden()\n" + "\n" * 30,
             "examples/demo.py": "def show():\n    return 1\n",
             "docs/conf.py": "def setup(app):\n    return app\n",
             "pkg/tests/test_core.py": "def test_run():\n    assert True\n"}
    project = Project.load(repo(tmp_path, files), include_tests=True, use_cache=False)
    found, report = discover(project, "dead_code", options={"min-file-lines": 20},
                             covered=frozenset({"pkg.more.shown", "examples.demo.show"}))
    assert [item.target.qualname for item in found] == ["pkg.more.shown"]
    assert report.discarded == {"private": 1}
    assert report.proposed == 7 and report.eligible == 1
    # in rule order: outside the library (examples, docs, tests), short files, then coverage
    assert report.removed == {OUTSIDE_SOURCE: 3, f"{SHORT_FILE} 20 lines": 3}
    anywhere, report = discover(project, "dead_code", options=NO_FILTER, exclude=())
    assert {item.target.qualname for item in anywhere} == {
        "pkg.core.run", "pkg.core.step", "pkg.core.refuse_me", "pkg.more.shown",
        "examples.demo.show", "docs.conf.setup"}  # tests are never library source
    assert report.removed == {OUTSIDE_SOURCE: 1}


def test_no_candidate_at_all_says_what_discovery_turned_away(
        tmp_path: Path, unused_copy: None) -> None:
    project = Project.load(repo(tmp_path, {"pkg/__init__.py": "def _only():\n    return 1\n"}),
                           use_cache=False)
    skip = inject(project, "dead_code", "easy", options=NO_FILTER)
    assert isinstance(skip, InjectionSkip)
    assert skip.reason == "no candidate at all (discovery turned away 1 definition; private: 1)"
    bare = Project.load(repo(tmp_path / "bare", {"pkg/__init__.py": "VALUE = 1\n"}),
                        use_cache=False)
    _, report = discover(bare, "dead_code", options=NO_FILTER)
    assert report.reason == ("no candidate at all (the repository has no definition of the kind "
                             "this smell needs)")


def test_a_src_layout_injects_only_under_src(tmp_path: Path, unused_copy: None) -> None:
    files = {f"src/{path}": text for path, text in PACKAGE.items()}
    files["tools/release.py"] = "def bump():\n    return 1\n"
    project = Project.load(repo(tmp_path, files), use_cache=False)
    assert library_exclusions(project) == ("tools",)
    found, report = discover(project, "dead_code", options=NO_FILTER)
    assert {item.target.path for item in found} == {"src/pkg/core.py"}
    assert report.removed == {OUTSIDE_SOURCE: 1}


def test_options_are_checked_with_the_file_the_field_and_the_fix(unused_copy: None) -> None:
    check_options({"dead_code": {"min-file-lines": 0}})
    with pytest.raises(ConfigError) as unknown_smell:
        check_options({"god_clas": {}}, path="spec.toml")
    assert str(unknown_smell.value) == ("spec.toml: injectors.god_clas: no injector for smell "
                                        "'god_clas' (known: dead_code)")
    with pytest.raises(ConfigError) as unknown_key:
        check_options({"dead_code": {"min-lines": 3}}, path="spec.toml")
    assert str(unknown_key.value) == ("spec.toml: injectors.dead_code.min-lines: Extra inputs "
                                      "are not permitted (known keys of dead_code: "
                                      "min-file-lines)")
    with pytest.raises(ConfigError, match=r"^spec.toml: injectors\.dead_code\.min-file-lines: "
                                          r"Input should be greater than or equal to 0"):
        check_options({"dead_code": {"min-file-lines": -2}}, path="spec.toml")


def test_patches_round_trip_new_deleted_and_unterminated_files(tmp_path: Path) -> None:
    before = {"a.py": "x = 1\ny = 2\n", "b.py": "tail\nwithout newline", "gone.py": "z = 0\n",
              "form.py": "a = 1\x0c\nb = 2\r\n"}
    after = {"a.py": "x = 1\ny = 3\n", "b.py": "tail\nwith newline\n", "new/made.py": "w = 9",
             "form.py": "a = 1\x0c\nb = 3\r\n"}
    for path, text in before.items():
        (tmp_path / path).write_bytes(text.encode())
    patch = make_patch(before, after)
    apply_patch(tmp_path, patch)
    assert {path: (tmp_path / path).read_bytes().decode() for path in after} == after
    assert not (tmp_path / "gone.py").exists()
    apply_patch(tmp_path, make_patch(after, before))
    assert {path: (tmp_path / path).read_bytes().decode() for path in before} == before
    assert not (tmp_path / "new/made.py").exists()
    # git itself reads the patch the same way
    check = subprocess.run(["git", "apply", "--check", "-"], cwd=tmp_path, input=patch.encode(),
                           capture_output=True, check=False)
    assert check.returncode == 0, check.stderr


def test_an_added_function_in_a_long_file_shows_as_added_only(tmp_path: Path) -> None:
    """In a file of 200+ lines, blank lines must still anchor the diff: a shorter copy added
    above a method reads as that insertion, not as the method cut in two and added again below."""
    filler = "".join(f"    def f{i}(self):\n        if not self.a{i}:\n            return\n\n"
                     f"        self.b{i}()\n\n" for i in range(40))
    steps = "".join(f"        self.step{k}(form)\n" for k in range(6))
    body = f"        if self.choices is None:\n            raise TypeError('none')\n\n{steps}\n"
    live = ("    def pre_validate(self, form):\n        if not self.validate or not self.data:\n"
            "            return\n\n" + body)
    retired = "    def _pre_check(self, form):\n" + body
    old = "class A:\n" + filler + live + filler.replace("def f", "def g")
    new = old.replace(live, retired + live)
    patch = make_patch({"a.py": old}, {"a.py": new})
    changed = [line for line in patch.splitlines()[3:] if line[:1] in "+-"]
    assert [line for line in changed if line.startswith("-")] == []
    assert len(changed) == len(retired.splitlines())
    (tmp_path / "a.py").write_text(old)
    apply_patch(tmp_path, patch)
    assert (tmp_path / "a.py").read_text() == new


def test_bad_patches_are_refused_with_reasons(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    with pytest.raises(PatchError, match="not a unified diff"):
        apply_patch(tmp_path, "hello\n")
    with pytest.raises(PatchError, match="unsafe path"):
        apply_patch(tmp_path, make_patch({}, {"b.py": "y\n"}).replace("b.py", "../b.py"))
    with pytest.raises(PatchError, match="does not apply"):
        apply_patch(tmp_path, make_patch({"a.py": "x = 2\n"}, {"a.py": "x = 3\n"}))
    assert (tmp_path / "a.py").read_text() == "x = 1\n"


def _candidate(path: str, line: int) -> Candidate:
    from smellkit.models import Location

    location = Location(path=path, qualname=f"{path}:{line}", kind="function",
                        start_line=line, end_line=line)
    return Candidate(smell="dead_code", target=location, reason="test")


def test_sampling_is_seeded_and_balanced_over_packages_and_files() -> None:
    crowded = [_candidate("big/a.py", line) for line in range(20)]
    others = [_candidate("small/b.py", 1), _candidate("small/c.py", 1), _candidate("top.py", 1)]
    pool = crowded + others
    first = stratified(pool, seed=1, limit=3)
    assert stratified(pool, seed=1, limit=3) == first
    assert len({item.target.path.partition("/")[0] for item in first}) == 3  # one per package
    assert sorted(stratified(pool, seed=2), key=str) == sorted(pool, key=str)
    orders = {tuple(item.target.qualname for item in stratified(pool, seed=seed, limit=4))
              for seed in range(10)}
    assert len(orders) > 1


def test_cli_lists_candidates_and_injects_into_a_copy(tmp_path: Path, unused_copy: None) -> None:
    import json

    from click.testing import CliRunner

    from smellkit.cli import main

    root = repo(tmp_path / "repo", PACKAGE)
    runner = CliRunner()
    listed = runner.invoke(main, ["candidates", str(root), "--smell", "dead_code",
                                  "--min-file-lines", "0", "--format", "json", "--no-cache"])
    assert listed.exit_code == 0, listed.output
    assert {item["target"]["qualname"] for item in json.loads(listed.output)} == {
        "pkg.core.run", "pkg.core.step", "pkg.core.refuse_me"}
    copy = tmp_path / "smelly"
    made = runner.invoke(main, ["inject", str(root), "--smell", "dead_code", "--difficulty",
                                "easy", "--min-file-lines", "0", "--target", "pkg.core.step",
                                "--apply", str(copy), "--verify", "--no-cache"])
    assert made.exit_code == 0, made.output
    record = Injection.model_validate_json(made.stdout)
    assert "_step_unused" in (copy / "pkg/core.py").read_text()
    assert record.targets[0].location.qualname == "pkg.core._step_unused"
    refused = runner.invoke(main, ["inject", str(root), "--smell", "dead_code", "--difficulty",
                                   "easy", "--min-file-lines", "0", "--target",
                                   "pkg.core.refuse_me", "--no-cache"])
    assert refused.exit_code == 1 and "asked to refuse" in refused.stderr
    unknown = runner.invoke(main, ["inject", str(root), "--smell", "dead_code", "--difficulty",
                                   "easy", "--target", "pkg.core.nothing", "--no-cache"])
    assert unknown.exit_code == 2 and "no dead_code candidate targets" in unknown.stderr


def test_cli_explains_discovery_readably_and_as_json(tmp_path: Path, unused_copy: None) -> None:
    import json

    from click.testing import CliRunner

    from smellkit.cli import main

    files = {**PACKAGE, "pkg/more.py": "def _hidden():\n    return 2\n",
             "examples/demo.py": "def show():\n    return 1\n"}
    root = repo(tmp_path / "repo", files)
    runner = CliRunner()
    text = runner.invoke(main, ["candidates", str(root), "--smell", "dead_code", "--explain",
                                "--injector-option", "dead_code.min-file-lines=0",
                                "--no-cache"])
    assert text.exit_code == 0, text.output
    assert text.stdout.splitlines() == [
        f"dead_code candidates in {root}", "discovery turned away 1 definition:",
        "  1  private", "discovery proposed 4 candidates", "the engine removed 1:",
        f"  1  {OUTSIDE_SOURCE}", "3 remain"]
    short = runner.invoke(main, ["candidates", str(root), "--smell", "dead_code", "--explain",
                                 "--format", "json", "--inject-anywhere", "--no-cache"])
    assert short.exit_code == 0, short.output
    assert json.loads(short.stdout) == {
        "smell": "dead_code", "discarded": {"private": 1}, "proposed": 4,
        "removed": {f"{SHORT_FILE} 500 lines": 4}, "eligible": 0}
    globbed = runner.invoke(main, ["candidates", str(root), "--smell", "dead_code",
                                   "--min-file-lines", "0", "--exclude-from-injection", "pkg",
                                   "--format", "json", "--no-cache"])
    assert [item["target"]["qualname"] for item in json.loads(globbed.stdout)] == [
        "examples.demo.show"]
    skipped = runner.invoke(main, ["inject", str(root), "--smell", "dead_code", "--difficulty",
                                   "easy", "--no-cache"])
    assert skipped.exit_code == 1
    assert skipped.stderr == (
        f"smellkit: no injection: no eligible candidate: 4 found, 1 {OUTSIDE_SOURCE}; 3 in a "
        "file shorter than 500 lines (lower min-file-lines for small repositories)\n")


def test_cli_rejects_malformed_and_misplaced_injector_options(
        tmp_path: Path, unused_copy: None) -> None:
    from click.testing import CliRunner

    from smellkit.cli import main

    root = repo(tmp_path / "repo", PACKAGE)
    runner = CliRunner()
    base = ["candidates", str(root), "--smell", "dead_code", "--no-cache"]
    malformed = runner.invoke(main, [*base, "--injector-option", "min-file-lines=0"])
    assert malformed.exit_code == 2
    assert "--injector-option 'min-file-lines=0' is not SMELL.KEY=VALUE" in malformed.stderr
    other = runner.invoke(main, [*base, "--injector-option", "god_class.min-file-lines=0"])
    assert other.exit_code == 2 and "but --smell is dead_code" in other.stderr
    wrong = runner.invoke(main, [*base, "--injector-option", "dead_code.min-file-lines=many"])
    assert wrong.exit_code == 4
    assert "injectors.dead_code.min-file-lines: Input should be a valid integer" in wrong.stderr
    both = runner.invoke(main, [*base, "--inject-anywhere", "--exclude-from-injection", "x"])
    assert both.exit_code == 2 and "pass one of the two" in both.stderr
