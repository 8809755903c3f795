"""Phoenician Sea Trader played end to end on PostgreSQL: orders go through the service layer, the
resolutions through the (eager) Celery tasks, and the turn emails out through the email backend."""

from __future__ import annotations

import random

import pytest
from django.core import mail

from games.engines import get_engine
from games.models import Game, OutboundEmail, Phase
from games.play import orders
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)
ENGINE = get_engine("phoenician")


def play_to_the_end(game: Game, rng: random.Random, limit: int = 3000) -> int:
    """Submit a random legal order for every human seat owed, until the game is over; returns the turns."""
    for played in range(limit):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            return played
        phase = open_phase(game)
        for seat in game.seats.filter(number__in=phase.owed_seats, player__isnull=False):
            orders.submit_order(seat, phase.number, ENGINE.random_order(game.state, seat.number, rng))
    pytest.fail(f"no end after {limit} phases")


def test_a_human_and_two_bots_play_a_whole_game_through_the_tasks(postgres, make_game):
    game = make_game(humans=1, bots=2, engine="phoenician", seed=7)
    phases = play_to_the_end(game, random.Random(7))
    game.refresh_from_db()
    assert phases > 3
    assert sorted(row["seat"] for row in game.result) == [0, 1, 2]
    assert game.result[0]["rank"] == 1
    assert not Phase.objects.filter(game=game, status=Phase.Status.OPEN).exists()
    sent = [m for m in mail.outbox if m.to == ["player1@example.com"]]
    turn_mails = [m for m in sent if m.anymail_test_params["tags"] == ["turn-started"]]
    assert turn_mails, "the human got no turn email"
    assert "PHOENICIAN SEA TRADER" in turn_mails[0].body and "THE SEA" in turn_mails[0].body
    assert [m.anymail_test_params["tags"] for m in sent].count(["game-over"]) == 1
    assert not OutboundEmail.objects.filter(game=game, status=OutboundEmail.Status.PENDING).exists()


def test_a_game_of_bots_plays_to_the_end_with_standings(postgres, make_game):
    game = make_game(humans=0, bots=4, engine="phoenician", seed=11)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    ranks = [row["rank"] for row in game.result]
    assert ranks == sorted(ranks) and ranks[0] == 1 and len(ranks) == 4
