"""The demo behind `make run`: an admin login and a Port of Piraeus table of you and three bots."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser

from games import turns
from games.links import seat_url
from games.models import Game, Seat

DEMO_EMAIL = "you@demo.localhost"


class Command(BaseCommand):
    help = "Create (once) an admin user and a demo game; print where to click."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--engine", default="piraeus")
        parser.add_argument("--bots", type=int, default=3)

    def handle(self, *args: Any, **opts: Any) -> None:
        users = get_user_model()
        if not users.objects.filter(username="admin").exists():
            users.objects.create_superuser("admin", "admin@demo.localhost", "admin")
        seat = (
            Seat.objects.filter(player__email=DEMO_EMAIL, game__engine=opts["engine"], game__status=Game.Status.ACTIVE)
            .select_related("game", "player")
            .first()
        )
        if seat is None:
            you = turns.player_for(DEMO_EMAIL, "You")
            game = turns.create_game(opts["engine"], [you] + [None] * opts["bots"], title="Demo table")
            seat = game.seats.select_related("game", "player").get(player=you)
        phase = turns.current_phase(seat.game)
        link = seat_url(seat, phase) if phase else ""
        self.stdout.write(
            "\n".join(
                [
                    "",
                    f"Demo game #{seat.game.pk} ({seat.game.title}) is ready.",
                    f"  Your seat (opens your game page, signs you in): {link}",
                    f"  Admin: {settings.SITE_URL}/admin/  (user admin, password admin)",
                    f"  Emails: {settings.SITE_URL}/outbox/  (files in {settings.EMAIL_OUTBOX_DIR})",
                    "",
                ]
            )
        )
