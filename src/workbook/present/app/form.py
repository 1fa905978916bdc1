"""The app's inputs: which scenario fields it asks for, in which steps, and widgets <-> Scenario.

:data:`FIELDS` is a declared table (data written as code): one row per input, grouped in the four
steps a reader walks through (model and workload -> budget -> power and cooling -> team and
software). :func:`build_form` makes the widgets, :meth:`Form.load` shows a scenario in them and
:func:`scenario_from_values` reads one back (numbers are shown in convenient units, billions of
parameters for instance, and stored in the scenario's own). The page's URL can name a preset
(:func:`preset_in`, :func:`preset_from_query`).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

import ipywidgets as w
from ipywidgets.widgets.widget_description import DescriptionStyle
from ipywidgets.widgets.widget_string import TextStyle

from ...catalog import load_catalog
from ...decide import (
    ACQUISITIONS,
    FRAMEWORKS,
    OBJECTIVES,
    REGIONS,
    SCENARIO_STACKS,
    WORKLOADS,
    Scenario,
    ScenarioError,
    presets,
)
from ...model import PRECISIONS
from ...units import GIGA

#: The scenario the app opens with (when no ``?preset=`` link names another).
DEFAULT_PRESET = "funded-startup-30b-domain"
#: Widths of an input's label and of the whole input (the longest label fits untruncated), and of
#: the inputs' column.
LABEL_WIDTH, INPUT_WIDTH, COLUMN_WIDTH = "235px", "445px", "470px"


def _accelerator_choices() -> list[tuple[str, str]]:
    """(name, id) of every shipped accelerator (data/accelerators.csv), for the restriction."""
    acc = load_catalog().tables["accelerators"]
    return list(zip(acc["name"], acc["accelerator_id"]))


def _fabric_choices() -> list[tuple[str, str]]:
    """(name, id) of every scale-out fabric (data/fabrics.csv), after the scenario's default."""
    fab = load_catalog().tables["fabrics"]
    return [("default (InfiniBand NDR 400 Gb/s)", "")] + list(zip(fab["name"], fab["fabric_id"]))


#: (field, label, widget kind, extra) per step. ``extra`` is the choices of a ``choice`` /
#: ``toggle`` / ``multi`` input (``(label, value)`` pairs allowed), or the scale of a number (shown
#: value x scale = the scenario's). ``choice_opt`` / ``multi_opt``: "" / nothing selected means
#: not set (None in the scenario: its default).
FIELDS: dict[str, list[tuple[str, str, str, Any]]] = {
    "model": [
        ("workload", "Workload", "choice", WORKLOADS),
        ("n_params", "Parameters (billions)", "float", GIGA),
        ("n_active_params", "MoE active (B; 0 = dense)", "float", GIGA),
        ("n_tokens", "Tokens (B; 0 = 20 x params)", "float", GIGA),
        ("seq_len", "Sequence length (tokens)", "int", 1),
        ("precision", "Precision", "choice", PRECISIONS),
    ],
    "budget": [
        ("budget_usd", "Budget, first year (USD)", "float", 1),
        ("deadline_days", "Deadline (days, incl. lead time)", "float", 1),
        ("confidence", "Confidence (deadline, budget, year)", "float", 1),
        ("runs_per_year", "Runs per year", "float", 1),
        ("objective", "Objective", "choice", OBJECTIVES),
        ("acquisition_modes", "Ways to get GPUs", "multi", ACQUISITIONS),
        ("lead_time_tolerance_weeks", "Longest wait for hardware (weeks)", "float", 1),
        ("used_hardware_allowed", "Used hardware allowed", "bool", None),
        ("used_price_factor", "Used price (x listed; H100 $18K: 0.84)", "float", 1),
        ("max_gpus", "Largest cluster (GPUs)", "int", 1),
        ("accelerators", "Only these accelerators", "multi_opt", _accelerator_choices()),
        ("sourced_prices_only", "Sourced prices only", "bool", None),
        ("region", "Where you buy (export rules)", "choice", REGIONS),
    ],
    "power": [
        ("site_power_kw", "Site power for the cluster (kW)", "float", 1),
        ("rack_limit_kw", "Rack limit (kW; 0 = default)", "float", 1),
        ("cooling", "Cooling", "toggle", ("air", "liquid")),
        ("allow_liquid_retrofit", "Allow a liquid-cooling retrofit", "bool", None),
        ("pue", "PUE (0 = by cooling)", "float", 1),
        ("electricity_usd_per_kwh", "Electricity ($/kWh; 0 = default)", "float", 1),
        ("fabric", "Scale-out network", "choice_opt", _fabric_choices()),
    ],
    "team": [
        ("team_size", "ML team size (people)", "int", 1),
        ("platform_engineers", "Platform engineers", "int", 1),
        ("rocm_experience", "Team has shipped on ROCm", "bool", None),
        ("framework", "Training framework", "toggle", FRAMEWORKS),
        ("software_stack", "Software stack", "choice", SCENARIO_STACKS),
        ("time_factor", "Your stack's time vs the engine (x)", "float", 1),
    ],
}
STEP_TITLES = {
    "model": "1. Model and workload",
    "budget": "2. Budget and time",
    "power": "3. Power and cooling",
    "team": "4. Team and software",
}
#: Inputs each step keeps in a collapsed "More" section (the step's first inputs stay in view).
MORE = {
    "model": ("seq_len", "precision"),
    "budget": (
        "lead_time_tolerance_weeks",
        "used_hardware_allowed",
        "used_price_factor",
        "max_gpus",
        "accelerators",
        "sourced_prices_only",
        "region",
    ),
    "power": ("allow_liquid_retrofit", "pue", "electricity_usd_per_kwh", "fabric"),
    "team": ("software_stack", "time_factor"),
}
MORE_TITLES = {
    "model": "More: sequence length, precision (FP8, FP4), your model's config file",
    "budget": "More: waiting, used hardware, cluster size, accelerators, export rules",
    "power": "More: retrofit, PUE, electricity, scale-out network",
    "team": "More: software stack, your stack's speed",
}
#: Inputs a model config file sets while it is in use (:mod:`.model_upload`), and their labels
#: then.
FROM_CONFIG = {
    "n_params": "Parameters (B; from your file)",
    "n_active_params": "MoE active (B; from your file)",
}
#: Optional number fields left blank: not set (None in the scenario: its default, here no limit).
OPTIONAL_BLANK = {"lead_time_tolerance_weeks"}
#: Optional number fields: 0 in the input means "not set" (None in the scenario: its default).
OPTIONAL_ZERO = {
    "n_active_params",
    "n_tokens",
    "rack_limit_kw",
    "electricity_usd_per_kwh",
    "pue",
}


