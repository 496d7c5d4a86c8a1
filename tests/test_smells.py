"""The smell contract: a smell is one detector and one injector sharing one `Smell` declaration,
whose phrases name it in instructions without saying how it was made; the registries refuse a
class whose declaration is missing or incomplete."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Iterator

import pytest

from smellkit._internal import plugins
from smellkit.analysis.context import Context
from smellkit.analysis.smells import Smell
from smellkit.detectors import registry as detector_registry
from smellkit.detectors.base import Detector, DetectorOptions
from smellkit.detectors.registry import detectors, smells
from smellkit.errors import ConfigError, InjectionRefused
from smellkit.formats.smellbench import IMPORT_ONLY_NAMES, smellbench_names
from smellkit.injectors import registry as injector_registry
from smellkit.injectors.base import Edit, InjectionContext, Injector, InjectorOptions
from smellkit.injectors.instructions import instructions
from smellkit.injectors.registry import injectors
from smellkit.models import Candidate, Difficulty, Finding

DETECTORS = detectors()
INJECTORS = injectors()


def test_every_detector_has_an_injector_of_the_same_name_and_vice_versa() -> None:
    assert list(DETECTORS) == list(INJECTORS)


@pytest.mark.parametrize("name", list(INJECTORS))
def test_the_injector_refers_to_its_detectors_declaration(name: str) -> None:
    assert INJECTORS[name].smell is DETECTORS[name].smell
    assert INJECTORS[name].name == DETECTORS[name].name == name


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def _runs(text: str, size: int = 5) -> set[tuple[str, ...]]:
    """Every run of `size` words: a phrase may share a few words with the injector's
    description ("code that can never run"), not a clause."""
    words = _words(text)
    return {tuple(words[start:start + size]) for start in range(len(words) - size + 1)}


@pytest.mark.parametrize("name", list(DETECTORS))
def test_phrases_name_the_smell_without_the_injectors_description(name: str) -> None:
    smell = DETECTORS[name].smell
    description = INJECTORS[name].description if name in INJECTORS else ""
    assert smell.phrases and smell.phrase == smell.phrases[0]
    for phrase in smell.phrases:
        assert phrase.strip() and phrase == phrase.strip(), repr(phrase)
        assert phrase[0].islower() and not phrase.endswith("."), \
            f"{phrase!r} must read on after 'There is' and before a full stop"
        assert description.lower() not in phrase.lower()
        shared = _runs(phrase) & _runs(description)
        assert not shared, f"{phrase!r} repeats the injector's description: {sorted(shared)}"


def test_instructions_use_the_declared_phrases() -> None:
    smell = smells()["data_clumps"]
    seen = {instructions(smell, ["a.py"], [], random.Random(seed))["open"]
            for seed in range(40)}
    assert all(any(phrase in text for phrase in smell.phrases) for text in seen)
    assert {phrase for phrase in smell.phrases if any(phrase in text for text in seen)} == \
        set(smell.phrases)


def test_smellbench_strings_come_from_the_declarations() -> None:
    names = smellbench_names()
    for name, smell in smells().items():
        assert names[name] == smell.smellbench_name
    assert names["long_method"] == IMPORT_ONLY_NAMES["long_method"] == "Long"
    assert len(set(names.values())) == len(names), "two smells share a SmellBench string"


# -- registration -----------------------------------------------------------------------------


class _Options(DetectorOptions):
    pass


class Wordless(Detector[_Options]):
    smell = Smell(name="wordless", description="A smell no instruction can name.", phrases=())
    Options = _Options

    def detect(self, context: Context) -> Iterable[Finding]:
        return []


class Undeclared(Detector[_Options]):
    name = "undeclared"
    description = "A detector with a name but no smell declaration."
    Options = _Options

    def detect(self, context: Context) -> Iterable[Finding]:
        return []


class UndeclaredInjector(Injector[InjectorOptions]):
    name = "undeclared"
    description = "appends an unused parameter"

    def candidates(self, context: InjectionContext) -> Iterable[Candidate]:
        return []

    def inject(self, context: InjectionContext, candidate: Candidate, difficulty: Difficulty,
               rng: random.Random) -> Edit:
        raise InjectionRefused("never")


@pytest.fixture()
def no_plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    detector_registry.detectors.cache_clear()
    injector_registry.injectors.cache_clear()
    monkeypatch.setattr(plugins, "entry_points", lambda group: [])
    yield
    detector_registry.detectors.cache_clear()
    injector_registry.injectors.cache_clear()


@pytest.mark.usefixtures("no_plugins")
@pytest.mark.parametrize(("reference", "message"), [
    ("tests.test_smells:Wordless", "detector tests.test_smells:Wordless: smell 'wordless' has no "
                                   "phrase for instructions"),
    ("tests.test_smells:Undeclared", "detector tests.test_smells:Undeclared declares no smell"),
])
def test_a_detector_without_a_complete_declaration_is_refused(
        monkeypatch: pytest.MonkeyPatch, reference: str, message: str) -> None:
    monkeypatch.setattr(detector_registry, "BUILTIN_DETECTORS", (reference,))
    with pytest.raises(ConfigError, match=re.escape(message)) as raised:
        detector_registry.detectors()
    assert raised.value.hint and "smell" in raised.value.hint


@pytest.mark.usefixtures("no_plugins")
def test_an_injector_without_its_detectors_declaration_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(injector_registry, "BUILTIN_INJECTORS",
                        ("tests.test_smells:UndeclaredInjector",))
    with pytest.raises(ConfigError, match=re.escape(
            "injector tests.test_smells:UndeclaredInjector declares no smell")):
        injector_registry.injectors()


def test_a_class_name_that_differs_from_its_smell_is_an_error() -> None:
    with pytest.raises(TypeError, match="differs from its smell's"):
        class Renamed(Detector[_Options]):  # defining it is the test
            smell = Smell(name="one", description="d", phrases=("p",))
            name = "other"
            Options = _Options

            def detect(self, context: Context) -> Iterable[Finding]:
                return []
