"""Races on PostgreSQL, with real separate connections: the last two orders at once, two resolutions at
once. Exactly one resolution must happen."""

from __future__ import annotations

import pytest
from django.db import connection

from games.models import Event, Game, Order, Phase
from games.play import orders, organise, turns
from tests.support.phases import open_phase
from tests.support.races import run_together

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_last_two_orders_arriving_together_resolve_the_phase_exactly_once(postgres, make_game):
    for attempt in range(5):  # several rounds, so the interleavings vary
        game = make_game(humans=3, seed=attempt)
        phase = open_phase(game)
        seats = list(game.seats.order_by("number"))
        orders.submit_order(seats[0], phase.number, {"role": "buyer"})
        results = run_together(
            lambda seats=seats, number=phase.number: orders.submit_order(seats[1], number, {"role": "seller"}),
            lambda seats=seats, number=phase.number: orders.submit_order(seats[2], number, {"role": "buyer"}),
        )
        assert all(isinstance(r, orders.Stored) for r in results), results
        assert sum(r.complete for r in results) == 1  # exactly one of them saw the phase complete
        phase.refresh_from_db()
        assert phase.status == Phase.Status.RESOLVED
        assert Phase.objects.filter(game=game, number=2).count() == 1
        first_log = Event.objects.filter(game=game, phase_number=1).count()
        assert first_log > 0
        assert turns.resolve_phase(phase.pk) is False


def test_two_resolutions_of_one_phase_at_once_resolve_it_once(postgres, make_game):
    game = make_game(humans=3)
    phase = open_phase(game)
    results = run_together(
        lambda: turns.resolve_phase(phase.pk, use_defaults=True),
        lambda: turns.resolve_phase(phase.pk, use_defaults=True),
        lambda: turns.resolve_phase(phase.pk, use_defaults=True),
    )
    assert sorted(results, key=str) == [False, False, True]
    assert Phase.objects.filter(game=game).count() == 2
    events = Event.objects.filter(game=game)
    assert events.count() == len({e.seq for e in events})


def test_an_order_racing_the_resolution_is_either_used_or_refused_never_lost(postgres, make_game):
    game = make_game(humans=3)
    phase = open_phase(game)
    seat = game.seats.get(number=0)
    results = run_together(
        lambda: orders.submit_order(seat, phase.number, {"role": "seller"}),
        lambda: turns.resolve_phase(phase.pk, use_defaults=True),
    )
    submitted, resolved = results
    assert resolved is True
    order = phase.orders.get(seat=seat)
    if isinstance(submitted, orders.Stored):
        assert order.data == {"role": "seller"} and not order.is_default
    else:
        assert isinstance(submitted, orders.OrderRejected)
        assert order.is_default
    assert connection.vendor == "postgresql"


def test_resolve_now_confirmed_for_a_phase_racing_its_last_order_never_resolves_the_next(postgres, make_game):
    """The organiser confirmed phase 1 as the last player ordered: phase 1 resolves once (by the order or by
    the organiser), and phase 2, just opened, is never resolved on default orders."""
    for attempt in range(5):
        game = make_game(humans=3, seed=attempt)
        phase = open_phase(game)
        seats = list(game.seats.order_by("number"))
        for seat in seats[:2]:
            orders.submit_order(seat, phase.number, {"role": "buyer"})
        results = run_together(
            lambda seat=seats[2], number=phase.number: orders.submit_order(seat, number, {"role": "seller"}),
            lambda game=game, number=phase.number: organise.resolve_now(Game.objects.get(pk=game.pk), number),
        )
        stored, resolved = results
        assert isinstance(stored, orders.Stored | orders.OrderRejected) and isinstance(resolved, bool), results
        assert Phase.objects.get(game=game, number=1).status == Phase.Status.RESOLVED
        assert Phase.objects.get(game=game, number=2).status == Phase.Status.OPEN
        assert not Order.objects.filter(phase__game=game, phase__number=2).exists()
