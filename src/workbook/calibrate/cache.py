"""Values computed from a catalog once per catalog object (the trust paragraph's basis, the
range of the held-out runs): the app recomputes a recommendation on every input change."""

from __future__ import annotations

import weakref
from typing import Callable, Generic, TypeVar

from ..catalog import Catalog

T = TypeVar("T")


class PerCatalog(Generic[T]):
    """``compute(catalog)`` cached per catalog object.

    Keyed on ``id(catalog)`` with a weak reference that drops the entry when the catalog goes away,
    so a catalog with other overrides (another object) never reuses another's value, and a new
    catalog that happens to get a dead one's id finds nothing. Catalogs are not changed after they
    are built (:meth:`workbook.catalog.Catalog.with_overrides` makes a new one).
    """

    def __init__(self, compute: Callable[[Catalog], T]):
        self._compute = compute
        self._entries: dict[int, tuple[weakref.ref, T]] = {}

    def __call__(self, catalog: Catalog) -> T:
        key = id(catalog)
        hit = self._entries.get(key)
        if hit is not None and hit[0]() is catalog:
            return hit[1]
        value = self._compute(catalog)
        self._entries[key] = (weakref.ref(catalog, self._forget(key)), value)
        return value

    def _forget(self, key: int) -> Callable[[weakref.ref], None]:
        def forget(ref: weakref.ref) -> None:
            hit = self._entries.get(key)
            if hit is not None and hit[0] is ref:
                del self._entries[key]

        return forget

    def cache_clear(self) -> None:
        """Forget every cached value (tests that replace what ``compute`` reads)."""
        self._entries.clear()
