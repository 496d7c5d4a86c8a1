"""The generator process on a small package: inputs drawn from annotations, and recorded inputs
varied argument by argument, keyword arguments and `**options` included."""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import pickle
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from smellkit.evaluate.equivalence.conditions import read_tests
from smellkit.evaluate.equivalence.entries import EntryPoint
from smellkit.evaluate.equivalence.execution import Limits, Version, network_isolation
from smellkit.evaluate.equivalence.generation import generate
from smellkit.evaluate.equivalence.tools import tools_folder
from smellkit.sandbox.environment import Environment

MODULE = '''
def configure(name, required=None, **options):
    return name, required, options

def add(a: int, b: int = 1) -> int:
    return a + b

def untyped(thing):
    return thing

class Box:
    def __init__(self, size, shown):
        self.size = size
        self.shown = shown
        self._drawn = 0

    def render(self, width):
        return "#" * min(self.size, width) if self.shown else ""

def argument(name, required=None, **attrs):
    if required is None:
        required = attrs.get("count", 1) > 0
    if "many" in attrs:
        raise TypeError("'many' is not supported")
    if attrs.get("count") == -1 and name == "rest":
        raise TypeError("a variadic argument takes no default")
    return name, required, attrs

def pad(text, width):
    return text.ljust(width) if width > 12 else text

class Labelled:
    def __init__(self, name):
        self.name = name
        self.show = False
        self.label = None
        self.colour = "red"

    def render(self, prefix):
        if self.show and self.label is not None:
            return f"{prefix}{self.name} [{self.label}]"
        return prefix + self.name

class Lazy:
    def __init__(self, name: str, mode: str = "r"):
        self.name = name
        self.mode = mode

    def open(self):
        if self.mode == "w":
            raise ValueError(self.name)
        return self.name

def slashed(options):
    return any(item == "/" for item in options)

class Parameter:
    def __init__(self, decls, default=None, nargs=1):
        if default is not None and nargs != 1 and isinstance(default, (str, bool, int)):
            raise ValueError("'default' must be a list when 'nargs' != 1")
        self.default = default
        self.nargs = nargs

class Argument(Parameter):
    def __init__(self, decls, **attrs):
        super().__init__(decls, **attrs)
        if self.default is not None and self.nargs == -1:
            raise TypeError("'default' is not supported for nargs=-1")

def paragraph(text, width=None):
    if isinstance(text, bytes):
        text = text.decode()
    lines = text.splitlines()
    if lines and lines[0] == "\\b":
        return lines[1:]
    return text if width is None else text[:width]

import typing

class Flag:
    def convert(self, value: typing.Any, context: typing.Optional["Undefined"]) -> bool:
        norm = value.strip().lower()
        if norm in {"no", "off"}:
            return False
        return bool(norm)

def describe(message: typing.Optional[typing.Any], out: typing.Optional[typing.IO[str]]
             ) -> str:
    return type(message).__name__

class Shown:
    def __init__(self, default=None):
        self.default = default
        self.show_default = False

    def get_default(self):
        return self.default

    def help(self):
        value = self.get_default()
        hidden = self.default == "secret"
        if self.show_default and value is not None and not hidden:
            return "(dynamic)" if callable(value) else str(value)
        return ""

class Opened:
    def __init__(self, name: str, mode: str = "r", atomic: bool = False):
        if "r" in mode:
            open(name).close()
        self.name = name
        self.mode = mode
        self.atomic = atomic

    def open(self):
        return self.mode

def emit(message: str, out: typing.TextIO, raw: typing.Optional[typing.BinaryIO] = None):
    out.buffer.write(message.encode())

def completion_args():
    import os
    words = os.environ["WORDS"].split()
    return words[1:int(os.environ["CWORD"])]

def kind_of(thing):
    if isinstance(thing, type):
        raise TypeError("a class, not an instance")
    return type(thing).__name__
'''


def _entry(qualname: str, distance: int = 0) -> EntryPoint:
    return EntryPoint(name=f"pkg.mod.{qualname}", module="pkg.mod", qualname=qualname,
                      result_module="pkg.mod", result_qualname=qualname, distance=distance,
                      first_line=1, def_line=1)


