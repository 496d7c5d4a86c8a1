"""Metrics of the involved code and the share of the smelly -> original gap a result closed."""

from __future__ import annotations

from pathlib import Path

import pytest

from smellkit.analysis.context import Context
from smellkit.evaluate.signals.deltas import METRICS, gap_closed, measure, outermost
from smellkit.project import Project
from tests.evaluate.helpers import make_tree

CODE = '''\
class Account:
    def __init__(self):
        self.balance = 0

    def deposit(self, amount):
        if amount < 0:
            raise ValueError("negative")
        self.balance += amount

    def report(self):
        def line(value):
            return f"{value}" if value else "-"
        return line(self.balance)


def total(accounts):
    return sum(account.balance for account in accounts if account)
'''


@pytest.fixture
def context(tmp_path: Path) -> Context:
    root = make_tree(tmp_path, {"bank.py": CODE, "other.py": "def f():\n    return 1\n"})
    return Context(Project.load(root, use_cache=False, jobs=1))


def test_units_are_the_outermost_names(context: Context) -> None:
    assert outermost(["bank.Account.deposit", "bank.Account", "bank.total"], context) == \
        ["bank.Account", "bank.total"]
    assert outermost(["bank", "bank.total", "other.f"], context) == ["bank", "other.f"]


def test_measure_sums_cc_and_sloc_and_averages_mi(context: Context) -> None:
    functions = measure(context, ["bank.total"])
    assert functions["cc"] == 3.0  # the function, its comprehension's for and if
    assert functions["sloc"] == 2.0
    assert functions["wmc"] == 0.0 and functions["cbo"] == 0.0 and functions["lcom4"] is None
    whole = measure(context, ["bank.Account", "bank.Account.deposit"])
    index = context.index
    methods = ["bank.Account.__init__", "bank.Account.deposit", "bank.Account.report",
               "bank.Account.report.line"]
    measures = [index.definitions[name].measure for name in methods]
    assert all(measures)
    assert whole["cc"] == sum(item.cc for item in measures if item is not None)
    assert whole["wmc"] == context.class_metrics["bank.Account"].wmc
    assert whole["lcom4"] == context.class_metrics["bank.Account"].lcom4
    assert whole["mi"] == pytest.approx(sum(item.mi for item in measures if item) / 4)
    module = measure(context, ["bank"])
    assert module["sloc"] == index.modules["bank"].measure.sloc
    assert module["cc"] == whole["cc"] + functions["cc"]
    nothing = measure(context, ["bank.gone"])
    assert nothing == {"cc": 0.0, "mi": None, "wmc": 0.0, "lcom4": None, "cbo": 0.0,
                       "sloc": 0.0, "fan_out": 0.0, "calls": 0.0,
                       "tokens": 0.0}
    assert list(nothing) == list(METRICS)


def test_gap_closed() -> None:
    original = {"cc": 10.0, "sloc": 100.0, "mi": 80.0, "wmc": 5.0, "lcom4": None, "cbo": 1.0}
    smelly = {"cc": 20.0, "sloc": 150.0, "mi": 60.0, "wmc": 5.0, "lcom4": 2.0, "cbo": 1.0}
    assert gap_closed(original, smelly, original) == 1.0
    assert gap_closed(original, smelly, smelly) == 0.0
    halfway = {"cc": 15.0, "sloc": 125.0, "mi": 70.0, "wmc": 9.0, "lcom4": 1.0, "cbo": 1.0}
    assert gap_closed(original, smelly, halfway) == pytest.approx(0.5), \
        "only metrics with a gap count (wmc, cbo have none; lcom4 has no original figure)"
    overshoot = {"cc": 0.0, "sloc": 150.0, "mi": 60.0}
    assert gap_closed(original, smelly, overshoot) == pytest.approx(1 / 3), \
        "going past the original closes no more than the whole gap"
    worse = {"cc": 100.0, "sloc": 150.0, "mi": 60.0}
    assert gap_closed(original, smelly, worse) == pytest.approx(-1 / 3), "clamped at -1"
    assert gap_closed(original, original, smelly) is None, "no gap: nothing to close"
    assert gap_closed(original, smelly, {"cc": None, "sloc": None, "mi": None}) is None


def test_fan_out_counts_the_repository_names_a_module_imports(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {
        "settings.py": "TIMEOUT = 5\nRETRIES = 3\n\n\ndef helper():\n    return 1\n",
        "client.py": "import os\nfrom settings import RETRIES, TIMEOUT, helper\n\n\n"
                     "def call():\n    return os.sep, TIMEOUT, RETRIES, helper()\n",
        "inlined.py": "import os\n\n\ndef call():\n    return os.sep, 5, 3, 1\n",
    })
    context = Context(Project.load(root, use_cache=False, jobs=1))
    assert measure(context, ["client.call"])["fan_out"] == 3.0  # os is not the repository's
    assert measure(context, ["inlined.call"])["fan_out"] == 0.0


def test_calls_counts_the_call_sites_written_in_the_units(context: Context) -> None:
    assert measure(context, ["bank.total"])["calls"] == 1.0  # sum(...)
    assert measure(context, ["bank.Account.report"])["calls"] == 1.0  # line(...); f"" is no call


def test_tokens_count_the_code_a_reader_reads(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"m.py": "import re\n_ANSI = re.compile('x')\n\n\n"
                                        "def strip(text):\n    return _ANSI.sub('', text)\n\n\n"
                                        "def calls(text):\n    return strip(text)\n\n\n"
                                        "def inlined(text):\n    return _ANSI.sub('', text)\n"})
    context = Context(Project.load(root, use_cache=False, jobs=1))
    called, inlined = measure(context, ["m.calls"]), measure(context, ["m.inlined"])
    assert called["calls"] == inlined["calls"] == 1.0 and called["sloc"] == inlined["sloc"]
    assert inlined["tokens"] > called["tokens"] > 0
