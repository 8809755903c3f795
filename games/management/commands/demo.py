"""The demo behind `make run`: an admin login and, for every game the server plays, a table of you and
bots, so a newcomer can try each one at their own pace."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser

from games.engines import all_engines, get_engine
from games.engines.base import Engine
from games.models import BotLevel, Game, Seat
from games.outgoing.links import seat_url
from games.play import turns

DEMO_EMAIL = "you@demo.localhost"
# Your name at the demo tables: a name, since the pages and emails say it ("Sam invites you", not "You invites you").
DEMO_NAME = "Sam"


class Command(BaseCommand):
    help = "Create (once) an admin user and a demo game; print where to click."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--engine", action="append", help="a game's slug (repeatable); default: every game")
        parser.add_argument(
            "--players", type=int, default=4, help="seats per table, you included, within each game's limits"
        )
        parser.add_argument(
            "--bot-level",
            choices=BotLevel.values,
            default=BotLevel.STRONG,
            help="how the bots play at a new table (default strong; easy for a gentler first game)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        users = get_user_model()
        if not users.objects.filter(username="admin").exists():
            users.objects.create_superuser("admin", "admin@demo.localhost", "admin")
        engines = [get_engine(slug) for slug in opts["engine"]] if opts["engine"] else all_engines()
        lines = [
            "",
            "Demo tables are ready: you and bots (they answer as soon as they have thought, so each game moves at your",
            "  pace; they play to win: `manage.py demo --bot-level easy` makes a new table of gentler ones).",
        ]
        for engine in engines:
            players = max(engine.min_players, min(opts["players"], engine.max_players))
            seat = self.demo_seat(engine, players, opts["bot_level"])
            phase = turns.current_phase(seat.game)
            link = seat_url(seat, phase) if phase else f"{settings.SITE_URL}/me/"
            lines.append(f"  {engine.title} (game #{seat.game.pk}): {link}")
        lines += [
            "  Each link opens your seat at that table; My games (/me/) lists the tables you opened, and emails",
            "  you@demo.localhost a sign-in link for all of them (read it in the outbox below).",
            f"  Admin: {settings.SITE_URL}/admin/  (user admin, password admin)",
        ]
        if settings.DEBUG:  # the outbox page exists only in development
            lines.append(f"  Emails: {settings.SITE_URL}/outbox/  (files in {settings.EMAIL_OUTBOX_DIR})")
        else:
            lines.append(f"  Emails: files in {settings.EMAIL_OUTBOX_DIR} (the /outbox/ page needs DEBUG=1)")
        lines.append("")
        self.stdout.write("\n".join(lines))

    def demo_seat(self, engine: Engine, players: int, level: str = BotLevel.STRONG) -> Seat:
        """Your seat at the running demo table of this game, created the first time."""
        seat = (
            Seat.objects.filter(player__email=DEMO_EMAIL, game__engine=engine.slug, game__status=Game.Status.ACTIVE)
            .select_related("game", "player")
            .first()
        )
        if seat is None:
            you = turns.player_for(DEMO_EMAIL, DEMO_NAME)
            # Untitled: each reader sees the game's name in their own language (Game.name), not an English title.
            game = turns.create_game(engine.slug, [you] + [None] * (players - 1), bot_levels=[level] * players)
            seat = game.seats.select_related("game", "player").get(player=you)
        return seat
