"""The order store's hand-written statements (games/play/order_sql.py) read and write what the ORM's would."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.utils import timezone

from games.models import Order, Phase
from games.play import order_sql, orders
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_locked_phase_is_the_orms_read_of_the_same_columns(make_game) -> None:
    game = make_game(humans=3)
    phase = open_phase(game)
    with transaction.atomic():
        read, locked = order_sql.locked_phase(game.pk, phase.number)
        missing = order_sql.locked_phase(game.pk, 99)
    if connection.vendor != "postgresql":
        # SQLite has no row locks: the caller reads through the ORM.
        assert (read, locked, missing) == (False, None, (False, None))
        return
    assert read and locked is not None and missing == (True, None)
    orm = Phase.objects.select_related("game").get(pk=phase.pk)
    for name in order_sql.PHASE_FIELDS:
        assert getattr(locked, name) == getattr(orm, name), name
    for name in order_sql.GAME_FIELDS:
        assert getattr(locked.game, name) == getattr(orm.game, name), name
    # What was not read is deferred, as the ORM's only() leaves it, not read as empty.
    assert "deadline" in locked.get_deferred_fields() and "options" in locked.game.get_deferred_fields()
    assert locked.prompt_for(1) == orm.prompt_for(1) is not None


def test_a_revision_replaces_the_stored_order_and_counts(make_game) -> None:
    game = make_game(humans=3)
    phase = open_phase(game)
    seat = game.seats.get(number=1)
    now = timezone.now()
    assert not order_sql.revise_order(phase.pk, seat.pk, {"role": "buyer"}, now, False, None)  # none stored yet
    orders.submit_order(seat, phase.number, {"role": "buyer"})
    assert order_sql.revise_order(phase.pk, seat.pk, {"role": "seller"}, now, True, now)
    order = Order.objects.get(phase=phase, seat=seat)
    assert (order.data, order.revision, order.is_default) == ({"role": "seller"}, 2, True)
    assert order.submitted_at == now and order.written_at == now
