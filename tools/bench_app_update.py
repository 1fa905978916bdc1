"""Time the app's update in the kernel (no browser): WorkbookApp.apply_preset for four presets,
three rounds, the recommendation, tornado, Monte Carlo (data/assumptions.csv monte_carlo_draws
draws, as the memo) and the charts' spec. Prints each preset's median and the overall median.

Run: PYTHONPATH=$PWD/src .venv/bin/python tools/bench_app_update.py [--rounds N]

    funded-startup-30b-domain           median 0.85 s
    ...
    app_update_median_s: 0.86
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

PRESETS = (
    "funded-startup-30b-domain",
    "band-400b-plus",
    "enterprise-frontier-pretraining",
    "band-7b-to-70b",
)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3, help="rounds over the presets")
    args = p.parse_args()
    warnings.simplefilter("ignore")
    from workbook.decide import monte_carlo_draws
    from workbook.present.app.page import WorkbookApp

    app = WorkbookApp()
    print(f"monte_carlo_draws: {monte_carlo_draws(app.catalog)}")
    times: dict[str, list[float]] = {name: [] for name in PRESETS}
    for _ in range(args.rounds):
        for name in PRESETS:
            t = time.perf_counter()
            app.apply_preset(name)
            times[name].append(time.perf_counter() - t)
    for name, ts in times.items():
        print(f"{name:35s} median {statistics.median(ts):.2f} s")
    print(f"app_update_median_s: {statistics.median(t for ts in times.values() for t in ts):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
