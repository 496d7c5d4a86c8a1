"""Which outside bases let a class take moved members: the builtins' and the standard library's
are read from the interpreter, so a `tzinfo` subclass can take a static method whose name
`tzinfo` does not answer; any other outside base keeps its members unknown."""

from __future__ import annotations

from pathlib import Path

from smellkit.injectors.cst import move
from tests.injectors.support import load


def test_standard_bases_are_known_and_their_members_are_taken(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "zones.py").write_text(
        "import datetime\n\nimport requests\n\n\n"
        "class Zone(datetime.tzinfo):\n    def name(self):\n        return 'z'\n\n\n"
        "class Failure(ValueError):\n    pass\n\n\n"
        "class Session(requests.Session):\n    pass\n")
    index = load(tmp_path).index
    assert move.unsafe_base(index, "pkg.zones.Zone") is None
    assert move.unsafe_base(index, "pkg.zones.Failure") is None
    assert move.unsafe_base(index, "pkg.zones.Session") == "requests.Session"
    taken = move.members(index, "pkg.zones.Zone")
    assert {"name", "utcoffset", "dst", "fromutc"} <= taken
    assert "with_traceback" in move.members(index, "pkg.zones.Failure")


def test_only_classes_of_the_standard_library_are_read() -> None:
    assert move.standard_members("<builtin>.dict") == frozenset(dir(dict))
    assert move.standard_members("collections.abc.MutableMapping") is not None
    assert move.standard_members("antigravity.Anything") is None  # never imported
    assert move.standard_members("requests.Session") is None
    assert move.standard_members("os.path") is None  # a module, not a class
    assert move.standard_members("datetime.no_such_class") is None
