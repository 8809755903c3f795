"""The game page's message form (the text, and the seats to write to: none ticked, the whole table) and the
player's choice of how messages reach them by email (on My games)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy

from games.extensions import AccountSection
from games.models import Player
from games.talk.models import TalkSettings
from games.talk.services import MAX_LENGTH


class MessageForm(forms.Form):
    text = forms.CharField(
        label=gettext_lazy("Message"),
        max_length=MAX_LENGTH,
        strip=False,  # the service trims and checks it, with its own words
        widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={
            "required": gettext_lazy("A message needs some text."),
            "max_length": format_lazy(gettext_lazy("A message can be at most {} characters."), MAX_LENGTH),
        },
    )
    to = forms.TypedMultipleChoiceField(
        label=gettext_lazy("To"),
        coerce=int,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=gettext_lazy("Tick no one to write to the whole table."),
        error_messages={
            "invalid_choice": gettext_lazy("That seat is not one you can write to; pick from those listed.")
        },
    )

    def __init__(self, *args: Any, recipients: list[tuple[int, str]], **kwargs: Any) -> None:
        """`recipients`: (seat number, how the table names it) for each seat the writer may write to
        privately; empty where only the table may be written to (the field is then left out)."""
        super().__init__(*args, **kwargs)
        to = self.fields["to"]
        if recipients and isinstance(to, forms.TypedMultipleChoiceField):
            to.choices = recipients
        else:
            del self.fields["to"]

    @property
    def private(self) -> bool:
        return "to" in self.fields


class DeliveryForm(forms.ModelForm):
    class Meta:
        model = TalkSettings
        fields = ["delivery"]
        labels = {"delivery": gettext_lazy("Email me table talk")}
        widgets = {"delivery": forms.RadioSelect}


def delivery_form(player_id: int, data: Any = None) -> DeliveryForm:
    """The signed-in player's choice of how table talk reaches them by email (My games)."""
    settings = TalkSettings.objects.filter(pk=player_id).first() or TalkSettings(player_id=player_id)
    return DeliveryForm(data, instance=settings)


def account_section(request: Any, player: Player) -> AccountSection:
    """The choice on the player's own page (registered with games/extensions.py, `account_section`)."""
    return AccountSection("games/_talk_delivery.html", {"talk_form": delivery_form(player.pk)})
