"""The sourced tables of ``data/``: schema, parsing, overrides and lookups."""

from .lookup import (
    DATA_DIR,
    Catalog,
    CatalogError,
    Override,
    UnknownIdError,
    accelerators,
    load_catalog,
    resolve_catalog,
)

__all__ = [
    "DATA_DIR",
    "Catalog",
    "CatalogError",
    "Override",
    "UnknownIdError",
    "accelerators",
    "load_catalog",
    "resolve_catalog",
]
