"""The games of league tables are marked as having this app's rows (Game.apps_attached): their resolutions read
the table, round, season and league with the phase they lock."""

from typing import Any

from django.db import migrations


def mark(apps: Any, schema_editor: Any) -> None:
    game, table = apps.get_model("games", "Game"), apps.get_model("leagues", "Table")
    game.objects.filter(pk__in=table.objects.filter(game__isnull=False).values("game_id")).update(apps_attached=True)


class Migration(migrations.Migration):
    dependencies = [("leagues", "0013_seating_conceded"), ("games", "0018_game_apps_attached")]

    operations = [migrations.RunPython(mark, migrations.RunPython.noop)]
