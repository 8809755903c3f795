from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext, ngettext

from games.engines import get_engine
from games.management.commands._util import parse_duration
from games.models import BotLevel
from games.outgoing.links import seat_url
from games.play import turns
from games.play.newgame import read_options, read_player, start_game


class Command(BaseCommand):
    help = "Create a game: players by email (in seat order), plus bot seats; the first emails go out."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("engine", help="game slug, e.g. piraeus")
        parser.add_argument("--players", default="", help="comma-separated email addresses, in seat order")
        parser.add_argument("--bots", type=int, default=0, help="bot seats added after the players")
        parser.add_argument(
            "--bot-level",
            default=BotLevel.STRONG,
            help="how the bots play: strong, easy or random for them all, or one a bot seat in seat order, comma-"
            "separated, e.g. strong,easy (default strong)",
        )
        parser.add_argument("--deadline", default=None, help="phase length, e.g. 48h, 30m, 2d (default 48h)")
        parser.add_argument("--seed", type=int, default=None)
        parser.add_argument("--title", default="")
        parser.add_argument("--options", default="{}", help="game options as JSON")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            engine = get_engine(opts["engine"])
        except KeyError as error:
            raise CommandError(str(error)) from None
        phase_length = parse_duration(opts["deadline"]) if opts["deadline"] else None
        try:
            players = [read_player(e) for e in opts["players"].split(",") if e.strip()]
            game = start_game(
                engine.slug,
                players,
                bots=opts["bots"],
                bot_level=opts["bot_level"],
                options=read_options(opts["options"]),
                phase_length=phase_length,
                seed=opts["seed"],
                title=opts["title"],
            )
        except ValueError as error:
            raise CommandError(str(error)) from None
        seats = game.seats.count()
        self.stdout.write(
            ngettext(
                "Created game #%(number)d: %(title)s, %(count)d seat.",
                "Created game #%(number)d: %(title)s, %(count)d seats.",
                seats,
            )
            % {"number": game.pk, "title": game.name, "count": seats}
        )
        phase = turns.current_phase(game)
        for seat in game.seats.select_related("player"):
            link = seat_url(seat, phase) if phase and seat.player else ""
            who = seat.player.email if seat.player else seat.label  # the operator's terminal: addresses are fine
            self.stdout.write(
                "  "
                + gettext("seat %(number)s: %(who)s %(link)s") % {"number": seat.number + 1, "who": who, "link": link}
            )
