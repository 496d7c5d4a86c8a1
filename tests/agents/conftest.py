"""The agents' tests use the scoring tests' datasets: the calc build (fast) and click (slow)."""

from tests.evaluate.conftest import calc_dataset, click_dataset

__all__ = ["calc_dataset", "click_dataset"]
