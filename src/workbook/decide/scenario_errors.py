"""The messages of an invalid scenario: each pydantic error as the field, the value as given
and what is allowed, in the reader's words (:class:`workbook.decide.scenario.ScenarioError`)."""

from __future__ import annotations

from pydantic import ValidationError

from ..text import power_text
from .allowed import NAME_MAX_CHARS

#: pydantic error types -> the message a reader sees.
_PLAIN_MESSAGES = {
    "finite_number": "is not a finite number; allowed: a finite number in the field's range",
    "too_short": "is empty; allowed: at least one (or leave the field out)",
    "string_too_long": f"is too long; allowed: at most {NAME_MAX_CHARS} characters",
    "int_from_float": "is not a whole number; allowed: a whole number",
    "int_parsing_size": "is far too large; allowed: a whole number in the field's range",
}
#: pydantic error types of a value of the wrong kind -> what it is not, what the field takes
#: (a number's bounds follow: :func:`_field_range`).
_WRONG_KIND = {
    "float_parsing": ("is not a number", "a number"),
    "float_type": ("is not a number", "a number"),
    "int_parsing": ("is not a whole number", "a whole number"),
    "int_type": ("is not a whole number", "a whole number"),
    "string_type": ("is not text", "text"),
    "bool_parsing": ("is not true or false", "true or false"),
    "bool_type": ("is not true or false", "true or false"),
    "list_type": ("is not a list", "a list"),
}


def _bound_text(x: float) -> str:
    """A bound as a reader writes it: ``3,650``, ``0.5``, ``1 × 10¹¹``."""
    if abs(x) >= 1e7:
        return power_text(x)
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:g}"


def _field_range(info) -> str:
    """`` greater than 0 and at most 3,650``: a numeric field's bounds as its constraints state
    them (``info``: its pydantic FieldInfo; '' for a field without bounds or none)."""
    words = {"gt": "greater than", "ge": "at least", "lt": "less than", "le": "at most"}
    said = [
        f"{words[k]} {_bound_text(getattr(c, k))}"
        for c in (info.metadata if info else [])
        for k in words
        if getattr(c, k, None) is not None
    ]
    return (" " + " and ".join(said)) if said else ""


def field_errors(
    e: ValidationError, fields: dict, model_fields: dict
) -> list[tuple[str, object, str]]:
    """(field, value as given, message) for each error of ``e``: the field named as the reader
    wrote it, a missing one without a value, a value of the wrong kind with what the field takes
    and its bounds (``model_fields``: the model's, for the bounds and the field names)."""
    errors = []
    for err in e.errors():
        loc = [str(x) for x in err.get("loc", ())]
        field = loc[0] if loc else "<scenario>"
        # A whole field's value as given; an element's (``acquisition_modes.0``) the element.
        if err.get("type") == "missing":
            value = None  # nothing was given: the input is the whole mapping, not this field's
        elif len(loc) == 1:
            value = fields.get(field, err.get("input"))
        else:
            value = err.get("input") if loc else None
        msg = err.get("msg", "invalid")
        if err.get("type") == "extra_forbidden":
            msg = f"is not a scenario field; allowed: {', '.join(model_fields)}"
        elif err.get("type") == "missing":
            msg = "is required"
        elif err.get("type") in _WRONG_KIND:
            what, allowed = _WRONG_KIND[err["type"]]
            bounds = _field_range(model_fields.get(field)) if len(loc) == 1 else ""
            msg = f"{what}; allowed: {allowed}{bounds}"
        elif err.get("type") in _PLAIN_MESSAGES:
            bounds = _field_range(model_fields.get(field)) if len(loc) == 1 else ""
            msg = _PLAIN_MESSAGES[err["type"]]
            msg = msg.replace(" in the field's range", bounds) if bounds else msg
        elif err.get("type") == "literal_error":
            msg = "is not allowed; " + msg.replace("Input should be", "allowed:")
        elif msg.startswith("Value error, "):
            msg = msg[len("Value error, ") :]
            if not loc:
                errors.append(("<scenario>", None, msg))
                continue
        else:
            msg = msg.replace("Input should be", "allowed: a value")
        errors.append((".".join(loc) if loc else field, value, msg))
    return errors
