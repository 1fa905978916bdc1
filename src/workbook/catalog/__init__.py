"""The sourced tables of ``data/``: schema, parsing, overrides and lookups."""

from ..shipped import DATA_DIR
from .bounded_yaml import YamlError, bounded_yaml
from .lookup import (
    Catalog,
    accelerators,
    clear_cache,
    load_catalog,
    price_is_sourced,
    resolve_catalog,
)
from .overrides import Override, read_overrides
from .schema import TABLES, Column, Table
from .tables import CatalogError, UnknownIdError, kv_value_problem, load_table, parse_table

__all__ = [
    "DATA_DIR",
    "TABLES",
    "Catalog",
    "CatalogError",
    "Column",
    "Override",
    "Table",
    "UnknownIdError",
    "YamlError",
    "accelerators",
    "bounded_yaml",
    "clear_cache",
    "kv_value_problem",
    "load_catalog",
    "load_table",
    "parse_table",
    "price_is_sourced",
    "read_overrides",
    "resolve_catalog",
]
