from __future__ import annotations

from zoneinfo import available_timezones

from django import forms

from games.leagues.models import Membership

ZONES = sorted((z, z) for z in available_timezones())


class SignupForm(forms.Form):
    email = forms.EmailField()
    name = forms.CharField(max_length=80, required=False)
    time_zone = forms.ChoiceField(choices=ZONES, initial="UTC", help_text="Deadlines in your emails use it.")
    standby = forms.BooleanField(
        required=False, label="Join the standby list", help_text="Substitute for players who drop out."
    )


class MemberSettingsForm(forms.ModelForm):
    class Meta:
        model = Membership
        fields = ["notify", "digest"]
        labels = {"notify": "Email me", "digest": "Daily digest of league news"}
        widgets = {"notify": forms.RadioSelect}  # as a player's own settings (games/incoming/forms.py): read in full


class VacationForm(forms.Form):
    days = forms.IntegerField(min_value=1, max_value=365, help_text="Starting today.")
