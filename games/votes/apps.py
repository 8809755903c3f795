from pathlib import Path

from django.apps import AppConfig
from django.utils.translation import gettext_lazy

from games.extensions import Extension, register

GUIDE = Path(__file__).with_name("GUIDE.md")


class VotesConfig(AppConfig):
    """Ending a game early: a table's votes to draw or cancel, and conceding a seat (games/votes/rules.py)."""

    name = "games.votes"
    label = "votes"
    verbose_name = gettext_lazy("Ending games early")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The receivers (a game's end voids its open vote; a seat's change of hands re-counts it), the tasks.
        from games.votes import mail, page, services, tasks  # noqa: F401, PLC0415

        register(
            self.label,
            Extension(
                outbox=mail.OUTBOX,
                game_panel=page.panel,
                guide_section=GUIDE,  # and GUIDE.de.md, GUIDE.fr.md beside it
                phase_annotations=((services.OPEN_VOTE, services.open_vote),),
            ),
        )