@pytest.fixture
def version(tmp_path: Path) -> Version:
    tree = tmp_path / "tree"
    (tree / "src" / "pkg").mkdir(parents=True)
    (tree / "src" / "pkg" / "__init__.py").write_text("")
    (tree / "src" / "pkg" / "mod.py").write_text(textwrap.dedent(MODULE))
    env = Environment(root=tmp_path, python=Path(sys.executable),
                      env={"PATH": os.environ["PATH"]}, source_path="src")
    tools, missing = tools_folder()
    if "hypothesis" in missing:
        pytest.skip("hypothesis is not installed")
    return Version(tree=tree, env=env, scratch=tmp_path / "scratch",
                   limits=Limits(startup=30.0), isolate_network=network_isolation() is None,
                   tools=tools)


def _inputs(found: dict[str, list[tuple[str, bytes]]], name: str, source: str
            ) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    # the generator passes the worker script's functions as inputs (`computed_value`)
    sys.modules.setdefault("smellkit_equivalence_worker", importlib.import_module(
        "smellkit.evaluate.equivalence._worker"))
    return [pickle.loads(payload) for kind, payload in found.get(f"pkg.mod.{name}", ())
            if kind == source]


@contextlib.contextmanager
def _importable(version: Version) -> Iterator[None]:
    """The package importable here, to pickle and unpickle its objects."""
    sys.path.insert(0, str(version.tree / "src"))
    try:
        yield
    finally:
        sys.path.remove(str(version.tree / "src"))
        for name in ("pkg.mod", "pkg"):
            sys.modules.pop(name, None)


def _boxed(version: Version, size: int, shown: bool, width: int) -> bytes:
    """A recorded `Box(size, shown).render(width)`."""
    with _importable(version):
        from pkg.mod import Box  # type: ignore[import-not-found]

        return pickle.dumps(((Box(size, shown), width), {}))


def test_keyword_arguments_of_recordings_are_varied_by_their_type(version: Version) -> None:
    recorded = {"pkg.mod.configure": [pickle.dumps((("name",), {"nargs": 2, "flag": True}))],
                "pkg.mod.untyped": [pickle.dumps(((["a"],), {}))],
                "pkg.mod.Box.render": [_boxed(version, 3, False, 10)]}
    drawn = generate([_entry("configure"), _entry("add"), _entry("untyped"),
                      _entry("Box.render")], recorded, version, 120, generated=10, mutated=20)
    assert not drawn.problems, drawn.problems
    varied = _inputs(drawn.inputs, "configure", "mutated")
    assert varied and all(args == ("name",) or kwargs == {"nargs": 2, "flag": True}
                          for args, kwargs in varied)
    # keyword values are set to their neighbours first, then redrawn from their types
    nargs = {kwargs["nargs"] for _, kwargs in varied if "nargs" in kwargs}
    assert {1, 3, 0, -1} <= nargs
    assert {kwargs["flag"] for _, kwargs in varied if "flag" in kwargs} == {True, False}
    assert {args[0] for args, _ in varied} >= {"", "nam", "namee"}
    assert len(nargs - {2, 1, 3, 0, -1, -2}) > 1
    # a keyword argument is also left out (its default, or the callee's, is behaviour too)
    assert (("name",), {"flag": True}) in varied and (("name",), {"nargs": 2}) in varied
    untyped = {repr(args) for source in ("generated", "mutated")
               for args, _ in _inputs(drawn.inputs, "untyped", source)}
    assert "([],)" in untyped and "(['a'],)" not in untyped  # what was recorded is not redrawn
    # the receiver's attributes are inputs too: each set to its neighbours, the width as well
    with _importable(version):
        boxes = [(vars(box), width) for (box, width), _ in _inputs(drawn.inputs, "Box.render",
                                                                    "mutated")]
    assert ({"size": 3, "shown": True, "_drawn": 0}, 10) in boxes
    assert ({"size": 4, "shown": False, "_drawn": 0}, 10) in boxes
    assert ({"size": 3, "shown": False, "_drawn": 0}, 9) in boxes
    # private state keeps the invariants the class sets up: no caller can change it
    assert all(state["_drawn"] == 0 for state, _ in boxes)
    # nothing recorded: annotations alone; the defaulted parameter is drawn too
    generated = _inputs(drawn.inputs, "add", "generated")
    assert generated and all(isinstance(value, int) for args, _ in generated for value in args)


