"""What a smell is, declared once and read by every side: detector, injector, instructions, the
scan's scheduling, SmellBench import and export, scoring and the judge.

A detector class carries its smell's declaration (`smell = Smell(...)`) and the smell's injector
refers to the same object (`smell = FeatureEnvy.smell`), so adding a smell is a detector module,
an injector subpackage, one line in each registry, and fixture files. Options that both sides
read are declared once, on the detector's `Options`; an injector takes its defaults from there
(`DetectorOptions.default`).
"""

from __future__ import annotations

from dataclasses import dataclass

from smellkit.errors import ConfigError


@dataclass(frozen=True)
class Smell:
    """One smell: its stable name and everything outside its detector and injector needs."""

    name: str
    """The stable name (`feature_envy`) of the detector, the injector, findings and cases."""
    description: str
    """What the smell is, as its detector reports it (`smellkit smells`)."""
    phrases: tuple[str, ...]
    """How instructions name the smell to an agent: noun phrases that read well after "This
    repository contains" and "There is", naming the smell and saying what it is, never how an
    injector made it. The first is the canonical wording; instructions pick one with the case's
    seeded random generator."""
    smellbench_name: str = ""
    """SmellBench's string for the smell (`god_classes`); the stable name when left empty."""
    needs_call_graph: bool = True
    """False when the detector never reads the call graph: on big code it then runs in a forked
    child while the call graph is built."""

    def __post_init__(self) -> None:
        if not self.smellbench_name:
            object.__setattr__(self, "smellbench_name", self.name)

    @property
    def phrase(self) -> str:
        """The canonical instruction wording."""
        return self.phrases[0]


def declared_smell(cls: type, where: str) -> Smell:
    """The smell a detector or injector class declares (`where` names the class for messages),
    or a `ConfigError` that says what is missing. Registries check it when they load a class, so
    a smell never reaches an instruction without its wording."""
    smell = getattr(cls, "smell", None)
    if not isinstance(smell, Smell):
        raise ConfigError(f"{where} declares no smell",
                          hint="set `smell = Smell(name=..., description=..., phrases=(...,))` "
                               "on a detector and `smell = TheDetector.smell` on its injector "
                               "(see smellkit.analysis.smells)")
    if not smell.name.isidentifier():
        raise ConfigError(f"{where}: smell name {smell.name!r} is not an identifier",
                          hint="use a snake_case name such as `feature_envy`")
    if not smell.description.strip():
        raise ConfigError(f"{where}: smell {smell.name!r} has no description",
                          hint="say what the smell is, in one or two sentences")
    if not smell.phrases or not all(isinstance(item, str) and item.strip()
                                    for item in smell.phrases):
        raise ConfigError(
            f"{where}: smell {smell.name!r} has no phrase for instructions",
            hint="add `phrases=(\"...\",)`: how an instruction names the smell to an agent "
                 "(\"feature envy: a method that works more with another class's data than "
                 "with its own\"), never how it was injected")
    return smell


def adopt_smell(cls: type) -> Smell | None:
    """Give a detector or injector class its smell's stable name, from the `smell` it declares
    in its own body (None when it declares none: an abstract base, or a declaration the registry
    will refuse). A different `name` written on the class is an error: the name is declared once."""
    smell = cls.__dict__.get("smell")
    if not isinstance(smell, Smell):
        return None
    if cls.__dict__.get("name", smell.name) != smell.name:
        raise TypeError(f"{cls.__qualname__}.name differs from its smell's; "
                        "declare it once, on the Smell")
    cls.name = smell.name  # type: ignore[attr-defined]
    return smell
