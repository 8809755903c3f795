"""The games started from a lobby table are marked as having this app's rows (Game.apps_attached): their
resolutions read the table with the phase they lock, for its daily deadline."""

from typing import Any

from django.db import migrations


def mark(apps: Any, schema_editor: Any) -> None:
    game, table = apps.get_model("games", "Game"), apps.get_model("lobby", "Table")
    game.objects.filter(pk__in=table.objects.filter(game__isnull=False).values("game_id")).update(apps_attached=True)


class Migration(migrations.Migration):
    dependencies = [("lobby", "0001_initial"), ("games", "0018_game_apps_attached")]

    operations = [migrations.RunPython(mark, migrations.RunPython.noop)]
