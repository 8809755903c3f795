"""A whole game of Ports of Call through the service layer and the tasks, on PostgreSQL: one human seat
answering every turn email (with a bot's legal order), bots in the other seats."""

from __future__ import annotations

import random

import pytest
from django.core import mail
from django.urls import reverse

from games.engines import get_engine
from games.engines.ports_of_call.money import order_label
from games.models import Game, Phase
from games.outgoing.links import make_token
from games.play import orders
from tests.support.phases import open_phase

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
        orders.submit_order(human, phase.number, engine.random_order(game.state, 0, rng))
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


def _mail_to(address: str) -> str:
    """Every email sent to `address` so far, text and HTML parts together."""
    parts = []
    for message in mail.outbox:
        if message.to == [address]:
            parts.append(str(message.body))
            parts += [str(content) for content, _mimetype in getattr(message, "alternatives", [])]
    return "\n".join(parts)


def _page(client, game: Game, seat_number: int) -> str:
    seat = game.seats.get(number=seat_number)
    client.get(reverse("games-link", args=[make_token(seat, open_phase(game))]))
    response = client.get(reverse("games-game", args=[game.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_pages_and_emails_keep_dealt_kept_and_completed_order_cards_secret(client, postgres, make_game):
    """Rulebook: the 3 dealt Order Cards "remain secret until all players have chosen their Home City";
    completed cards lie "face down ... so that the other players cannot count them"."""
    game = make_game(humans=2, engine="ports-of-call")
    dealt = [[order_label(card) for card in game.state["dealt"][seat]] for seat in (0, 1)]
    assert all(label in _page(client, game, 0) for label in dealt[0])
    assert not any(label in _page(client.__class__(), game, 1) for label in dealt[0])
    assert not any(label in _mail_to("player2@example.com") for label in dealt[0])

    kept = game.state["dealt"][0][1]
    orders.submit_order(game.seats.get(number=0), open_phase(game).number, {"home": "Tokyo", "keep": str(kept)})
    game.refresh_from_db()
    assert order_label(kept) in _page(client, game, 0)
    assert order_label(kept) not in _page(client.__class__(), game, 1)
    assert order_label(kept) not in _mail_to("player2@example.com")
    assert order_label(kept) in _mail_to("player1@example.com")

    blue_kept = game.state["dealt"][1][0]
    orders.submit_order(game.seats.get(number=1), open_phase(game).number, {"home": "Hamburg", "keep": str(blue_kept)})
    game.refresh_from_db()
    assert order_label(kept) in _page(client.__class__(), game, 1), "revealed once every home city is chosen"

    # A completed order (here: one of the hidden deck's cards, laid face down) shows only to its owner.
    done = game.state["order_deck"][0]
    game.state["completed"][0] = [done]
    game.save(update_fields=["state"])
    assert order_label(done) in _page(client, game, 0)
    assert order_label(done) not in _page(client.__class__(), game, 1)


def test_the_plain_text_email_lists_the_sea_routes_a_ship_can_take(make_game):
    make_game(humans=1, bots=2, engine="ports-of-call")
    body = mail.outbox[-1].body
    assert "SEA ROUTES" in body
    assert "New York - San Francisco: 4 spaces, Pacific, through the Panama canal" in body
    assert "Hamburg       produces wind turbines sell here: " in body
