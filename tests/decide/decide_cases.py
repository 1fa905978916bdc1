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


def estimate_world():
    """The shipped catalog with MI355X's on-demand rent the analyst estimate it was until
    2026-12-08 (data/prices.csv mi355x-od-estimate, $2.62 = MI300X's $1.99 x 23,000 / 17,500)
    instead of Vultr's public $2.59 (mi355x-od-vultr-2026-09): the data the estimate tests' hand
    calculations were made on, where funded-startup-30b-domain, modest-budget-token-efficient
    and band-7b-to-70b pick MI355X on an estimate whose twin, MI350X's, is the same estimate.
    The shipped data has no such pick since; the rules they check still apply to any estimate."""
    from workbook.catalog import Catalog, load_catalog

    shipped = load_catalog()
    tables = {name: df.copy() for name, df in shipped.tables.items()}
    p = tables["prices"]
    p.loc[p["price_id"] == "mi355x-od-vultr-2026-09", "is_default"] = False
    p.loc[p["price_id"] == "mi355x-od-estimate", "is_default"] = True
    return Catalog(tables, shipped.data_hash)
