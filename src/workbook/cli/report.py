"""``python -m workbook report``: render decision memos from scenario files or presets.

    python -m workbook report SCENARIO.yaml -o report.html          # one memo
    python -m workbook report PRESET --set deadline_days=60 -o r.html
    python -m workbook report a.yaml b.yaml PRESET --out-dir reports/ # batch, with a progress bar
    python -m workbook report a.yaml -o a.html --pdf                  # also a.pdf (Debian chromium)

Every scenario is validated before anything runs: a bad parameter stops with a message naming it,
exit code 2, nothing written. Exit codes: 0 done; 1 a report failed to render (one line per failure,
the other reports are still written); 2 bad parameters; 3 HTML written but the PDF was skipped
because chromium is missing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NO_PDF = 0, 1, 2, 3


def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``report`` command to the ``python -m workbook`` sub-parsers."""
    r = sub.add_parser(
        "report",
        help="render the decision memo (HTML, optionally PDF) for scenarios",
        description="Execute notebooks/report.ipynb with papermill for each scenario and export an "
        "offline HTML memo (no code, no CDN). SCENARIO is a .yaml/.json file or a preset name.",
    )
    r.add_argument(
        "scenarios",
        nargs="+",
        metavar="SCENARIO",
        help="scenario file (.yaml/.json) or preset name",
    )
    out = r.add_mutually_exclusive_group()
    out.add_argument("-o", "--output", type=Path, help="HTML file to write (one scenario)")
    out.add_argument("--out-dir", type=Path, help="folder for one NAME.html per scenario (batch)")
    r.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a scenario field (repeatable; value read as YAML)",
    )
    r.add_argument(
        "--pdf",
        action="store_true",
        help="also print a PDF beside each HTML (needs /usr/bin/chromium)",
    )
    r.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="S",
        help="per-cell execution timeout of the notebook [s] (default 300)",
    )
    r.set_defaults(run=report)
    return r


def _fail(message: str, code: int) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


def report(args: argparse.Namespace) -> int:
    from ..decide import ScenarioError
    from ..present import memo as rp

    if args.output is not None and len(args.scenarios) > 1:
        return _fail("-o/--output takes one scenario; use --out-dir for several", EXIT_USAGE)
    if args.timeout is not None and not args.timeout > 0:
        return _fail(f"--timeout={args.timeout!r}: must be > 0 seconds", EXIT_USAGE)

    # 1. Validate everything before running anything.
    try:
        overrides = rp.parse_set(args.overrides)
    except ScenarioError as e:
        return _fail(str(e), EXIT_USAGE)
    jobs, problems = [], []
    for spec in args.scenarios:
        try:
            scenario, preset = rp.resolve_scenario(spec, overrides)
        except ScenarioError as e:
            problems.append(f"{spec}: {e}")
            continue
        except ImportError as e:  # a preset name while workbook.decision is unavailable
            problems.append(f"{spec}: not a scenario file, and presets are unavailable ({e})")
            continue
        if args.output is not None:
            target = args.output
        else:
            target = (args.out_dir or Path(".")) / f"{rp.scenario_stem(spec)}.html"
        jobs.append((spec, scenario, preset, target))
    targets = [t.resolve() for *_, t in jobs]
    dupes = sorted({str(t) for t in targets if targets.count(t) > 1})
    if dupes:
        problems.append(f"several scenarios would write the same file: {', '.join(dupes)}")
    if problems:
        for msg in problems:
            print(f"error: {msg}", file=sys.stderr)
        return EXIT_USAGE

    pdf, code = args.pdf, EXIT_OK
    if pdf and not rp.CHROMIUM.exists():
        print(
            f"error: --pdf needs chromium at {rp.CHROMIUM} (apt-get install chromium); "
            "PDF skipped, writing HTML only",
            file=sys.stderr,
        )
        pdf, code = False, EXIT_NO_PDF

    # 2. Render; each report reaches its path only when its run succeeded.
    timeout = args.timeout or rp.DEFAULT_TIMEOUT_S
    from tqdm import tqdm

    bar = tqdm(jobs, desc="reports", unit="report", disable=len(jobs) < 2, file=sys.stderr)
    failed = 0
    for spec, scenario, preset, target in bar:
        bar.set_postfix_str(spec)
        t0 = time.perf_counter()
        try:
            written = rp.render_report(scenario, target, preset=preset, pdf=pdf, timeout_s=timeout)
        except rp.ReportError as e:
            failed += 1
            tqdm.write(f"error: {spec}: {e}", file=sys.stderr)
            continue
        tqdm.write(
            f"wrote {', '.join(map(str, written))} ({time.perf_counter() - t0:.1f} s)",
            file=sys.stdout,
        )
    bar.close()
    return EXIT_FAILED if failed else code
