"""One option of ``Recommendation.options`` as an object: the pick (``rec.top``) and the
runners-up (``rec.runners_up``), with the sentence and caveats the recommendation gives it."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd


@dataclass
class Option:
    """One row of ``Recommendation.options`` as an object (``rec.top``, ``rec.runners_up``).

    Fields carry the options table's columns of the same name (:mod:`workbook.decide.columns`).

    Attributes
    ----------
    accelerator, name : str
        Accelerator id (data/accelerators.csv) and its name.
    n_gpus, nodes : int
        GPUs and servers in the cluster [count].
    acquisition : str
        How the GPUs are had: one of :data:`workbook.decide.ACQUISITIONS`.
    wall_days, lead_time_days, time_to_result_days : float
        One run, the wait for the hardware, and the two together [days].
    cost_per_run_usd, cost_per_year_usd, first_year_cost_usd : float
        Cost of one run, of the year's runs, and of the first year (purchase included) [USD].
    usd_per_million_tokens : float
        Cost per run per million training tokens [USD/Mtoken].
    capex_usd : float
        Purchase price of an owned cluster, 0 when rented [USD].
    staff_usd_per_year, storage_usd_per_year, support_usd_per_year : float
        Platform engineers paid (an owned multi-node cluster or a reserved large rental the
        whole year, a large rental on demand or spot for its runs' share of the year; 0
        otherwise), the project's storage and an owned cluster's support contract [USD/yr].
    software_usd_per_year : float
        The team's engineer-weeks lost to an immature stack (ROCm, SynapseAI; 0 otherwise) [USD/yr].
    network_usd : float
        Scale-out network of an owned cluster (capex; 0 when rented) [USD].
    energy_kwh, co2e_kg : float
        One run's electricity [kWh] and its emissions [kg CO2e] (median run time).
    facility_kw, rack_kw : float
        Facility power (IT x PUE) and the heaviest rack's power [kW].
    racks : int
        Racks the cluster fills [count].
    memory_per_gpu_gb : float
        Memory one GPU needs in the chosen layout [GB].
    mfu : float
        Model FLOPs utilisation [ratio].
    layout : str
        Parallel layout (:func:`workbook.text.layout_label`).
    sentence : str
        The option in one sentence (set by :func:`workbook.decide.recommend`); the pick's ends with
        its ``caveats``.
    caveats : list of str
        The pick's unchecked grounds (an estimated price, a widened time band) with the best option
        without them (:mod:`workbook.decide.caveats`); empty for a runner-up.
    price_headroom : float
        A pick on an estimated price: how far its part's estimated price can rise before another
        option is the pick [x] (:func:`workbook.decide.headroom.price_headroom`; inf: not up
        to 10x); NaN for a sourced price and for a runner-up.
    time_headroom : float
        The pick: how many times its estimated run time its part's runs can take before another
        option is the pick [x] (:func:`workbook.decide.headroom.time_headroom`; inf: not up to
        10x); NaN for a runner-up. The headline says it for a pick whose time band is widened (no
        published evidence on its part) and for one whose own p90 / p50 exceeds it.
    price_headroom_joint, time_headroom_joint : float
        Where the option picked beyond ``price_headroom`` (``time_headroom``) is on another part
        whose price is the same estimate (whose speed is estimated the same way:
        :func:`workbook.decide.headroom.shares_price_estimate`, ``shares_speed_estimate``), the
        margin with both moved together [x]; NaN otherwise.
    """

    accelerator: str
    name: str
    n_gpus: int
    acquisition: str
    nodes: int
    wall_days: float
    lead_time_days: float
    time_to_result_days: float
    cost_per_run_usd: float
    cost_per_year_usd: float
    first_year_cost_usd: float
    usd_per_million_tokens: float
    capex_usd: float
    staff_usd_per_year: float
    software_usd_per_year: float
    storage_usd_per_year: float
    support_usd_per_year: float
    network_usd: float
    energy_kwh: float
    co2e_kg: float
    facility_kw: float
    racks: int
    rack_kw: float
    memory_per_gpu_gb: float
    mfu: float
    layout: str
    sentence: str = ""
    caveats: list[str] = field(default_factory=list)
    price_headroom: float = math.nan
    time_headroom: float = math.nan
    price_headroom_joint: float = math.nan
    time_headroom_joint: float = math.nan

    @classmethod
    def from_row(cls, r: pd.Series) -> "Option":
        """The option of one row of the options table."""
        return cls(
            accelerator=r["accelerator"],
            name=r["name"],
            n_gpus=int(r["n_gpus"]),
            acquisition=r["acquisition"],
            nodes=int(r["nodes"]),
            wall_days=float(r["wall_days"]),
            lead_time_days=float(r["lead_time_days"]),
            time_to_result_days=float(r["time_to_result_days"]),
            cost_per_run_usd=float(r["cost_per_run_usd"]),
            cost_per_year_usd=float(r["cost_per_year_usd"]),
            first_year_cost_usd=float(r["first_year_cost_usd"]),
            usd_per_million_tokens=float(r["usd_per_million_tokens"]),
            capex_usd=float(r["capex_usd"]),
            staff_usd_per_year=float(r["staff_usd_per_year"]),
            software_usd_per_year=float(r["software_usd_per_year"]),
            storage_usd_per_year=float(r["storage_usd_per_year"]),
            support_usd_per_year=float(r["support_usd_per_year"]),
            network_usd=float(r["network_usd"]),
            energy_kwh=float(r["energy_kwh"]),
            co2e_kg=float(r["co2e_kg"]),
            facility_kw=float(r["facility_kw"]),
            racks=int(r["racks"]),
            rack_kw=float(r["rack_kw"]),
            memory_per_gpu_gb=float(r["memory_per_gpu_gb"]),
            mfu=float(r["mfu"]),
            layout=str(r["layout"]),
        )