def test_a_functions_own_literals_widen_the_sweep_of_a_changed_function(version: Version
                                                                          ) -> None:
    """The keywords `**attrs` is read with that no recorded call passed are tried (a branch no
    test reaches, `"many" in attrs`), with the numbers the function compares against among
    their values; a number compared against (12) and one either side become neighbours of
    every number; a function the prediction did not change keeps the small sweep."""
    recorded = {"pkg.mod.argument": [pickle.dumps((("name",), {}))],
                "pkg.mod.pad": [pickle.dumps((("ab", 3), {}))]}
    drawn = generate([_entry("argument"), _entry("pad")], recorded, version, 120,
                     generated=0, mutated=0, swept=2, swept_changed=40)
    assert not drawn.problems, drawn.problems
    varied = _inputs(drawn.inputs, "argument", "mutated")
    assert (("name",), {"many": True}) in varied
    counts = [kwargs["count"] for _, kwargs in varied if "count" in kwargs]
    assert any(count is True for count in counts) and {-1, 0, 1} <= set(counts)
    assert all(len(kwargs) <= 1 for _, kwargs in varied)  # one value changed at a time
    widths = {args[1] for args, _ in _inputs(drawn.inputs, "pad", "mutated")}
    assert {11, 12, 13} <= widths
    unchanged = generate([_entry("argument", distance=1)], recorded, version, 120,
                         generated=0, mutated=0, swept=2, swept_changed=40)
    assert len(_inputs(unchanged.inputs, "argument", "mutated")) == 2


def _labelled(version: Version) -> bytes:
    """A recorded `Labelled("x").render(">")`."""
    with _importable(version):
        from pkg.mod import Labelled  # type: ignore[import-not-found]

        return pickle.dumps(((Labelled("x"), ">"), {}))


def test_two_values_change_at_once_where_one_alone_reaches_nothing(version: Version) -> None:
    """`show` on with a `label` set: each alone takes the recorded branch. The pairs come from
    the attributes `render` reads (not `colour`), for the changed function only."""
    recorded = {"pkg.mod.Labelled.render": [_labelled(version)]}
    drawn = generate([_entry("Labelled.render")], recorded, version, 120, generated=0,
                     mutated=0, swept=2, swept_changed=40, paired=40)
    assert not drawn.problems, drawn.problems
    with _importable(version):
        pairs = [(vars(box), prefix) for (box, prefix), _ in
                 _inputs(drawn.inputs, "Labelled.render", "paired")]
        singles = [vars(box) for (box, _), _ in
                   _inputs(drawn.inputs, "Labelled.render", "mutated")]
    assert ({"name": "x", "show": True, "label": "a", "colour": "red"}, ">") in pairs
    assert all(state["colour"] == "red" for state, _ in pairs)
    assert not any(state["show"] and state["label"] is not None for state in singles)
    unchanged = generate([_entry("Labelled.render", distance=1)], recorded, version, 120,
                         generated=0, mutated=0, swept=2, swept_changed=40, paired=40)
    assert not _inputs(unchanged.inputs, "Labelled.render", "paired")


def test_neighbours_reach_inside_lists_and_turn_none_and_strings_into_other_kinds(
        version: Version) -> None:
    """An item of a list argument set to the function's literal; a None argument given a
    value; a string given as bytes, and as a paragraph under a marker the code looks for."""
    recorded = {"pkg.mod.slashed": [pickle.dumps(((["--debug", "-d"],), {}))],
                "pkg.mod.paragraph": [pickle.dumps((("ab",), {"width": None}))]}
    drawn = generate([_entry("slashed"), _entry("paragraph")], recorded, version, 120,
                     generated=0, mutated=0, swept=2, swept_changed=40, paired=0)
    assert not drawn.problems, drawn.problems
    lists = [args[0] for args, _ in _inputs(drawn.inputs, "slashed", "mutated")]
    assert ["/", "-d"] in lists and ["--debug", "/"] in lists and [] in lists
    texts = [(args, kwargs) for args, kwargs in _inputs(drawn.inputs, "paragraph", "mutated")]
    assert ((b"ab",), {"width": None}) in texts
    assert (("\b\nab\nab",), {"width": None}) in texts
    assert {kwargs["width"] for args, kwargs in texts if args == ("ab",) and "width" in kwargs
            } >= {"a", True, 0, ()}


