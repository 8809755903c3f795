"""Order forms generated from an engine's prompt, and the player's settings form.

The form only shapes the input (types, bounds, choices); the engine's `validate` has the last word on
legality, so the same rules apply to a form, a bot and any other client.
"""

from __future__ import annotations

from typing import Any
from zoneinfo import available_timezones

from django import forms
from django.conf import settings
from django.utils import translation
from django.utils.html import escape
from django.utils.translation import gettext_lazy

from games.incoming import ranked
from games.incoming.steps_form import DROP_DOWN_SHOWS, EMPTY, StepsForm, StepsSource, field_messages, match_step
from games.models import Player
from games.outgoing.order_text import SYNTAX, read_steps, split_steps, written_steps

__all__ = [
    "DROP_DOWN_SHOWS",
    "AddressForm",
    "OrderForm",
    "PlayerSettingsForm",
    "SignInForm",
    "StepsSource",
    "match_step",
]
TEXT_MAX = 2000  # a "text" field with max 0


def _choices(field: dict[str, Any]) -> list[tuple[str, str]]:
    return [(c["value"], c["label"]) for c in field["choices"]]


class OrderForm(StepsForm):
    """The order form. A "steps" field is a builder (a drop-down per step, each listing what may follow
    the steps before it; `source` asks the engine) unless `typed`, where it is the text of the syntax.
    `remove` names a steps field whose last step goes (the builder's "Remove the last step")."""

    phase = forms.IntegerField(widget=forms.HiddenInput)
    how = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(
        self,
        prompt: dict[str, Any],
        data: Any = None,
        *,
        initial: dict[str, Any] | None = None,
        source: StepsSource | None = None,
        typed: bool = False,
        remove: str = "",
    ) -> None:
        self.prompt = prompt
        self.built = {}
        self.typed = typed or source is None or not any(spec["kind"] == "steps" for spec in prompt["fields"])
        if data is not None and not self.typed:
            data = data.copy()
        # Shown beside the builder, the typed form needs ids of its own. Its own copy of `initial`: the page
        # builds both forms from one dict, and this constructor writes "how" (and the typed text) into it.
        super().__init__(data, initial=dict(initial or {}), auto_id="id_typed_%s" if typed else "id_%s")
        self.initial["how"] = "typed" if self.typed else "builder"
        for spec in prompt["fields"]:
            name, kind, label = spec["name"], spec["kind"], spec["label"]
            # Django's field templates write help_text as HTML (|safe): a game's help is plain text, whose
            # placeholders ("move <ship> <city>") a browser would take for tags and drop.
            help_text = escape(spec.get("help") or "")
            errors = field_messages(spec)
            if kind == "steps" and not self.typed:
                assert source is not None
                self._build_steps(spec, source, remove == name)
            elif kind == "choice":
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
            elif kind in ("text", "steps"):
                value = self.initial.get(name)
                if isinstance(value, list):
                    self.initial[name] = "; ".join(value)
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
            elif kind == "multichoice" and spec.get("ranked"):
                ranked.add_fields(self, spec, errors)  # one list the player orders (games/incoming/ranked.py)
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

    def other_fields(self) -> list[Any]:
        """The visible fields that are not a builder's rows nor a ranked list's picks."""
        rows = {row for built in self.built.values() for pair in built.rows for row in pair if row}
        rows |= {name for listed in self.ranked_lists() for name in listed.fields}
        return [field for field in self.visible_fields() if field.name not in rows]

    def ranked_lists(self) -> list[ranked.RankedList]:
        return ranked.lists(self)

    def order(self) -> dict[str, Any]:
        """The cleaned input as an engine order (call after is_valid)."""
        order: dict[str, Any] = {}
        for spec in self.prompt["fields"]:
            name = spec["name"]
            if name in self.built:
                order[name] = "; ".join(self.built[name].steps)
            elif spec["kind"] == "multichoice" and spec.get("repeat"):
                picks = (self.cleaned_data.get(f"{name}__{i}") for i in range(spec["max"]))
                order[name] = [p for p in picks if p]
            elif spec["kind"] in ("text", "steps") and isinstance(value := self.cleaned_data.get(name), str):
                order[name] = read_steps(spec, value)  # typed in the player's words or English: the engine's English
            else:
                order[name] = self.cleaned_data.get(name)
        return order

    @staticmethod
    def initial_from(prompt: dict[str, Any], order: dict[str, Any] | None, phase_number: int) -> dict[str, Any]:
        """Form values showing the seat's stored order, so revising starts from it (a steps field's text, in the
        player's words as the typed box shows it, is turned into the builder's steps by the form itself)."""
        initial: dict[str, Any] = {"phase": phase_number}
        for spec in prompt["fields"]:
            value = (order or {}).get(spec["name"])
            if value is None:
                continue
            if spec["kind"] == "multichoice" and spec.get("repeat"):
                for i, pick in enumerate(value):
                    initial[f"{spec['name']}__{i}"] = pick
            elif spec["kind"] in ("text", "steps") and isinstance(value, str):
                initial[spec["name"]] = SYNTAX.steps_joined().join(written_steps(spec, split_steps(value)))
            else:
                initial[spec["name"]] = value
        return initial


class PlayerSettingsForm(forms.ModelForm):
    time_zone = forms.ChoiceField(
        label=gettext_lazy("Time zone"), choices=sorted((z, z) for z in available_timezones())
    )
    # Each language by its own name (settings.LANGUAGES), so a reader finds theirs whatever the page speaks now.
    language = forms.ChoiceField(
        label=gettext_lazy("Language"),
        choices=settings.LANGUAGES,
        widget=forms.RadioSelect,
        help_text=gettext_lazy("Of these pages and of every email we send you."),
        required=False,  # a form sent without it (a client older than the field) keeps the language as it was
    )

    class Meta:
        model = Player
        fields = ["name", "language", "time_zone", "notify"]
        labels = {"name": gettext_lazy("Name"), "notify": gettext_lazy("Email me")}
        # Buttons, not a drop-down: a phone cuts a drop-down's chosen text to its width, and these are long.
        widgets = {"notify": forms.RadioSelect}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Not chosen yet: the language these pages speak now is the one to keep.
        if not self.instance.language:
            self.initial["language"] = translation.get_language()

    def clean_language(self) -> str:
        return str(self.cleaned_data.get("language") or self.instance.language)


class AddressForm(forms.Form):
    address = forms.EmailField(
        label=gettext_lazy("Your address"),
        help_text=gettext_lazy(
            "Keep it to confirm it is right, or type a new one: we email a link to it, and the new address is used "
            "once you open that link."
        ),
    )


class SignInForm(forms.Form):
    email = forms.EmailField(
        label=gettext_lazy("Your address"),
        help_text=gettext_lazy("We email it a link: to sign in, or, for a new address, to make its account."),
    )


class SignUpForm(forms.Form):
    """The page a sign-up link opens: the account is made when its button is pressed (mail scanners open links)."""

    name = forms.CharField(
        label=gettext_lazy("Your name (optional)"),
        max_length=80,
        required=False,
        help_text=gettext_lazy("How the other players see you. Without one you are “Player” and a number."),
    )
