"""Flows of the points-to solver that once carried far more values than the program does:
each one multiplied the solver's work on pandas."""

from __future__ import annotations

from pathlib import Path

from smellkit.graphs.calls import CallGraph, build_call_graph
from smellkit.project import Project

FORWARDING = '''
def finish(callback=None, cleanup=None):
    callback()


def middle(**rest):
    finish(**rest)


def run(**options):
    middle(**options)


def start():
    pass


def stop():
    pass


def main():
    run(callback=start, cleanup=stop)
'''


def test_keywords_forwarded_through_kwargs_keep_their_names(tmp_path: Path) -> None:
    (tmp_path / "forward.py").write_text(FORWARDING, encoding="utf-8")
    project = Project.load(tmp_path, use_cache=False, include_tests=True, jobs=1)
    graph = build_call_graph(project.index, budget=0).graph
    assert "forward.start" in graph["forward.finish"]
    assert "forward.stop" not in graph["forward.finish"]


KEYED = '''
def confirm():
    pass


def prompt():
    pass


def run(callback):
    callback()


def check(default):
    default()


def make(callback=None, default=None):
    run(callback)
    check(default)


def option(**attrs):
    make(**attrs)


def confirmation_option(**kwargs):
    kwargs.setdefault("callback", confirm)
    option(**kwargs)


def first():
    pass


def second():
    pass


def third():
    pass


def lookup():
    table = {"a": first, "b": second}
    table.__setitem__("c", third)
    table.get("a")()


def lookup_late():
    table = {"a": first, "b": second}
    table.__setitem__("c", third)
    table.pop("c")()
'''


def test_mapping_methods_with_a_constant_key_read_and_store_that_entry(tmp_path: Path) -> None:
    """`kwargs.setdefault("callback", f)` stored `f` under an unknown key, which every
    parameter a `**kwargs` reaches reads: click's `confirmation_option` callback became the
    `default` of every option. `d.get("a")` read every entry."""
    (tmp_path / "keyed.py").write_text(KEYED, encoding="utf-8")
    project = Project.load(tmp_path, use_cache=False, include_tests=True, jobs=1)
    graph = build_call_graph(project.index, budget=0).graph
    assert "keyed.confirm" in graph["keyed.run"]
    assert "keyed.confirm" not in graph["keyed.check"]
    assert set(graph["keyed.lookup"]) & {"keyed.first", "keyed.second", "keyed.third"} == \
        {"keyed.first"}
    assert set(graph["keyed.lookup_late"]) & {"keyed.first", "keyed.second", "keyed.third"} \
        == {"keyed.third"}


SEQUENCE_GET = '''
def first():
    pass


def second():
    pass


def pick(mapping, name):
    return mapping.get(name)


def main(name):
    handlers = [first]
    options = {"x": second}
    pick(options, name)()
    pick(handlers, name)
'''


def test_a_list_has_no_get(tmp_path: Path) -> None:
    """A list that reached a parameter whose `.get` is called (merged there by the
    flow-insensitive analysis) is not what `.get` reads: lists have no such method."""
    (tmp_path / "lists.py").write_text(SEQUENCE_GET, encoding="utf-8")
    project = Project.load(tmp_path, use_cache=False, include_tests=True, jobs=1)
    graph = build_call_graph(project.index, budget=0).graph
    assert "lists.second" in graph["lists.main"]
    assert "lists.first" not in graph["lists.main"]


DISPLAYS = '''
def first():
    pass


class State:
    def __init__(self):
        self.order = []
        self.names = []


def fill(state):
    state.order.append(first)
    for name in state.names:
        name()
    pending = []
    done = []
    pending.append(first)
    for item in done:
        item()
'''


def test_equal_displays_assigned_to_different_targets_are_different_containers(
        tmp_path: Path) -> None:
    """Every `[]` of a scope was one container: what `self.order` held, `self.names` held too
    (click's `ParsingState`, whose options reached the arguments' strings and from there a
    context's `parent`)."""
    (tmp_path / "displays.py").write_text(DISPLAYS, encoding="utf-8")
    project = Project.load(tmp_path, use_cache=False, include_tests=True, jobs=1)
    graph = build_call_graph(project.index, budget=0).graph
    assert "displays.first" not in graph["displays.fill"]


def _graph_of(tmp_path: Path, files: dict[str, str]) -> CallGraph:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    project = Project.load(tmp_path, use_cache=False, include_tests=True, jobs=1)
    return build_call_graph(project.index, budget=0)


