"""Speed benchmarks (``python -m workbook bench``): prints ``name: value`` lines.

``sweep_10000_s``: one vectorised :func:`workbook.model.estimate_frame` over 10,000 configurations
(23 accelerators x GPU counts x precisions x model sizes), best of 5; ``sweep_100000_s``: the same
over 100,000 (issue 19's target: < 0.5 s on 2 cores), best of 3; ``single_call_ms``: mean of
200 :func:`workbook.model.estimate_training` calls; ``recommend_s`` / ``recommend_options``: one
full :func:`workbook.decide.recommend` sweep (every accelerator, 1-16,384 GPUs, all acquisition
modes), no sensitivity, best of 5; ``sensitivity_mc_s``: tornado + 1,000-sample Monte Carlo on it;
``remedies_s``: what :func:`workbook.decide.recommend` adds when nothing is feasible (each single
change that would make something so, :mod:`workbook.decide.remedies`) on the article's
impossible 70B / 5T / 48-day preset, best of 3.
"""

from __future__ import annotations

import itertools
import os
import time

import pandas as pd

from ..catalog import load_catalog
from ..decide import Recommendation, monte_carlo, presets, recommend, tornado
from ..model import estimate_frame, estimate_training

SINGLE_CALLS, BENCH_PRESET = 200, "funded-startup-30b-domain"  # single_call_ms, recommend_s
INFEASIBLE_PRESET = "article-70b-5t-48-days"  # remedies_s


def configs(n: int = 10_000) -> pd.DataFrame:
    """``n`` configurations cycling over accelerators, GPU counts, sizes, precisions, lengths."""
    acc = load_catalog().accelerators()["accelerator_id"].tolist()
    grid = itertools.product(
        acc,
        [1, 8, 16, 64, 128, 512, 1024, 4096, 16384],
        [7e9, 13e9, 34e9, 70e9, 180e9, 405e9],
        ["bf16", "fp8"],
        [2048, 4096, 8192],
    )
    return pd.DataFrame(
        dict(accelerator=a, n_gpus=g, n_params=p, n_tokens=20 * p, precision=pr, seq_len=s)
        for a, g, p, pr, s in itertools.islice(itertools.cycle(grid), n)
    )


def best_of(fn, k: int = 5) -> float:
    """The fastest of ``k`` calls of ``fn`` [s]."""
    times = []
    for _ in range(k):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def _sweep_s(cfg: pd.DataFrame, k: int = 5) -> float:
    """One vectorised estimate over ``cfg`` [s], caches warmed first, best of ``k``."""
    estimate_frame(cfg.head(10))
    return best_of(lambda: estimate_frame(cfg), k=k)


def _single_call_ms() -> float:
    """Mean time of one scalar estimate [ms]."""
    t = time.perf_counter()
    for _ in range(SINGLE_CALLS):
        estimate_training(70e9, 2e12, "h100-sxm", 1024)
    return (time.perf_counter() - t) / SINGLE_CALLS * 1000


def _recommend_s() -> tuple[float, Recommendation]:
    """One recommendation of :data:`BENCH_PRESET` without sensitivity [s], and the result."""
    s = presets[BENCH_PRESET]
    recommend(s, sensitivity=False)
    return best_of(lambda: recommend(s, sensitivity=False)), recommend(s, sensitivity=False)


def _sensitivity_s(rec: Recommendation) -> float:
    """Tornado and a 1,000-sample Monte Carlo on ``rec`` (on its catalog) [s], best of 3."""
    cat = rec.catalog
    return best_of(lambda: (tornado(rec, cat), monte_carlo(rec, cat, samples=1000)), k=3)


def _remedies_s() -> float:
    """What the remedies add to an infeasible recommendation (:data:`INFEASIBLE_PRESET`) [s]."""
    s = presets[INFEASIBLE_PRESET]

    def with_and_without():
        t = time.perf_counter()
        recommend(s, sensitivity=False, with_remedies=False)
        plain = time.perf_counter() - t
        t = time.perf_counter()
        recommend(s, sensitivity=False)
        return time.perf_counter() - t - plain

    with_and_without()
    return min(with_and_without() for _ in range(3))


def add_parser(sub):
    """Add the ``bench`` command to the ``python -m workbook`` sub-parsers."""
    b = sub.add_parser(
        "bench", help="speed benchmarks (name: value lines)", description=__doc__.splitlines()[0]
    )
    b.set_defaults(run=run)
    return b


def run(_args=None) -> int:
    """Time each step and print ``name: value`` lines."""
    cfg = configs()
    sweep, single_ms = _sweep_s(cfg), _single_call_ms()
    sweep_100k = _sweep_s(configs(100_000), k=3)
    rec_s, rec = _recommend_s()
    sens = _sensitivity_s(rec)
    remedies_s = _remedies_s()
    print(f"machine_cpus: {os.cpu_count()}")
    print(f"load_average_1min: {os.getloadavg()[0]:.2f}")
    print(f"sweep_configs: {len(cfg)}")
    print(f"sweep_10000_s: {sweep:.3f}")
    print(f"sweep_100000_s: {sweep_100k:.3f}")
    print(f"single_call_ms: {single_ms:.2f}")
    print(f"recommend_options: {len(rec.options)}")
    print(f"recommend_s: {rec_s:.3f}")
    print(f"sensitivity_mc_s: {sens:.3f}")
    print(f"remedies_s: {remedies_s:.3f}")
    return 0
