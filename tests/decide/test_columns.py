"""The options table has exactly the declared columns, in the declared order, for every preset."""

import pytest

import workbook.decide.columns as columns
from workbook import presets, recommend
from workbook.decide import OPTION_COLUMNS, option_columns
from workbook.decide.feasibility import CONSTRAINTS


@pytest.mark.parametrize("name", sorted(presets))
def test_options_frame_has_exactly_the_declared_columns_in_order(name):
    o = recommend(presets[name], sensitivity=False).options
    assert tuple(o.columns) == option_columns()


def test_every_column_is_declared_once_with_a_unit_a_step_and_a_meaning():
    names = [c.name for c in OPTION_COLUMNS]
    assert len(names) == len(set(names))
    assert all(c.unit and c.meaning and c.step in columns.STEPS for c in OPTION_COLUMNS)
    assert {f"why_{k}" for k in CONSTRAINTS} <= set(names)
    assert option_columns() == tuple(
        n for step in columns.STEPS for n in option_columns(step)
    )  # the steps add their columns in turn


def test_the_docstring_lists_every_column_and_an_unknown_step_is_refused():
    assert all(f"``{c.name}`` [{c.unit}], {c.step}:" in columns.__doc__ for c in OPTION_COLUMNS)
    with pytest.raises(ValueError, match="step='fit' is unknown; allowed: estimate, sweep"):
        option_columns("fit")