def _rows():
    """Every (field, label, kind, extra) of :data:`FIELDS`, step by step."""
    return [row for step in FIELDS.values() for row in step]


def input_widget(
    label: str,
    kind: str,
    extra: Any,
    style: DescriptionStyle,
    layout: w.Layout,
    text_style: TextStyle | None = None,
) -> w.ValueWidget:
    """The widget for one row of :data:`FIELDS` (numbers update on Enter or leaving the box)."""
    if kind in ("choice", "choice_opt"):
        return w.Dropdown(options=list(extra), description=label, style=style, layout=layout)
    if kind == "toggle":
        return w.ToggleButtons(
            options=list(extra), description=label, style={"description_width": LABEL_WIDTH}
        )
    if kind in ("multi", "multi_opt"):
        return w.SelectMultiple(
            options=list(extra), description=label, rows=5, style=style, layout=layout
        )
    if kind == "bool":
        return w.Checkbox(description=label, indent=False, layout=layout)
    # Numbers are typed as text and read here (read_number): the browser's IntText / FloatText
    # silently dropped what they could not read ("2.5" became 25, "1,5" became 15).
    text_style = text_style or TextStyle(description_width=LABEL_WIDTH)
    return w.Text(description=label, style=text_style, layout=layout, continuous_update=False)


