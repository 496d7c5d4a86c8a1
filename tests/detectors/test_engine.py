"""The detector engine: registry, plugins, options, suppressions, severity, order, residue."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
from pydantic import Field

from smellkit._internal import plugins
from smellkit.analysis.context import Context
from smellkit.analysis.smells import Smell
from smellkit.detectors import Detector, DetectorOptions, registry
from smellkit.detectors.runner import residue, run_detectors
from smellkit.errors import ConfigError, UsageError
from smellkit.models import Finding, Location
from smellkit.project import Project


class LongNameOptions(DetectorOptions):
    max_length: int = Field(default=10, description="Longest acceptable function name.")


class LongNames(Detector[LongNameOptions]):
    """A toy smell for testing the engine: functions with long names."""

    smell = Smell(name="long_names", description="Function names longer than max-length.",
                  phrases=("long names: functions whose names are too long to read",))
    Options = LongNameOptions

    def detect(self, context: Context) -> Iterable[Finding]:
        for definition in context.index.definitions.values():
            if definition.kind == "function" and len(definition.name) > self.options.max_length:
                location = context.location(definition.qualname)
                assert location is not None
                yield Finding(smell=self.name, location=location,
                              severity="error" if len(definition.name) > 20 else "warning",
                              message=f"{definition.name} is long")


@pytest.fixture()
def only_long_names(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    registry.detectors.cache_clear()
    monkeypatch.setattr(registry, "BUILTIN_DETECTORS", ("tests.detectors.test_engine:LongNames",))
    monkeypatch.setattr(plugins, "entry_points", lambda group: [])
    yield
    registry.detectors.cache_clear()


def project_of(tmp_path: Path, files: dict[str, str]) -> Project:
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    return Project.load(tmp_path, use_cache=False, jobs=1)


SOURCE = {
    "m.py": (
        "def short():\n    pass\n\n"
        "def a_rather_long_name():\n    pass\n\n"
        "def another_long_one():  # smellkit: ignore[long_names]\n    pass\n\n"
        "# smellkit: ignore\n"
        "def third_long_name():\n    pass\n\n"
        "def fourth_long_name():  # smellkit: ignore[dead_code]\n    pass\n"
    ),
    "b.py": "def bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb():\n    pass\n",
    "skip.py": "# smellkit: ignore-file[long_names]\ndef skipped_long_name():\n    pass\n",
}


@pytest.mark.usefixtures("only_long_names")
def test_suppressions_and_stable_order(tmp_path: Path) -> None:
    findings = run_detectors(project_of(tmp_path, SOURCE))
    assert [f.location.qualname for f in findings] == [
        "b.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "m.a_rather_long_name", "m.fourth_long_name"]


@pytest.mark.usefixtures("only_long_names")
def test_severity_filter_and_options(tmp_path: Path) -> None:
    project = project_of(tmp_path, SOURCE)
    errors = run_detectors(project, min_severity="error")
    assert [f.location.qualname for f in errors] == ["b.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"]
    relaxed = run_detectors(project, options={"long_names": {"max-length": 18}})
    assert [f.location.qualname for f in relaxed] == ["b.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"]


@pytest.mark.usefixtures("only_long_names")
def test_options_from_pyproject_are_validated_by_field(tmp_path: Path) -> None:
    files = dict(SOURCE)
    files["pyproject.toml"] = "[tool.smellkit.detectors.long_names]\nmax-length = 'x'\n"
    with pytest.raises(ConfigError, match=r"tool\.smellkit\.detectors\.long_names\.max-length"):
        run_detectors(project_of(tmp_path, files))


@pytest.mark.usefixtures("only_long_names")
def test_unknown_detector_tables_and_smells_are_errors(tmp_path: Path) -> None:
    files = dict(SOURCE)
    files["pyproject.toml"] = "[tool.smellkit.detectors.long_nmes]\nmax-length = 3\n"
    with pytest.raises(ConfigError, match="long_nmes"):
        run_detectors(project_of(tmp_path, files))
    with pytest.raises(UsageError, match="known smells: long_names"):
        run_detectors(project_of(tmp_path / "x", {"a.py": ""}), ["nope"])


@pytest.mark.usefixtures("only_long_names")
def test_residue_keeps_findings_at_the_targets(tmp_path: Path) -> None:
    project = project_of(tmp_path, SOURCE)
    target = Location(path="m.py", qualname="m.another_long_one", kind="function",
                      start_line=7, end_line=8)
    found = residue(project, "long_names", [target])
    assert [f.location.qualname for f in found] == ["m.another_long_one"]  # suppression ignored
    elsewhere = Location(path="m.py", qualname="m.short", kind="function", start_line=1,
                         end_line=2)
    assert residue(project, "long_names", [elsewhere]) == []


def test_plugins_load_from_entry_points_and_duplicates_are_errors(
        monkeypatch: pytest.MonkeyPatch) -> None:
    registry.detectors.cache_clear()
    plugin = EntryPoint(name="long_names", value="tests.detectors.test_engine:LongNames",
                        group=registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(plugins, "entry_points", lambda group: [plugin])
    try:
        assert "long_names" in registry.detectors()
        assert list(registry.detectors())[:8] == [
            "feature_envy", "god_class", "data_clumps", "shotgun_surgery", "dead_code",
            "interface_segregation", "deep_inlining", "duplicated_code"]
        registry.detectors.cache_clear()
        monkeypatch.setattr(plugins, "entry_points", lambda group: [plugin, plugin])
        with pytest.raises(ConfigError, match="two detectors are named 'long_names'"):
            registry.detectors()
    finally:
        registry.detectors.cache_clear()


def test_every_builtin_detector_declares_its_contract() -> None:
    for name, cls in registry.detectors().items():
        assert cls.name == name and cls.description
        assert len([e for e in cls.examples if e.flagged]) >= 2, name
        assert len([e for e in cls.examples if not e.flagged]) >= 2, name
        for field, info in cls.Options.model_fields.items():
            assert info.description, f"{name}.{field} has no description"
