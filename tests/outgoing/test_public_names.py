"""A player who gave no name is shown by their seat (or, in a league's tables, as "Player N"), never by
their address or its local part: game pages and league pages are public, and anyone can enumerate them."""

from __future__ import annotations

import pytest
from django.core import mail
from django.urls import reverse

from games.leagues.models import Membership, Round
from games.models import Game
from games.outgoing.links import make_token
from games.play import turns
from tests.support.leagues import first_game, make_league, play_phase, started_round
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)

HIDDEN = "zq7hidden"
ADDRESS = f"{HIDDEN}@example.org"


def played_to_the_end(game: Game) -> Game:
    for _ in range(400):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            return game
        play_phase(game)
    raise AssertionError("the game did not end")


def emails_to_others():
    texts = []
    for message in mail.outbox:
        if message.to != [ADDRESS]:
            texts += [message.subject, str(message.body), *(str(part) for part, _ in message.alternatives)]
    assert texts, "nobody else was emailed"
    return texts


def test_a_nameless_players_address_shows_nowhere_on_the_game_page_or_in_the_others_emails(client):
    players = [turns.player_for(ADDRESS, ""), turns.player_for("ann@example.org", "Ann"), turns.player_for("bo@x.org")]
    game = turns.create_game("piraeus", players, seed=5)
    page = reverse("games-game", args=[game.pk])
    assert HIDDEN not in client.get(page).content.decode()  # anyone
    ann = game.seats.get(number=1)
    client.get(reverse("games-link", args=[make_token(ann, open_phase(game))]))
    shown = client.get(page).content.decode()
    assert HIDDEN not in shown and "Seat 1" in shown and "Seat 3" in shown  # the other seat, to another player
    played_to_the_end(game)
    finished = client.get(page).content.decode()
    assert HIDDEN not in finished and "Seat 1" in finished
    assert all(HIDDEN not in text for text in emails_to_others())  # turn emails, results, the game's end
    assert any(message.to == [ADDRESS] for message in mail.outbox)


def test_a_nameless_league_members_address_shows_nowhere_on_the_league_pages_csvs_or_others_emails(client):
    league = make_league(players=3)
    Membership.objects.create(league=league, player=turns.player_for(ADDRESS, ""))
    round_ = started_round(league)
    played_to_the_end(first_game(round_))
    round_.refresh_from_db()
    assert round_.status == Round.Status.FINISHED  # the round ends with its game: everyone gets the standings
    for name in ["leagues-league", "leagues-standings-csv", "leagues-results-csv"]:
        response = client.get(reverse(name, args=[league.slug]))
        assert response.status_code == 200 and HIDDEN not in response.content.decode(), name
    results = client.get(reverse("leagues-results-csv", args=[league.slug])).content.decode()
    assert "Seat " in results  # the nameless member's seat, by number
    texts = emails_to_others()  # round started (with the table), turns, the standings at the round's end
    assert any("Standings" in text for text in texts)
    assert all(HIDDEN not in text for text in texts)


def test_a_nameless_players_own_email_greets_them_without_their_address():
    players = [turns.player_for(ADDRESS, ""), turns.player_for("ann@example.org", "Ann"), turns.player_for("bo@x.org")]
    turns.create_game("piraeus", players, seed=5)
    [mine] = [m for m in mail.outbox if m.to == [ADDRESS]]
    assert "Hello there," in str(mine.body) and f"Hello {HIDDEN}" not in str(mine.body)
