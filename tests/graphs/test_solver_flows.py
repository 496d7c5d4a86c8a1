"""Flows of the points-to solver that once carried far more values than the program does:
each one multiplied the solver's work on pandas."""

from __future__ import annotations

from pathlib import Path

from smellkit.graphs.calls import build_call_graph
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
