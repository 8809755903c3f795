from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import turns
from games.engines import get_engine
from games.links import seat_url
from games.management.commands._util import parse_duration
from games.models import Player


class Command(BaseCommand):
    help = "Create a game: players by email (in seat order), plus bot seats; the first emails go out."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("engine", help="game slug, e.g. piraeus")
        parser.add_argument("--players", default="", help="comma-separated email addresses, in seat order")
        parser.add_argument("--bots", type=int, default=0, help="bot seats added after the players")
        parser.add_argument("--deadline", default=None, help="phase length, e.g. 48h, 30m, 2d (default 48h)")
        parser.add_argument("--seed", type=int, default=None)
        parser.add_argument("--title", default="")
        parser.add_argument("--options", default="{}", help="game options as JSON")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            engine = get_engine(opts["engine"])
        except KeyError as error:
            raise CommandError(str(error)) from None
        emails = [e.strip() for e in opts["players"].split(",") if e.strip()]
        players: list[Player | None] = [turns.player_for(e) for e in emails]
        players += [None] * opts["bots"]
        try:
            options = json.loads(opts["options"])
            game = turns.create_game(
                engine.slug,
                players,
                options=options,
                phase_length=parse_duration(opts["deadline"]) if opts["deadline"] else None,
                seed=opts["seed"],
                title=opts["title"],
            )
        except (ValueError, json.JSONDecodeError) as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"Created game #{game.pk}: {game.title}, {len(players)} seats.")
        phase = turns.current_phase(game)
        for seat in game.seats.select_related("player"):
            link = seat_url(seat, phase) if phase and seat.player else ""
            self.stdout.write(f"  seat {seat.number + 1}: {seat.label} {link}")
