"""Parsing on several threads at once (scoring checks predictions on threads)."""

from __future__ import annotations

import argparse
import ast
import threading
from pathlib import Path

from smellkit._internal import pyast


class _Finaliser:
    """A cycle whose finaliser runs Python code during a collection, which lets the interpreter
    switch threads in the middle of another thread's AST conversion."""

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        sum(range(1000))


def test_threads_parse_at_once_without_a_system_error() -> None:
    source = Path(argparse.__file__).read_text(encoding="utf-8")
    failures: list[BaseException] = []

    def parse_while_collecting() -> None:
        for _ in range(25):
            try:
                tree = pyast.parse(source, "argparse.py")
            except SystemError as error:  # the race unguarded parsing loses on CPython < 3.11.8
                failures.append(error)
                return
            assert isinstance(tree, ast.Module)
            for _ in range(200):
                _Finaliser()

    threads = [threading.Thread(target=parse_while_collecting) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_modes_and_errors_are_ast_parse_s() -> None:
    assert isinstance(pyast.parse("a + 1", mode="eval"), ast.Expression)
    try:
        pyast.parse("def (", "broken.py")
    except SyntaxError as error:
        assert error.filename == "broken.py"
    else:
        raise AssertionError("a syntax error was not raised")
