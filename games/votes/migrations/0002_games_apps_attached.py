"""The games with a proposal are marked as having this app's rows (Game.apps_attached): their resolutions ask
whether a vote is open."""

from typing import Any

from django.db import migrations


def mark(apps: Any, schema_editor: Any) -> None:
    game, proposal = apps.get_model("games", "Game"), apps.get_model("votes", "Proposal")
    game.objects.filter(pk__in=proposal.objects.values("game_id")).update(apps_attached=True)


class Migration(migrations.Migration):
    dependencies = [("votes", "0001_initial"), ("games", "0018_game_apps_attached")]

    operations = [migrations.RunPython(mark, migrations.RunPython.noop)]
