"""The lobby: players propose tables, invite by email, fill open seats, and the game starts after a ready
check (games/lobby/ready.py). A plug-in beside the leagues and table talk: it reaches the core through the
service layer (games.play.turns.create_game) and games/extensions.py only, and the core runs without it."""

from pathlib import Path

from django.apps import AppConfig
from django.utils.translation import gettext_lazy

from games.extensions import Extension, register


class LobbyConfig(AppConfig):
    name = "games.lobby"
    label = "lobby"
    verbose_name = gettext_lazy("Lobby")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Its tasks' names, its bounce receiver (invitations.handle_tracking), its admin filter.
        from games.lobby import admin_filters, emails, invitations, panels, ready, tasks  # noqa: F401, PLC0415

        register(
            self.label,
            Extension(
                # A resolution reads the game's lobby table with the phase it locks, so a daily deadline
                # costs no query of its own (games outside the lobby find None).
                phase_related=("game__lobby_table",),
                phase_deadline=ready.phase_deadline,
                outbox=emails.OUTBOX,
                game_filters=(admin_filters.StartedByPlayers,),
                game_panel=panels.game_panel,
                account_section=panels.account_section,
                # How to start a game: a note at the end of every game's player's guide (/rules/<slug>/).
                guide_section=Path(__file__).parent / "GUIDE.md",  # and GUIDE.de.md, GUIDE.fr.md beside it
            ),
        )
