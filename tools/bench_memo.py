"""Time the decision memo as a user gets it: ``python -m workbook report`` in a fresh process.

Run: .venv/bin/python tools/bench_memo.py [--runs N] [--pdf] [--preset NAME]

Each figure is the wall time of one whole command (interpreter start, imports, the engine with its
tornado and Monte Carlo, the charts, nbconvert's export, chromium with ``--pdf``), the best of
``--runs`` tries, on this machine (``machine_cpus``), with the CPU time beside it (user + system
of the command and its children: what the memo costs when other work shares the CPUs, which
stretches the wall time; ``load_average_1min`` says how busy the machine was). Targets (issue 17):
one memo < 6 s, a batch of ten < 30 s.

    memo_one_s             one preset (funded-startup-30b-domain) into one HTML file
    memo_batch_10_s        every preset (ten) into one folder, one command
    memo_*_cpu_s           the same commands' CPU time
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from workbook.decide import presets  # noqa: E402

PRESET = "funded-startup-30b-domain"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _cpu_children() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def timed_report(args: list[str], cwd: Path) -> tuple[float, float]:
    """Wall time and CPU time (user + system, chromium included) of ``python -m workbook report
    ARGS`` [s]; exits on failure."""
    cpu0, t0 = _cpu_children(), time.perf_counter()
    r = subprocess.run(
        [sys.executable, "-m", "workbook", "report", *args],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed, cpu = time.perf_counter() - t0, _cpu_children() - cpu0
    if r.returncode != 0:
        sys.exit(f"report failed (exit {r.returncode}): {r.stderr.strip()[-400:]}")
    return elapsed, cpu


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3, help="tries per figure; the best is printed")
    p.add_argument("--pdf", action="store_true", help="also print each memo to PDF")
    p.add_argument("--preset", default=PRESET, help="the preset of memo_one_s")
    a = p.parse_args()
    extra = ["--pdf"] if a.pdf else []
    names = sorted(presets)
    one, batch = [], []
    with tempfile.TemporaryDirectory(prefix="bench-memo-") as tmp:
        work = Path(tmp)
        for i in range(a.runs):
            one.append(timed_report([a.preset, "-o", str(work / f"one{i}.html"), *extra], work))
            batch.append(timed_report([*names, "--out-dir", str(work / f"b{i}"), *extra], work))
    print(f"machine_cpus: {os.cpu_count()}")
    print(f"memo_pdf: {'yes' if a.pdf else 'no'}")
    print(f"load_average_1min: {os.getloadavg()[0]:.2f}")
    best_one, best_batch = min(one), min(batch)
    print(f"memo_one_s: {best_one[0]:.1f}")
    print(f"memo_one_cpu_s: {best_one[1]:.1f}")
    print(f"memo_batch_{len(names)}_s: {best_batch[0]:.1f}")
    print(f"memo_batch_{len(names)}_cpu_s: {best_batch[1]:.1f}")
    print(f"memo_batch_{len(names)}_per_memo_s: {best_batch[0] / len(names):.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
