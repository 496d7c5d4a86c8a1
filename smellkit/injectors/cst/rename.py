"""libcst pieces more than one injector uses."""

from __future__ import annotations

import libcst as cst


class Identifiers(cst.CSTTransformer):
    """A transformer of the identifiers a body reads (its `leave_Name`): attribute names and
    keyword-argument names are `Name` nodes too but no identifiers, and stay as they were."""

    def leave_Attribute(self, original_node: cst.Attribute,
                        updated_node: cst.Attribute) -> cst.Attribute:
        return updated_node.with_changes(attr=original_node.attr)

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        return updated_node.with_changes(keyword=original_node.keyword)


class Rename(Identifiers):
    """Consistent renaming of identifiers (locals, parameters read in a body)."""

    def __init__(self, mapping: dict[str, str]):
        super().__init__()
        self.mapping = mapping

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        new = self.mapping.get(original_node.value)
        return updated_node.with_changes(value=new) if new else updated_node
