"""The form a player adds a webhook with (My games), and the URL check every form of a hook shares."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.hooks import guard
from games.hooks.models import Hook, Notice

MAX_HOOKS = 5  # a player's, and a game's or league's: enough for a few channels, not for flooding one


def checked_url(url: str) -> str:
    """The URL, if a hook may post to it (games/hooks/guard.py), else a ValidationError saying why."""
    try:
        guard.check(url)
    except guard.Refused as refusal:
        raise forms.ValidationError(str(refusal)) from None
    return url.strip()


class HookForm(forms.ModelForm):
    notices = forms.MultipleChoiceField(
        choices=Notice.choices,
        widget=forms.CheckboxSelectMultiple,
        label=gettext_lazy("Send it"),
        error_messages={"required": gettext_lazy("Choose at least one kind of notice to send.")},
    )

    class Meta:
        model = Hook
        fields = ["name", "kind", "url", "notices"]
        labels = {
            "name": gettext_lazy("Name (for you)"),
            "kind": gettext_lazy("Where to"),
            "url": gettext_lazy("Webhook address (https://...)"),
        }
        widgets = {"kind": forms.RadioSelect, "url": forms.URLInput(attrs={"autocomplete": "off"})}
        help_texts = {
            "url": gettext_lazy(
                "Discord: Server settings, Integrations, Webhooks. Slack: an incoming webhook. ntfy: "
                "https://ntfy.sh/your-topic. It is never shown in full again once saved."
            )
        }

    def __init__(self, *args: Any, count: int = 0, **kwargs: Any) -> None:
        # Its own prefix: My games shows it beside the settings form, which has a "name" field too.
        kwargs.setdefault("prefix", "hook")
        super().__init__(*args, **kwargs)
        self.count = count
        kind = self.fields["kind"]
        assert isinstance(kind, forms.ChoiceField)
        kind.choices = Hook.Kind.choices  # a choice is required: no blank radio button
        self.initial.setdefault("kind", Hook.Kind.DISCORD)
        self.initial.setdefault("notices", [Notice.TURN, Notice.REMINDER])

    def clean_url(self) -> str:
        return checked_url(self.cleaned_data["url"])

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.count >= MAX_HOOKS:
            raise forms.ValidationError(
                _("You have %(MAX_HOOKS)s webhooks, the most one player can have.") % {"MAX_HOOKS": MAX_HOOKS}
            )
        return cleaned
