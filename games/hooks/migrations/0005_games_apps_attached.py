"""The games a webhook may concern are marked as having this app's rows (Game.apps_attached): their resolutions ask
whether an enabled hook concerns them. A game's own hook, a seated player's, or its league's (disabled ones too:
they can be enabled again, and enabling marks only then)."""

from typing import Any

from django.db import migrations


def mark(apps: Any, schema_editor: Any) -> None:
    game, hook = apps.get_model("games", "Game"), apps.get_model("hooks", "Hook")
    seat, table = apps.get_model("games", "Seat"), apps.get_model("leagues", "Table")
    own = hook.objects.filter(game__isnull=False).values("game_id")
    players = seat.objects.filter(player_id__in=hook.objects.filter(player__isnull=False).values("player_id"))
    leagues = table.objects.filter(round__season__league__in=hook.objects.filter(league__isnull=False).values("league"))
    for games in (own, players.values("game_id"), leagues.filter(game__isnull=False).values("game_id")):
        game.objects.filter(pk__in=games).update(apps_attached=True)


class Migration(migrations.Migration):
    dependencies = [
        ("hooks", "0004_hook_url_sealed"),
        ("leagues", "0014_games_apps_attached"),
        ("games", "0018_game_apps_attached"),
    ]

    operations = [migrations.RunPython(mark, migrations.RunPython.noop)]
