"""A whole Genoa game played through the service layer and the Celery tasks, on PostgreSQL: one player
answering every turn email with a legal order, two bots."""

from __future__ import annotations

import random

import pytest
from django.core import mail

from games.engines import get_engine
from games.models import Event, Game, OutboundEmail, Phase
from games.play import orders, turns

# Tasks run after commit, so the test needs real transactions.
pytestmark = pytest.mark.django_db(transaction=True)


def test_a_genoa_game_plays_to_the_end_with_standings_and_turn_emails(postgres, make_game):
    game = make_game(humans=1, bots=2, engine="genoa")
    engine = get_engine("genoa")
    rng = random.Random(7)
    human = game.seats.get(number=0)
    asked = 0
    for _ in range(500):
        game.refresh_from_db()
        phase = turns.current_phase(game)
        if phase is None:
            break
        assert 0 in phase.owed_seats, "bots answer at once, so an open phase waits for the player"
        orders.submit_order(human, phase.number, engine.random_order(game.state, 0, rng))
        asked += 1
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert sorted(row["seat"] for row in game.result) == [0, 1, 2]
    assert [row["rank"] for row in game.result] == sorted(row["rank"] for row in game.result)
    assert not Phase.objects.filter(game=game, status=Phase.Status.OPEN).exists()
    turn_emails = OutboundEmail.objects.filter(game=game, kind=OutboundEmail.Kind.TURN_STARTED)
    assert turn_emails.count() == asked > 0
    assert not turn_emails.exclude(status=OutboundEmail.Status.SENT).exists()
    assert {message.to[0] for message in mail.outbox} == {"player1@example.com"}
    assert Event.objects.filter(game=game, text__startswith="Final ranking").exists()