def test_a_method_no_test_called_gets_receivers_built_from_its_class(version: Version) -> None:
    drawn = generate([_entry("Lazy.open")], {}, version, 120, generated=10, mutated=0,
                     swept=0, swept_changed=0, paired=0)
    assert not drawn.problems, drawn.problems
    with _importable(version):
        from pkg.mod import Lazy

        receivers = [args[0] for args, _ in _inputs(drawn.inputs, "Lazy.open", "generated")]
        assert receivers and all(isinstance(item, Lazy) for item in receivers)
        assert len({(item.name, item.mode) for item in receivers}) > 1


def _constructed(version: Version, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
                 ) -> bytes:
    """A recorded `name(*args, **kwargs)` of a class of the module: its `__init__` called on a
    new, empty instance."""
    with _importable(version):
        import pkg.mod  # type: ignore[import-not-found]

        kind = getattr(pkg.mod, name)
        return pickle.dumps(((kind.__new__(kind), *args), kwargs))


def test_inputs_aimed_at_the_tests_the_code_makes_meet_two_clauses_at_once(
        version: Version) -> None:
    """`self.default is not None and self.nargs == -1`: both values are keywords the
    constructor hands on to its base, and the default must be a list to pass the base's own
    check. The aimed inputs set both at once, a list among the defaults, and each alone;
    a function the prediction did not change gets none."""
    source = textwrap.dedent(MODULE)
    def_line = source.splitlines().index("class Argument(Parameter):") + 2
    tests = {"pkg.mod.Argument.__init__": read_tests(source, def_line)}
    assert [("default", "is not", None), ("nargs", "==", -1)] in tests["pkg.mod.Argument.__init__"]
    recorded = {"pkg.mod.Argument.__init__": [
        _constructed(version, "Argument", (["files"],), {}),
        _constructed(version, "Argument", (["pair"],), {"nargs": 2, "default": ["a", "b"]})]}
    drawn = generate([_entry("Argument.__init__")], recorded, version, 120, generated=0,
                     mutated=0, swept=0, swept_changed=0, paired=0, aimed=40, tests=tests)
    assert not drawn.problems, drawn.problems
    with _importable(version):
        aimed = [(args[1:], kwargs) for args, kwargs in
                 _inputs(drawn.inputs, "Argument.__init__", "aimed")]
    both = [kwargs["default"] for _, kwargs in aimed
            if kwargs.get("nargs") == -1 and kwargs.get("default") is not None]
    assert {(), ("a",)} <= set(both)  # the ones the base's check lets through
    assert ((["files"],), {"nargs": -1}) in aimed
    unchanged = generate([_entry("Argument.__init__", distance=1)], recorded, version, 120,
                         generated=0, mutated=0, swept=0, swept_changed=0, paired=0, aimed=40,
                         tests=tests)
    assert not _inputs(unchanged.inputs, "Argument.__init__", "aimed")


def test_a_method_of_a_class_built_without_arguments_is_swept_and_aimed_from_drawn_inputs(
        version: Version) -> None:
    """No test called `Flag.convert`: its receiver is `Flag()`, its `value: Any` is drawn
    from values of several types, the context (optional, of a type that does not evaluate) is
    None; those drawn inputs then stand in for recorded ones, so the values the code compares
    (`norm in {"no", "off"}`, `norm` read from `value`) are set on them."""
    source = textwrap.dedent(MODULE)
    def_line = next(number for number, line in enumerate(source.splitlines(), 1)
                    if "def convert(self, value" in line)
    tests = {"pkg.mod.Flag.convert": read_tests(source, def_line)}
    drawn = generate([_entry("Flag.convert")], {}, version, 120, generated=10, mutated=0,
                     swept=0, swept_changed=0, paired=0, aimed=20, tests=tests)
    assert not drawn.problems, drawn.problems
    with _importable(version):
        from pkg.mod import Flag

        generated = _inputs(drawn.inputs, "Flag.convert", "generated")
        aimed = _inputs(drawn.inputs, "Flag.convert", "aimed")
        assert generated and all(isinstance(args[0], Flag) and args[2] is None
                                 for args, _ in generated)
        assert len({type(args[1]) for args, _ in generated}) > 1
        assert {"no", "off"} <= {args[1] for args, _ in aimed}


