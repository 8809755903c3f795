"""A table proposed through the API is proposed by the page's own form: the JSON body is turned into what the
page's form posts (games/lobby/forms.py's TableForm), so the same fields are checked the same way, and the form's
TableSpec goes to the same service (games.lobby.tables.create_table) with its caps and refusals. Nothing here
decides whether a table may be proposed; it only translates the body and the form's errors."""

from __future__ import annotations

from datetime import datetime, time
from typing import Any, Literal

from django.utils.translation import gettext as _
from ninja import Field, Schema

from games import extensions, words
from games.api.problems import Problem
from games.engines import all_engines, get_engine
from games.engines.base import OptionSpec
from games.lobby.facts import option_label
from games.lobby.forms import OPTION_PREFIX, SEAT_PREFIX, SECONDS_FORMAT, TableForm, seat_field_name
from games.models import BotLevel, Player
from games.outgoing import messages


class TableIn(Schema):
    game: str = Field(description="The game's slug, as GET /lobby/games lists them.")
    size: int = Field(description="Seats at the table, yours included.")
    start_by: datetime = Field(
        description="The ready check: the game starts as soon as every seat is taken, or at this time with whoever "
        "accepted if that is enough to play; otherwise the table is cancelled. From 10 minutes to 30 days ahead. "
        "Without an offset it is read in your time zone (My games' settings), as the page reads it."
    )
    name: str = Field("", description="Your name as the other players see it; blank: the one you have.")
    title: str = Field("", description="The table's name; blank: the game's.")
    invite: list[str] = Field(default_factory=list, description="Addresses to invite by email, at most 10.")
    bots: int = Field(0, description="Seats played by the server from the start.")
    bots_fill: bool = Field(False, description="At the start time, seats nobody took become bots.")
    bot_level: Literal["random", "easy", "strong"] = Field(
        "strong", description="How the table's bots play: strong plays to win, easy is gentler, random any legal order."
    )
    bot_levels: list[str] = Field(
        default_factory=list,
        description="Or a level for each bot seat, in seat order (strong, easy or random each): as many as bots, or "
        "one for them all; empty: bot_level for every bot. Seats bots_fill makes bots play at bot_level.",
    )
    private: bool = Field(False, description="Reached by its link (its key) only: not listed on the open tables.")
    phase_hours: int = Field(48, description="Hours per turn; with daily_at, the least a turn lasts.")
    daily_at: time | None = Field(None, description="Each turn ends at this time of day in your time zone instead.")
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="The game's options by name (GET /lobby/games); missing: the default. A seat-list option takes "
        "a list, one value (or null: dealt at random) per seat of the table: seat 1 yours, then the invited "
        "addresses' in order, the bots', the open seats'.",
    )


class ChoiceOut(Schema):
    value: str
    label: str


class OptionOut(Schema):
    name: str
    label: str
    kind: str = Field(description="integer, choice, or seat-list (one of the choices, or null, for each seat)")
    default: Any = None
    choices: list[ChoiceOut]
    min: int
    max: int
    item: str = Field(description="For a seat-list: what one entry is (a country).")


class GameOptionsOut(Schema):
    slug: str
    title: str
    min_players: int
    max_players: int
    options: list[OptionOut]


def games_offered() -> list[dict[str, Any]]:
    """Every game a player may propose a table of, with the options the page's form offers for it."""
    rows = []
    for engine in all_engines():
        form = TableForm(engine.slug, "UTC")
        offered = [
            spec
            for spec in (*extensions.game_options(), *engine.options)
            if OPTION_PREFIX + spec.name in form.fields or spec in form.seat_specs
        ]
        options = [
            {
                "name": spec.name,
                "label": option_label(spec),
                "kind": spec.kind,
                "default": spec.default,
                "choices": [{"value": c.value, "label": words.render(c.label)} for c in spec.choices],
                "min": spec.min,
                "max": spec.max,
                "item": spec.item,
            }
            for spec in offered
        ]
        rows.append(
            {
                "slug": engine.slug,
                "title": words.game_title(engine.title),
                "min_players": engine.min_players,
                "max_players": engine.max_players,
                "options": options,
            }
        )
    return rows


def _refused(detail: str, field: str = "") -> Problem:
    return Problem(422, "lobby-refused", detail, errors=[{"field": field, "message": detail}])


