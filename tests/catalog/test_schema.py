"""The schema (workbook.catalog.schema) is documented in data/README.md, column by column."""

from workbook.catalog import DATA_DIR, TABLES
from workbook.catalog.schema import RUN_METHODS
from workbook.model import METHODS


def test_data_readme_documents_every_column():
    text = (DATA_DIR / "README.md").read_text()
    for t in TABLES.values():
        assert f"`{t.name}.csv`" in text
        for c in t.columns:
            assert f"`{c.name}`" in text, f"{t.name}.{c.name} is not documented in data/README.md"


def test_published_run_methods_are_the_engines():
    """published_runs.csv's method column allows exactly workbook.model.METHODS."""
    assert RUN_METHODS == METHODS
