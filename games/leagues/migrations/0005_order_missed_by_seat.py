"""An index for league reliability (games/leagues/results.py), on the core's orders table.

"order-missed-by-seat": the default orders (missed deadlines) of each seat, a partial index on
games_order(seat_id) WHERE is_default. Reliability counts each seat's missed orders with one index-only
probe of it, so a league's figure reads the league's own seats' entries and nothing else; without it the
count fetched every order of every seat from the table (is_default is in no other index). It holds only
default orders, a few in a hundred, so it is small, and an order a player sends (never a default) does not
touch it. Each seat's orders in all are counted on the seat's foreign key index, which Django made.

It is built here rather than on the Order model because only leagues read it. Building it reads the orders
table once and blocks writes to it meanwhile: about a second per two million orders on our bench machine.
"""

from django.db import migrations, models

INDEX = models.Index(fields=["seat"], condition=models.Q(is_default=True), name="order-missed-by-seat")


def add_index(apps, schema_editor):
    schema_editor.add_index(apps.get_model("games", "Order"), INDEX)


def remove_index(apps, schema_editor):
    schema_editor.remove_index(apps.get_model("games", "Order"), INDEX)


class Migration(migrations.Migration):
    dependencies = [
        ("leagues", "0004_membership_inactive"),
        ("games", "0001_initial"),
    ]

    operations = [migrations.RunPython(add_index, remove_index)]
