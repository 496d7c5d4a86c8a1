import pytest

# the shared checks of tests/detectors/functional.py assert, and should explain failures as well
pytest.register_assert_rewrite("tests.detectors.functional")
