"""Words for numbers: the energy and carbon of a run."""

import pytest

from workbook.text import energy_text


@pytest.mark.parametrize(
    "kwh, kg, text",
    [
        (42_345, 20_029.2, "42,300 kWh and 20.0 t CO2e"),  # 20,029 kg = 20.0 t
        (1_234_567, 583_950, "1,230 MWh and 584 t CO2e"),  # from 1,000 MWh, in MWh
        (145.388, 68.77, "145 kWh and 68.8 kg CO2e"),
        (3.214, 1.52, "3.21 kWh and 1.52 kg CO2e"),
        (0, 0, "0 kWh and 0 kg CO2e"),
    ],
)
def test_energy_text_keeps_three_figures(kwh, kg, text):
    assert energy_text(kwh, kg) == text
