"""Order forms generated from an engine's prompt, and the player's settings form.

The form only shapes the input (types, bounds, choices); the engine's `validate` has the last word on
legality, so the same rules apply to a form, a bot and any other client.
"""

from __future__ import annotations

from typing import Any
from zoneinfo import available_timezones

from django import forms

from games.models import Player

EMPTY = ""
TEXT_MAX = 2000  # a "text" field with max 0


def _choices(field: dict[str, Any]) -> list[tuple[str, str]]:
    return [(c["value"], c["label"]) for c in field["choices"]]


def _messages(spec: dict[str, Any]) -> dict[str, str]:
    """Errors in the player's words. Django's defaults echo the submitted value, which for a choice is
    the engine's key (e.g. "port:C"), and speak of "this field" and "valid choices"."""
    between = f"Enter a whole number from {spec['min']} to {spec['max']}."
    return {
        "required": "Please fill this in." if spec["kind"] in ("integer", "text") else "Please choose one.",
        "invalid_choice": "That choice is not available now; pick one of those listed.",
        "invalid": between,
        "min_value": between,
        "max_value": between,
    }


class OrderForm(forms.Form):
    phase = forms.IntegerField(widget=forms.HiddenInput)

    def __init__(self, prompt: dict[str, Any], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.prompt = prompt
        for spec in prompt["fields"]:
            name, kind, label = spec["name"], spec["kind"], spec["label"]
            help_text = spec.get("help", "")
            errors = _messages(spec)
            if kind == "choice":
                self.fields[name] = forms.ChoiceField(
                    label=label,
                    choices=_choices(spec),
                    widget=forms.RadioSelect,
                    help_text=help_text,
                    error_messages=errors,
                )
            elif kind == "integer":
                self.fields[name] = forms.IntegerField(
                    label=label,
                    min_value=spec["min"],
                    max_value=spec["max"],
                    required=not spec.get("optional", False),  # prompts stored before the key existed
                    help_text=help_text,
                    error_messages=errors,
                )
            elif kind == "text":
                self.fields[name] = forms.CharField(
                    label=label,
                    max_length=spec["max"] or TEXT_MAX,
                    required=spec["min"] > 0,
                    widget=forms.Textarea(attrs={"rows": 6, "cols": 60}),
                    help_text=help_text,
                    error_messages=errors,
                )
            elif kind == "multichoice" and not spec.get("repeat"):
                self.fields[name] = forms.MultipleChoiceField(
                    label=label,
                    choices=_choices(spec),
                    widget=forms.CheckboxSelectMultiple,
                    required=spec["min"] > 0,
                    help_text=help_text,
                    error_messages=errors,
                )
            elif kind == "multichoice":
                # Repeats allowed (two cards of one good): one drop-down per pick, blank for none.
                for i in range(spec["max"]):
                    self.fields[f"{name}__{i}"] = forms.ChoiceField(
                        label=f"{label} ({i + 1})",
                        choices=[(EMPTY, "—")] + _choices(spec),
                        required=i < spec["min"],
                        help_text=help_text if i == 0 else "",
                        error_messages=errors,
                    )
            else:
                raise ValueError(f"unknown prompt field kind {kind!r}")

    def order(self) -> dict[str, Any]:
        """The cleaned input as an engine order (call after is_valid)."""
        order: dict[str, Any] = {}
        for spec in self.prompt["fields"]:
            name = spec["name"]
            if spec["kind"] == "multichoice" and spec.get("repeat"):
                picks = (self.cleaned_data.get(f"{name}__{i}") for i in range(spec["max"]))
                order[name] = [p for p in picks if p]
            else:
                order[name] = self.cleaned_data.get(name)
        return order

    @staticmethod
    def initial_from(prompt: dict[str, Any], order: dict[str, Any] | None, phase_number: int) -> dict[str, Any]:
        """Form values showing the seat's stored order, so revising starts from it."""
        initial: dict[str, Any] = {"phase": phase_number}
        for spec in prompt["fields"]:
            value = (order or {}).get(spec["name"])
            if value is None:
                continue
            if spec["kind"] == "multichoice" and spec.get("repeat"):
                for i, pick in enumerate(value):
                    initial[f"{spec['name']}__{i}"] = pick
            else:
                initial[spec["name"]] = value
        return initial


class PlayerSettingsForm(forms.ModelForm):
    time_zone = forms.ChoiceField(choices=sorted((z, z) for z in available_timezones()))

    class Meta:
        model = Player
        fields = ["name", "time_zone", "notify"]
        labels = {"notify": "Email me"}


class SignInForm(forms.Form):
    email = forms.EmailField(label="Your address", help_text="We email a sign-in link to it if it is a player's.")
