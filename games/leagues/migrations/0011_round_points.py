"""Each round keeps the points per place it was drawn with (issue 28): a change of the league's points applies
from the next round on, and the standings of rounds already played stay as earned. Rounds drawn before this
migration take the league's points as they are now (what their standings showed until then)."""

from typing import Any

from django.db import migrations, models


def copy_league_points(apps: Any, schema_editor: Any) -> None:
    Round = apps.get_model("leagues", "Round")
    for round_ in Round.objects.select_related("season__league"):
        round_.points = list(round_.season.league.points)
        round_.save(update_fields=["points"])


class Migration(migrations.Migration):
    dependencies = [("leagues", "0010_order_excused_by_seat")]

    operations = [
        migrations.AddField(model_name="round", name="points", field=models.JSONField(default=list)),
        migrations.RunPython(copy_league_points, migrations.RunPython.noop),
    ]
