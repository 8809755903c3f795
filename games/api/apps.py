from django.apps import AppConfig
from django.utils.translation import gettext_lazy


class ApiConfig(AppConfig):
    name = "games.api"
    label = "api"
    verbose_name = gettext_lazy("API")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # What the app adds to the core (games/extensions.py): no email to bots, an organiser's bots are theirs
        # in the admin, the tokens' card on My games.
        from games.api import extension, pages  # noqa: PLC0415  (the models are ready now)
        from games.extensions import Extension, register  # noqa: PLC0415

        register(
            self.label,
            Extension(
                declines=extension.declines, players_of=extension.owned_bots, account_section=pages.tokens_section
            ),
        )
