"""What part another object's attributes play in a method, read from the method's source.

Feature envy counts the attributes a method uses of another class; two uses of them do not make
the method belong there, and only the method's code tells them apart:

- keys: the attribute is a coordinate into the method's own class's data, `self[cell.row,
  cell.col]`, `self.params.contexts[token.kind]`, `token.text in self.PUNCTUATION`: the method
  looks the object up in tables the envied class does not have;
- elements: the attribute is read off an element of a collection the method's own class holds,
  `for fmt in self.formats: fmt.bold`, `self.cells[i].span`: a pass over the class's own parts.

Only the few methods that pass feature envy's metrics are parsed (one file at a time, through
`pyast`, which serialises parsing across threads).
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field

from smellkit._internal import pyast
from smellkit.analysis.context import Context

_VIEWS = frozenset({"values", "items", "keys", "copy"})
"""Methods of a container that give its elements again (`self.formats.values()`)."""


@dataclass
class Roles:
    """Per role, the names among the envied attributes the method uses in that role."""

    keys: set[str] = field(default_factory=set)
    elements: set[str] = field(default_factory=set)
    elsewhere: set[str] = field(default_factory=set)
    """Read in another role at least once: off a parameter, a local object, and so on."""

    @property
    def only_elements(self) -> set[str]:
        """Read only off elements of the class's own collections."""
        return self.elements - self.elsewhere


def roles(context: Context, qualname: str, attributes: set[str]) -> Roles | None:
    """The roles of `attributes` (names of the envied class's attributes) in method `qualname`;
    None when it has no `self` or its source cannot be read back."""
    function = _function(context, qualname)
    if function is None or not function.args.args:
        return None
    own = function.args.args[0].arg
    aliases = _own_aliases(function, own)
    elements = _element_names(function, own, aliases)
    found = Roles()
    for node, parents in _walk(function):
        if not (isinstance(node, ast.Attribute) and node.attr in attributes
                and isinstance(node.ctx, ast.Load) and not _rooted(node.value, own, set())):
            continue
        if _is_key(node, parents, own, aliases, attributes):
            found.keys.add(node.attr)
        if _is_element(node.value, own, elements):
            found.elements.add(node.attr)
        else:
            found.elsewhere.add(node.attr)
    return found


def _function(context: Context, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    facts = context.file_of(qualname)
    definition = context.index.definitions.get(qualname)
    if facts is None or definition is None:
        return None
    lines = context.lines(facts.path)[definition.start_line - 1:definition.end_line]
    try:
        tree = pyast.parse(textwrap.dedent("\n".join(lines)))
    except (SyntaxError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.name == definition.name:
            return node
    return None


def _walk(root: ast.AST) -> Iterator[tuple[ast.AST, tuple[ast.AST, ...]]]:
    """Every node below `root` with its parents, nearest first."""
    stack: list[tuple[ast.AST, tuple[ast.AST, ...]]] = [(root, ())]
    while stack:
        node, parents = stack.pop()
        yield node, parents
        stack.extend((child, (node, *parents)) for child in ast.iter_child_nodes(node))


def _rooted(node: ast.expr, own: str, aliases: set[str]) -> bool:
    """`node` is `self`, reached from it (`self.a.b`, `self.a[k]`, `self.a.get(k)`) or a local
    name bound to such a value."""
    while True:
        if isinstance(node, ast.Name):
            return node.id == own or node.id in aliases
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        else:
            return False


def _own_aliases(function: ast.AST, own: str) -> set[str]:
    """Local names bound to the class's own data: `tables = self.tables`."""
    aliases: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, (ast.Attribute, ast.Subscript)) \
                and _rooted(node.value, own, set()):
            aliases.add(node.targets[0].id)
    return aliases


def _is_key(node: ast.Attribute, parents: tuple[ast.AST, ...], own: str, aliases: set[str],
            attributes: set[str]) -> bool:
    """The attribute's value indexes the class's own data (`self.table[x.kind]`, `self[x.row,
    x.col]`) or is looked up in it (`x.name in self.known`)."""
    child: ast.AST = node
    for parent in parents:
        if isinstance(parent, ast.Tuple) and parent.elts and child in parent.elts:
            child = parent  # one coordinate of several: `self[cell.row, cell.col]`
            continue
        if isinstance(parent, ast.Subscript):
            return child is parent.slice and _own_table(parent.value, own, aliases, attributes)
        if isinstance(parent, ast.Compare):
            return child is parent.left and len(parent.ops) == 1 \
                and isinstance(parent.ops[0], (ast.In, ast.NotIn)) \
                and _own_table(parent.comparators[0], own, aliases, attributes)
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) \
                and parent.func.attr == "get" and parent.args and child is parent.args[0]:
            return _own_table(parent.func.value, own, aliases, attributes)  # `.get(x.kind)`
        return False
    return False


def _own_table(node: ast.expr, own: str, aliases: set[str], attributes: set[str]) -> bool:
    """Data of the class's own, not of the envied object reached through it
    (`self.customer.tiers`, `c.tiers` after `c = self.customer`, with `tiers` envied)."""
    return _rooted(node, own, aliases) and not any(
        isinstance(part, ast.Attribute) and part.attr in attributes for part in ast.walk(node))


def _own_collection(node: ast.expr, own: str) -> bool:
    """`self`, `self.items`, or a view of it (`self.items.values()`)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in _VIEWS and not node.args:
        node = node.func.value
    if isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id == own


def _element_names(function: ast.AST, own: str, aliases: set[str]) -> set[str]:
    """Names bound to the elements of the class's own collections: loop and comprehension
    targets over `self.items` (a pair's names too), and `item = self.items[i]`."""
    names: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) \
                and _own_collection(node.iter, own):
            names.update(target.id for target in ast.walk(node.target)
                         if isinstance(target, ast.Name))
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Subscript) \
                and _own_collection(node.value.value, own):
            names.add(node.targets[0].id)
    return names - aliases


def _is_element(receiver: ast.expr, own: str, elements: set[str]) -> bool:
    """The receiver is an element of the class's own collection: a name bound to one, or an
    item taken straight from it (`self.items[i]`, `self[row, col]`)."""
    if isinstance(receiver, ast.Name):
        return receiver.id in elements
    return isinstance(receiver, ast.Subscript) and _own_collection(receiver.value, own)
