"""A whole game of Manila through the service layer and the tasks, on PostgreSQL: two humans answer
their turn emails' questions with legal random orders, two bots play themselves, and the game ends
with ranked standings."""

from __future__ import annotations

import random

import pytest
from django.core import mail

from games.engines import get_engine
from games.models import Game, OutboundEmail, Phase
from games.play import orders
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)

ENGINE = get_engine("manila")


def test_a_manila_game_with_humans_and_bots_plays_to_the_end_through_the_tasks(postgres, make_game):
    game = make_game(humans=2, bots=2, engine="manila", seed=7)
    rng = random.Random(7)
    for _ in range(2000):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        phase = open_phase(game)
        for seat in game.seats.filter(number__in=phase.owed_seats, player__isnull=False):
            orders.submit_order(seat, phase.number, ENGINE.random_order(game.state, seat.number, rng))
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert sorted(row["seat"] for row in game.result) == [0, 1, 2, 3]
    assert game.result[0]["rank"] == 1
    assert not Phase.objects.filter(game=game, status=Phase.Status.OPEN).exists()
    # Every phase that asked a human sent that human a turn email, with the board in both parts.
    asked_humans = sum(len({0, 1} & set(phase.owed_seats)) for phase in Phase.objects.filter(game=game, number__gt=0))
    turn_emails = OutboundEmail.objects.filter(game=game, kind=OutboundEmail.Kind.TURN_STARTED)
    assert asked_humans > 0
    assert turn_emails.filter(status=OutboundEmail.Status.SENT).count() == asked_humans
    to_humans = [m for m in mail.outbox if m.to[0] in {"player1@example.com", "player2@example.com"}]
    first = to_humans[0]
    html = first.alternatives[0][0]
    assert "BLACK MARKET" in first.body and "SEA ROUTES" in first.body
    assert "Black market" in html and "<svg" not in html
