"""The guides' control panel (workbook.guides.widgets, used by workbook.guides.panels): the
parameters seed the widgets, a changed widget re-renders the view with the new value, checked
against hand calculation or the engine function the view shows."""

import re

import ipywidgets as w
import pytest

from workbook.guides.choices import load_choices
from workbook.guides.memory_fit import memory_fit_table
from workbook.guides.panels import memory_guide, power_guide, rent_vs_buy_guide, speed_guide
from workbook.guides.rent_vs_buy import rent_vs_buy_table
from workbook.guides.widgets import Control, GuidePanel, Rendered
from workbook.units import GIGA

SIZE = Control("n_params", "Parameters [billions]", "log", 0.1, 2000, scale=GIGA)
GPUS = Control("n_gpus", "GPUs", "int", 8, 64, 8)


def _bytes_view(v):
    """A toy guide: 16 bytes per parameter (mixed-precision Adam, ZeRO paper) over n_gpus."""
    gb = 16 * v["n_params"] / v["n_gpus"] / GIGA
    if gb > 1e6:
        raise ValueError(f"n_params={v['n_params']:g} is too large for this toy; allowed: less")
    return Rendered(headline=f"{gb:,.1f} GB per GPU", data={"gb": gb})


def _toy(**values):
    return GuidePanel([SIZE, GPUS], {"n_params": 70e9, "n_gpus": 8, **values}, _bytes_view, "toy")


def test_parameters_seed_the_widgets_in_their_units():
    p = _toy()
    assert isinstance(p.widgets["n_params"], w.FloatLogSlider)
    assert p.widgets["n_params"].value == pytest.approx(70)  # billions
    assert p.widgets["n_gpus"].value == 8
    assert p.result.headline == "140.0 GB per GPU"  # 16 x 70e9 / 8 = 140e9 bytes
    assert "140.0 GB per GPU" in p.view.value


def test_changing_a_widget_re_renders_with_the_new_value():
    p = _toy()
    p.widgets["n_params"].value = 30  # the reader drags the slider to 30 billion
    assert p.values["n_params"] == 30e9
    assert p.result.headline == "60.0 GB per GPU"  # 16 x 30e9 / 8
    assert "60.0 GB per GPU" in p.view.value and "140.0" not in p.view.value
    p.widgets["n_gpus"].value = 16
    assert "30.0 GB per GPU" in p.view.value  # 16 x 30e9 / 16
    assert p.status.value == "Updated."  # no choices file: nothing saved


def test_an_untouched_widget_gives_the_parameter_exactly():
    """6,658,859,008 (MPT-7B) / 1e9 x 1e9 is not exact in floating point; the panel does not
    round-trip a value the reader did not touch."""
    p = _toy(n_params=6658859008)
    p.widgets["n_gpus"].value = 16
    assert p.values["n_params"] == 6658859008


def test_a_value_outside_a_slider_widens_it_rather_than_clamping():
    p = _toy(n_params=5e12, n_gpus=128)  # 5,000 billion, 128 GPUs: above both sliders
    assert p.widgets["n_params"].value == pytest.approx(5000)
    assert p.widgets["n_gpus"].value == 128 and p.widgets["n_gpus"].max == 128
    assert p.result.headline == "625.0 GB per GPU"


def _at_most_32(v):
    if v["n_gpus"] > 32:
        raise ValueError(f"n_gpus={v['n_gpus']} is more than this toy takes; allowed: at most 32")
    return _bytes_view(v)


def test_a_failing_update_says_why_and_keeps_the_last_view():
    p = GuidePanel([SIZE, GPUS], {"n_params": 70e9, "n_gpus": 8}, _at_most_32, "toy")
    p.widgets["n_gpus"].value = 40
    assert "Not updated: n_gpus=40 is more than this toy takes; allowed: at most 32" in (
        p.status.value
    )
    assert p.values["n_gpus"] == 8 and "140.0 GB per GPU" in p.view.value
    p.widgets["n_gpus"].value = 16  # a good value again: updated, the message gone
    assert "70.0 GB per GPU" in p.view.value and p.status.value == "Updated."


