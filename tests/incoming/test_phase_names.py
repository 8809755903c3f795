"""A turn's name in each reader's language (issue 40): the phase keeps the engine's message beside its English
(Phase.message, Phase.label), so the turn email's headline, the game page, My games, the earlier turns and
the API each say it in their reader's language; a phase stored before the names were
messages shows its stored English in every language."""

from __future__ import annotations

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import translation

from games.models import Phase, Player
from games.play import organise
from tests.support.accounts import signed_in
from tests.support.api import Api, token_for
from tests.support.phases import headline, open_phase

pytestmark = pytest.mark.django_db(transaction=True)


def test_each_turn_email_names_the_turn_in_its_readers_language(make_game):
    Player.objects.create(email="player1@example.com", name="Anke", language="de")
    Player.objects.create(email="player2@example.com", name="Aurore", language="fr")
    game = make_game(humans=3)
    phase = open_phase(game)
    assert phase.name == "Day 1 — planning" and phase.message["id"] == "Day {day} — planning"
    # The headline (the kind's own subject, the body's first line; the thread's subject names the game alone).
    headlines = {message.to[0]: headline(message) for message in mail.outbox}
    assert headlines["player1@example.com"].startswith("Tag 1 — Planung:"), headlines
    assert headlines["player2@example.com"].startswith("Jour 1 — préparation"), headlines
    assert headlines["player3@example.com"].startswith("Day 1 — planning:"), headlines


def test_the_game_page_my_games_and_the_api_name_the_turn_in_the_readers_language(client, make_game):
    game = make_game(humans=3)
    Player.objects.filter(email="player1@example.com").update(language="de")
    signed_in(client, game, 0)
    page = client.get(reverse("games-game", args=[game.pk])).content.decode()
    assert "Tag 1 — Planung" in page and "Day 1 — planning" not in page
    mine = client.get(reverse("games-mine")).content.decode()
    assert "Tag 1 — Planung" in mine
    api = Api(token_for(Player.objects.get(email="player2@example.com")))
    answer = api.get(f"/games/{game.pk}", headers={"Accept-Language": "fr"}).json()["phase"]
    assert answer["name"] == "Jour 1 — préparation" and answer["message"]["id"] == "Day {day} — planning"
    assert api.get(f"/games/{game.pk}").json()["phase"]["name"] == "Day 1 — planning"


def test_the_earlier_turns_name_the_turn_in_the_readers_language(client, make_game):
    game = make_game(humans=3)
    Player.objects.filter(email="player1@example.com").update(language="de")
    signed_in(client, game, 0)
    organise.resolve_now(game)
    page = client.get(reverse("games-history", args=[game.pk])).content.decode()
    assert "Tag 1 — Planung" in page and "Day 1 — planning" not in page
    api = Api(token_for(Player.objects.get(email="player2@example.com")))
    turns = api.get(f"/games/{game.pk}/turns", headers={"Accept-Language": "fr"}).json()
    assert turns == [{"number": 1, "name": "Jour 1 — préparation"}]


def test_a_phase_stored_before_the_names_were_messages_shows_its_english_in_every_language(client, make_game):
    game = make_game(humans=3)
    Phase.objects.filter(game=game).update(message=None, name="Day 1 — planning (stored)")
    Player.objects.filter(email="player1@example.com").update(language="de")
    signed_in(client, game, 0)
    page = client.get(reverse("games-game", args=[game.pk])).content.decode()
    assert "Day 1 — planning (stored)" in page
    with translation.override("fr"):
        assert open_phase(game).label == "Day 1 — planning (stored)"
