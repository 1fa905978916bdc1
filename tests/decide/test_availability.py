"""Availability as it is (issue 14, parts 3 and 6): export rules by region, China-market variants,
a PyTorch team's port to cloud-only TPUs and Trainium, and 1-4 card workstations priced and powered
as workstations. Expected values are hand-computed from the shipped rows named in each test."""

import math

import pytest
from decide_cases import BASE

from workbook import Scenario, recommend
from workbook.decide import option_row

#: data/assumptions.csv: porting_weeks_xla = porting_weeks_neuron = 8, porting_engineers = 2,
#: engineer_cost_usd_per_year = 300,000; software_maturity_xla 1.0 / _xla_pytorch 0.85.
PORT_USD = 8 / (365 / 7) * 2 * 300_000


@pytest.fixture(scope="module")
def opts():
    """A 7B fine-tune small enough that every part and cluster size is in the sweep."""
    s = Scenario(**dict(BASE, workload="full-finetune", n_params=7e9, n_tokens=2e9))
    return {
        region: recommend(s.replace(region=region), sensitivity=False).options
        for region in ("unrestricted", "china")
    }


def test_total_processing_performance_is_dense_tflops_times_bits(opts):
    o = opts["unrestricted"]
    # H100 SXM: max(989 x 16, 1979 x 8) = max(15,824, 15,832); RTX A6000: 154.8 x 16, no FP8.
    assert option_row(o, "h100-sxm", 8, "buy-new")["tpp"] == pytest.approx(15_832)
    assert option_row(o, "rtx-a6000", 8, "buy-new")["tpp"] == pytest.approx(2_476.8)


def test_china_cannot_buy_export_controlled_parts_but_may_rent(opts):
    o = opts["china"]
    why = option_row(o, "h100-sxm", 8, "buy-new")["why_availability"]
    assert why == (
        "export-controlled: TPP 15,832 >= 4,800 (US BIS rule of 2023-10-17, ECCN 3A090.a) "
        "cannot be bought for China"
    )
    assert "export" not in option_row(o, "h100-sxm", 8, "rent-on-demand")["why_availability"]
    # Below the threshold (TPP 2,477): the RTX A6000 may be bought in China.
    assert option_row(o, "rtx-a6000", 8, "buy-new")["why_availability"] == ""
    assert "export" not in opts["unrestricted"].loc[lambda d: d["is_buy"], "why_availability"].sum()


def test_the_h800_is_never_offered_new(opts):
    """A China-market variant: not sold outside China, and export-controlled inside it since the
    2023 rule (its compute is the H100's)."""
    outside = option_row(opts["unrestricted"], "h800-sxm", 8, "buy-new")["why_availability"]
    assert outside.startswith("a China-market variant: sold new only in China")
    inside = option_row(opts["china"], "h800-sxm", 8, "buy-new")["why_availability"]
    assert inside.startswith("export-controlled: TPP 15,832")
    rent = option_row(opts["unrestricted"], "h800-sxm", 8, "rent-on-demand")["why_availability"]
    assert "China" not in rent


def test_a_pytorch_team_pays_a_port_to_tpu_and_trainium(opts):
    o = opts["unrestricted"]
    tpu = option_row(o, "tpu-v5p", 8, "rent-on-demand")
    trn = option_row(o, "trainium2", 16, "rent-on-demand")
    for r in (tpu, trn):
        assert r["porting_weeks"] == 8
        assert r["porting_usd"] == pytest.approx(PORT_USD)  # $92,055
        # lead_time_weeks_rent 0.5 + the 8-week port
        assert r["lead_time_days"] == pytest.approx(7 * 8.5)
    assert tpu["port_time_factor"] == pytest.approx(1 / 0.85)
    assert trn["port_time_factor"] == 1.0  # Neuron's derate is software_maturity_neuron already
    h100 = option_row(o, "h100-sxm", 8, "rent-on-demand")
    assert h100["porting_weeks"] == 0 and h100["porting_usd"] == 0 and h100["port_time_factor"] == 1


def test_the_port_is_charged_once_to_the_years_runs(opts):
    """Rent for the year's runs plus the port: cost per run = (rent x runs + port) / runs."""
    o = opts["unrestricted"]
    tpu = option_row(o, "tpu-v5p", 8, "rent-on-demand")
    rent_per_run = tpu["n_gpus"] * tpu["wall_days"] * 24 * tpu["price"]
    yearly = PORT_USD + tpu["storage_usd_per_year"]  # the project's storage is billed too
    assert tpu["cost_per_run_usd"] == pytest.approx(rent_per_run + yearly / BASE["runs_per_year"])


def test_a_jax_team_runs_tpus_without_a_port():
    s = Scenario(**dict(BASE, workload="full-finetune", n_params=7e9, n_tokens=2e9))
    o = recommend(s.replace(framework="jax"), sensitivity=False).options
    tpu = option_row(o, "tpu-v5p", 8, "rent-on-demand")
    assert tpu["porting_weeks"] == 0 and tpu["port_time_factor"] == 1.0
    assert option_row(o, "trainium2", 16, "rent-on-demand")["porting_weeks"] == 8


def test_one_to_four_cards_are_a_workstation_not_an_eight_gpu_server(opts):
    """One RTX 6000 Ada (300 W) in a tower: 0.3 + 0.5 kW host = 0.8 kW and $6,800 + $10,000
    (data/facility.csv workstation_*); eight cards: an 8-GPU server, 8 x 0.3 + 1.8 = 4.2 kW and
    8 x $6,800 + $30,000."""
    o = opts["unrestricted"]
    one = option_row(o, "rtx-6000-ada", 1, "buy-new")
    assert one["workstation"] and one["it_kw"] == pytest.approx(0.8)
    assert one["gpu_usd"] + one["server_usd"] == pytest.approx(6_800 + 10_000)
    assert one["capex_usd"] == pytest.approx(6_800 + 10_000 + one["setup_usd"])
    eight = option_row(o, "rtx-6000-ada", 8, "buy-new")
    assert not eight["workstation"] and eight["it_kw"] == pytest.approx(4.2)
    assert eight["gpu_usd"] + eight["server_usd"] == pytest.approx(8 * 6_800 + 30_000)


def test_a_part_filled_server_draws_its_cards_power_not_a_full_nodes(opts):
    """One passive L40S (350 W; servers only) in an 8-slot server: 0.35 + 1.8 kW host, not
    8 x 0.35 + 1.8 = 4.6 kW."""
    one = option_row(opts["unrestricted"], "l40s", 1, "buy-new")
    assert not one["workstation"]
    assert one["it_kw"] == pytest.approx(2.15) and one["rack_kw"] == pytest.approx(2.15)
    assert one["gpu_usd"] + one["server_usd"] == pytest.approx(8_000 + 30_000)


def test_the_headline_names_the_workstation_and_the_port():
    s = Scenario(
        **dict(
            BASE,
            workload="lora",
            n_params=7e9,
            n_tokens=1e8,
            accelerators=["rtx-6000-ada"],
            acquisition_modes=["buy-new"],
        )
    )
    rec = recommend(s, sensitivity=False)
    assert rec.top.n_gpus <= 4 and "(one tower workstation)" in rec.top.sentence
    tpu = recommend(
        s.replace(accelerators=["tpu-v5p"], acquisition_modes=["rent-on-demand"]),
        sensitivity=False,
    )
    assert "lead time and the port of your code to XLA (8 weeks, $92,100 of engineering)" in (
        tpu.top.sentence
    )
    assert math.isfinite(tpu.top.cost_per_run_usd)