def _option_value(name: str, value: Any) -> str:
    """An option's value as the form posts it: JSON true/false stand for "yes"/"no", numbers for their digits."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None or isinstance(value, int | str):
        return "" if value is None else str(value)
    raise _refused(_("The %(name)s option takes a single value.") % {"name": name}, f"options.{name}")


def _seat_values(spec: OptionSpec, value: Any, most: int) -> dict[str, str]:
    """A per-seat option's list as the page's form posts it: one drop-down per seat."""
    if value is None:
        return {}
    if not isinstance(value, list) or len(value) > most or not all(v is None or isinstance(v, str) for v in value):
        raise _refused(
            _(
                "The %(name)s option takes a list of at most %(most)s entries: a %(item)s or null for each seat of "
                "the table, seat 1 yours."
            )
            % {"name": spec.name, "most": most, "item": words.render(spec.item) if spec.item else _("value")},
            f"options.{spec.name}",
        )
    return {seat_field_name(spec, number): entry or "" for number, entry in enumerate(value, 1)}


def _local_start(start_by: datetime, player: Player) -> str:
    """The start time as the page's form takes it: the wall-clock time in the player's zone, to the second."""
    if start_by.tzinfo is None:
        return start_by.strftime(SECONDS_FORMAT)
    try:
        return start_by.astimezone(messages.zone_of(player.time_zone)).strftime(SECONDS_FORMAT)
    except (OverflowError, ValueError):
        raise _refused(_("The start time must be between 10 minutes and 30 days from now."), "start_by") from None


def api_field(name: str) -> str:
    if name.startswith(OPTION_PREFIX):
        return "options." + name.removeprefix(OPTION_PREFIX)
    if name.startswith(SEAT_PREFIX):  # seat_option_<name>_<seat from 1>: the list's entry
        option, _, number = name.removeprefix(SEAT_PREFIX).rpartition("_")
        return f"options.{option}[{int(number) - 1}]"
    return {"phase_hours": "phase_hours", "deadline": "daily_at", "__all__": ""}.get(name, name)


def table_form(body: TableIn, player: Player) -> TableForm:
    """The page's form, filled in with the body and checked; its refusals as one problem (422 lobby-refused)."""
    try:
        get_engine(body.game)
    except KeyError:
        slugs = ", ".join(engine.slug for engine in all_engines())
        raise _refused(
            _("There is no game %(game)s: choose one of %(slugs)s.") % {"game": repr(body.game[:40]), "slugs": slugs},
            "game",
        ) from None
    for number, level in enumerate(body.bot_levels):  # a comma inside one would read as two levels
        if level not in BotLevel.values:
            raise _refused(
                _("%(level)s is not a bot level: say strong, easy or random.") % {"level": repr(level[:40])},
                f"bot_levels[{number}]",
            )
    data: dict[str, str] = {
        "name": body.name or player.name,
        "title": body.title,
        "size": str(body.size),
        "invite": "\n".join(body.invite),
        "bots": str(body.bots),
        "bot_level": body.bot_level,
        "bot_levels": ",".join(body.bot_levels),
        "phase_hours": str(body.phase_hours),
        "deadline": "daily" if body.daily_at is not None else "length",
        "daily_at": body.daily_at.strftime("%H:%M") if body.daily_at is not None else "",
        "start_by": _local_start(body.start_by, player),
    }
    data.update({name: "on" for name in ("bots_fill", "private") if getattr(body, name)})
    offered = TableForm(body.game, player.time_zone)
    per_seat = {spec.name: spec for spec in offered.seat_specs}
    for name, value in body.options.items():
        if name in per_seat:
            data.update(_seat_values(per_seat[name], value, offered.engine.max_players))
            continue
        if OPTION_PREFIX + name not in offered.fields:
            raise _refused(
                _("%(engine_title)s has no option called %(name)s here.")
                % {"engine_title": words.game_title(offered.engine.title), "name": repr(name[:40])},
                f"options.{name[:40]}",
            )
        data[OPTION_PREFIX + name] = _option_value(name, value)
    for name, field in offered.fields.items():  # what the page's form posts untouched: the options' defaults
        if name.startswith(OPTION_PREFIX) and name not in data:
            data[name] = "" if field.initial is None else str(field.initial)
    form = TableForm(body.game, player.time_zone, data)
    if not form.is_valid():
        errors = [
            {"field": api_field(name), "message": str(message)}
            for name, messages_ in form.errors.items()
            for message in messages_
        ]
        first = errors[0]
        detail = f"{first['field']}: {first['message']}" if first["field"] else first["message"]
        raise Problem(422, "lobby-refused", detail, errors=errors)
    return form
