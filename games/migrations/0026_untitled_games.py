"""Games started without a title had their game's English name stored as their title ("Genoa"), so German and
French readers saw the English name. An untitled game now stores no title and is called by its game's name in
each reader's language (Game.name). This recognises the exact old default, per game, and clears it; nothing is
parsed. An organiser who typed exactly the English name by hand is treated the same: their game then reads
"Genoa" in English, "Genua" in German, which is what they meant by it. Reversing stores the English names again."""

from django.db import migrations

# The engines' English names when this was written (frozen here: a migration must not follow later code).
OLD_DEFAULTS = {
    "genoa": "Genoa",
    "manila": "Manila",
    "phoenician": "Phoenician Sea Trader",
    "piraeus": "Port of Piraeus",
    "ports-of-call": "Ports of Call",
}


def clear_defaults(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    for slug, title in OLD_DEFAULTS.items():
        Game.objects.filter(engine=slug, title=title).update(title="")


def restore_defaults(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    for slug, title in OLD_DEFAULTS.items():
        Game.objects.filter(engine=slug, title="").update(title=title)


class Migration(migrations.Migration):
    dependencies = [("games", "0025_sweepmark")]

    operations = [migrations.RunPython(clear_defaults, restore_defaults, elidable=True)]
