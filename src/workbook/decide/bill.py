"""The whole bill's lines of every option that do not move with the factors of an evaluation:
staff, the team's time an immature software stack takes, the scale-out network by its switch
layers, spares, setup and burn-in, support, storage and egress, the provider tier of a rental,
and what a run's energy and carbon are counted at.

Every number is a row of data/assumptions.csv (source, date, range) read by name;
:func:`workbook.decide.options.per_mode` adds these columns (the ``options`` step of
:mod:`workbook.decide.columns`) and :mod:`workbook.decide.ledger` sums them into the costs.

Owned: ``network_usd`` (capex) = GPUs x the fabric's cost per GPU x its tier factor
(:func:`workbook.model.cost.network_cost_factor`), ``spare_fraction`` of the GPUs and servers on
the shelf (multi-node clusters), ``burn_in_days`` (``burn_in_days_single_node`` for one node)
added to the lead time with its energy at full power as ``setup_usd`` (capex),
``support_fraction`` of the hardware a year, storage at ``storage_owned_usd_per_tb_month``.
Rented: the provider tier's price factor and goodput, its storage price and its egress on one
full checkpoint a run.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..catalog import Catalog
from ..model import STATE_BYTES, cost
from ..text import money_text, stack_name
from ..units import GB, HOURS_PER_DAY, MONTHS_PER_YEAR, WEEKS_PER_YEAR
from .feasibility import platform_engineers_needed
from .scenario import Scenario

#: Tiers whose egress is free, with the page that says so (data/assumptions.csv has the billed
#: tier's price, egress_usd_per_gb_hyperscaler).
FREE_EGRESS = {
    "specialised": "https://docs.lambda.ai/public-cloud/billing ('not charged for ingress or "
    "egress')",
    "marketplace": "https://docs.runpod.io/get-started/billing-information (storage billed, no "
    "transfer fees)",
}

#: The tier whose prices data/prices.csv holds: its price factor and goodput are 1 by definition.
DEFAULT_TIER = "specialised"

#: A default price whose basis names one of these clouds is already at the hyperscaler tier's
#: level (data/prices.csv h100-sxm rent-spot: AWS P5 spot): no tier factor moves it, or the
#: hyperscaler tier would scale an AWS price by the AWS / specialised-cloud ratio a second time.
HYPERSCALER_BASIS = re.compile(r"\b(AWS|Azure|Google Cloud|GCP|Oracle Cloud|OCI)\b")


def checkpoint_bytes_per_param(method: str) -> float:
    """Bytes per parameter of a stored checkpoint: weights + optimizer states of mixed-precision
    Adam (2 + 12 = 14, :data:`workbook.model.STATE_BYTES`; gradients are not saved) for full
    training, the bf16 base weights once (2) for LoRA / QLoRA (the adapters are small)."""
    adam = STATE_BYTES["adam-mixed"]
    if method == "full":
        return adam["weights"] + adam["optimizer"]
    return adam["weights"]


def grid_intensity(s: Scenario, cat: Catalog, a: dict) -> float:
    """The scenario's grid carbon intensity [kg CO2e/kWh]: :attr:`Scenario.grid_kg_co2e_per_kwh`
    when given, else its :attr:`Scenario.grid_region`'s row of data/grid_intensity.csv, else the
    world average (data/assumptions.csv grid_kg_co2e_per_kwh)."""
    if s.grid_kg_co2e_per_kwh is not None:
        return float(s.grid_kg_co2e_per_kwh)
    if s.grid_region is not None:
        table = cat.tables["grid_intensity"].set_index("region_id")
        return float(table.loc[s.grid_region, "kg_co2e_per_kwh"])
    return float(a["grid_kg_co2e_per_kwh"])


def provider_factors(s: Scenario, a: dict) -> tuple[float, float]:
    """The scenario's provider tier as (price factor, goodput) against the default prices' tier
    [x, fraction]: data/assumptions.csv provider_price_factor_<tier> and
    provider_goodput_<tier>, 1 where the tier has no row (the default tier, and a hyperscaler's
    goodput: managed, burned-in clusters like the specialised clouds')."""
    return (
        float(a.get(f"provider_price_factor_{s.provider_tier}", 1.0)),
        float(a.get(f"provider_goodput_{s.provider_tier}", 1.0)),
    )


def storage_price_parameter(tier: str, owned: bool) -> str:
    """The data/assumptions.csv row an option's storage is priced at."""
    return "storage_owned_usd_per_tb_month" if owned else f"storage_cloud_usd_per_tb_month_{tier}"


def bill_columns(
    s: Scenario,
    o: pd.DataFrame,
    cat: Catalog,
    a: dict,
    is_buy: np.ndarray,
    pue,
    site: dict,
    price_basis: np.ndarray,
) -> dict[str, np.ndarray]:
    """The bill's static columns of every option (the ``options`` step's ``staff_full_year_usd``
    to ``provider_goodput``, :mod:`workbook.decide.columns`); ``price_basis`` is each option's
    default price's basis (:func:`tier_priced`)."""
    nodes = o["nodes"].to_numpy(float)
    n = o["n_gpus"].to_numpy(float)
    cols = {
        "staff_full_year_usd": platform_engineers_needed(is_buy, nodes, a)
        * a["engineer_cost_usd_per_year"],
        "software_usd_per_year": software_usd_per_year(s, o["software_stack"].to_numpy(object), a),
        "run_pue": np.where(is_buy, pue, a["cloud_pue"]),
        "grid_kg_co2e_per_kwh": np.full(len(o), grid_intensity(s, cat, a)),
    }
    cols.update(_hardware_columns(o, a, is_buy, nodes, n, pue, site))
    cols.update(_storage_columns(s, o, a, is_buy))
    price_factor, goodput = provider_factors(s, a)
    tiered = ~is_buy & (o["cooling_options"].to_numpy(object) != "cloud")
    cols["provider_price_factor"] = np.where(tiered & tier_priced(price_basis), price_factor, 1.0)
    cols["provider_goodput"] = np.where(tiered, goodput, 1.0)
    return cols


def software_usd_per_year(s: Scenario, stacks: np.ndarray, a: dict) -> np.ndarray:
    """The team's time an immature software stack takes, a year [USD/yr]:

        weeks(stack) x min(team_size, stack_debug_engineers) x engineer_cost_usd_per_year / 52.14

    ``weeks`` is data/assumptions.csv stack_debug_weeks_<stack> (ROCm 4, SynapseAI 8; 0 for a
    stack without a row: CUDA, XLA, and Neuron, whose cost is its port), x
    stack_debug_experienced_fraction on ROCm for a team with ROCm experience. People's time
    only: the stack's slower kernels are software_maturity_<stack> (run time), its port
    porting_weeks_<stack>; the team rule (ROCm needs experience or platform engineers) is a
    condition, not a cost."""
    stacks = np.asarray(stacks, dtype=object)
    weeks = np.array([float(a.get(f"stack_debug_weeks_{st}", 0.0)) for st in stacks])
    if s.rocm_experience:
        weeks = np.where(stacks == "rocm", weeks * a["stack_debug_experienced_fraction"], weeks)
    engineers = min(float(s.team_size), float(a["stack_debug_engineers"]))
    return weeks * engineers * a["engineer_cost_usd_per_year"] / WEEKS_PER_YEAR


def software_reason(best: pd.Series) -> str | None:
    """The pick's software line in words, when its stack takes the team's time (None if not)."""
    usd = float(best["software_usd_per_year"])
    if usd <= 0:
        return None
    return (
        f"Its software stack ({stack_name(best['software_stack'])}) "
        f"takes the team's time: {money_text(usd)} a year of engineers debugging it, counted in "
        "its cost (data/assumptions.csv stack_debug_weeks_*); its slower kernels are in the run "
        "time."
    )


def tier_priced(price_basis) -> np.ndarray:
    """Whether each price is at the default (specialised-cloud) tier's level, so that a provider
    tier's price factor applies to it: every basis but one naming a hyperscaler
    (:data:`HYPERSCALER_BASIS`) [bool]."""
    basis = np.asarray(price_basis, dtype=object)
    return np.array([not HYPERSCALER_BASIS.search(str(b)) for b in basis], dtype=bool)


def _hardware_columns(o, a, is_buy, nodes, n, pue, site) -> dict[str, np.ndarray]:
    """Network tiers and cost, spares, burn-in and setup, support of an owned cluster (0 when
    rented)."""
    tiers = cost.network_tiers(
        nodes,
        one_tier_max_nodes=a["network_one_tier_max_nodes"],
        two_tier_max_nodes=a["network_two_tier_max_nodes"],
    )
    factor = cost.network_cost_factor(
        tiers,
        one_tier_factor=a["network_cost_factor_one_tier"],
        three_tier_factor=a["network_cost_factor_three_tier"],
    )
    fabric = o["fabric_cost_usd_per_gpu"].to_numpy(float)
    days = np.where(nodes > 1, a["burn_in_days"], a["burn_in_days_single_node"])
    burn_in = np.where(is_buy, days, 0.0)
    burn_in_kwh = o["it_kw"].to_numpy(float) * pue * HOURS_PER_DAY * burn_in
    return {
        "network_tiers": tiers,
        "network_usd": np.where(is_buy, n * fabric * factor, 0.0),
        "spare_fraction": np.where(is_buy & (nodes > 1), a["spare_gpu_fraction"], 0.0),
        "burn_in_days": burn_in,
        "setup_usd": burn_in_kwh * site["electricity"],
        "support_fraction": np.where(is_buy, a["support_fraction_per_year"], 0.0),
    }


def _storage_columns(s: Scenario, o: pd.DataFrame, a: dict, is_buy) -> dict[str, np.ndarray]:
    """What the project stores and what that costs a year (owned or at the provider tier), and a
    rental's egress of one full checkpoint per run."""
    ckpt_bytes = checkpoint_bytes_per_param(s.method)
    tb = cost.storage_tb(
        s.tokens,
        s.n_params,
        bytes_per_token=a["dataset_bytes_per_token"],
        checkpoints_kept=a["checkpoints_kept"],
        checkpoint_bytes_per_param=ckpt_bytes,
    )
    owned_price = a[storage_price_parameter(s.provider_tier, True)]
    cloud_price = a[storage_price_parameter(s.provider_tier, False)]
    price = np.where(is_buy, owned_price, cloud_price)
    egress_gb = s.n_params * ckpt_bytes / GB
    egress_price = (
        0.0 if s.provider_tier in FREE_EGRESS else a[f"egress_usd_per_gb_{s.provider_tier}"]
    )
    return {
        "storage_tb": np.full(len(o), float(tb)),
        "storage_usd_per_year": tb * price * MONTHS_PER_YEAR,
        "egress_usd_per_run": np.where(is_buy, 0.0, egress_gb * egress_price),
    }
