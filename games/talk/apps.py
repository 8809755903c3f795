from django.apps import AppConfig
from django.utils.translation import gettext_lazy


class TalkConfig(AppConfig):
    name = "games.talk"
    label = "talk"
    verbose_name = gettext_lazy("Table talk")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Its tasks (the names games.talk.services wakes), its inbound receiver (replies to message emails), its
        # mail's receiver of the one-click unsubscribe.
        from games import extensions  # noqa: PLC0415
        from games.talk import inbound, letters, mail, tasks  # noqa: F401, PLC0415
        from games.talk.forms import account_section  # noqa: PLC0415
        from games.talk.options import OPTIONS  # noqa: PLC0415
        from games.talk.page import game_panel  # noqa: PLC0415

        # What the core shows and asks of table talk, through its extension points only (games/extensions.py):
        # the press options of every game, a panel on the game page, a card on My games, and a section of the
        # turn emails.
        extensions.register(
            "talk",
            extensions.Extension(
                game_options=OPTIONS,
                game_panel=game_panel,
                account_section=account_section,
                turn_email=letters.SECTION,
            ),
        )