LIBRARY = '''
class Frame:
    def result(self):
        return Frame()

    def summary(self):
        return self.result().render()

    def render(self):
        return ""

    @classmethod
    def create(cls):
        return cls()

    def copy(self):
        return self.create().render()

    kind = None

    def made(self):
        return self.kind().render()
'''

TESTS = '''
from lib import Frame


class Rendered:
    def render(self):
        return "rendered"


class SubFrame(Frame):
    kind = Rendered

    def result(self):
        return Rendered()

    def render(self):
        return "sub"


def test_summary():
    assert SubFrame().summary()
    assert SubFrame.create()
'''


def test_test_code_overrides_are_called_but_return_nothing_to_the_library(tmp_path: Path) -> None:
    graph = _graph_of(tmp_path, {"lib.py": LIBRARY, "tests/test_lib.py": TESTS}).graph
    # the override in test code is reached from the library: not dead
    assert "tests.test_lib.SubFrame.result" in graph["lib.Frame.summary"]
    # what it returns stays in test code: the library never calls `Rendered.render`
    assert "tests.test_lib.Rendered.render" not in graph["lib.Frame.summary"]
    # a test subclass is not one of the classes the library's `cls` may be
    assert "tests.test_lib.SubFrame.render" not in graph["lib.Frame.copy"]
    # nor are the classes it stores as an attribute the library's `self.kind` reads
    assert "tests.test_lib.Rendered.render" not in graph["lib.Frame.made"]


CLASSMETHOD = '''
class Base:
    def __init__(self):
        pass

    @classmethod
    def create(cls):
        return cls()


class Used(Base):
    def __init__(self):
        pass


class Unused(Base):
    def __init__(self):
        pass


def main():
    Used.create()
    Used().create()
'''


def test_cls_is_each_class_a_classmethod_is_looked_up_on(tmp_path: Path) -> None:
    graph = _graph_of(tmp_path, {"factory.py": CLASSMETHOD}).graph
    assert "factory.Used.__init__" in graph["factory.Base.create"]
    assert "factory.Unused.__init__" not in graph["factory.Base.create"]


def _arithmetic(count: int) -> str:
    classes = "".join(f'''
class Value{number}:
    def __add__(self, other):
        return Value{(number + 1) % count}()

    def check(self):
        pass
''' for number in range(count))
    calls = "".join(f"    total(Value{number}())\n" for number in range(count))
    return classes + '''

def total(value):
    return (value + value).check()


def main():
''' + calls


def test_a_special_method_result_holds_instances_of_a_few_classes(tmp_path: Path) -> None:
    graph = _graph_of(tmp_path, {"numbers.py": _arithmetic(8)})
    assert len([callee for callee in graph.graph["numbers.total"]
                if callee.endswith(".__add__")]) == 8
    checks = {callee for callee in graph.graph["numbers.total"] if callee.endswith(".check")}
    assert 0 < len(checks) <= 4


ANNOTATED = '''
class Result:
    def check(self):
        pass


class Other:
    def check(self):
        pass


def make():
    return Other()


class Matrix:
    def __matmul__(self, other) -> Result:
        return make()


def product(a: Matrix):
    return (a @ a).check()
'''


def test_a_special_method_result_is_what_its_annotation_declares(tmp_path: Path) -> None:
    graph = _graph_of(tmp_path, {"matrix.py": ANNOTATED}).graph
    assert "matrix.Result.check" in graph["matrix.product"]
    assert "matrix.Other.check" not in graph["matrix.product"]


def _overrides(count: int) -> str:
    kinds = "".join(f'''
class Made{number}:
    def check(self):
        pass


class Kind{number}(Base):
    def make(self):
        return Made{number}()
''' for number in range(count))
    return '''
class Base:
    def make(self):
        return None

    def run(self):
        return self.make().check()
''' + kinds


def test_overrides_reached_through_self_return_instances_of_a_few_classes(tmp_path: Path) -> None:
    graph = _graph_of(tmp_path, {"kinds.py": _overrides(8)}).graph
    # every override is called
    assert len([callee for callee in graph["kinds.Base.run"] if callee.endswith(".make")]) == 9
    checks = [callee for callee in graph["kinds.Base.run"] if callee.endswith(".check")]
    assert 0 < len(checks) <= 4
