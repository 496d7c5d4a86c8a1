"""The position-exact rewrite of the calls `sites` finds, for the feature envy injector: calls
sent to the method's new home (`redirect_calls`), or handed on to the object the class holds
(`hand_on`)."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from smellkit.injectors.feature_envy.sites import Site


class _Redirect(cst.CSTTransformer):
    """The calls at the given positions, in the holder's methods (nodes `inside`), go to
    `self.<new name>`: with the receiver as first argument when it was a name."""

    def __init__(self, starts: dict[int, tuple[int, int]], positions: set[tuple[int, int]],
                 new_name: str, pass_receiver: bool, via: str | None = None,
                 argument: tuple[str, int | None] | None = None):
        super().__init__()
        self.via = via
        self.argument = argument
        self.starts = starts
        self.positions = positions
        self.new_name = new_name
        self.pass_receiver = pass_receiver
        self.selves: list[str | None] = []
        self.count = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        params = node.params.params
        own = params[0].name.value if params and not node.decorators else None
        self.selves.append(own if not self.selves else self.selves[-1])
        return True

    def leave_FunctionDef(self, original_node: cst.FunctionDef,
                          updated_node: cst.FunctionDef) -> cst.FunctionDef:
        self.selves.pop()
        return updated_node

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if not self.selves or self.selves[-1] is None:
            return updated_node
        start = self.starts.get(id(original_node))
        func = updated_node.func
        if start not in self.positions or not isinstance(func, cst.Attribute):
            return updated_node
        self.count += 1
        if self.argument is not None:
            return self._lent(updated_node, self.selves[-1], *self.argument)
        owner: cst.BaseExpression = cst.Name(self.selves[-1])
        if self.via is not None:
            owner = cst.Attribute(value=owner, attr=cst.Name(self.via))
        target = cst.Attribute(value=owner, attr=cst.Name(self.new_name))
        if not self.pass_receiver:
            return updated_node.with_changes(func=target)
        args = list(updated_node.args)
        first = cst.Arg(value=func.value)
        if args and isinstance(args[0].comma, cst.Comma):
            first = first.with_changes(comma=args[0].comma)  # the same layout as the next one
        return updated_node.with_changes(func=target, args=[first, *args])


    def _lent(self, call: cst.Call, own: str, param: str, position: int | None) -> cst.Call:
        """`self.m(a, x, b)` -> `x.<new name>(self, a, b)`, `x` the argument for `param` (at
        `position` among the positional arguments, or passed by keyword)."""
        args = list(call.args)
        at = next((number for number, arg in enumerate(args)
                   if arg.keyword is not None and arg.keyword.value == param), None)
        if at is None and position is not None:
            plain = [number for number, arg in enumerate(args) if arg.keyword is None]
            at = plain[position] if position < len(plain) else None
        if at is None:  # found by discovery: the call changed under us
            self.count -= 1
            return call
        removed = args.pop(at)
        if args and at == len(args):
            args[-1] = args[-1].with_changes(comma=removed.comma)
        first = cst.Arg(value=cst.Name(own))
        if args:
            first = first.with_changes(comma=removed.comma if isinstance(
                removed.comma, cst.Comma) and at < len(args) else cst.Comma(
                whitespace_after=cst.SimpleWhitespace(" ")))
        return call.with_changes(func=cst.Attribute(value=removed.value,
                                                    attr=cst.Name(self.new_name)),
                                 args=[first, *args])


def redirect_calls(module: cst.Module, holder: cst.ClassDef, sites: list[Site],
                   new_name: str, wrapper: MetadataWrapper | None = None,
                   via: str | None = None, argument: tuple[str, int | None] | None = None
                   ) -> tuple[cst.Module, int]:
    """The module with the sites' calls (inside `holder`) redirected, and how many were.
    `wrapper`: a kept metadata wrapper of `module`; only the holder class is visited. `via`:
    the calls go to the object in `self.<via>`, the instance passed first
    (`self.m(x)` -> `self.<via>.<new name>(self, x)`). `argument`: the calls go to the object
    passed for that parameter (at that positional index, or by keyword), the instance passed
    first in its place (`self.m(x)` -> `x.<new name>(self)`)."""
    positions = {(site.line, site.col) for site in sites}
    wrapper = wrapper or MetadataWrapper(module, unsafe_skip_copy=True)
    where = wrapper.resolve(PositionProvider)  # computed once per file and context
    starts = {id(node): (place.start.line, place.start.column) for node, place in where.items()
              if isinstance(node, cst.Call)
              and (place.start.line, place.start.column) in positions}
    redirect = _Redirect(starts, positions, new_name, sites[0].receiver is not None, via,
                         argument)
    # Only the methods that hold the calls are visited (a big class costs a second or more).
    names = {site.scope[len(site.holder) + 1:].partition(".")[0] for site in sites}
    members = holder.body.body if isinstance(holder.body, cst.IndentedBlock) else ()
    new_members = [member.visit(redirect) if isinstance(member, cst.FunctionDef)
                   and member.name.value in names else member for member in members]
    if not isinstance(holder.body, cst.IndentedBlock):
        return module, 0
    new_holder = holder.with_changes(body=holder.body.with_changes(body=new_members))
    body = [new_holder if statement is holder else statement for statement in module.body]
    return module.with_changes(body=body), redirect.count


class _HandOn(cst.CSTTransformer):
    """The calls at the given positions, `x.m(a)`, go to the object `x` holds in `<via>`, `x`
    passed first: `x.<via>.<new name>(x, a)`, as the forwarding method left in `x`'s class
    does."""

    def __init__(self, starts: dict[int, tuple[int, int]], positions: set[tuple[int, int]],
                 new_name: str, via: str):
        super().__init__()
        self.starts = starts
        self.positions = positions
        self.new_name = new_name
        self.via = via
        self.count = 0

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        func = updated_node.func
        if self.starts.get(id(original_node)) not in self.positions \
                or not isinstance(func, cst.Attribute):
            return updated_node
        self.count += 1
        receiver = func.value
        target = cst.Attribute(value=cst.Attribute(value=receiver, attr=cst.Name(self.via)),
                               attr=cst.Name(self.new_name))
        args = list(updated_node.args)
        first = cst.Arg(value=receiver.deep_clone())
        if args and isinstance(args[0].comma, cst.Comma):
            first = first.with_changes(comma=args[0].comma)  # the same layout as the next one
        elif args:
            first = first.with_changes(comma=cst.Comma(
                whitespace_after=cst.SimpleWhitespace(" ")))
        return updated_node.with_changes(func=target, args=[first, *args])


def hand_on(module: cst.Module, sites: list[Site], new_name: str, via: str,
            wrapper: MetadataWrapper | None = None) -> tuple[cst.Module, int]:
    """The module with the sites' calls on a typed receiver sent to the object it holds in
    `<via>` (`ctx.m(a)` -> `ctx.<via>.<new name>(ctx, a)`), and how many were. `wrapper`: a
    kept metadata wrapper of `module`."""
    positions = {(site.line, site.col) for site in sites}
    wrapper = wrapper or MetadataWrapper(module, unsafe_skip_copy=True)
    where = wrapper.resolve(PositionProvider)
    starts = {id(node): (place.start.line, place.start.column) for node, place in where.items()
              if isinstance(node, cst.Call)
              and (place.start.line, place.start.column) in positions}
    transformer = _HandOn(starts, positions, new_name, via)
    return wrapper.module.visit(transformer), transformer.count