def test_a_bad_parameter_raises_before_any_widget_is_built():
    with pytest.raises(ValueError, match="n_params=1e\\+17 is too large"):
        _toy(n_params=1e17)
    with pytest.raises(ValueError, match="controls without a value: n_gpus"):
        GuidePanel([SIZE, GPUS], {"n_params": 1e9}, _bytes_view, "toy")
    with pytest.raises(ValueError, match="kind='slider'"):
        Control("x", "x", "slider", 0, 1)


def test_memory_guide_follows_its_size_slider(cat):
    """Notebook 01: moving the size to 30 billion shows what memory_fit_table gives for 30e9."""
    p = memory_guide(
        n_params=70e9,
        method="full",
        compare_method="qlora",
        seq_len=4096,
        max_gpus=4096,
        accelerators=["h100-sxm", "b200-hgx"],
        catalog=cat,
    )
    assert p.result.headline.startswith("70B parameters, full training")
    p.widgets["n_params"].value = 30
    want = memory_fit_table(
        30e9, ["h100-sxm", "b200-hgx"], method="full", seq_len=4096, max_gpus=4096, catalog=cat
    )
    got = p.result.data["fit"]
    assert got["min_gpus"].tolist() == want["min_gpus"].tolist()
    assert got["total_gb"].tolist() == pytest.approx(want["total_gb"].tolist())
    assert p.result.headline.startswith("30B parameters, full training")
    assert "30B parameters" in p.view.value and "<svg" in p.view.value


def test_rent_vs_buy_guide_follows_runs_per_year(cat):
    """Notebook 03: renting on demand costs runs x the cost of a run; moving 2 runs to 4 adds two
    runs' compute to the year's rent (hand calculation), and the table shown is
    rent_vs_buy_table's."""
    p = rent_vs_buy_guide(
        accelerator="h200-sxm",
        n_gpus=128,
        n_params=70e9,
        n_tokens=1e12,
        runs_per_year=2.0,
        cooling="air",
        budget_usd=3e6,
        deadline_days=180,
        catalog=cat,
    )
    t2 = p.result.data["table"].set_index("acquisition")
    p.widgets["runs_per_year"].value = 4.0
    t4 = p.result.data["table"].set_index("acquisition")
    # A rental's year is n runs of compute c plus its storage S (a yearly line since the whole
    # bill): year(n) = n c + S, so cost per run = c + S / n and S = 4 (run(2) - run(4)).
    run2, run4 = (t.loc["rent-on-demand", "cost_per_run_usd"] for t in (t2, t4))
    year2, year4 = (t.loc["rent-on-demand", "cost_per_year_usd"] for t in (t2, t4))
    assert (year2, year4) == (pytest.approx(2 * run2), pytest.approx(4 * run4))
    storage = 4 * (run2 - run4)
    assert 0 < storage < 0.02 * year2
    assert year4 - year2 == pytest.approx(2 * (run2 - storage / 2))
    want = rent_vs_buy_table(
        "h200-sxm", 128, n_params=70e9, n_tokens=1e12, runs_per_year=4, cooling="air", catalog=cat
    ).set_index("acquisition")
    assert t4["cost_per_year_usd"].tolist() == pytest.approx(want["cost_per_year_usd"].tolist())
    assert p.result.headline.startswith("128 x h200-sxm, 4 runs a year")
    assert f"${year4:,.0f}" in p.view.value  # the table is for people: $4,689,411, not 4.7e6