def test_a_parameter_taking_anything_gets_bytes_and_a_list(version: Version) -> None:
    """`message: Optional[Any]` is redrawn from values of several types, where Hypothesis has
    no strategy for `Any`."""
    recorded = {"pkg.mod.describe": [pickle.dumps((("text", None), {}))]}
    drawn = generate([_entry("describe")], recorded, version, 120, generated=20, mutated=30,
                     swept=0, swept_changed=0, paired=0, aimed=0)
    assert not drawn.problems, drawn.problems
    messages = [args[0] for source in ("generated", "mutated")
                for args, _ in _inputs(drawn.inputs, "describe", source)]
    assert any(isinstance(item, bytes) for item in messages)
    assert any(isinstance(item, list) for item in messages)


def test_each_type_a_parameter_taking_anything_takes_is_tried(version: Version) -> None:
    """Not left to sampling: the first input with `message: Optional[Any]` set to each of the
    values of every type in turn, the other argument kept, with only one input drawn."""
    recorded = {"pkg.mod.describe": [pickle.dumps((("text", None), {}))]}
    drawn = generate([_entry("describe")], recorded, version, 120, generated=1, mutated=0,
                     swept=0, swept_changed=0, paired=0, aimed=0)
    assert not drawn.problems, drawn.problems
    # an input equal to one drawn before is left out: the one generated input counts too
    inputs = [item for source in ("generated", "mutated")
              for item in _inputs(drawn.inputs, "describe", source)]
    assert {type(args[0]) for args, _ in inputs} >= {
        bytes, list, dict, tuple, str, int, float, bool, type(None)}
    assert all(args[1] is None for args, _ in _inputs(drawn.inputs, "describe", "mutated"))


def test_a_stream_parameter_gets_a_text_stream_over_bytes(version: Version) -> None:
    """`out: TextIO` is a `TextIOWrapper` over a `BytesIO` (it has a `buffer`, as a real file
    does) that pickles into both versions; `raw: Optional[BinaryIO]` is None or a `BytesIO`."""
    drawn = generate([_entry("emit")], {}, version, 120, generated=10, mutated=0, swept=0,
                     swept_changed=0, paired=0, aimed=0)
    assert not drawn.problems, drawn.problems
    inputs = _inputs(drawn.inputs, "emit", "generated")
    assert inputs
    for args, _ in inputs:
        assert isinstance(args[1], io.TextIOWrapper) and isinstance(args[1].buffer, io.BytesIO)
        assert args[1].encoding == "utf-8"
        assert len(args) < 3 or args[2] is None or isinstance(args[2], io.BytesIO)


def test_a_receiver_is_built_with_drawn_optional_arguments(version: Version) -> None:
    """No test called `Opened.open`: its receivers are made with `mode` (a string parameter
    named after `open`'s: its values among the draws) and `atomic` drawn too, and the
    constructions that raise (mode "r" on a file that does not exist) are left out instead of
    ending the draws."""
    drawn = generate([_entry("Opened.open")], {}, version, 120, generated=20, mutated=0,
                     swept=0, swept_changed=0, paired=0, aimed=0)
    assert not drawn.problems, drawn.problems
    with _importable(version):
        from pkg.mod import Opened

        receivers = [args[0] for args, _ in _inputs(drawn.inputs, "Opened.open", "generated")]
        assert receivers and all(isinstance(item, Opened) for item in receivers)
        assert "w" in {item.mode for item in receivers}
        assert {item.atomic for item in receivers} == {True, False}


