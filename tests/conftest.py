"""Shared fixtures. Tests mirror the package (``tests/<layer>/test_<module>.py``); whole-product
checks (the golden results, the environment) sit here; notebooks, the browser and the memo are
exercised end to end under ``tests/e2e/``."""

import pytest

from workbook import load_catalog


@pytest.fixture(scope="session")
def cat():
    """The shipped catalog (validated once, cached by load_catalog)."""
    return load_catalog()
