"""What a detector is: its smell's declaration, typed options, examples, and one method that works.

The engine (`runner.py`) builds the shared analyses once (`Context`) and hands them to every
detector; a detector only reads them and yields findings.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Generic, NamedTuple, TypeVar

from pydantic import BaseModel, ConfigDict

from smellkit.analysis.context import Context
from smellkit.analysis.smells import Smell, adopt_smell
from smellkit.models import Finding

if TYPE_CHECKING:
    from smellkit.graphs.index import Index


class DetectorOptions(BaseModel):
    """Base of every detector's options: frozen, unknown keys rejected."""

    model_config = ConfigDict(frozen=True, extra="forbid", alias_generator=lambda name:
                              name.replace("_", "-"), populate_by_name=True)

    @classmethod
    def default(cls, field: str) -> Any:
        """The documented default of one option: what an injector reads when it must meet the
        same threshold, so the value is declared once."""
        return cls.model_fields[field].get_default(call_default_factory=True)


class Example(NamedTuple):
    """A small repository (path -> source) and the qualnames the detector must flag in it.

    `flagged` empty means a negative example: nothing may be reported. Examples run as tests.
    """

    description: str
    files: Mapping[str, str]
    flagged: tuple[str, ...]


OptionsT = TypeVar("OptionsT", bound=DetectorOptions)


class Detector(ABC, Generic[OptionsT]):
    """Subclass, set the class attributes, implement `detect`."""

    smell: ClassVar[Smell]
    """The smell this detector finds, declared once: its injector refers to the same object."""
    name: ClassVar[str]
    """The smell's stable name, taken from `smell`."""
    description: ClassVar[str]
    """What the smell is, taken from `smell`."""
    Options: ClassVar[type[DetectorOptions]]
    examples: ClassVar[tuple[Example, ...]] = ()
    early: ClassVar[tuple[Callable[[Index], object], ...]] = ()
    """Analyses of the index (`index.derived(analysis)`) that need no call graph: on big code a
    forked child computes them while the call graph is built, and `detect` finds them done."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        smell = adopt_smell(cls)
        if smell is not None:
            cls.description = smell.description

    def __init__(self, options: OptionsT):
        self.options = options

    @abstractmethod
    def detect(self, context: Context) -> Iterable[Finding]:
        """Every finding of this smell in the project, in any order (the engine sorts)."""
