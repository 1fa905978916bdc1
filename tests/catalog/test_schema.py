"""The schema (workbook.catalog.schema) is documented in data/README.md, column by column."""

from workbook.catalog import DATA_DIR, TABLES, load_catalog
from workbook.catalog.schema import RUN_METHODS, SOFTWARE_CLASS, SOFTWARE_CLASSES, TRAINING_SOFTWARE
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


def test_every_training_software_has_a_class():
    """SOFTWARE_CLASS maps each allowed software value, and only to a declared class."""
    assert set(SOFTWARE_CLASS) == set(TRAINING_SOFTWARE)
    assert set(SOFTWARE_CLASS.values()) == set(SOFTWARE_CLASSES)


def test_published_runs_software_as_the_sources_name_it():
    """Rows whose source names the framework: Pythia trained with GPT-NeoX (Biderman et al. 2023),
    Falcon-7B with TII's Gigatron (model card), JetMoE with Megatron (arXiv 2404.07413 Sec. 4.1),
    SEA-LION with MosaicML Composer (model card); Phi-3-mini's card names none."""
    runs = load_catalog().tables["published_runs"].set_index("run_id")["software"]
    assert runs["pythia-1b"] == "gpt-neox"
    assert runs["falcon-7b"] == "in-house"
    assert runs["jetmoe-8b"] == "megatron"
    assert runs["sea-lion-7b"] == "llm-foundry"
    assert runs["phi3-mini-2404"] == "unknown"
