from django.apps import AppConfig


class LeaguesConfig(AppConfig):
    name = "games.leagues"
    label = "leagues"
    verbose_name = "Leagues"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games import turns  # noqa: PLC0415
        from games.leagues import policy, tasks  # noqa: F401, PLC0415  (the policy's receivers; its tasks' names)

        # A resolution reads the game's league table with the phase it locks, so the policy's
        # phase_opened receiver needs no query of its own (games outside leagues find None).
        path = "game__league_table__round__season__league"
        if path not in turns.PHASE_LOCK_RELATED:
            turns.PHASE_LOCK_RELATED.append(path)
