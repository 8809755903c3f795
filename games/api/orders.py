"""An order as JSON, read the way the page reads its form: the JSON values become the order form's fields
(games/incoming/forms.py OrderForm, the typed form), so a value of the wrong shape is refused with the page's own
message, and what reaches the engine is exactly what the page would hand it."""

from __future__ import annotations

from typing import Any

from django.http import QueryDict
from django.utils.translation import gettext as _

from games.api.problems import Problem
from games.incoming.forms import OrderForm


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):  # JSON true is not the choice "True"
        return "true" if value else "false"
    return str(value) if isinstance(value, str | int | float) else repr(value)


def form_data(prompt: dict[str, Any], phase: int, order: dict[str, Any]) -> QueryDict:
    """The order form's posted data for `order`; Problem 422 for a field the prompt does not have, or a list
    where one value goes (and the other way round)."""
    known = {spec["name"]: spec for spec in prompt["fields"]}
    unknown = sorted(set(order) - set(known))
    if unknown:
        raise Problem(
            422,
            "order-shape",
            _("This order has no field %(unknown)s; it takes: %(fields)s.")
            % {"unknown": repr(unknown[0]), "fields": ", ".join(known) or _("no field")},
        )
    data = QueryDict(mutable=True)
    data["phase"] = str(phase)
    data["how"] = "typed"
    for name, spec in known.items():
        value = order.get(name)
        listed = spec["kind"] == "multichoice"
        if value is not None and listed != isinstance(value, list):
            wanted = _("%(field)s: give a list of values.") if listed else _("%(field)s: give one value, not a list.")
            raise Problem(
                422,
                "order-shape",
                wanted % {"field": spec["label"]},
                errors=[{"field": name}],
            )
        if not listed:
            data[name] = _text(value)
        elif spec.get("repeat") or spec.get("ranked"):
            if len(value or []) > spec["max"]:  # the form reads only `max` places: more would be dropped unseen
                raise Problem(
                    422,
                    "order-shape",
                    _("%(spec)s: choose at most %(spec2)s.") % {"spec": spec["label"], "spec2": spec["max"]},
                    errors=[{"field": name}],
                )
            for index, pick in enumerate(value or []):
                data[f"{name}__{index}"] = _text(pick)
        else:
            data.setlist(name, [_text(pick) for pick in value or []])
    return data


def read(prompt: dict[str, Any], phase: int, order: dict[str, Any]) -> dict[str, Any]:
    """The engine order the page's form makes of `order`; Problem 422 with the form's messages if it refuses."""
    form = OrderForm(prompt, form_data(prompt, phase, order), typed=True)
    if not form.is_valid():
        said = [(name, str(message)) for name, messages in form.errors.items() for message in messages]
        errors = [{"field": name if name != "__all__" else None, "message": message} for name, message in said]
        raise Problem(422, "order-refused", said[0][1], errors=errors)
    return form.order()