def test_the_environment_and_stdin_a_recorded_input_ran_with_are_swept(
        version: Version) -> None:
    """A recorded call that ran with `WORDS` and `CWORD` set and text left on stdin: inputs
    with `CWORD` one more and one less, `WORDS` empty, and stdin at its end, the other state
    kept; the arguments (none) unchanged."""
    state = {"environ": ({"WORDS": "cli a b", "CWORD": "1"}, ["GONE"]), "stdin": "y\n"}
    recorded = {"pkg.mod.completion_args": [pickle.dumps(((), {}, state))]}
    drawn = generate([_entry("completion_args")], recorded, version, 120, generated=0,
                     mutated=0, swept=0, swept_changed=20, paired=0, aimed=0)
    assert not drawn.problems, drawn.problems
    states = [pickle.loads(payload)[2] for source, payload
              in drawn.inputs["pkg.mod.completion_args"] if source == "mutated"]
    environs = [item["environ"][0] for item in states if item["stdin"] == "y\n"]
    assert {"WORDS": "cli a b", "CWORD": "2"} in environs
    assert {"WORDS": "cli a b", "CWORD": "0"} in environs
    assert {"WORDS": "", "CWORD": "1"} in environs
    assert all(item["environ"][1] == ["GONE"] for item in states)
    assert {"environ": ({"WORDS": "cli a b", "CWORD": "1"}, ["GONE"]), "stdin": ""} in states


def test_a_stack_a_thread_local_held_is_swept_one_level_down(version: Version) -> None:
    """A recorded call that ran with two contexts on a thread-local stack (the same context
    entered twice, as click's commands do): an input with one fewer, where code reading
    the stack's top and the one under it (`stack[-2]` for `stack[-1]`) tells them apart; a
    context variable's value is kept."""
    held = {"pkg.mod": {"_local": {"stack": ["ctx", "ctx"]}, "depth": 2}}
    recorded = {"pkg.mod.completion_args": [pickle.dumps(((), {}, {"locals": held}))]}
    drawn = generate([_entry("completion_args")], recorded, version, 120, generated=0,
                     mutated=0, swept=0, swept_changed=20, paired=0, aimed=0)
    assert not drawn.problems, drawn.problems
    states = [pickle.loads(payload)[2] for source, payload
              in drawn.inputs["pkg.mod.completion_args"] if source == "mutated"]
    assert {"locals": {"pkg.mod": {"_local": {"stack": ["ctx"]}, "depth": 2}}} in states


def test_a_value_read_through_a_getter_is_set_to_a_function_with_its_flag(
        version: Version) -> None:
    """`value = self.get_default()` then `self.show_default and value is not None and not
    hidden`: the aimed inputs set the attribute the getter is named for, a function among its
    first values (code that shows a computed default), together with the flag; `hidden`, a
    local computed from a comparison, has no place in an input and is left out of the
    combinations instead of ruling them all out."""
    source = textwrap.dedent(MODULE)
    def_line = next(number for number, line in enumerate(source.splitlines(), 1)
                    if "def help(self):" in line)
    tests = {"pkg.mod.Shown.help": read_tests(source, def_line)}
    assert [("show_default", "truthy", None), ("default", "is not", None),
            ("hidden", "falsy", None)] in tests["pkg.mod.Shown.help"]
    with _importable(version):
        from pkg.mod import Shown

        recorded = {"pkg.mod.Shown.help": [pickle.dumps(((Shown(3),), {}))]}
    drawn = generate([_entry("Shown.help")], recorded, version, 120, generated=0, mutated=0,
                     swept=0, swept_changed=0, paired=0, aimed=3, tests=tests)
    assert not drawn.problems, drawn.problems
    with _importable(version):
        states = [vars(args[0]) for args, _ in _inputs(drawn.inputs, "Shown.help", "aimed")]
    assert any(state["show_default"] is True and callable(state["default"]) and
               state["default"]() == "computed" for state in states)


def test_an_object_argument_is_also_given_as_its_class_and_a_defaulted_one_left_out(
        version: Version) -> None:
    with _importable(version):
        from pkg.mod import Shown

        recorded = {"pkg.mod.kind_of": [pickle.dumps(((Shown(),), {}))],
                    "pkg.mod.paragraph": [pickle.dumps((("ab", 3), {}))]}
    drawn = generate([_entry("kind_of"), _entry("paragraph")], recorded, version, 120,
                     generated=0, mutated=0, swept=0, swept_changed=20, paired=0, aimed=0)
    assert not drawn.problems, drawn.problems
    with _importable(version):
        classes = [args[0] for args, _ in _inputs(drawn.inputs, "kind_of", "mutated")]
        assert any(isinstance(item, type) and item.__name__ == "Shown" for item in classes)
    assert (("ab",), {}) in _inputs(drawn.inputs, "paragraph", "mutated")
