from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games import checks, inbound  # noqa: F401  (registers the system checks and the inbound receiver)
