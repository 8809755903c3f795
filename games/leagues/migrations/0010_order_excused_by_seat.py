"""An index for league reliability (games/leagues/results.py), beside "order-missed-by-seat" (0005): the
excused default orders of each seat (issue 28: the organiser resolved before the deadline, or the player was
on vacation), a partial index on games_order(seat_id) WHERE excused. Reliability counts them with one
index-only probe per seat and leaves them out of both the orders owed and the ones missed. Excused orders
are rarer still than defaults, so the index is tiny; an order a player sends never touches it."""

from django.db import migrations, models

INDEX = models.Index(fields=["seat"], condition=models.Q(excused=True), name="order-excused-by-seat")


def add_index(apps, schema_editor):
    schema_editor.add_index(apps.get_model("games", "Order"), INDEX)


def remove_index(apps, schema_editor):
    schema_editor.remove_index(apps.get_model("games", "Order"), INDEX)


class Migration(migrations.Migration):
    dependencies = [
        ("leagues", "0009_round_draw_seed"),
        ("games", "0015_order_excused"),
    ]

    operations = [migrations.RunPython(add_index, remove_index)]