def test_tables_are_for_people_not_scientific_notation(cat):
    """Notebook 02 printed a 26-column frame with 7.000000e+10; its panel shows chosen columns
    formatted for people."""
    p = speed_guide(
        n_params=70e9,
        n_tokens=1e12,
        configs=[{"accelerator": "h100-sxm", "n_gpus": 64}],
        network_model_sizes=[7e9, 70e9],
        no_overlap_fraction=0.0,
        bandwidth_n_params=7e9,
        bandwidth_n_gpus=8,
        pilot_tokens_per_s_per_gpu=10643.0,
        pilot_n_params=6658859008,
        pilot_seq_len=2048,
        pilot_config={"accelerator": "h100-sxm", "n_gpus": 8},
        pilot_model_config=None,
        catalog=cat,
    )
    text = re.sub(r"<svg.*?</svg>", "", p.view.value, flags=re.S)  # charts aside
    assert not re.search(r"\d\.\d+e[+-]\d", text)
    widest = max(len(re.findall(r"<th ", t)) for t in text.split("<table")[1:])
    assert widest <= 13
    p.widgets["pilot_tokens_per_s_per_gpu"].value = 5000
    # time factor = predicted / measured tokens/s: halving the measured throughput doubles it
    pilot = p.result.data["pilot"]
    assert pilot["time_factor"] == pytest.approx(pilot["predicted_tokens_per_s_per_gpu"] / 5000)
    assert f"time factor {pilot['time_factor']:.2f}x" in p.view.value


def _llama3_pilot(cat, **given):
    return speed_guide(
        n_params=8e9,
        n_tokens=1e12,
        configs=[{"accelerator": "h100-sxm", "n_gpus": 8}],
        network_model_sizes=[7e9],
        no_overlap_fraction=0.0,
        bandwidth_n_params=7e9,
        bandwidth_n_gpus=8,
        pilot_tokens_per_s_per_gpu=14451.0,
        pilot_seq_len=8192,
        pilot_config={"accelerator": "h100-sxm", "n_gpus": 8, "precision": "fp8"},
        catalog=cat,
        **given,
    )


def test_notebook_02s_pilot_reads_the_models_config_file(tmp_path, cat):
    """Notebook 02's pilot given Meta-Llama-3-8B's config.json (NeMo's Llama 3 8B FP8 row on 8
    H100, 14,451 tokens/s per GPU): its factor is pilot_time_factor's with the file's shape
    (MFU 0.4229 by hand in tests/guides/test_guide_speed.py), not the one from 8.03e9
    parameters alone; a file that is not there is refused with its name."""
    import json

    from hf_configs import LLAMA3_8B

    from workbook.guides.speed import pilot_time_factor
    from workbook.model import ModelShape

    path = tmp_path / "config.json"
    path.write_text(json.dumps(LLAMA3_8B))
    p = _llama3_pilot(cat, pilot_n_params=None, pilot_model_config=str(path))
    pilot = p.result.data["pilot"]
    config = {"accelerator": "h100-sxm", "n_gpus": 8, "precision": "fp8"}
    want = pilot_time_factor(
        14451, None, config, seq_len=8192, attention="full",
        shape=ModelShape.from_hf_config(path), catalog=cat,
    )  # fmt: skip
    assert pilot == pytest.approx(want)
    assert pilot["measured_mfu"] == pytest.approx(0.4229, abs=5e-5)
    derived = _llama3_pilot(cat, pilot_n_params=8.03e9, pilot_model_config=None)
    ratio = derived.result.data["pilot"]["time_factor"] / pilot["time_factor"]
    assert abs(ratio - 1) > 0.05  # the 128k vocabulary the count alone does not see
    missing = str(tmp_path / "nowhere.json")
    with pytest.raises(ValueError, match="nowhere.json"):
        _llama3_pilot(cat, pilot_n_params=None, pilot_model_config=missing)


def test_a_change_saves_the_choices_the_guide_owns(tmp_path, cat):
    path = tmp_path / "my_choices.json"
    p = power_guide(
        accelerators=["h100-sxm"],
        n_gpus=48,
        rack_limits_kw=[20, 40, 135],
        cooling="air",
        nvl72_accelerators=["gb200-nvl72"],
        site_power_kw=500,
        rack_limit_kw=40,
        catalog=cat,
        choices_file=str(path),
    )
    assert not path.exists()  # the parameters alone never write the file
    p.widgets["cooling"].value = "liquid"
    saved = load_choices(path)
    assert saved["cooling"] == {"value": "liquid", "from": "04_power_and_cooling"}
    assert saved["rack_limit_kw"]["value"] == 40 and saved["site_power_kw"]["value"] == 500
    assert "saved in my_choices.json" in p.status.value
    assert p.result.headline.startswith("48 GPUs, liquid cooling")
