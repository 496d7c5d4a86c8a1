"""The wording of every smell's instructions in every setting: grammar, what each target is
called, and no promise the environment cannot keep."""

from __future__ import annotations

import random

import pytest

from smellkit.injectors.instructions import instructions
from smellkit.injectors.registry import injectors
from smellkit.models import Location, LocationKind, Target


def _target(qualname: str, kind: LocationKind, level: str = "method") -> Target:
    return Target(location=Location(path="pkg/mod.py", qualname=qualname, kind=kind,
                                    start_line=1, end_line=9), level=level)  # type: ignore[arg-type]


FUNCTION = _target("pkg.mod.parse", "function")
METHOD = _target("pkg.mod.Reader.read", "method")
CLASS = _target("pkg.mod.Reader", "class", "class")
FILES = ("pkg/mod.py", "pkg/other.py")


@pytest.mark.parametrize("smell", sorted(injectors()))
def test_every_smell_and_setting_reads_right(smell: str) -> None:
    declared = injectors()[smell].smell
    for seed in range(40):  # every opening, phrase, constraint and target template comes up
        texts = instructions(declared, FILES, (FUNCTION,), random.Random(seed))
        assert set(texts) == {"open", "guided", "targeted"}
        for setting, text in texts.items():
            assert "There is" not in text and "There are" not in text
            assert "  " not in text and text.endswith(".")
            # the solver cannot run the hidden tests: no promise that they "must still pass"
            assert "must still pass" not in text and "keep passing" not in text
            assert "tests" in text and ("hidden" in text or "not in your copy" in text)
            # the smell's own phrase may speak of methods ("a long method"); the rest may not
            phrase = next(item for item in declared.phrases if item in text)
            assert "method" not in text.replace(phrase, ""), (setting, text)
        assert "pkg/mod.py" not in texts["open"] and "pkg.mod.parse" not in texts["open"]
        assert "`pkg/mod.py`, `pkg/other.py`" in texts["guided"]
        assert "pkg.mod.parse" not in texts["guided"]
        assert "the function `pkg.mod.parse`" in texts["targeted"]


def test_methods_classes_and_mixed_targets_are_called_what_they_are() -> None:
    declared = injectors()["feature_envy"].smell
    method = instructions(declared, FILES, (METHOD,), random.Random(1))["targeted"]
    assert "the method `pkg.mod.Reader.read`" in method and "function" not in method
    both = instructions(declared, FILES, (METHOD, _target("pkg.mod.Reader.write", "method"),
                                          FUNCTION), random.Random(1))["targeted"]
    assert ("the methods `pkg.mod.Reader.read`, `pkg.mod.Reader.write` and the function "
            "`pkg.mod.parse`") in both
    classes = instructions(injectors()["god_class"].smell, FILES,
                           (CLASS, _target("pkg.mod.Writer", "class", "class")),
                           random.Random(1))["targeted"]
    assert "the classes `pkg.mod.Reader`, `pkg.mod.Writer`" in classes
