"""The form that proposes a table: the game's own options (from its OptionSpecs, checked by the engine's
setup in games/lobby/tables.py, as the admin's Add game form does), deadlines, table talk, seats. Long
choices are buttons, not drop-downs, which a phone cuts to their width.

An option with one value per seat (Port of Piraeus' country of each seat) is a short drop-down per seat of the
table, the seats as the table numbers them: seat 1 the creator's, then the invited addresses' in order, the
bots', the open ones. Each value stays with its table seat's player when the game deals the playing order."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import Any

from django import forms
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy
from django.utils.translation import gettext_lazy as _

from games import extensions, words
from games.engines import get_engine
from games.engines.base import OptionSpec
from games.lobby.facts import SHORT_LABELS, option_label
from games.lobby.invitations import NAME_LENGTH
from games.lobby.tables import TableSpec
from games.models import BotLevel
from games.outgoing import messages
from games.play import newgame

LOCAL_FORMAT = "%Y-%m-%dT%H:%M"
SECONDS_FORMAT = LOCAL_FORMAT + ":%S"
OPTION_PREFIX = "option_"
SEAT_PREFIX = "seat_option_"  # seat_option_<name>_<seat from 1>: a per-seat option's value for one seat
MOST_INVITATIONS = 10  # per table at creation (more can follow from the table's page, within the day's cap)


def option_field(spec: OptionSpec) -> forms.Field:
    label = option_label(spec)
    help_text = words.render(spec.label) if spec.name not in SHORT_LABELS else ""
    if spec.kind == "integer":
        return forms.IntegerField(
            label=label, required=False, min_value=spec.min, max_value=spec.max, help_text=help_text
        )
    choices = [(choice.value, words.render(choice.label)) for choice in spec.choices]
    return forms.ChoiceField(
        label=label, choices=choices, initial=spec.default, widget=forms.RadioSelect, help_text=help_text
    )


def seat_field_name(spec: OptionSpec, number: int) -> str:
    return f"{SEAT_PREFIX}{spec.name}_{number}"


def seat_field(spec: OptionSpec, number: int) -> forms.Field:
    """One seat's value of a per-seat option: blank, the engine deals it."""
    item = words.render(spec.item) if spec.item else gettext("choice")
    return forms.ChoiceField(
        label=(
            gettext("%(item)s of seat %(number)s (yours)") if number == 1 else gettext("%(item)s of seat %(number)s")
        )
        % {"item": item.capitalize(), "number": number},
        choices=[
            ("", gettext("Dealt at random")),
            *((choice.value, words.render(choice.label)) for choice in spec.choices),
        ],
        required=False,
        help_text=(
            gettext(
                "Blank: dealt at random. Seat 1 is yours; the next go to the addresses you invite, in order, then to "
                "the bots, then to whoever takes an open seat. Each %(item)s goes with its seat's player."
            )
            % {"item": item}
            if number == 1
            else ""
        ),
    )


class TableForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("Your name, as the other players see it"),
        max_length=NAME_LENGTH,
        help_text=gettext_lazy("Never your address."),
    )
    title = forms.CharField(label=gettext_lazy("Table name (optional)"), required=False, max_length=120)
    size = forms.IntegerField(label=gettext_lazy("Seats at the table, yours included"))
    invite = forms.CharField(
        label=gettext_lazy("Invite by email (optional)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy("One address a line. Each gets an invitation with a link to accept or decline."),
    )
    bots = forms.IntegerField(
        label=gettext_lazy("Bot seats"), min_value=0, initial=0, help_text=gettext_lazy("Played by the server.")
    )
    bots_fill = forms.BooleanField(
        label=gettext_lazy("At the start time, seats nobody took become bots"), required=False, initial=False
    )
    bot_level = forms.ChoiceField(
        label=_("The bots play"),
        choices=BotLevel.choices,
        initial=BotLevel.STRONG,
        required=False,
        help_text=_("Strong bots play to win; easy ones are gentler, for a first game. Blank: strong."),
    )
    # One short line rather than a drop-down a seat: the bot seats' number is chosen on the same page.
    bot_levels = forms.CharField(
        label=_("Or a level for each bot seat"),
        required=False,
        max_length=200,
        widget=forms.TextInput(attrs={"autocapitalize": "none", "autocorrect": "off", "spellcheck": "false"}),
        help_text=_(
            "In seat order, separated by commas: <code>strong, easy, random</code>. Blank: the level above for every "
            "bot; seats bots fill at the start time play at that level too."
        ),
    )
    private = forms.BooleanField(
        label=gettext_lazy("Private: only people with the table's link can see and join it"),
        required=False,
        help_text=gettext_lazy("Otherwise the table is listed on Open tables, where any signed-in player may join."),
    )
    deadline = forms.ChoiceField(
        label=gettext_lazy("Deadlines"),
        choices=[
            ("length", gettext_lazy("Each turn lasts a number of hours")),
            ("daily", gettext_lazy("Each turn ends at a time of day")),
        ],
        initial="length",
        widget=forms.RadioSelect,
    )
    phase_hours = forms.IntegerField(
        label=gettext_lazy("Hours per turn (with a time of day: at least this long)"),
        min_value=1,
        max_value=336,
        initial=48,
    )
    daily_at = forms.TimeField(
        label=gettext_lazy("Time of day (your time)"),
        required=False,
        initial=time(20, 0),
        widget=forms.TimeInput(attrs={"type": "time"}),
    )
    start_by = forms.CharField(
        label=gettext_lazy("Start time (your time)"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
        help_text=gettext_lazy(
            "The game starts as soon as every seat is taken; at this time it starts with whoever accepted, if "
            "that is enough to play, or is cancelled."
        ),
    )

    def __init__(self, engine_slug: str, zone_name: str, *args: Any, seats: int | None = None, **kwargs: Any) -> None:
        """`seats`: the table's size, chosen first where the game has a value per seat, so there is one drop-down
        per seat of the table (not one per seat the game could have)."""
        super().__init__(*args, **kwargs)
        self.engine = get_engine(engine_slug)
        self.zone_name = zone_name
        size = self.fields["size"]
        assert isinstance(size, forms.IntegerField)
        size.widget.attrs.update(min=self.engine.min_players, max=self.engine.max_players)  # checked in clean_size
        size.initial = self.engine.min_players
        size.help_text = gettext("%(game)s: %(least)s to %(most)s.") % {
            "game": words.game_title(self.engine.title),
            "least": self.engine.min_players,
            "most": self.engine.max_players,
        }
        soon = (timezone.now() + timedelta(days=3)).astimezone(messages.zone_of(zone_name))
        self.fields["start_by"].initial = soon.replace(minute=0, second=0, microsecond=0).strftime(LOCAL_FORMAT)
        self.seat_specs = [spec for spec in self.engine.options if spec.kind == "seat-list"]
        for spec in (*extensions.game_options(), *self.engine.options):
            if spec.kind != "seat-list":
                self.fields[OPTION_PREFIX + spec.name] = option_field(spec)
        if self.seat_specs and seats is not None:
            size.initial, size.widget = seats, forms.HiddenInput()
        for spec in self.seat_specs:
            for number in range(1, (seats or self.engine.max_players) + 1):
                self.fields[seat_field_name(spec, number)] = seat_field(spec, number)

    def option_fields(self) -> list[Any]:
        return [self[name] for name in self.fields if name.startswith((OPTION_PREFIX, SEAT_PREFIX))]

    def clean_size(self) -> int:
        size = int(self.cleaned_data["size"])
        if not self.engine.min_players <= size <= self.engine.max_players:
            raise forms.ValidationError(
                _("%(engine_title)s takes %(min_players)s to %(max_players)s players.")
                % {
                    "engine_title": words.game_title(self.engine.title),
                    "min_players": self.engine.min_players,
                    "max_players": self.engine.max_players,
                }
            )
        return size

    def clean_invite(self) -> list[str]:
        addresses = [line.strip() for line in self.cleaned_data["invite"].splitlines() if line.strip()]
        if len(addresses) > MOST_INVITATIONS:
            raise forms.ValidationError(
                _("Invite at most %(MOST_INVITATIONS)s addresses at once.") % {"MOST_INVITATIONS": MOST_INVITATIONS}
            )
        field = forms.EmailField()
        for address in addresses:
            try:
                field.clean(address)
            except forms.ValidationError:
                raise forms.ValidationError(
                    _("%(address)s is not an email address.") % {"address": repr(address[:60])}
                ) from None
        return [address.lower() for address in addresses]

    def clean_start_by(self) -> datetime:
        text = self.cleaned_data["start_by"]
        try:  # a browser's datetime-local posts minutes, or seconds too; the API sends seconds (SECONDS_FORMAT)
            naive = datetime.strptime(text, SECONDS_FORMAT if text.count(":") == 2 else LOCAL_FORMAT)  # noqa: DTZ007
        except ValueError:
            raise forms.ValidationError(_("Give the start time as a date and a time of day.")) from None
        return naive.replace(tzinfo=messages.zone_of(self.zone_name))

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("bot_levels") and "bots" in data:
            try:
                data["bot_levels"] = newgame.read_levels(data["bot_levels"].lower(), data["bots"])
            except ValueError as error:
                self.add_error("bot_levels", str(error))
        if data.get("deadline") == "daily" and data.get("daily_at") is None:
            self.add_error("daily_at", _("Give the time of day each turn ends."))
        size = int(data.get("size") or self.engine.max_players)  # a size refused has its own error
        for spec in self.seat_specs:
            for number in range(size + 1, self.engine.max_players + 1):
                if self.data.get(seat_field_name(spec, number)):  # a seat the table has not: posted by hand
                    field = seat_field_name(spec, number) if seat_field_name(spec, number) in self.fields else None
                    self.add_error(
                        field,
                        _("The table has %(size)s seats: seat %(number)s is not one of them.")
                        % {"size": size, "number": number},
                    )
        return data

    def seat_options(self, size: int) -> dict[str, list[str | None]]:
        """Each per-seat option chosen for at least one seat: a value (or None) for each seat of the table."""
        options = {}
        for spec in self.seat_specs:
            chosen = [self.cleaned_data.get(seat_field_name(spec, number)) or None for number in range(1, size + 1)]
            if any(chosen):
                options[spec.name] = chosen
        return options

    def spec(self) -> TableSpec:
        data = self.cleaned_data
        options = {}
        for name in self.fields:
            value = data.get(name)
            if name.startswith(OPTION_PREFIX) and value not in (None, ""):
                options[name.removeprefix(OPTION_PREFIX)] = value
        options.update(self.seat_options(data["size"]))
        daily = data["deadline"] == "daily"
        return TableSpec(
            engine=self.engine.slug,
            size=data["size"],
            start_by=data["start_by"],
            phase_length=timedelta(hours=data["phase_hours"]),
            options=options,
            title=data["title"].strip(),
            bots=data["bots"],
            bots_fill=data["bots_fill"],
            bot_level=data.get("bot_level") or BotLevel.STRONG,
            bot_levels=tuple(data.get("bot_levels") or ()),
            private=data["private"],
            daily_at=data["daily_at"] if daily else None,
            time_zone=self.zone_name,
        )


class InviteForm(forms.Form):
    address = forms.EmailField(label=gettext_lazy("Invite an address to an open seat"))


class AcceptForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("Your name, as the other players see it"),
        max_length=NAME_LENGTH,
        required=False,
        help_text=gettext_lazy("Never your address. Blank: the name you gave before, if any."),
    )


class DeclineForm(forms.Form):
    everyone = forms.BooleanField(
        label=gettext_lazy("Also refuse invitations from anyone else on this server"), required=False
    )
