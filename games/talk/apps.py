from django.apps import AppConfig


class TalkConfig(AppConfig):
    name = "games.talk"
    label = "talk"
    verbose_name = "Table talk"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Its tasks (the names games.talk.services wakes), its inbound receiver (replies to message emails) and
        # its mail's receiver of the one-click unsubscribe.
        from games.talk import inbound, mail, tasks  # noqa: F401, PLC0415
