"""A whole game of Ports of Call through the service layer and the tasks, on PostgreSQL: one human seat
answering every turn email (with a bot's legal order), bots in the other seats."""

from __future__ import annotations

import random

import pytest
from django.core import mail

from games import turns
from games.engines import get_engine
from games.models import Game, Phase
from tests.conftest import open_phase

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_game_of_ports_of_call_plays_to_the_end_with_standings_and_turn_emails(postgres, make_game):
    # The no-elimination rule keeps the human seat in play, so it owes exactly one order per quarter.
    game = make_game(humans=1, bots=2, engine="ports-of-call", options={"bankruptcy": "sell-assets"})
    engine = get_engine("ports-of-call")
    human = game.seats.get(number=0)
    rng = random.Random(5)
    turns_answered = 0
    while True:
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        phase = open_phase(game)
        assert phase.owed_seats == [0], "only the human's turns wait for an order"
        turns.submit_order(human, phase.number, engine.random_order(game.state, 0, rng))
        turns_answered += 1
        assert turns_answered < 100, "the game does not end"
    # One home city and 16 quarters (4 years x 4) of turns for the human seat.
    assert turns_answered == 1 + 16
    assert not Phase.objects.filter(game=game, status=Phase.Status.OPEN).exists()
    ranks = [row["rank"] for row in game.result]
    assert sorted(row["seat"] for row in game.result) == [0, 1, 2] and ranks == sorted(ranks) and ranks[0] == 1
    to_human = [message for message in mail.outbox if message.to == ["player1@example.com"]]
    assert len(to_human) >= turns_answered, "every turn of the human seat was announced by email"
    bodies = " ".join(message.body for message in to_human)
    assert "PORTS OF CALL" in bodies and "CONTAINER TERMINAL" in bodies
