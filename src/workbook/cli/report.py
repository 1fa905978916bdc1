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
import math
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..catalog import CatalogError, load_catalog
from ..decide import Scenario, ScenarioError, YamlError, safe_yaml
from ..present.render import (
    CHROMIUM,
    DEFAULT_TIMEOUT_S,
    ReportError,
    claim_outputs,
    resolve_scenario,
)
from ..present.reports import MemoJob, render_batch
from ..text import shown

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NO_PDF = 0, 1, 2, 3
#: Exit code after Ctrl-C (128 + SIGINT, the shell's convention).
EXIT_INTERRUPTED = 130
#: The longest per-cell timeout accepted [s]: a day; a memo runs in well under a minute.
MAX_TIMEOUT_S = 86_400


def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``report`` command to the ``python -m workbook`` sub-parsers."""
    r = sub.add_parser(
        "report",
        help="render the decision memo (HTML, optionally PDF) for scenarios",
        description="Run the engine for each scenario in this process and export "
        "notebooks/report.ipynb with the memo as an offline HTML memo (no code, no CDN). "
        "SCENARIO is a .yaml/.json file or a preset name.",
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
        "--overrides",
        dest="overrides_file",
        type=Path,
        default=None,
        metavar="FILE",
        help="an overrides CSV (table,key,column,value,source,notes): your own prices and specs "
        "for every memo (README: Your own numbers)",
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
        help="time limit of one memo's engine run and export [s] (default 300)",
    )
    r.set_defaults(run=report)
    return r


def parse_set(items: Iterable[str]) -> dict[str, Any]:
    """``["key=value", ...]`` -> ``{key: value}``; values are read as YAML (``8``, ``true``,
    ``[a, b]``).

    A malformed item raises :class:`ScenarioError` naming it.
    """
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ScenarioError([("--set", item, "must be key=value, e.g. --set deadline_days=60")])
        if key == "overrides":
            raise ScenarioError([("--set", item, "is not a scenario field; use --overrides FILE")])
        try:
            value = safe_yaml(raw) if raw.strip() else None
        except YamlError:
            value = raw
        out[key] = value
    return out


def scenario_stem(spec: str) -> str:
    """Output file stem for a scenario argument (the file stem or the preset name)."""
    p = Path(spec)
    return p.stem if p.suffix else p.name


@dataclass
class Job:
    """One memo to render: the argument, the scenario it names, and where the HTML goes."""

    spec: str
    scenario: Scenario
    preset: str
    target: Path


def _fail(message: str, code: int) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


def _flag_problem(args: argparse.Namespace) -> str:
    """What is wrong with the flags themselves (before any scenario is read), or ""."""
    if args.output is not None and len(args.scenarios) > 1:
        return "-o/--output takes one scenario; use --out-dir for several"
    if args.timeout is not None and not 0 < args.timeout <= MAX_TIMEOUT_S:
        return f"--timeout={shown(args.timeout)}: allowed: > 0 and <= {MAX_TIMEOUT_S} seconds"
    if args.out_dir is not None and args.out_dir.exists() and not args.out_dir.is_dir():
        return f"--out-dir {shown(str(args.out_dir))} is a file; allowed: a folder (or a new one)"
    if args.overrides_file is not None:
        try:
            load_catalog(args.overrides_file)
        except CatalogError as e:
            return f"--overrides: {e}"
    return ""


def _resolve_all(
    args: argparse.Namespace, overrides: dict[str, Any]
) -> tuple[list[Job], list[str]]:
    """Every scenario argument read and validated, with its target file; and every problem."""
    jobs, problems = [], []
    for spec in args.scenarios:
        try:
            scenario, preset = resolve_scenario(spec, overrides)
        except ScenarioError as e:
            problems.append(f"{spec}: {e}")
            continue
        if args.output is not None:
            target = args.output
        else:
            target = (args.out_dir or Path(".")) / f"{scenario_stem(spec)}.html"
        jobs.append(Job(spec, scenario, preset, target))
    return jobs, problems


def _inputs(args: argparse.Namespace) -> set[Path]:
    """Every file the run reads: the scenario files and the overrides file."""
    files = [Path(spec) for spec in args.scenarios if Path(spec).is_file()]
    if args.overrides_file is not None:
        files.append(args.overrides_file)
    return {f.resolve() for f in files}


def _target_problem(target: Path, inputs: set[Path]) -> str:
    """Why the run must not write ``target`` (an input, a folder, not writable), or ""."""
    where = shown(str(target))
    if target.resolve() in inputs:
        return f"the output {where} is one of the inputs; allowed: a new file name"
    if target.is_dir():
        return f"the output {where} is a folder; allowed: a file name (or --out-dir for a folder)"
    parent = target.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        return f"the output {where} is inside {shown(str(parent))}, which is a file"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"the output {where} cannot be written: {shown(str(parent))} is read-only"
    return ""


def _clashing_targets(jobs: list[Job]) -> list[str]:
    """A problem when two scenarios would write the same file."""
    targets = [job.target.resolve() for job in jobs]
    dupes = sorted({str(t) for t in targets if targets.count(t) > 1})
    return [f"several scenarios would write the same file: {', '.join(dupes)}"] if dupes else []


def _pdf_wanted(pdf: bool) -> tuple[bool, int]:
    """Whether to print PDFs, and the exit code so far (3 when chromium is missing)."""
    if pdf and not CHROMIUM.exists():
        print(
            f"error: --pdf needs chromium at {CHROMIUM} (apt-get install chromium); "
            "PDF skipped, writing HTML only",
            file=sys.stderr,
        )
        return False, EXIT_NO_PDF
    return pdf, EXIT_OK


def _render_all(jobs: list[Job], pdf: bool, timeout_s: float, overrides: Path | None) -> int:
    """Render every job (:func:`workbook.present.reports.render_batch`, a progress bar for a
    batch) with the catalog of the overrides CSV ``overrides`` (None: the shipped data); each
    report reaches its path only when its run succeeded. Returns how many failed."""
    from tqdm import tqdm

    catalog = None if overrides is None else load_catalog(overrides)
    memo_jobs = [MemoJob(job.scenario, job.preset, job.target, catalog) for job in jobs]
    bar = tqdm(
        total=len(jobs), desc="reports", unit="report", disable=len(jobs) < 2, file=sys.stderr
    )
    failed = 0
    for result in render_batch(memo_jobs, pdf=pdf, timeout_s=timeout_s):
        bar.update()
        if result.error:
            failed += 1
            tqdm.write(f"error: {jobs[result.index].spec}: {result.error}", file=sys.stderr)
            continue
        written = ", ".join(map(str, result.written))
        tqdm.write(f"wrote {written} ({result.seconds:.1f} s)", file=sys.stdout)
    bar.close()
    return failed


def report(args: argparse.Namespace) -> int:
    """``python -m workbook report``: validate every scenario, then render each one.

    Returns the exit code (module docstring): nothing runs unless every argument is valid."""
    problem = _flag_problem(args)
    if problem:
        return _fail(problem, EXIT_USAGE)
    try:
        overrides = parse_set(args.overrides)
    except ScenarioError as e:
        return _fail(str(e), EXIT_USAGE)
    jobs, problems = _resolve_all(args, overrides)
    problems += _clashing_targets(jobs)
    inputs = _inputs(args)
    problems += [p for p in (_target_problem(j.target, inputs) for j in jobs) if p]
    if problems:
        for msg in problems:
            print(f"error: {msg}", file=sys.stderr)
        return EXIT_USAGE
    timeout_s = math.ceil(args.timeout or DEFAULT_TIMEOUT_S)  # nbclient counts whole seconds
    try:
        with claim_outputs([j.target for j in jobs]):
            pdf, code = _pdf_wanted(args.pdf)
            failed = _render_all(jobs, pdf, timeout_s, args.overrides_file)
    except ReportError as e:
        return _fail(str(e), EXIT_USAGE)
    except KeyboardInterrupt:
        return _fail("interrupted; the unfinished report was not written", EXIT_INTERRUPTED)
    return EXIT_FAILED if failed else code
