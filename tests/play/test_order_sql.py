"""The order store's hand-written statements (games/play/order_sql.py) read and write what the ORM's would."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.utils import timezone

from games.models import Order, Phase, Seat, carried_phase, with_open_phase
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


def _read(seat: Seat) -> tuple[object, ...]:
    """Everything a seat read with its turn holds: its columns, its game's, its player's, its open phase's."""
    taken, phase = carried_phase(seat)
    hidden = ("_state", "open_phase")
    rows = (seat, seat.game, seat.player, phase)
    return (taken, *({k: v for k, v in vars(row).items() if k not in hidden} if row else None for row in rows))


def test_the_seats_with_their_turn_are_the_orms_read(make_game) -> None:
    game = make_game(humans=3)
    open_phase(game)
    first, second = game.seats.select_related("player").order_by("number")[:2]
    by_hand = order_sql.seats_with_turn(game.pk, [first.pk], second.player_id)
    if connection.vendor != "postgresql":
        assert by_hand is None  # SQLite reads through the ORM
        return
    assert by_hand is not None
    orm = with_open_phase(Seat.objects.filter(pk__in=[first.pk, second.pk])).select_related("player")
    assert sorted(map(_read, by_hand), key=str) == sorted(map(_read, orm), key=str)
    assert {seat.pk for seat in by_hand} == {first.pk, second.pk}
    assert order_sql.seats_with_turn(game.pk, [], None) == []
    assert order_sql.seats_with_turn(game.pk + 1, [first.pk], first.player_id) == []  # another game's seat: none
    # No open phase (the game over or between phases): the seat comes without one, as the ORM leaves it (the caller
    # reads the phase it asks for).
    Phase.objects.filter(game=game).update(status=Phase.Status.RESOLVED)
    (closed,) = order_sql.seats_with_turn(game.pk, [first.pk], None) or []
    assert carried_phase(closed) == (False, None)
    assert _read(closed) == _read(with_open_phase(Seat.objects.filter(pk=first.pk)).select_related("player").get())
