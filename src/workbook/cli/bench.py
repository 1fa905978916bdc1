"""Speed benchmarks (``python -m workbook bench``): prints ``name: value`` lines.

- ``sweep_10000_s``: one vectorised :func:`estimate_frame` over 10,000 configurations
  (23 accelerators x GPU counts x precisions x model sizes), best of 5.
- ``single_call_ms``: mean of 200 :func:`estimate_training` calls.
- ``recommend_s`` / ``recommend_options``: one full :func:`recommend` sweep (every accelerator,
  1-16,384 GPUs, all acquisition modes), no sensitivity; best of 5.
- ``sensitivity_mc_s``: tornado + 1,000-sample Monte Carlo on that recommendation.
"""

from __future__ import annotations

import itertools
import os
import time

import pandas as pd

from .. import estimate_frame, estimate_training, load_catalog, presets, recommend
from ..decide import monte_carlo, tornado


def configs(n: int = 10_000) -> pd.DataFrame:
    acc = load_catalog().accelerators()["accelerator_id"].tolist()
    grid = itertools.product(
        acc,
        [1, 8, 16, 64, 128, 512, 1024, 4096, 16384],
        [7e9, 13e9, 34e9, 70e9, 180e9, 405e9],
        ["bf16", "fp8"],
        [2048, 4096, 8192],
    )
    rows = [
        dict(accelerator=a, n_gpus=g, n_params=p, n_tokens=20 * p, precision=pr, seq_len=s)
        for a, g, p, pr, s in itertools.islice(itertools.cycle(grid), n)
    ]
    return pd.DataFrame(rows)


def best_of(fn, k: int = 5) -> float:
    times = []
    for _ in range(k):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def add_parser(sub):
    """Add the ``bench`` command to the ``python -m workbook`` sub-parsers."""
    b = sub.add_parser(
        "bench", help="speed benchmarks (name: value lines)", description=__doc__.splitlines()[0]
    )
    b.set_defaults(run=run)
    return b


def run(_args=None) -> int:
    cfg = configs()
    estimate_frame(cfg.head(10))  # warm caches
    sweep = best_of(lambda: estimate_frame(cfg))
    t = time.perf_counter()
    for _ in range(200):
        estimate_training(70e9, 2e12, "h100-sxm", 1024)
    single_ms = (time.perf_counter() - t) / 200 * 1000
    s = presets["funded-startup-30b-domain"]
    recommend(s, sensitivity=False)
    rec_s = best_of(lambda: recommend(s, sensitivity=False))
    rec = recommend(s, sensitivity=False)
    cat = load_catalog()
    sens = best_of(lambda: (tornado(rec, cat), monte_carlo(rec, cat, samples=1000)), k=3)
    print(f"machine_cpus: {os.cpu_count()}")
    print(f"sweep_configs: {len(cfg)}")
    print(f"sweep_10000_s: {sweep:.3f}")
    print(f"single_call_ms: {single_ms:.2f}")
    print(f"recommend_options: {len(rec.options)}")
    print(f"recommend_s: {rec_s:.3f}")
    print(f"sensitivity_mc_s: {sens:.3f}")
    return 0
