from __future__ import annotations

from zoneinfo import available_timezones

from django import forms
from django.utils.translation import gettext_lazy as _

from games.leagues.models import Membership

ZONES = sorted((z, z) for z in available_timezones())


class SignupForm(forms.Form):
    email = forms.EmailField(label=_("Email"))
    name = forms.CharField(label=_("Name"), max_length=80, required=False)
    time_zone = forms.ChoiceField(
        label=_("Time zone"), choices=ZONES, initial="UTC", help_text=_("Deadlines in your emails use it.")
    )
    standby = forms.BooleanField(
        required=False, label=_("Join the standby list"), help_text=_("Substitute for players who drop out.")
    )


class MemberSettingsForm(forms.ModelForm):
    class Meta:
        model = Membership
        fields = ["notify", "digest"]
        labels = {"notify": _("Email me"), "digest": _("Daily digest of league news")}
        widgets = {"notify": forms.RadioSelect}  # as a player's own settings (games/incoming/forms.py): read in full


class VacationForm(forms.Form):
    days = forms.IntegerField(label=_("Days"), min_value=1, max_value=365, help_text=_("Starting today."))
