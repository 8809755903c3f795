"""The admin's Add game form: a one-off game, as `manage.py creategame` starts it."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django import forms
from django.conf import settings
from django.utils.html import format_html_join
from django.utils.translation import gettext_lazy as _

from games import extensions, words
from games.engines import all_engines
from games.models import BotLevel, Game
from games.play.newgame import read_levels, read_options, read_player, start_game


class SeedInput(forms.NumberInput):
    """Never echoes a typed seed back to the page: it decides every future shuffle."""

    def format_value(self, value: Any) -> None:
        return None


def options_help() -> str:
    engine_options = [(words.game_title(engine.title), engine.options) for engine in all_engines()]
    lines = format_html_join(
        "",
        "<li>{}: <code>{}</code> (default {}): {}</li>",
        (
            (title, spec.name, _("none") if spec.default is None else repr(spec.default), words.render(spec.label))
            for title, specs in [(_("Every game"), extensions.game_options()), *engine_options]
            for spec in specs
        ),
    )
    intro = _('A JSON object such as {"name": "value"}; {} keeps every default. The options:')
    return f"{intro}<ul>{lines}</ul>"


class NewGameForm(forms.Form):
    """A one-off game, as `manage.py creategame` starts it."""

    engine = forms.ChoiceField(label=_("Game"), choices=words.game_choices)
    title = forms.CharField(label=_("Title"), required=False, max_length=120, help_text=_("Blank: the game's name."))
    players = forms.CharField(
        label=_("Players"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text=_(
            "One email address a line, in seat order; a display name may follow a comma: "
            "<code>ann@example.org, Ann</code>."
        ),
    )
    bots = forms.IntegerField(label=_("Bot seats"), min_value=0, initial=0, help_text=_("Seated after the players."))
    # Typed rather than a drop-down a seat: the bot seats' number is typed on the same page, and one short line
    # is as easy on a phone as on a desk. The same words as `manage.py creategame --bot-level`.
    bot_level = forms.CharField(
        label=_("Bots play"),
        required=False,
        initial=BotLevel.STRONG,
        max_length=200,
        widget=forms.TextInput(attrs={"autocapitalize": "none", "autocorrect": "off", "spellcheck": "false"}),
        help_text=_(
            "One level for every bot seat, or one a bot seat in seat order, separated by commas: "
            "<code>strong, easy, random</code>. Strong bots play to win (a couple of seconds a decision), easy ones "
            "are gentler, random ones play any legal order. Blank: strong."
        ),
    )
    phase_hours = forms.IntegerField(label=_("Phase length (hours)"), min_value=1)
    options = forms.CharField(
        label=_("Options"), required=False, initial="{}", widget=forms.Textarea(attrs={"rows": 3})
    )
    seed = forms.IntegerField(
        label=_("Seed"),
        required=False,
        min_value=0,
        max_value=2**62,
        widget=SeedInput,
        help_text=_("Blank: random. Only to replay a known deal; it is never shown again."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["phase_hours"].initial = settings.PBEM_DEFAULT_DEADLINE_HOURS
        self.fields["options"].help_text = options_help()

    def clean_players(self) -> list[tuple[str, str]]:
        try:
            return [read_player(line) for line in self.cleaned_data["players"].splitlines() if line.strip()]
        except ValueError as error:
            raise forms.ValidationError(str(error)) from None

    def clean_options(self) -> dict[str, Any]:
        try:
            return read_options(self.cleaned_data["options"])
        except ValueError as error:
            raise forms.ValidationError(str(error)) from None

    def clean(self) -> dict[str, Any]:
        """The bot seats' levels, read against the bot seats typed: refused here, on the field, before anything
        is stored."""
        data = super().clean() or {}
        if "bots" in data and "bot_level" in data:
            try:
                data["bot_level"] = read_levels(data["bot_level"].lower() or BotLevel.STRONG, data["bots"])
            except ValueError as error:
                self.add_error("bot_level", str(error))
        return data

    def start(self, started_by: Any) -> Game:
        """The new game, its first emails queued. ValueError (stores nothing) if create_game refuses."""
        data = self.cleaned_data
        return start_game(
            data["engine"],
            data["players"],
            bots=data["bots"],
            bot_level=",".join(data["bot_level"]) or BotLevel.STRONG,
            options=data["options"],
            phase_length=timedelta(hours=data["phase_hours"]),
            seed=data["seed"],
            title=data["title"],
            started_by=started_by,
        )
