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


@pytest.mark.parametrize(
    "usd, text",
    [
        (57_011_904, "$57.0M"),  # enterprise's reservation, printed to the dollar before
        (7_881_928, "$7.88M"),
        (127_696, "$128,000"),
        (30_025, "$30,000"),
        (3_409.2, "$3,410"),
        (284.4, "$284"),  # whole dollars under $1,000
        (999_600, "$1.00M"),  # rounded first: not "$1,000,000"
        (1_254_000_000, "$1.25B"),
        (-2_604_000, "-$2.60M"),
        (0, "$0"),
        (float("nan"), "n/a"),
        (float("inf"), "∞"),
    ],
)
def test_money_text_keeps_three_figures(usd, text):
    """An estimate whose p10-p90 band is 3x wide is written to three figures, as the energy is."""
    from workbook.text import money_text

    assert money_text(usd) == text


@pytest.mark.parametrize(
    "hours, text",
    [
        (0.004, "under a minute"),  # a TPU pod's 7B LoRA on 1e8 tokens read "0.0 hours per run"
        (1 / 60, "1 minute"),
        (0.5, "30 minutes"),  # band-under-7b's run read "0.5 hours"
        (0.995, "1.0 hour"),  # 59.7 minutes: an hour, not "60 minutes"
        (3.1, "3.1 hours"),
        (13.0, "13 hours"),
        (30.0, "1.2 days"),
    ],
)
def test_duration_text_writes_minutes_under_an_hour(hours, text):
    from workbook.text import duration_text

    assert duration_text(hours / 24) == text


@pytest.mark.parametrize(
    "usd, text",
    [
        (3e6, "$3M"),  # funded-startup's budget, was "$3.00M" in the odds line
        (4e8, "$400M"),  # enterprise's, was "$400,000,000" in the reasons
        (65.4e6, "$65.4M"),  # the article preset's remedy, found to three figures
        (502_000, "$502,000"),
        (123_456, "$123,456"),  # not three figures: to the dollar, as the reader typed it
        (1_234_567, "$1,234,567"),
        (0, "$0"),
    ],
)
def test_a_budget_is_written_as_the_reader_gave_it(usd, text):
    from workbook.text import amount_text

    assert amount_text(usd) == text


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

    said = "up to 41.5 % longer; over 99 % probability (80 % required), the rest"
    assert keep_together(said) == (
        "up to 41.5\u00a0% longer; over 99\u00a0% probability (80\u00a0% required), the rest"
    )
    assert keep_together("a % sign after a word: stays") == "a % sign after a word: stays"


def test_an_iso_date_and_a_range_are_not_cut_at_their_hyphens():
    """At 400 px the caveats box broke "2026- / 05-18" and the headline "(p10- / p90 1.2-6.2
    days)"; a page makes the hyphens of a date, of a range between two numbers and of p10-p90
    no-break hyphens (U+2011), and leaves the others alone: names whose digits end at a hyphen,
    a minus sign, words, a spaced dash."""
    from workbook.text import keep_together

    said = (
        "purchase price (2026-05-18); 2.8 days per run (p10-p90 1.2-6.2 days), $30,800 "
        "(p10-p90 $17,898-$58,715), the 1-8 week band, $1.2M-$3.4M"
    )
    assert keep_together(said) == (
        "purchase price (2026\u201105\u201118); 2.8 days per run (p10\u2011p90 1.2\u20116.2 "
        "days), $30,800 (p10\u2011p90 $17,898\u2011$58,715), the 1\u20118 week band, "
        "$1.2M\u2011$3.4M"
    )
    left = "llama31-405b, mi300x-8, band-70b-to-400b, -3% vs the pick, day 5 - 10, 1-year, GPU-hour"
    assert keep_together(left) == left


def test_a_probability_just_short_of_its_level_is_not_rounded_up_to_it():
    """series-a-healthcare-17b-lora rejected 8 RTX 6000 Ada bought new with "finishes by day 60
    with 80 % probability, 80 % required" (p = 0.7955): a reader saw the level met. Against a
    level, a probability under it that whole percents round up to it is said to the tenth,
    rounded down; elsewhere whole percents as before."""
    from workbook.text import probability_text

    assert probability_text(0.7955, short_of=0.8) == "79.5 %"
    assert probability_text(0.79996, short_of=0.8) == "79.9 %"
    assert probability_text(0.7949, short_of=0.8) == "79 %"  # rounds below 80 already
    assert probability_text(0.8, short_of=0.8) == "80 %"  # the level met
    assert probability_text(0.7955) == "80 %"


def test_a_rejected_option_short_of_the_confidence_says_by_how_much():
    """By hand from the options table: 8 RTX 6000 Ada bought new finish by day 60 with
    p_deadline 0.7955 (the 1-8 week delivery band holds them there) against 80 %."""
    from workbook.decide import presets, recommend
    from workbook.decide.evaluate import option_row

    rec = recommend(presets["series-a-healthcare-17b-lora"], sensitivity=False)
    row = option_row(rec.options, "rtx-6000-ada", 8, "buy-new")
    assert 0.795 <= row["p_deadline"] < 0.796 and not row["feasible"]
    assert "finishes by day 60 with 79.5 % probability, 80 % required" in row["failed"]


def test_a_parameter_count_is_written_to_four_figures():
    """Sizes as typed keep their digits (7B, 1.2T, 350M, 13.75B); a count a config file gives
    (Qwen3-30B-A3B: 30,532,110,336 total, 3,353,020,416 active; Llama 3 70B: 70,553,706,496)
    reads 30.53B, 3.353B, 70.55B, not 30.5321B."""
    from workbook.text import params_label

    assert [params_label(n) for n in (7e9, 1.2e12, 350e6, 13.75e9)] == [
        "7B", "1.2T", "350M", "13.75B",
    ]  # fmt: skip
    assert params_label(30_532_110_336) == "30.53B"
    assert params_label(3_353_020_416) == "3.353B"
    assert params_label(70_553_706_496) == "70.55B"
    assert params_label(125) == "125"
