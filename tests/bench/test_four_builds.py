"""Cases that measure what they claim, on four real libraries built together: click, Jinja2,
marshmallow and WTForms from their PyPI sdists, validated by their own tests.

Every exported case must have tests that run its smelly code (`test_adequacy`) and smelly code
without machine-made tells. Every smell reaching all three difficulties on at least three of the
four repositories is the goal, not reached yet (a strict xfail, so reaching it shows).

The build is cached under the test-data folder, keyed by smellkit's own source, so a rerun with
unchanged code only resumes it and a change to smellkit rebuilds from scratch.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from smellkit.bench import build, load_dataset
from smellkit.bench.selection import target_methods
from smellkit.config import load_repo_spec
from smellkit.injectors.registry import injectors
from smellkit.injectors.tells import scan
from smellkit.models import DIFFICULTIES, MIN_CHANGED_LINES_EXECUTED, BuildReport, Case
from smellkit.sandbox.checkout import fetch
from tests.support.builds import cached_build
from tests.support.pypi import data_dir

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parents[2]
REPOS = ("click", "jinja2", "marshmallow", "wtforms")
SPECS = [ROOT / "examples" / "specs" / f"{name}.toml" for name in REPOS]
OPTIONS = {"per_cell": 2, "spare": 1, "jobs": 2, "seed": 0}
SMELLS = list(injectors())
ACROSS = "(across cases)"
"""The key under which the tells scan reports names two cases both made up."""


@pytest.fixture(scope="module")
def four(terminal_report: Callable[[str, list[str]], None]) -> tuple[list[Case], BuildReport]:
    with cached_build("bench", "four-builds", SPECS) as out:
        report = build(SPECS, out, cache_dir=data_dir() / "sandbox", harbor=False,
                       **OPTIONS)  # type: ignore[arg-type]
    cases = load_dataset(out / "dataset.jsonl")
    counts = Counter((case.repo, case.smell, case.difficulty) for case in cases)
    lines = [f"{report.cases} cases ({report.validated} validated, {report.rejected} rejected) "
             f"in {report.seconds:.0f}s; rejections by stage: {report.rejections_by_stage}",
             f"{'smell':24}" + "".join(f"{repo[:11]:>14}" for repo in REPOS)]
    for smell in SMELLS:
        lines.append(f"{smell:24}" + "".join(
            f"{'/'.join(str(counts[repo, smell, level]) for level in DIFFICULTIES):>14}"
            for repo in REPOS))
    lines.append("(cases at easy/medium/hard)")
    terminal_report("smellkit build on click, jinja2, marshmallow, wtforms", lines)
    return cases, report


def test_the_four_builds_yield_cases_of_every_smell(
        four: tuple[list[Case], BuildReport]) -> None:
    """Floors below what was measured once no injection made up a file (a mixin module for one
    copied method, a module for one function taking a class's fields), every function of a
    dead_code case was tied to its dead chain (no untied module padded with a function retired
    on its own) and no god class case reaches its holder through an import inside a function
    where the repository never writes one (51 cases, 61 before those), and then once no
    injection bypasses an override: 47 cases, every repository with cases of at least three
    smells. They leave room for the case or two that a slower machine's test timeouts may cost.
    deep_inlining may have none: once no public method (an extension point a subclass may
    override) is pasted into its caller, its one case (click's `Command.parse_args`, which
    bypassed `Parameter.handle_parse_result`'s overrides) is gone, and these libraries'
    private helpers are rarely called from another file."""
    cases, report = four
    assert not report.repo_errors, report.repo_errors
    assert report.internal_errors == 0, report.rejections_by_stage
    assert len(cases) >= 42, report.by_cell
    assert {case.smell for case in cases} >= set(SMELLS) - {"deep_inlining"}
    for repo in REPOS:
        assert len({case.smell for case in cases if case.repo == repo}) >= 3, repo


@pytest.mark.xfail(strict=True, reason="the target is not reached: once no case pads its span "
                   "with a made-up file, these libraries lack the structure for medium and hard "
                   "cases of several smells: feature_envy (4 public methods of the four libraries "
                   "that read their class's data have callers in another module, each in one "
                   "module only), interface_segregation (click's and marshmallow's hierarchies "
                   "each live in one module), data_clumps and duplicated_code (click's and "
                   "jinja2's groups and helpers reach one other module), shotgun_surgery "
                   "(knowledge written out in four modules in click only), deep_inlining "
                   "(helpers pastable into callers of other modules are rare)")
def test_every_smell_reaches_every_difficulty_on_three_repositories(
        four: tuple[list[Case], BuildReport]) -> None:
    cases, _ = four
    cells = {(case.repo, case.smell, case.difficulty) for case in cases}
    for smell in SMELLS:
        complete = [repo for repo in REPOS
                    if all((repo, smell, level) in cells for level in DIFFICULTIES)]
        assert len(complete) >= 3, (smell, complete)


def test_every_case_has_tests_that_run_and_guard_its_smelly_code(
        four: tuple[list[Case], BuildReport]) -> None:
    cases, _ = four
    assert cases
    for case in cases:
        assert case.test_adequacy is not None, case.instance_id
        assert not case.test_adequacy.problems(MIN_CHANGED_LINES_EXECUTED), \
            (case.instance_id, case.test_adequacy.problems(MIN_CHANGED_LINES_EXECUTED))
        assert case.test_adequacy.sensitive, case.instance_id
        # at most 10 tests per target method (`selection.target_methods`)
        assert case.test_adequacy.test_budget == 10 * len(target_methods(case)), \
            case.instance_id
        assert 0 < len(case.tests) <= case.test_adequacy.test_budget, case.instance_id


def _tells(cases: list[Case]) -> dict[str, dict[str, list[str]]]:
    found: dict[str, dict[str, list[str]]] = {}
    for repo in REPOS:
        spec = load_repo_spec(SPECS[REPOS.index(repo)])
        root = fetch(spec, data_dir() / "sandbox") / spec.source_path
        found[repo] = scan(root, [case for case in cases if case.repo == repo])
    return found


def test_the_smelly_code_has_no_tells(four: tuple[list[Case], BuildReport]) -> None:
    """No numbered names, no undefined names or unused imports the original lacks."""
    cases, _ = four
    for repo, tells in _tells(cases).items():
        found = {key: items for key, items in tells.items()
                 if items and key != ACROSS}
        assert not found, (repo, found)


@pytest.mark.xfail(reason="sampling takes a case reusing a made-up name last, but keeps it "
                   "where its cell has no other: dead_code names each copy after the function "
                   "it copies, so two cases copying one function may share a name (whether "
                   "they do depends on which targets the build draws: not strict)")
def test_no_new_name_is_reused_across_cases(
        four: tuple[list[Case], BuildReport]) -> None:
    cases, _ = four
    for repo, tells in _tells(cases).items():
        assert not tells[ACROSS], (repo, tells[ACROSS])
