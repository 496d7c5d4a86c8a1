"""The repository model: layouts, module names, exclusions, bad input, and the content cache."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest

from smellkit._internal.collector import paused_gc
from smellkit.config import parse_config
from smellkit.errors import ConfigError, ProjectError
from smellkit.project import Project


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for relative, content in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return root


def modules(project: Project) -> dict[str, str]:
    return {facts.path: facts.module for facts in project.files}


def load(root: Path, **options: object) -> Project:
    return Project.load(root, use_cache=False, jobs=1, **options)


# -- layouts ---------------------------------------------------------------------------------


def test_flat_layout_names_modules_from_the_project_folder(tmp_path: Path) -> None:
    write(tmp_path, {"pkg/__init__.py": "", "pkg/core.py": "def f(): pass\n", "setup.py": ""})
    assert modules(load(tmp_path)) == {
        "pkg/__init__.py": "pkg", "pkg/core.py": "pkg.core", "setup.py": "setup"}


def test_src_layout_names_modules_from_src(tmp_path: Path) -> None:
    write(tmp_path, {"src/pkg/__init__.py": "", "src/pkg/sub/mod.py": "", "noxfile.py": ""})
    assert modules(load(tmp_path)) == {
        "src/pkg/__init__.py": "pkg", "src/pkg/sub/mod.py": "pkg.sub.mod",
        "noxfile.py": "noxfile"}


def test_several_packages_and_a_namespace_package(tmp_path: Path) -> None:
    write(tmp_path, {"alpha/__init__.py": "", "beta/__init__.py": "",
                     "nspace/plugin/thing.py": "x = 1\n"})
    assert modules(load(tmp_path)) == {
        "alpha/__init__.py": "alpha", "beta/__init__.py": "beta",
        "nspace/plugin/thing.py": "nspace.plugin.thing"}


def test_loose_scripts(tmp_path: Path) -> None:
    write(tmp_path, {"main.py": "import helper\n", "helper.py": ""})
    assert modules(load(tmp_path)) == {"main.py": "main", "helper.py": "helper"}


def test_a_package_folder_given_directly_keeps_its_full_dotted_names(tmp_path: Path) -> None:
    write(tmp_path, {"top/__init__.py": "", "top/inner/__init__.py": "", "top/inner/m.py": ""})
    project = load(tmp_path / "top" / "inner")
    assert modules(project) == {"__init__.py": "top.inner", "m.py": "top.inner.m"}


def test_a_single_file(tmp_path: Path) -> None:
    write(tmp_path, {"tool.py": "def run(): pass\n"})
    project = load(tmp_path / "tool.py")
    assert modules(project) == {"tool.py": "tool"}


def test_configured_source_roots(tmp_path: Path) -> None:
    write(tmp_path, {"lib/python/pkg/__init__.py": "",
                     "pyproject.toml": '[tool.smellkit]\nsource-roots = ["lib/python"]\n'})
    assert modules(load(tmp_path)) == {"lib/python/pkg/__init__.py": "pkg"}


# -- exclusions -------------------------------------------------------------------------------


def test_tests_virtualenvs_build_output_and_vendored_code_are_excluded(tmp_path: Path) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "", "pkg/test_thing.py": "", "pkg/thing_test.py": "",
        "tests/test_a.py": "", "conftest.py": "", ".venv/lib/x.py": "", "build/lib/pkg/y.py": "",
        "pkg/_vendor/six.py": "", "myenv/pyvenv.cfg": "", "myenv/lib/z.py": "",
        "pkg.egg-info/w.py": "", "node_modules/q.py": ""})
    assert sorted(modules(load(tmp_path))) == ["pkg/__init__.py"]


def test_environments_are_known_by_what_they_hold_not_by_their_name(tmp_path: Path) -> None:
    write(tmp_path, {
        # packages that happen to carry an environment's usual name are code
        "pkg/__init__.py": "", "pkg/venv/__init__.py": "", "pkg/venv/create.py": "",
        "venv/__init__.py": "", "env/__init__.py": "", "virtualenv/core.py": "",
        # environments under any name: a venv (pyvenv.cfg) and a conda environment (conda-meta)
        "tools/pyvenv.cfg": "home = /usr/bin\n", "tools/lib/site.py": "",
        "venv/inner/pyvenv.cfg": "", "venv/inner/x.py": "",
        "envs/dev/conda-meta/history": "", "envs/dev/lib/y.py": "",
        # a hidden folder stays out whatever it holds, as every hidden folder does
        ".venv/lib/w.py": ""})
    assert sorted(modules(load(tmp_path))) == [
        "env/__init__.py", "pkg/__init__.py", "pkg/venv/__init__.py", "pkg/venv/create.py",
        "venv/__init__.py", "virtualenv/core.py"]


def test_tests_can_be_included_and_globs_excluded(tmp_path: Path) -> None:
    write(tmp_path, {"pkg/__init__.py": "", "pkg/gen_pb2.py": "", "tests/test_a.py": ""})
    project = load(tmp_path, include_tests=True, exclude=["*_pb2.py"])
    assert sorted(modules(project)) == ["pkg/__init__.py", "tests/test_a.py"]


def test_exclusions_from_pyproject(tmp_path: Path) -> None:
    write(tmp_path, {"pkg/__init__.py": "", "docs/conf.py": "",
                     "pyproject.toml": '[tool.smellkit]\nexclude = ["docs"]\n'})
    assert sorted(modules(load(tmp_path))) == ["pkg/__init__.py"]


# -- bad input --------------------------------------------------------------------------------


def diagnostics_by_path(project: Project) -> dict[str, str]:
    return {d.path: d.code for d in project.diagnostics}


def test_bad_files_become_diagnostics_and_the_rest_is_analysed(tmp_path: Path) -> None:
    write(tmp_path, {
        "good.py": "def ok():\n    return 1\n",
        "broken.py": "def broken(:\n    pass\n",
        "py2.py": "print 'hello'\n",
        "py2_except.py": "try:\n    pass\nexcept ValueError, e:\n    pass\n",
        "latin.py": b"x = '\xe9\xe8'\n",
        "nul.py": b"x = 1\n\x00\x00\n",
    })
    project = load(tmp_path)
    assert [facts.path for facts in project.files] == ["good.py"]
    found = diagnostics_by_path(project)
    assert found["broken.py"] == "syntax-error"
    assert found["py2.py"] == "syntax-error"
    assert found["latin.py"] == "decode-error"
    assert found["nul.py"] == "null-bytes"
    messages = {d.path: d.message for d in project.diagnostics}
    assert "Python 2" in messages["py2.py"]
    assert "Python 2" in messages["py2_except.py"]
    assert next(d for d in project.diagnostics if d.path == "broken.py").line == 1
    assert next(d for d in project.diagnostics if d.path == "nul.py").line == 2
    assert project.stats.failed == 5


def test_a_declared_encoding_is_honoured(tmp_path: Path) -> None:
    write(tmp_path, {"latin.py": b"# -*- coding: latin-1 -*-\ndef f():\n    return '\xe9'\n"})
    project = load(tmp_path)
    assert [d.qualname for d in project.files[0].definitions] == ["latin.f"]


def test_a_huge_generated_file_is_analysed(tmp_path: Path) -> None:
    body = "".join(f"def f{n}(x):\n    return x + {n}\n" for n in range(25_000))
    write(tmp_path, {"generated.py": body})
    project = Project.load(tmp_path, use_cache=False)
    assert len(project.files[0].definitions) == 25_000
    assert project.files[0].measure.loc == 50_000


def test_files_over_the_size_limit_are_skipped_with_the_fix(tmp_path: Path) -> None:
    write(tmp_path, {"big.py": "x = 1\n" * 100, "small.py": "",
                     "pyproject.toml": "[tool.smellkit]\nmax-file-bytes = 100\n"})
    project = load(tmp_path)
    assert diagnostics_by_path(project) == {"big.py": "too-large"}
    assert "max-file-bytes" in project.diagnostics[0].message


def test_symlink_loops_are_reported_not_followed_forever(tmp_path: Path) -> None:
    write(tmp_path, {"pkg/__init__.py": "", "pkg/mod.py": ""})
    os.symlink(tmp_path / "pkg", tmp_path / "pkg" / "again")
    os.symlink(tmp_path / "loop_b", tmp_path / "loop_a")
    os.symlink(tmp_path / "loop_a", tmp_path / "loop_b")
    project = load(tmp_path)
    assert sorted(modules(project)) == ["pkg/__init__.py", "pkg/mod.py"]
    codes = sorted(d.code for d in project.diagnostics)
    assert "symlink-loop" in codes


def test_a_directory_named_like_a_python_file_is_walked_not_read(tmp_path: Path) -> None:
    write(tmp_path, {"odd.py/inner.py": "x = 1\n", "real.py": ""})
    assert sorted(modules(load(tmp_path))) == ["odd.py/inner.py", "real.py"]


def test_an_empty_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match="no Python files"):
        load(tmp_path)


def test_a_folder_of_tests_only_says_how_to_include_them(tmp_path: Path) -> None:
    write(tmp_path, {"tests/test_x.py": ""})
    with pytest.raises(ProjectError, match="--include-tests"):
        load(tmp_path)


def test_a_missing_path_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match="no such file or folder") as raised:
        load(tmp_path / "nope")
    assert raised.value.exit_code == 3


def test_a_bad_config_names_the_file_and_the_field(tmp_path: Path) -> None:
    write(tmp_path, {"m.py": "", "pyproject.toml": "[tool.smellkit]\ninclude-test = true\n"})
    with pytest.raises(ConfigError) as raised:
        load(tmp_path)
    assert "pyproject.toml" in str(raised.value)
    assert "tool.smellkit.include-test" in str(raised.value)
    assert "include-tests" in str(raised.value)  # the hint lists the known keys
    with pytest.raises(ConfigError, match="max-file-bytes"):
        parse_config({"max-file-bytes": -3})


def test_broken_toml_is_a_config_error(tmp_path: Path) -> None:
    write(tmp_path, {"m.py": "", "pyproject.toml": "[tool.smellkit\n"})
    with pytest.raises(ConfigError, match="TOML"):
        load(tmp_path)


# -- parallel parsing and the cache -----------------------------------------------------------


def make_repo(root: Path, count: int) -> Path:
    return write(root, {f"pkg/mod{n}.py": f"def f{n}(x):\n    return x * {n}\n"
                        for n in range(count)} | {"pkg/__init__.py": ""})


def test_worker_processes_give_the_same_facts_as_one_process(tmp_path: Path) -> None:
    make_repo(tmp_path, 40)
    one = Project.load(tmp_path, use_cache=False, jobs=1)
    two = Project.load(tmp_path, use_cache=False, jobs=2)
    assert one.files == two.files


def test_parsing_in_this_process_leaves_a_paused_collector_paused(tmp_path: Path) -> None:
    make_repo(tmp_path, 3)
    with paused_gc(freeze=False):
        Project.load(tmp_path, use_cache=False, jobs=1)
        assert not gc.isenabled()


def test_rescan_parses_nothing_then_exactly_the_changed_files(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", 30)
    cache = tmp_path / "cache"
    first = Project.load(repo, cache_dir=cache, jobs=2)
    assert (first.stats.parsed, first.stats.from_cache) == (31, 0)
    again = Project.load(repo, cache_dir=cache, jobs=2)
    assert (again.stats.parsed, again.stats.from_cache) == (0, 31)
    assert again.files == first.files
    for n in (3, 7, 11):
        (repo / f"pkg/mod{n}.py").write_text(f"def g{n}():\n    pass\n")
    changed = Project.load(repo, cache_dir=cache, jobs=2)
    assert (changed.stats.parsed, changed.stats.from_cache) == (3, 28)
    assert "pkg.mod3.g3" in {d.qualname for f in changed.files for d in f.definitions}


def packs(cache: Path) -> list[Path]:
    return sorted(cache.rglob("*.pack"))


def test_a_scan_writes_its_parse_as_one_pack_and_a_rescan_adds_one_for_the_changes(
        tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", 30)
    cache = tmp_path / "cache"
    Project.load(repo, cache_dir=cache, jobs=2)
    assert len(packs(cache)) == 1
    assert not list(cache.rglob("*.tmp"))
    Project.load(repo, cache_dir=cache, jobs=2)
    assert len(packs(cache)) == 1  # nothing parsed, nothing written
    (repo / "pkg/mod3.py").write_text("def g3():\n    pass\n")
    Project.load(repo, cache_dir=cache, jobs=2)
    assert len(packs(cache)) == 2


def test_past_the_pack_limit_the_packs_merge_into_one_holding_every_entry(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from smellkit.project import FactCache

    monkeypatch.setattr(FactCache, "MAX_PACKS", 3)
    repo = make_repo(tmp_path / "repo", 5)
    cache = tmp_path / "cache"
    Project.load(repo, cache_dir=cache)
    for n in range(4):  # each rescan stores one changed file in a new pack
        (repo / "pkg/mod1.py").write_text(f"def g{n}():\n    pass\n")
        Project.load(repo, cache_dir=cache)
    assert len(packs(cache)) == 2  # the fourth pack made four into one; one more since
    (repo / "pkg/mod1.py").write_text("def g2():\n    pass\n")  # an older content, merged
    again = Project.load(repo, cache_dir=cache)
    assert (again.stats.parsed, again.stats.from_cache) == (0, 6)
    assert "pkg.mod1.g2" in {d.qualname for f in again.files for d in f.definitions}


def test_a_damaged_pack_or_entry_is_parsed_again(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", 2)
    cache = tmp_path / "cache"
    Project.load(repo, cache_dir=cache)
    [pack] = packs(cache)
    data = bytearray(pack.read_bytes())
    data[:200] = b"x" * 200  # the first entries' bytes; the table at the end is intact
    pack.write_bytes(bytes(data))
    project = Project.load(repo, cache_dir=cache)
    assert 1 <= project.stats.parsed < 3
    assert len(project.files) == 3
    for pack in packs(cache):
        pack.write_bytes(b"garbage")  # no table at all
    project = Project.load(repo, cache_dir=cache)
    assert project.stats.parsed == 3


def test_an_unwritable_cache_folder_costs_the_cache_nothing_else(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", 2)
    cache = tmp_path / "cache"
    cache.write_text("a file where the cache folder should be")
    project = Project.load(repo, cache_dir=cache)
    assert (project.stats.parsed, len(project.files)) == (3, 3)


_DETAIL = '''\
class Shape:
    def __init__(self, size):
        self.size = size

    def area(self):
        if self.size > 10:
            return self.size * self.size
        return 0
        print("never")


def build(n):
    return Shape(n).area()
'''


def test_facts_without_detail_serve_graphs_and_metrics_alike(tmp_path: Path) -> None:
    from smellkit.metrics.oo import class_metrics, method_metrics

    repo = write(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/shapes.py": _DETAIL,
                                     "pkg/more.py": _DETAIL.replace("Shape", "Form")})
    detailed = load(repo)
    plain = load(repo, detailed=False)
    assert all(not facts.detailed and not facts.shapes and not facts.fingerprints.blocks
               and not facts.liveness.unreachable for facts in plain.files)
    assert any(facts.liveness.unreachable for facts in detailed.files)  # the `print` above
    assert [facts._replace(liveness=None, fingerprints=None, shapes=(), detailed=False)
            for facts in detailed.files] == \
        [facts._replace(liveness=None, fingerprints=None) for facts in plain.files]
    assert sorted(plain.call_graph.edges(data=True)) == \
        sorted(detailed.call_graph.edges(data=True))
    assert class_metrics(plain.index) == class_metrics(detailed.index)
    assert method_metrics(plain.index) == method_metrics(detailed.index)


def test_detectors_refuse_facts_without_detail(tmp_path: Path) -> None:
    from smellkit.detectors.runner import run_detectors

    repo = write(tmp_path / "repo", {"app.py": _DETAIL})
    with pytest.raises(ValueError, match="detailed=True"):
        run_detectors(load(repo, detailed=False))


def test_cached_facts_without_detail_never_stand_in_for_detailed_ones(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", 4)
    cache = tmp_path / "cache"

    def parsed(detailed: bool) -> tuple[int, int, bool]:
        project = Project.load(repo, cache_dir=cache, detailed=detailed)
        return (project.stats.parsed, project.stats.from_cache,
                all(facts.detailed for facts in project.files))

    assert parsed(False) == (5, 0, False)
    assert parsed(False) == (0, 5, False)
    assert parsed(True) == (5, 0, True)  # the entries without detail are not enough
    assert parsed(False) == (0, 5, True)  # detailed entries serve scans without detail too


def test_facts_at_hand_are_taken_by_content_key(tmp_path: Path) -> None:
    """`Project.from_survey(known=...)`: facts of another load of the same files are used as
    they are; only the files whose content key is unknown are parsed."""
    from smellkit.project import Survey

    write(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "x = 1\n", "pkg/b.py": "y = 2\n"})
    first = load(tmp_path)
    (tmp_path / "pkg" / "b.py").write_text("y = 3\n")
    survey = Survey.take(tmp_path, use_cache=False)
    by_path = {facts.path: facts for facts in first.files}
    unchanged = {key: by_path[source.path] for source, key, _ in survey.inventory.items
                 if source.path != "pkg/b.py"}
    again = Project.from_survey(survey, known=unchanged)
    assert again.stats.parsed == 1 and again.stats.from_cache == 2
    assert {facts.path: facts for facts in again.files}["pkg/a.py"] is by_path["pkg/a.py"]


def test_one_model_of_the_load_options_serves_every_call(tmp_path: Path) -> None:
    """`Survey.take`, `Project.load`, `scan` and `ScanRequest` share `LoadOptions`: keywords or a
    model made before (keywords replacing some of its fields), validated in one place."""
    from smellkit.errors import UsageError
    from smellkit.project import LoadOptions, Survey
    from smellkit.scanning.scanner import ScanRequest, scan

    root = write(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/core.py": "x = 1\n",
                                     "tests/test_core.py": "def test_x():\n    pass\n"})
    options = LoadOptions(path=root, use_cache=False, jobs=1)
    assert sorted(modules(Project.load(options))) == ["pkg/__init__.py", "pkg/core.py"]
    with_tests = Project.load(options, include_tests=True, exclude=["pkg/core.py"])
    assert sorted(modules(with_tests)) == ["pkg/__init__.py", "tests/test_core.py"]
    survey = Survey.take(root, include_tests=True, use_cache=False)
    assert survey.cache is None and survey.config.include_tests
    request = ScanRequest.of(options, smells=["dead_code"])
    assert isinstance(request, LoadOptions) and request.smells == ("dead_code",)
    assert request.path == root and not request.use_cache
    assert scan(options, smells=[]).summary.modules == 2
    with pytest.raises(TypeError):
        ScanRequest(root)  # by keyword only
    with pytest.raises(UsageError, match="jbos: unknown option") as unknown:
        Project.load(root, jbos=2)
    assert "include_tests" in str(unknown.value)  # the hint lists the options
    with pytest.raises(UsageError, match="jobs: "):
        scan(root, jobs=0)
    assert LoadOptions(cache_dir=tmp_path / "here").cache_directory == tmp_path / "here"
