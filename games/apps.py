from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The system checks, the inbound and tracking receivers, and the tasks that bind the core's wake-up names
        # (games.dispatch): imported here, once the models are loaded, and nowhere else in the services. The
        # receipts' module also holds two models of this app (its docstring says why), registered as it loads.
        from games import bounces, checks, inbound, receipts, tasks  # noqa: F401, PLC0415
