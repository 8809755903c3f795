from django.apps import AppConfig
from django.utils.translation import gettext_lazy

from games.extensions import Extension, register


class HooksConfig(AppConfig):
    name = "games.hooks"
    label = "hooks"
    verbose_name = gettext_lazy("Webhooks")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The receivers that write deliveries with the news, the sender's task, its outbox and My games' part.
        from games.hooks import deliver, mail, notices, tasks, views  # noqa: F401, PLC0415

        register(
            self.label,
            Extension(
                outbox=deliver.OUTBOX,
                account_section=views.section,
                phase_annotations=((notices.CONCERNED, notices.concerned),),
            ),
        )
        # Its emails' outbox, beside its deliveries' (the core registers its two outboxes the same way).
        register(f"{self.label}.mail", Extension(outbox=mail.OUTBOX))
