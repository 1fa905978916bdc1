"""What the guided notebooks take in: the argument checks they share, and the data line they print.

The checks name the argument, the value and what is allowed (STYLE.md); every failure is a
``ValueError``. Single numbers and choices use :mod:`workbook.checks`; what is checked here are the
guides' lists: accelerator ids of the catalog and lists of positive sizes.
"""

from __future__ import annotations

import numpy as np

from ..catalog import Catalog, resolve_catalog
from ..checks import check_number
from ..text import snapshot_line
from ..units import GIGA

#: Training tokens passed where a table's figure does not depend on them (memory per GPU, the
#: steady-state step time) [tokens]: any positive count serves.
PROBE_TOKENS = 1.0 * GIGA


def accelerator_ids(cat: Catalog, accelerators, name: str = "accelerators") -> list[str]:
    """A validated list of accelerator ids of ``cat``.

    Parameters
    ----------
    cat : Catalog
        The data the ids must be in.
    accelerators : list of str or None
        Catalog ids; None means every id in the catalog, in catalog order.
    name : str
        The argument's name in error messages.

    Raises
    ------
    ValueError
        For a single string, something not iterable, an empty list, or an unknown id.
    """
    valid = cat.accelerator_ids
    if accelerators is None:
        return list(valid)
    if isinstance(accelerators, str):
        raise ValueError(
            f"{name}={accelerators!r} is a single string; allowed: a list of accelerator ids, "
            f"e.g. [{accelerators!r}]"
        )
    try:
        ids = list(accelerators)
    except TypeError:
        raise ValueError(f"{name}={accelerators!r} is not a list of accelerator ids") from None
    if not ids:
        raise ValueError(f"{name} is empty; allowed: one or more of {', '.join(valid)}")
    for a in ids:
        if not isinstance(a, str) or a not in valid:
            raise ValueError(
                f"{name} contains {a!r}, which is not an accelerator id; "
                f"allowed: {', '.join(valid)}"
            )
    return ids


def accelerator_id(cat: Catalog, accelerator, name: str = "accelerator") -> str:
    """One validated accelerator id of ``cat`` (``name`` is the argument's name in the message)."""
    if not isinstance(accelerator, str) or accelerator not in cat.accelerator_ids:
        raise ValueError(
            f"{name}={accelerator!r} is not an accelerator id; "
            f"allowed: {', '.join(cat.accelerator_ids)}"
        )
    return accelerator


def sizes(name: str, values) -> list[float]:
    """A validated, non-empty list of positive numbers (model sizes, rack limits, runs per year).

    A scalar is taken as a list of one; a string, bytes or None is refused.
    """
    if isinstance(values, (str, bytes)) or values is None:
        raise ValueError(f"{name}={values!r} is not a list of numbers; allowed: e.g. [7e9, 70e9]")
    arr = np.atleast_1d(
        np.asarray(check_number(name, list(np.atleast_1d(values)), positive=True), float)
    )
    if arr.size == 0:
        raise ValueError(f"{name} is empty; allowed: one or more positive numbers")
    return [float(x) for x in arr]


def about_data(catalog: Catalog | None = None) -> str:
    """One line naming the data snapshot (hash of data/*.csv), its latest access date and the
    overrides: :func:`workbook.text.snapshot_line` of the catalog (default: the shipped tables)."""
    return snapshot_line(resolve_catalog(catalog).snapshot())