def number_text(x: float) -> str:
    """A number as an input shows it: whole numbers without a decimal point, others exactly
    (``repr``: it reads back to the same float)."""
    x = float(x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e16 else repr(x)


def read_number(field: str, text: Any, kind: str) -> float | int:
    """What a number input holds, read strictly; raises :class:`ScenarioError` naming the field
    and echoing the text as typed."""
    t = str(text).strip()
    why = ""
    if not t:
        why = "is empty; allowed: a number"
    elif "," in t:
        why = "has a comma; allowed: a number with a dot for decimals and no thousands separator"
    else:
        try:
            v = float(t)
        except ValueError:
            v, why = math.nan, "is not a number; allowed: e.g. 2, 0.5 or 1e9"
        if not why and not math.isfinite(v):
            why = "is not a finite number; allowed: a finite number"
        elif not why and kind == "int" and not v.is_integer():
            why = "is not a whole number; allowed: a whole number"
    if why:
        raise ScenarioError([(field, t, why)])
    return int(v) if kind == "int" else v


def widget_values(s: Scenario) -> dict[str, Any]:
    """The value each input shows for scenario ``s`` (numbers divided by their scale, 0 for an
    unset optional number, a tuple for a multiple choice)."""
    values = {}
    for field, _, kind, scale in _rows():
        v = getattr(s, field)
        if kind in ("multi", "multi_opt"):
            v = tuple(v or ())
        elif kind == "choice_opt":
            v = v or ""
        elif kind in ("float", "int") and field in OPTIONAL_BLANK and v is None:
            v = ""
        elif kind in ("float", "int") and field in OPTIONAL_ZERO and v is None:
            v = "0"
        elif kind in ("float", "int"):
            v = number_text(float(v) / scale)
        values[field] = v
    return values


def scenario_from_values(base: Scenario, values: dict[str, Any], preset: str) -> Scenario:
    """The scenario the inputs describe: ``base`` with every field of :data:`FIELDS` from
    ``values``, named ``preset`` while it equals that preset, else ``custom`` (with a model config
    file, ``base``'s counts of :data:`FROM_CONFIG`, not the inputs'). Raises
    :class:`~workbook.decide.ScenarioError` on bad values."""
    data, typed, problems = base.model_dump(), {}, []
    for field, _, kind, scale in _rows():
        if base.hf_config is not None and field in FROM_CONFIG:
            continue  # the file's counts (base has them), not the disabled inputs' rounding
        v = values[field]
        if kind == "multi":
            v = list(v)
        elif kind in ("multi_opt", "choice_opt"):
            v = list(v) if kind == "multi_opt" and v else (v or None)
        elif field in OPTIONAL_BLANK and not str(v).strip():
            v = None
        elif kind in ("float", "int"):
            typed[field] = v
            try:
                v = read_number(field, v, kind)
            except ScenarioError as e:
                problems += e.errors
                continue
            v = None if field in OPTIONAL_ZERO and v == 0 else v * scale if kind == "float" else v
        data[field] = v
    if problems:
        raise ScenarioError(problems)
    data["name"] = preset if _matches_preset(data, preset) else "custom"
    try:
        return Scenario(**data)
    except ScenarioError as e:  # echo numbers as typed, in the units the field shows
        raise ScenarioError(
            [(f, typed.get(f.split(".")[0], v), m) for f, v, m in e.errors]
        ) from None


def _matches_preset(data: dict, preset: str) -> bool:
    p = presets.get(preset)
    return p is not None and p.model_dump() == {**data, "name": p.name}


@dataclass
class Form:
    """The input widgets, one error line under each, and the four steps laid out.

    Attributes
    ----------
    inputs
        Field name -> its input widget.
    errors
        Field name -> the HTML line under it that shows what is wrong with its value.
    steps
        One box per step of :data:`FIELDS`: its title, then each input and its error line, the
        inputs of :data:`MORE` in a collapsed section at the end.
    """

    inputs: dict[str, w.ValueWidget]
    errors: dict[str, w.HTML]
    steps: list[w.VBox]
    #: Field name -> the collapsed "More" section holding it (opened to show its error).
    sections: dict[str, w.Accordion] = dataclasses.field(default_factory=dict)

    def reveal(self, name: str) -> None:
        """Open the "More" section of field ``name`` (if it is in one)."""
        if name in self.sections:
            self.sections[name].selected_index = 0

    def load(self, s: Scenario, fields=None) -> None:
        """Show scenario ``s`` in the inputs (``fields`` only, if given; their observers fire:
        silence them around this). With a model config file, the inputs it sets are disabled and
        say so."""
        for field, value in widget_values(s).items():
            if fields is None or field in fields:
                self.inputs[field].value = value
        labels = {row[0]: row[1] for row in FIELDS["model"]}
        for field, label in FROM_CONFIG.items():
            self.inputs[field].disabled = s.hf_config is not None
            self.inputs[field].description = label if s.hf_config else labels[field]

    def values(self) -> dict[str, Any]:
        """What every input holds now."""
        return {field: wd.value for field, wd in self.inputs.items()}


def build_form(
    on_change: Callable[[dict], None],
    html: Callable[..., w.HTML],
    layout: w.Layout,
    more: dict[str, list[w.Widget]] | None = None,
) -> Form:
    """The inputs of :data:`FIELDS`, each observed by ``on_change``; ``more`` adds widgets to a
    step's "More" section (the model step's config-file upload).

    ``html(value, layout=...)`` makes the step titles and error lines (the app's shared HTML
    style); ``layout`` is the one layout every input and error line shares (fewer widget models
    make a faster first view)."""
    style = DescriptionStyle(description_width=LABEL_WIDTH)
    text_style = TextStyle(description_width=LABEL_WIDTH)
    inputs, errors, steps, sections = {}, {}, [], {}
    for step, fields in FIELDS.items():
        rows, hidden = [], []
        for name, label, kind, extra in fields:
            wd = input_widget(label, kind, extra, style, layout, text_style)
            wd.observe(on_change, names="value")
            err = html("", layout=layout)
            err.add_class("wb-error")
            inputs[name], errors[name] = wd, err
            (hidden if name in MORE.get(step, ()) else rows).extend([wd, err])
        box = [html(f"<b>{STEP_TITLES[step]}</b>"), *rows]
        hidden += (more or {}).get(step, [])
        if hidden:
            section = w.Accordion(children=[w.VBox(hidden)], titles=(MORE_TITLES[step],))
            section.selected_index = None
            box.append(section.add_class("wb-more"))
            sections.update(dict.fromkeys(MORE[step], section))
        steps.append(w.VBox(box))
    return Form(inputs, errors, steps, sections)


def preset_in(query: str) -> str | None:
    """The ``preset`` of a URL query such as ``?preset=band-400b-plus``, or None."""
    return (parse_qs(query.lstrip("?")).get("preset") or [None])[0]


def preset_from_query(default: str = DEFAULT_PRESET) -> str:
    """``?preset=name`` deep links when the kernel starts with the request (Voila then passes the
    URL's query in QUERY_STRING): the named preset if it exists, else ``default``."""
    name = preset_in(os.environ.get("QUERY_STRING", ""))
    return name if name in presets else default
