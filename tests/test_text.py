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


def test_power_text_writes_large_counts_for_people():
    """The article's 70B x 5T x 6 = 2.1e24 FLOP reached the app's headline as '2.10e+24'."""
    from workbook.text import power_text

    assert power_text(6 * 70e9 * 5e12) == "2.1 × 10²⁴"
    assert power_text(123_456) == "123,456"


def test_counts_and_kilowatts_read_as_a_sentence():
    """The workstation memo read 'Power: 1 nodes x 1.1 kW ... = 1 kW IT, 2 kW at PUE 1.54, in 1
    racks' while its headline said 1.7 kW: one node, one rack, and small kW to one decimal."""
    from workbook.text import count_text, kw_text

    assert count_text(1, "rack") == "1 rack"
    assert count_text(256, "node") == "256 nodes"
    assert count_text(1024, "node") == "1,024 nodes"
    assert kw_text(1.1 * 1.54) == "1.7 kW"  # one node of 1.1 kW at PUE 1.54
    assert kw_text(12_345.6) == "12,346 kW"


def test_a_number_and_its_per_cent_sign_stay_on_one_line():
    """A page joins a number and its per cent sign with a no-break space (the app's box wrapped
    "41.5 / % longer" at 1,024 px); words, ranges and other spaces are left alone."""
    from workbook.text import keep_together

    said = "up to 41.5 % longer; over 99 % probability (80 % required), p10-p90 1.4-7.6 days"
    assert keep_together(said) == (
        "up to 41.5\u00a0% longer; over 99\u00a0% probability (80\u00a0% required), "
        "p10-p90 1.4-7.6 days"
    )
    assert keep_together("a % sign after a word: stays") == "a % sign after a word: stays"


def test_an_iso_date_is_not_cut_at_its_hyphen():
    """At 400 px the caveats box broke "2026- / 05-18"; a page makes the date's two hyphens
    no-break hyphens (U+2011) and leaves other hyphens (ranges, p10-p90) alone."""
    from workbook.text import keep_together

    said = "rent assumed proportional to purchase price (2026-05-18); p10-p90 1.2-6.2 days"
    assert keep_together(said) == (
        "rent assumed proportional to purchase price (2026\u201105\u201118); p10-p90 1.2-6.2 days"
    )
    assert keep_together("model 12026-05-180 and 2026-5-18") == "model 12026-05-180 and 2026-5-18"
