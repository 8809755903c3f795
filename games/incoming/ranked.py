"""A ranked choice on the order form (a prompt field of kind "multichoice" with `ranked`, as Manila's list of
wanted spaces): one list the player orders, not one identical drop-down per place.

It works without script. The list shows the options chosen so far, best first, each with a button that moves it
up a place and one that takes it off; under it, one drop-down of the options not listed yet and "Add to my list".
Each button posts the form and the page comes back with the list as it now stands (Post/Redirect/Get: the view
keeps the form in the session, games/incoming/drafts.py). The picks travel as `<name>__0`, `<name>__1`, … (a hidden
input for each listed option, the drop-down for the next one), the names a repeatable pick has always posted, so the
order, an email reply's lines and the engine's check are unchanged; an option chosen in the drop-down and not yet
added still counts when the order is sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext

from games.models import posted_id

if TYPE_CHECKING:
    from games.incoming.forms import OrderForm

UP, DROP, ADD = "rank_up", "rank_drop", "rank_add"
BUTTONS = (UP, DROP, ADD)


def _row(name: str, index: int) -> str:
    return f"{name}__{index}"


def picks(data: Any, name: str, most: int) -> list[str]:
    """The options listed in `data` for the field `name`, best first, up to the first blank place."""
    listed = []
    for index in range(most):
        value = data.get(_row(name, index), "")
        if not value:
            break
        listed.append(value)
    return listed


def rearranged(data: QueryDict, prompt: dict[str, Any]) -> QueryDict:
    """The posted form with a list's button done: "rank_up" = "wants:2" swaps the picks at places 1 and 2,
    "rank_drop" = "wants:1" takes the pick at place 1 off (the later ones move up). "rank_add" needs nothing:
    the drop-down already posted its pick at the next place."""
    data = data.copy()
    for spec in prompt["fields"]:
        if not spec.get("ranked"):
            continue
        name, most = spec["name"], spec["max"]
        listed = picks(data, name, most)
        for button in (UP, DROP):
            field, _, place = data.get(button, "").partition(":")
            if field != name or (at := posted_id(place)) is None or at >= len(listed):
                continue
            if button == UP and at > 0:
                listed[at - 1], listed[at] = listed[at], listed[at - 1]
            elif button == DROP:
                del listed[at]
        for index in range(most):
            data[_row(name, index)] = listed[index] if index < len(listed) else ""
    return data


def add_fields(form: OrderForm, spec: dict[str, Any], errors: dict[str, str]) -> None:
    """One drop-down per place, each offering the options not listed above it (the template shows the listed ones
    as a list, and only the next place as a drop-down)."""
    name, most = spec["name"], spec["max"]
    listed = picks(form.data if form.is_bound else form.initial, name, most)
    options = [(choice["value"], choice["label"]) for choice in spec["choices"]]
    for index in range(most):
        above = set(listed[:index])
        form.fields[_row(name, index)] = forms.ChoiceField(
            label=gettext("Add to my list") if index else gettext("First choice"),
            choices=[("", gettext("— choose —"))] + [option for option in options if option[0] not in above],
            required=index < spec["min"],
            error_messages=errors,
        )


@dataclass(frozen=True)
class RankedList:
    """A ranked field as the template draws it: the listed options, the drop-down for the next, and its names."""

    name: str
    label: str
    help: str
    items: list[dict[str, Any]]  # place, value, label, the bound field (for its errors)
    next: Any  # the bound drop-down of the next place, or None when the list is full
    fields: tuple[str, ...]  # every form field it draws


def lists(form: OrderForm) -> list[RankedList]:
    shown = []
    for spec in form.prompt["fields"]:
        if spec["kind"] != "multichoice" or not spec.get("ranked"):
            continue
        name, most = spec["name"], spec["max"]
        labels = {choice["value"]: choice["label"] for choice in spec["choices"]}
        listed = picks(form.data if form.is_bound else form.initial, name, most)
        items = [
            {"place": index, "value": value, "label": labels.get(value, value), "field": form[_row(name, index)]}
            for index, value in enumerate(listed)
        ]
        following = form[_row(name, len(listed))] if len(listed) < most else None
        fields = tuple(_row(name, index) for index in range(most))
        shown.append(RankedList(name, spec["label"], spec.get("help", ""), items, following, fields))
    return shown
