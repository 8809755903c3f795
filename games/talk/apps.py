from django.apps import AppConfig


class TalkConfig(AppConfig):
    name = "games.talk"
    label = "talk"
    verbose_name = "Table talk"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Its tasks (the names games.talk.services wakes) and its inbound receiver (replies to message emails).
        from games.talk import inbound, tasks  # noqa: F401, PLC0415
