"""The game page's message form (the text, and the seats to write to: none ticked, the whole table) and the
player's choice of how messages reach them by email (on My games)."""

from __future__ import annotations

from typing import Any

from django import forms

from games.extensions import AccountSection
from games.models import Player
from games.talk.models import TalkSettings
from games.talk.services import MAX_LENGTH


class MessageForm(forms.Form):
    text = forms.CharField(
        label="Message",
        max_length=MAX_LENGTH,
        strip=False,  # the service trims and checks it, with its own words
        widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={
            "required": "A message needs some text.",
            "max_length": f"A message can be at most {MAX_LENGTH} characters.",
        },
    )
    to = forms.TypedMultipleChoiceField(
        label="To",
        coerce=int,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Tick no one to write to the whole table.",
        error_messages={"invalid_choice": "That seat is not one you can write to; pick from those listed."},
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
        labels = {"delivery": "Email me table talk"}
        widgets = {"delivery": forms.RadioSelect}


def delivery_form(player_id: int, data: Any = None) -> DeliveryForm:
    """The signed-in player's choice of how table talk reaches them by email (My games)."""
    settings = TalkSettings.objects.filter(pk=player_id).first() or TalkSettings(player_id=player_id)
    return DeliveryForm(data, instance=settings)


def account_section(request: Any, player: Player) -> AccountSection:
    """The choice on the player's own page (registered with games/extensions.py, `account_section`)."""
    return AccountSection("games/_talk_delivery.html", {"talk_form": delivery_form(player.pk)})
