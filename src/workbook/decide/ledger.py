"""The bill of every option line by line, as arrays: what an owned cluster and a rental cost a
year, their first year and a steady year, at the factors of one evaluation.

Owned (every option priced as if bought; :func:`owned_lines`)::

    capex        = GPUs + servers + network + spares + retrofit + setup
    opex / yr    = energy + colocation + staff + software + storage + support
    cost / yr    = depreciation + cost of capital + opex
    first year   = capex + opex;  a steady year = opex

Rented (:func:`rented_lines`): opex / yr = rent (the runs', or a year's reservation) + port +
staff (for the time rented) + software + storage + egress; cost / yr = first year = a steady
year = opex. The static inputs are the options' columns (:mod:`workbook.decide.bill`); the
factors are those of :func:`workbook.decide.evaluate.evaluate_arrays`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model import cost
from ..units import HOURS_PER_YEAR, MONTHS_PER_YEAR


@dataclass(frozen=True)
class Factors:
    """The price factors of one evaluation [x]: scalars, per-option arrays or ``(samples, 1)``
    columns."""

    rent_price_factor: object = 1.0
    buy_price_factor: object = 1.0
    electricity_factor: object = 1.0
    staff_factor: object = 1.0
    software_factor: object = 1.0
    storage_factor: object = 1.0
    support_factor: object = 1.0
    network_factor: object = 1.0
    spares_factor: object = 1.0


def _floats(o, column: str) -> np.ndarray:
    return np.asarray(o[column], dtype=float)


def capex_lines(o, f: Factors) -> dict[str, np.ndarray]:
    """The purchase of every option's cluster line by line (:func:`workbook.model.cost.capex_lines`)
    [USD]: it does not move with run time, so it is computed once per evaluation."""
    return cost.capex_lines(
        _floats(o, "n_gpus"),
        gpu_price_usd=_floats(o, "price") * f.buy_price_factor,
        server_cost_usd_per_node=_floats(o, "server_cost_usd_per_node") * f.buy_price_factor,
        gpus_per_node=_floats(o, "gpus_per_node"),
        network_usd=_floats(o, "network_usd") * f.network_factor,
        spare_fraction=_floats(o, "spare_fraction") * f.spares_factor,
        retrofit_usd=_floats(o, "retrofit_usd"),
        setup_usd=_floats(o, "setup_usd"),
    )


def owned_lines(o, wall_h, runs, capex: dict, f: Factors) -> dict[str, np.ndarray]:
    """Owning every option's cluster for a year of ``runs`` runs of ``wall_h`` hours, bought at
    ``capex`` (:func:`capex_lines`) [USD, USD/yr]: the capex lines, ``depreciation``,
    ``capital``, ``colocation``, ``energy`` (busy and idle), ``staff``, ``software``,
    ``storage``, ``support`` (of the hardware: GPUs, servers, network, spares), ``opex``,
    ``fixed`` (all but energy), ``total`` a year and ``first_year``."""
    kw = _floats(o, "it_kw")
    own = cost.ownership_per_year(
        capex["total"],
        life_years=_floats(o, "life_years"),
        resale_fraction=_floats(o, "resale"),
        cost_of_capital=_floats(o, "capital_rate"),
        it_kw=kw,
        pue=_floats(o, "pue"),
        electricity_usd_per_kwh=_floats(o, "electricity") * f.electricity_factor,
        busy_hours_per_year=wall_h * runs,
        idle_power_fraction=_floats(o, "idle_power_fraction"),
        colocation_usd_per_kw_month=_floats(o, "colocation"),
    )
    hardware = capex["gpu"] + capex["server"] + capex["network"] + capex["spares"]
    lines = {
        "depreciation": own["amortization"],
        "capital": own["capital"],
        "colocation": kw * MONTHS_PER_YEAR * _floats(o, "colocation"),
        "energy": own["energy_busy"] + own["energy_idle"],
        "staff": _floats(o, "staff_full_year_usd") * f.staff_factor,
        "software": _floats(o, "software_usd_per_year") * f.software_factor,
        "storage": _floats(o, "storage_usd_per_year") * f.storage_factor,
        "support": _floats(o, "support_fraction") * hardware * f.support_factor,
    }
    opex = sum(
        lines[k] for k in ("energy", "colocation", "staff", "software", "storage", "support")
    )
    lines["opex"] = opex
    lines["fixed"] = opex - lines["energy"] + lines["depreciation"] + lines["capital"]
    lines["total"] = lines["depreciation"] + lines["capital"] + opex
    lines["first_year"] = capex["total"] + opex
    return lines


def rented_lines(o, wall_h, runs, f: Factors) -> dict[str, np.ndarray]:
    """Renting every option's cluster for a year of ``runs`` runs of ``wall_h`` hours (every
    option priced as if rented) [USD/yr]: ``rent`` (the runs' GPU-hours, a reservation the whole
    year's), ``port``, ``staff`` (a large rental's platform engineers for the time it is rented:
    the whole year reserved, else the runs' hours / a year's, at most 1), ``software``,
    ``storage``, ``egress`` and ``total`` (= the opex, the first and a steady
    year)."""
    n, price = _floats(o, "n_gpus"), _floats(o, "price") * f.rent_price_factor
    rent_run = cost.rent_cost_per_run(n * wall_h, price)
    reserved = np.asarray(o["acquisition"] == "rent-reserved", bool)
    reserved_year = cost.reserved_cost_per_year(n, wall_h, runs, price)
    # The engineers are the rental's while it is rented (the provider runs the machines).
    rented_share = np.where(reserved, 1.0, np.minimum(1.0, wall_h * runs / HOURS_PER_YEAR))
    lines = {
        "rent": np.where(reserved, reserved_year, rent_run * runs),
        "port": _floats(o, "porting_usd"),
        "staff": _floats(o, "staff_full_year_usd") * f.staff_factor * rented_share,
        "software": _floats(o, "software_usd_per_year") * f.software_factor,
        "storage": _floats(o, "storage_usd_per_year") * f.storage_factor,
        "egress": _floats(o, "egress_usd_per_run") * runs,
    }
    lines["total"] = sum(
        lines[k] for k in ("rent", "port", "staff", "software", "storage", "egress")
    )
    return lines
