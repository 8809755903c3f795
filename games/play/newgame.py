"""Starting a one-off game from addresses typed by an organiser. Shared by `manage.py creategame` and the
admin's Add game form, so both read input the same way and a refusal leaves nothing behind."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils.translation import gettext

from games import words
from games.engines import get_engine
from games.extensions import split_options
from games.models import BotLevel, Game, Player
from games.play import turns

NAME_LENGTH = Player._meta.get_field("name").max_length or 80


def read_player(entry: str) -> tuple[str, str]:
    """'ann@example.org' or 'ann@example.org, Ann' as (address, display name). ValueError if not an address."""
    email, _, name = entry.partition(",")
    email = email.strip()
    try:
        validate_email(email)
    except ValidationError:
        raise ValueError(gettext("%(address)s is not an email address.") % {"address": repr(email)}) from None
    name = name.strip()
    if len(name) > NAME_LENGTH:
        raise ValueError(
            gettext("The name %(start)s... is longer than %(most)s characters.")
            % {"start": repr(name[:20]), "most": NAME_LENGTH}
        )
    return email, name


def read_levels(text: str, bots: int) -> list[str]:
    """'strong' (every bot seat) or 'strong,easy' (one a bot seat, in seat order) as the level of each of `bots`
    bot seats. ValueError if a word is no level, or there are neither one nor `bots` of them."""
    levels = [word.strip() for word in text.split(",")]
    for level in levels:
        if level not in BotLevel.values:
            raise ValueError(
                gettext("%(level)s is not a bot level: say strong, easy or random.") % {"level": repr(level)}
            )
    if len(levels) == 1:
        return levels * bots
    if len(levels) != bots:
        raise ValueError(
            gettext("Bot levels given: %(given)s, bot seats: %(bots)s; give one level for them all or one a seat.")
            % {"given": len(levels), "bots": bots}
        )
    return levels


def read_options(text: str) -> dict[str, Any]:
    """Game options typed as a JSON object ('' means none). ValueError otherwise."""
    try:
        options = json.loads(text or "{}")
    except json.JSONDecodeError as error:
        raise ValueError(gettext("Options are not valid JSON: %(error)s.") % {"error": error}) from None
    if not isinstance(options, dict):
        raise ValueError(gettext('Options must be a JSON object, like {"name": "value"}.'))
    return options


def check_options(engine_slug: str, options: Any, players: Iterable[int]) -> None:
    """ValueError, with the engine's own message in the active language (games/words.py), unless `options` set up
    a game of `engine_slug` for each player count in `players`: the check create_game makes, for games that are not
    created yet (a league's tables, whose sizes the draw decides)."""
    engine = get_engine(engine_slug)
    try:
        options, _ = split_options(options) if isinstance(options, dict) else (options, {})
    except ValueError as error:  # an app's option (table talk's): its message, in the active language
        raise ValueError(words.refusal(error)) from None
    counts = list(players)
    refused: dict[int, str] = {}
    for count in counts:
        try:
            engine.setup(count, options, random.Random(0))
        except ValueError as error:
            refused[count] = words.refusal(error)
    if not refused:
        return
    first, message = next(iter(refused.items()))
    if len(refused) == len(counts) and len(set(refused.values())) == 1:
        raise ValueError(message)  # wrong whatever the table size: the table size is beside the point
    raise ValueError(gettext("At a table of %(count)s players: %(refusal)s") % {"count": first, "refusal": message})


def start_game(
    engine_slug: str,
    players: list[tuple[str, str]],
    *,
    bots: int = 0,
    bot_level: str = BotLevel.STRONG,
    options: dict[str, Any] | None = None,
    phase_length: timedelta | None = None,
    seed: int | None = None,
    title: str = "",
    started_by: Any = None,
) -> Game:
    """turns.create_game for `players` (address, name) in seat order, then `bots` bot seats at `bot_level`
    (read_levels: one level for them all, or one a bot seat), recording the admin user who started it, if any. On
    ValueError (player count, options, a player twice, the levels) nothing is stored, not even the players' records."""
    levels = read_levels(bot_level, bots)
    with transaction.atomic():
        seated: list[Player | None] = [turns.player_for(email, name) for email, name in players]
        game = turns.create_game(
            engine_slug,
            seated + [None] * bots,
            options=options,
            phase_length=phase_length,
            seed=seed,
            title=title,
            bot_levels=[BotLevel.STRONG] * len(seated) + levels,
        )
        if started_by is not None:
            game.started_by = started_by
            game.save(update_fields=["started_by"])
        return game
