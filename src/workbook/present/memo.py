"""The decision memo: what to build it from, how it reads, and how it becomes an HTML / PDF file.

Two halves:

* :func:`memo` builds the memo's content from a scenario (``notebooks/report.ipynb`` calls it once
  and displays the result): the recommendation in one sentence first, then why, the runners-up and
  why they lost, charts (static SVG), the sensitivity of the answer, and finally every assumption
  with its source and the data snapshot.
* :func:`render_report` turns a validated :class:`~workbook.scenario.Scenario` into a file:
  papermill executes the report notebook (with a timeout), nbconvert exports it with the offline
  ``memo`` template in ``templates/nbconvert`` (no code, no ``<script src>``), and the result is
  moved into place only when everything succeeded, so a failed run leaves no partial report.
  Debian's chromium prints the same HTML to PDF.

The command line is ``python -m workbook report`` (:mod:`workbook.__main__`).
``workbook.decision`` is imported when a memo is built, never at import time.
"""

from __future__ import annotations

import datetime as dt
import html
import math
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from ..decide import Scenario, ScenarioError
from ..shipped import NOTEBOOK_DIR

REPORT_NOTEBOOK = NOTEBOOK_DIR / "report.ipynb"
#: nbconvert template folder (``memo`` = lab without CDN scripts, input code or prompts).
TEMPLATE_DIR = Path(__file__).resolve().parent / "templates" / "nbconvert"
TEMPLATE_NAME = "memo"
#: Debian's chromium (``apt-get install chromium``); WORKBOOK_CHROMIUM overrides it.
CHROMIUM = Path(os.environ.get("WORKBOOK_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_PDF_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-pdf-header-footer",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
#: Cells with this tag run (nbval checks them) but are left out of the exported memo.
HIDDEN_TAG = "remove-from-memo"
#: Per-cell limit of the notebook run [s] (nbclient can stall without one: nbclient#312).
DEFAULT_TIMEOUT_S = 300


class ReportError(RuntimeError):
    """Rendering failed after the parameters were accepted (notebook error, timeout, export, PDF)."""


# ------------------------------------------------------------------------------------------------
# Parameters: scenario files, presets, --set overrides
# ------------------------------------------------------------------------------------------------
def presets() -> dict[str, Scenario]:
    """The named scenarios (``workbook.presets.presets``; imported on demand)."""
    from ..decide import presets as _presets

    return dict(_presets)


def parse_set(items: Iterable[str]) -> dict[str, Any]:
    """``["key=value", ...]`` -> ``{key: value}``; values are read as YAML (``8``, ``true``, ``[a, b]``).

    A malformed item raises :class:`ScenarioError` naming it.
    """
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ScenarioError([("--set", item, "must be key=value, e.g. --set deadline_days=60")])
        try:
            value = yaml.safe_load(raw) if raw.strip() else None
        except yaml.YAMLError:
            value = raw
        out[key] = value
    return out


def resolve_scenario(spec: str, overrides: dict[str, Any] | None = None) -> tuple[Scenario, str]:
    """A scenario from a YAML/JSON file or a preset name, with ``overrides`` applied.

    Returns ``(scenario, preset)``; ``preset`` is ``""`` for a file. Raises :class:`ScenarioError`
    naming the bad field (or the unknown file / preset).
    """
    path = Path(spec)
    preset = ""
    if path.suffix.lower() in (".yaml", ".yml", ".json") or path.exists():
        scenario = Scenario.load(path)
    else:
        known = presets()
        if spec not in known:
            raise ScenarioError(
                [
                    (
                        "scenario",
                        spec,
                        f"is neither a scenario file nor a preset; presets: {', '.join(sorted(known))}",
                    )
                ]
            )
        scenario, preset = known[spec], spec
    if overrides:
        scenario = scenario.replace(**overrides)
    return scenario, preset


def scenario_stem(spec: str) -> str:
    """Output file stem for a scenario argument (the file stem or the preset name)."""
    p = Path(spec)
    return p.stem if p.suffix else p.name


# ------------------------------------------------------------------------------------------------
# Memo content
# ------------------------------------------------------------------------------------------------
@dataclass
class Memo:
    """The memo's content. Displays as HTML; ``recommendation`` is the one-sentence answer."""

    scenario: Scenario
    recommendation: str
    html: str
    feasible: bool = True

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return f"Memo({self.recommendation!r})"


def memo(scenario: Scenario | str | None = None, preset: str = "", rec: Any = None) -> Memo:
    """Build the decision memo for a scenario.

    Parameters
    ----------
    scenario
        A :class:`Scenario`, its YAML text (the report notebook's ``scenario_yaml``), or empty /
        None to use ``preset``.
    preset
        A name in ``workbook.presets.presets``: the scenario when ``scenario`` is empty, else a label.
    rec
        A ``workbook.decision.recommend`` result to present; computed when None.
    """
    if isinstance(scenario, str):
        scenario = Scenario.from_yaml(scenario) if scenario.strip() else None
    if scenario is None:
        if not preset:
            raise ScenarioError([("scenario_yaml", "", "is empty and no preset is given")])
        scenario, preset = resolve_scenario(preset)
    if rec is None:
        from ..decide import recommend

        rec = recommend(scenario)
    sentence = recommendation_sentence(rec)
    feasible = bool(getattr(rec, "feasible", True))
    sections = [
        _section_recommendation(scenario, rec, sentence, preset),
        _section_runners_up(rec),
        _section_charts(rec),
        _section_sensitivity(rec),
        _section_trust(rec),
        _section_assumptions(scenario, rec),
    ]
    body = "\n".join(s for s in sections if s)
    return Memo(scenario, sentence, f'<div class="memo">\n{body}\n</div>', feasible)


def recommendation_sentence(rec: Any) -> str:
    """The one sentence the memo opens with: ``rec.top.sentence``, or why nothing qualifies."""
    top = getattr(rec, "top", None)
    if top is not None and getattr(top, "sentence", ""):
        return str(top.sentence)
    headline = getattr(rec, "headline", "")
    if headline:
        return str(headline)
    reasons = list(getattr(rec, "reasons", []) or [])
    return "No option meets every constraint" + (f": {reasons[0]}" if reasons else ".")


# --- formatting ---------------------------------------------------------------------------------
def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _num(x: Any, digits: int = 0) -> str:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return _e(x)
    if math.isnan(v):
        return "n/a"
    if math.isinf(v):
        return "∞"
    return f"{v:,.{digits}f}"


def _usd(x: Any) -> str:
    s = _num(x, 0)
    if not s[:1].isdigit() and not s.startswith("-"):
        return s  # n/a, infinity or text
    return f"-${s[1:]}" if s.startswith("-") else f"${s}"


def _links(sources: Any) -> str:
    """``"url | url (note) | text"`` -> HTML: links for URLs, escaped text otherwise."""
    if (
        sources is None
        or (isinstance(sources, float) and math.isnan(sources))
        or str(sources) == ""
    ):
        return ""
    parts = []
    for part in str(sources).split(" | "):
        p = part.strip()
        url = p.split(" ", 1)[0]
        if url.startswith(("https://", "http://")):
            rest = p[len(url) :].strip()
            parts.append(f'<a href="{_e(url)}">{_e(url)}</a>' + (f" {_e(rest)}" if rest else ""))
        else:
            parts.append(_e(p))
    return "<br>".join(parts)


#: How the memo formats a column: a function value -> HTML. Columns not listed: numbers with
#: thousands separators (2 decimals below 100), text escaped.
_FORMATS: dict[str, Callable[[Any], str]] = {
    "n_gpus": lambda v: _num(v, 0),
    "racks": lambda v: _num(v, 0),
    "nodes": lambda v: _num(v, 0),
    "wall_days": lambda v: _num(v, 1),
    "time_to_result_days": lambda v: _num(v, 1),
    "lead_time_days": lambda v: _num(v, 0),
    "facility_kw": lambda v: _num(v, 0),
    "cost_per_run_usd": _usd,
    "cost_per_year_usd": _usd,
    "first_year_cost_usd": _usd,
    "capex_usd": _usd,
    "cost_per_run_at_low": _usd,
    "cost_per_run_at_high": _usd,
    "swing_usd": _usd,
    "share": lambda v: f"{float(v):.0%}",
    "mfu": lambda v: f"{float(v):.0%}",
}

#: Column titles in the memo (the DataFrame names are kept where they read well).
_TITLES = {
    "accelerator": "accelerator",
    "n_gpus": "GPUs",
    "acquisition": "acquisition",
    "wall_days": "run [days]",
    "time_to_result_days": "decision to result [days]",
    "cost_per_run_usd": "cost per run",
    "cost_per_year_usd": "cost per year",
    "first_year_cost_usd": "first-year cost",
    "facility_kw": "facility [kW]",
    "failed": "why not feasible",
    "cost_per_run_at_low": "cost per run at low",
    "cost_per_run_at_high": "cost per run at high",
    "swing_usd": "swing",
    "flips": "changes the pick",
}


def _cell(col: str, v: Any, raw: bool) -> str:
    if raw:
        return f"<td>{'' if v is None else v}</td>"
    if isinstance(v, (list, tuple)):
        v = "; ".join(map(str, v))
    if v is None or (isinstance(v, float) and math.isnan(v) and col not in _FORMATS):
        return "<td></td>"
    if col in _FORMATS:
        try:
            return f'<td class="num">{_FORMATS[col](v)}</td>'
        except (TypeError, ValueError):
            return f"<td>{_e(v)}</td>"
    if isinstance(v, (bool, str)) or not isinstance(v, (int, float)):
        return f"<td>{_e('yes' if v is True else 'no' if v is False else v)}</td>"
    v = float(v)
    return f'<td class="num">{_num(v, 0) if abs(v) >= 100 else _e(f"{v:.4g}")}</td>'


def _table(df: pd.DataFrame, raw: Iterable[str] = ()) -> str:
    """A plain HTML table (escaped, numbers right-aligned); columns in ``raw`` are inserted as HTML."""
    raw = set(raw)
    head = "".join(
        f'<th class="num">{_e(_TITLES.get(c, c))}</th>'
        if c not in raw
        and (
            c in _FORMATS
            or pd.api.types.is_numeric_dtype(df[c])
            and not pd.api.types.is_bool_dtype(df[c])
        )
        else f"<th>{_e(_TITLES.get(c, c))}</th>"
        for c in df.columns
    )
    rows = [
        "<tr>" + "".join(_cell(c, v, c in raw) for c, v in zip(df.columns, r)) + "</tr>"
        for r in df.itertuples(index=False, name=None)
    ]
    return (
        f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n"
        + "\n".join(rows)
        + "\n</tbody>\n</table>"
    )


def _columns(df: pd.DataFrame, wanted: Iterable[str]) -> pd.DataFrame:
    cols = [c for c in wanted if c in df.columns]
    return (df[cols] if cols else df).reset_index(drop=True)


# --- sections -----------------------------------------------------------------------------------
_TOP_FIELDS = (
    ("accelerator", "Accelerator"),
    ("n_gpus", "GPUs"),
    ("acquisition", "Acquisition"),
    ("wall_days", "Run time [days]"),
    ("time_to_result_days", "Decision to result [days]"),
    ("cost_per_run_usd", "Cost per run"),
    ("cost_per_year_usd", "Cost per year"),
    ("first_year_cost_usd", "First-year cost"),
    ("facility_kw", "Facility power [kW]"),
    ("racks", "Racks"),
    ("layout", "Parallel layout"),
)


#: Fields that describe the buyer's own site: not applicable to a rented cluster.
_SITE_FIELDS = ("facility_kw", "racks")


def _section_recommendation(scenario: Scenario, rec: Any, sentence: str, preset: str) -> str:
    feasible = bool(getattr(rec, "feasible", True))
    label = scenario.name + (f" (preset {preset})" if preset and preset != scenario.name else "")
    out = [
        '<section id="recommendation">',
        f"<h2>Recommendation: {_e(label)}</h2>",
        f'<p class="recommendation{"" if feasible else " infeasible"}">{_e(sentence)}</p>',
    ]
    top = getattr(rec, "top", None)
    if top is not None:
        rented = str(getattr(top, "acquisition", "")).startswith("rent")
        rows = "".join(
            f"<tr><th>{_e(title)}</th>"
            + (
                "<td>none on your site (rented)</td>"
                if rented and attr in _SITE_FIELDS
                else _cell(attr, getattr(top, attr), False)
            )
            + "</tr>"
            for attr, title in _TOP_FIELDS
            if hasattr(top, attr)
        )
        out.append(f"<table>{rows}</table>")
    reasons = list(getattr(rec, "reasons", []) or [])
    if reasons:
        out.append("<h3>Why</h3>" if top is not None else "<h3>Why nothing qualifies</h3>")
        out.append("<ul>" + "".join(f"<li>{_e(r)}</li>" for r in reasons) + "</ul>")
    out.append("</section>")
    return "\n".join(out)


_OPTION_COLUMNS = (
    "accelerator",
    "n_gpus",
    "acquisition",
    "wall_days",
    "time_to_result_days",
    "cost_per_run_usd",
    "cost_per_year_usd",
    "first_year_cost_usd",
    "facility_kw",
    "racks",
    "failed",
)


def runners_up(rec: Any, n: int = 3) -> pd.DataFrame:
    """The next-best options after ``rec.top`` (``rec.runners_up``; else the next distinct
    accelerator x acquisition rows of ``rec.options`` in the engine's order)."""
    listed = getattr(rec, "runners_up", None)
    if listed:
        rows = [
            {
                **{k: getattr(o, k) for k in _OPTION_COLUMNS if hasattr(o, k)},
                "summary": getattr(o, "sentence", ""),
            }
            for o in listed
        ]
        return pd.DataFrame(rows)
    options = getattr(rec, "options", None)
    top = getattr(rec, "top", None)
    if options is None or top is None or len(options) == 0:
        return pd.DataFrame()
    df = options[options["feasible"]] if "feasible" in options.columns else options
    keys = [c for c in ("accelerator", "acquisition") if c in df.columns]
    if keys:
        df = df.drop_duplicates(keys)
        df = df[~((df["accelerator"] == top.accelerator) & (df["acquisition"] == top.acquisition))]
    return _columns(df.head(n), _OPTION_COLUMNS)


def _section_runners_up(rec: Any) -> str:
    out = []
    ru = runners_up(rec)
    if not ru.empty:
        out += [
            "<h3>Runners-up</h3>",
            _table(
                _columns(
                    ru,
                    ("summary", "time_to_result_days", "cost_per_year_usd", "first_year_cost_usd"),
                )
            ),
        ]
    nearest = getattr(rec, "nearest", None)
    if (
        getattr(rec, "top", None) is None
        and isinstance(nearest, pd.DataFrame)
        and not nearest.empty
    ):
        out += ["<h3>Nearest misses</h3>", _table(_columns(nearest, _OPTION_COLUMNS))]
    rejected = getattr(rec, "rejected", None) or {}
    if rejected:
        df = pd.DataFrame(
            {
                "accelerator": list(rejected),
                "why not": [
                    "; ".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v)
                    for v in rejected.values()
                ],
            }
        )
        out += ["<h3>Why not the other accelerators</h3>", _table(df)]
    if not out:
        return ""
    return "\n".join(
        [
            '<section id="runners-up">',
            "<h2>Runners-up and why they were not chosen</h2>",
            *out,
            "</section>",
        ]
    )


def chart_specs(rec: Any) -> list[tuple[str, Any]]:
    """The memo's charts as ``[(caption, altair chart), ...]``: every chart of
    :func:`workbook.charts.all_charts` whose data (``charts.<name>_data(rec)``) is not empty."""
    import warnings

    from . import charts

    with (
        warnings.catch_warnings()
    ):  # altair's type inference on empty frames: not the reader's concern
        warnings.simplefilter("ignore", UserWarning)
        return [
            ("", chart)
            for name, chart in charts.all_charts(rec).items()
            if len(getattr(charts, f"{name}_data")(rec))
        ]


def chart_svg(chart: Any) -> str:
    """A static SVG of an altair chart (vl-convert in this process: no JavaScript, no CDN).

    ``chart.save`` picks the Vega-Lite version matching altair's schema for vl-convert."""
    import io

    buf = io.StringIO()
    chart.save(buf, format="svg")
    return buf.getvalue()


def _section_charts(rec: Any) -> str:
    specs = chart_specs(rec)
    if not specs:
        return ""
    figures = [
        "<figure>"
        + (f"<figcaption>{_e(caption)}</figcaption>" if caption else "")
        + chart_svg(chart)
        + "</figure>"
        for caption, chart in specs
    ]
    return "\n".join(['<section id="charts">', "<h2>Evidence</h2>", *figures, "</section>"])


def _section_sensitivity(rec: Any) -> str:
    parts = []
    sens = getattr(rec, "sensitivity", None)
    if isinstance(sens, pd.DataFrame) and not sens.empty:
        parts += [
            "<h3>One assumption at a time, over its stated range (tornado)</h3>",
            _table(
                _columns(
                    sens,
                    (
                        "assumption",
                        "parameter",
                        "base",
                        "low",
                        "high",
                        "cost_per_run_at_low",
                        "cost_per_run_at_high",
                        "swing_usd",
                        "flips",
                        "flips_at",
                        "pick_at_low",
                        "pick_at_high",
                    ),
                )
            ),
        ]
    mc = getattr(rec, "monte_carlo", None)
    if isinstance(mc, pd.DataFrame) and not mc.empty:
        parts += [
            "<h3>How often each option wins when all assumptions move at once (Monte Carlo)</h3>",
            _table(mc.head(10).reset_index(drop=True)),
        ]
    pareto = getattr(rec, "pareto", None)
    if isinstance(pareto, pd.DataFrame) and not pareto.empty:
        parts += [
            "<h3>Pareto front: time to result against cost per run</h3>",
            _table(
                _columns(
                    pareto,
                    (
                        "accelerator",
                        "n_gpus",
                        "acquisition",
                        "time_to_result_days",
                        "cost_per_run_usd",
                        "first_year_cost_usd",
                        "feasible",
                        "failed",
                    ),
                )
            ),
        ]
    if not parts:
        return ""
    return "\n".join(
        ['<section id="sensitivity">', "<h2>Trade-offs and sensitivity</h2>", *parts, "</section>"]
    )


def _section_trust(rec: Any) -> str:
    from ..calibrate import time_model_trust

    top = getattr(rec, "top", None)
    text = time_model_trust(
        getattr(top, "accelerator", None),
        getattr(rec, "catalog", None),
        wall_days=getattr(top, "wall_days", None),
        time_factor=getattr(getattr(rec, "scenario", None), "time_factor", 1.0),
    )
    return "\n".join(
        [
            '<section id="trust">',
            "<h2>How far to trust the time estimate</h2>",
            f"<p>{_e(text)}</p>",
            "</section>",
        ]
    )


def _scenario_table(scenario: Scenario) -> pd.DataFrame:
    rows = []
    for name, f in Scenario.model_fields.items():
        value = getattr(scenario, name)
        default = f.get_default(call_default_factory=True) if not f.is_required() else None
        given = f.is_required() or value != default
        if isinstance(value, list):
            value = ", ".join(map(str, value))
        rows.append(
            {
                "field": name,
                "value": "default" if value is None else value,
                "meaning": f.description or "",
                "source": "scenario" if given else "default (workbook.scenario)",
            }
        )
    df = pd.DataFrame(rows)
    df["value"] = df["value"].map(lambda v: f"{v:g}" if isinstance(v, float) else str(v))
    return df


def _param_table(table: pd.DataFrame, accelerator: str | None) -> pd.DataFrame:
    mask = table["accelerator_id"].isna()
    if accelerator:
        mask |= table["accelerator_id"] == accelerator
    df = table[mask].copy()
    df["range"] = [
        "" if pd.isna(lo) and pd.isna(hi) else f"{lo:g} to {hi:g}"
        for lo, hi in zip(df["low"], df["high"])
    ]
    df["value"] = df["value"].map(lambda v: f"{v:g}")
    df["for"] = df["accelerator_id"].fillna("all")
    df["source"] = df["source_url"].map(_links)
    return df[["parameter", "for", "value", "unit", "range", "source_kind", "source", "accessed"]]


def _price_table(prices: pd.DataFrame, accelerator: str | None) -> pd.DataFrame:
    if not accelerator:
        return pd.DataFrame()
    df = prices[(prices["accelerator_id"] == accelerator) & prices["is_default"]].copy()
    if df.empty:
        return df
    df["price"] = [
        f"${g:,.0f} per GPU" if pd.notna(g) else f"${h:,.2f} per GPU-hour"
        for g, h in zip(df["price_usd_per_gpu"], df["price_usd_per_gpu_hour"])
    ]
    df["source"] = df["source_url"].map(_links)
    return df[["kind", "price", "provider", "price_date", "source_kind", "source", "accessed"]]


def _section_assumptions(scenario: Scenario, rec: Any) -> str:
    from ..catalog import load_catalog

    cat = getattr(rec, "catalog", None) or load_catalog()
    top = getattr(rec, "top", None)
    accelerator = getattr(top, "accelerator", None)
    snap = getattr(rec, "snapshot", None) or cat.snapshot()
    overrides = snap.get("overrides") or []
    out = [
        '<section id="assumptions">',
        "<h2>Assumptions and sources</h2>",
        "<h3>Scenario</h3>",
        _table(_scenario_table(scenario)),
        "<h3>Model assumptions (data/assumptions.csv)</h3>",
        _table(_param_table(cat.tables["assumptions"], accelerator), raw=["source"]),
        "<h3>Facility (data/facility.csv)</h3>",
        _table(_param_table(cat.tables["facility"], accelerator), raw=["source"]),
    ]
    prices = _price_table(cat.tables["prices"], accelerator)
    if not prices.empty:
        out += [
            f"<h3>Prices of {_e(accelerator)} (data/prices.csv)</h3>",
            _table(prices, raw=["source"]),
        ]
    generated = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    out += [
        "<h3>Data snapshot</h3>",
        '<p class="provenance">'
        f"data hash <code>{_e(snap.get('data_hash'))}</code>, latest source accessed "
        f"{_e(snap.get('latest_accessed'))}, overrides: "
        + (
            _e(
                "; ".join(
                    f"{o.get('table')}:{o.get('key')}.{o.get('column')}={o.get('value')}"
                    for o in overrides
                )
            )
            if overrides
            else "none"
        )
        + f"; generated {generated} by workbook {_e(_version())}.</p>",
        "</section>",
    ]
    return "\n".join(out)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("workbook")
    except PackageNotFoundError:  # running from a checkout without `pip install -e .`
        return "(uninstalled)"


# ------------------------------------------------------------------------------------------------
# Rendering: papermill -> nbconvert (memo template) -> HTML [-> chromium -> PDF]
# ------------------------------------------------------------------------------------------------
def _kernel_manager():
    """A kernel manager on IPC sockets in a fresh temporary folder (local only; TCP makes ipykernel
    warn about plain-text transport on every run, and IPC in the notebook's folder litters it with
    ``kernel-ipc-*`` files)."""
    from jupyter_client.manager import KernelManager

    sockets = tempfile.mkdtemp(prefix="wb-kernel-")
    return KernelManager(
        kernel_name="python3", transport="ipc", ip=os.path.join(sockets, "k")
    ), sockets


def execute_report(
    scenario: Scenario,
    output_notebook: Path,
    preset: str = "",
    timeout_s: float = DEFAULT_TIMEOUT_S,
    notebook: Path = REPORT_NOTEBOOK,
) -> None:
    """Run the report notebook with papermill (parameters ``scenario_yaml``, ``preset``)."""
    import papermill as pm
    from papermill.exceptions import PapermillExecutionError

    km, sockets = _kernel_manager()
    try:
        pm.execute_notebook(
            str(notebook),
            str(output_notebook),
            parameters={"scenario_yaml": scenario.to_yaml(), "preset": preset},
            kernel_name="python3",
            km=km,
            cwd=str(notebook.parent),
            execution_timeout=timeout_s,
            progress_bar=False,
            log_output=False,
            request_save_on_cell_execute=False,
        )
    except PapermillExecutionError as e:
        raise ReportError(
            f"the report notebook failed in cell {e.exec_count}: {e.ename}: {_first_line(e.evalue)}"
        ) from None
    except Exception as e:  # noqa: BLE001 - timeouts (CellTimeoutError), a dead kernel: one line for the CLI
        raise ReportError(
            f"the report notebook did not run: {type(e).__name__}: {_first_line(str(e))}"
        ) from None
    finally:
        if km.has_kernel:  # a km passed in is not shut down by nbclient
            km.shutdown_kernel(now=True)
        shutil.rmtree(sockets, ignore_errors=True)


def _first_line(text: str) -> str:
    lines = [ln.strip() for ln in str(text).strip().splitlines() if ln.strip()]
    return lines[0] if lines else ""


def export_html(executed_notebook: Path, title: str) -> str:
    """Executed notebook -> self-contained HTML memo (template ``memo``: no code, no CDN scripts)."""
    import nbformat
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    nb = nbformat.read(str(executed_notebook), as_version=4)
    nb.metadata["title"] = title
    nb.metadata.pop("widgets", None)  # widget state would bring the widget manager from a CDN
    c = Config()
    c.HTMLExporter.extra_template_basedirs = [str(TEMPLATE_DIR)]
    c.HTMLExporter.template_name = TEMPLATE_NAME
    c.HTMLExporter.exclude_input = True
    c.HTMLExporter.exclude_input_prompt = True
    c.HTMLExporter.exclude_output_prompt = True
    c.TagRemovePreprocessor.enabled = True
    c.TagRemovePreprocessor.remove_cell_tags = {HIDDEN_TAG, "parameters", "injected-parameters"}
    body, _ = HTMLExporter(config=c).from_notebook_node(nb)
    return body


def print_pdf(html_path: Path, pdf_path: Path, timeout_s: float = 120) -> None:
    """Print an HTML file to PDF with Debian's chromium (headless, no network, no header/footer)."""
    if not CHROMIUM.exists():
        raise ReportError(
            f"--pdf needs chromium at {CHROMIUM} (apt-get install chromium); PDF not written"
        )
    with tempfile.TemporaryDirectory(prefix="workbook-chromium-") as profile:
        cmd = [
            str(CHROMIUM),
            *CHROMIUM_PDF_ARGS,
            f"--user-data-dir={profile}",
            f"--print-to-pdf={pdf_path}",
            html_path.resolve().as_uri(),
        ]
        try:
            r = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise ReportError(f"chromium did not print the PDF within {timeout_s:g} s") from None
    if r.returncode != 0 or not pdf_path.exists() or pdf_path.read_bytes()[:4] != b"%PDF":
        raise ReportError(
            f"chromium could not print the PDF (exit {r.returncode}): {_first_line(r.stderr)}"
        )


def _install(src: Path, dest: Path) -> None:
    """Copy ``src`` beside ``dest`` under a temporary name, then rename: ``dest`` is whole or absent."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
    os.close(fd)
    try:
        shutil.copyfile(src, tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; a report is an ordinary file
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def render_report(
    scenario: Scenario,
    output: str | Path,
    preset: str = "",
    pdf: bool = False,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    notebook: Path = REPORT_NOTEBOOK,
) -> list[Path]:
    """Execute the report for ``scenario`` and write the HTML memo to ``output`` (and a PDF beside it).

    Everything is produced in a temporary folder; files reach ``output`` only when the whole run
    succeeded (the PDF, if asked for, is checked before either file is moved). Returns the paths
    written; raises :class:`ReportError` with a one-line message otherwise.
    """
    output = Path(output)
    if pdf and not CHROMIUM.exists():
        raise ReportError(
            f"--pdf needs chromium at {CHROMIUM} (apt-get install chromium); nothing written"
        )
    with tempfile.TemporaryDirectory(prefix="workbook-report-") as tmp:
        tmpd = Path(tmp)
        executed = tmpd / "report.ipynb"
        execute_report(scenario, executed, preset=preset, timeout_s=timeout_s, notebook=notebook)
        try:
            body = export_html(executed, title=f"Decision memo: {scenario.name}")
        except Exception as e:  # noqa: BLE001 - any exporter failure becomes one line for the CLI
            raise ReportError(
                f"HTML export failed: {type(e).__name__}: {_first_line(str(e))}"
            ) from None
        html_tmp = tmpd / "memo.html"
        html_tmp.write_text(body, encoding="utf-8")
        written = [output]
        pdf_tmp = tmpd / "memo.pdf"
        if pdf:
            print_pdf(html_tmp, pdf_tmp)
            written.append(output.with_suffix(".pdf"))
        _install(html_tmp, output)
        if pdf:
            _install(pdf_tmp, written[1])
    return written
