"""New names never stutter: two class names glued (`_UnboundFieldFieldListMixin`) or a local
renamed by prefixing a word it repeats (`value_v`) read as generated."""

from __future__ import annotations

import pytest

from smellkit.errors import InjectionRefused
from smellkit.injectors.naming import is_doubled, pick


@pytest.mark.parametrize("name", ["_UnboundFieldFieldListMixin", "value_v", "parser_parse",
                                  "reserve_reserved", "_FieldFields"])
def test_doubled_names(name: str) -> None:
    assert is_doubled(name)


@pytest.mark.parametrize("name", ["_RadioChoices", "field_flags", "is_iso", "iter_choices",
                                  "_AddEntryMixin", "datetime_field", "to_text"])
def test_plain_names(name: str) -> None:
    assert not is_doubled(name)


def test_pick_passes_over_doubled_names() -> None:
    assert pick(["_UnboundFieldFieldListMixin", "_AddEntryMixin"], set(), what="a mixin") == \
        "_AddEntryMixin"
    with pytest.raises(InjectionRefused):
        pick(["value_v"], set(), what="a local")
