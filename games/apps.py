from django.apps import AppConfig
from django.utils.translation import gettext_lazy


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = gettext_lazy("Games")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The system checks, the inbound and tracking receivers, the receipts' outbox, and the tasks that bind
        # the core's wake-up names (games.outgoing.dispatch): imported here, once the models are loaded, and
        # nowhere else in the services.
        from games import checks, extensions  # noqa: F401, PLC0415
        from games.incoming.mail import bounces, inbound  # noqa: F401, PLC0415
        from games.outgoing import emails, receipts  # noqa: PLC0415
        from games.play import tasks  # noqa: F401, PLC0415

        # The core's own outboxes register as an app's does, so the sweep reads one list of them all.
        extensions.register("games.outgoing.emails", extensions.Extension(outbox=emails.OUTBOX))
        extensions.register("games.outgoing.receipts", extensions.Extension(outbox=receipts.OUTBOX))
