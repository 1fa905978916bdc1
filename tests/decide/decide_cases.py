"""Scenarios shared by the tests of workbook.decide (imported as a module: tests/decide is on the
path under pytest's prepend import mode, like tests/golden_capture.py)."""

#: A 70B pretraining run on 5T tokens for a five-person team without platform engineers: most
#: constraints bind somewhere in its sweep; tests vary it with ``dict(BASE, ...)``.
BASE = dict(
    workload="pretrain",
    n_params=70e9,
    n_tokens=5e12,
    deadline_days=120,
    budget_usd=2_000_000,
    runs_per_year=2,
    site_power_kw=500,
    rack_limit_kw=40,
    cooling="air",
    team_size=5,
    platform_engineers=0,
    rocm_experience=False,
)
