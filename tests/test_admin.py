"""The organisers' admin: actions work, and nothing hidden shows before the rules reveal it."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from games import turns
from games.models import Game, Order, Phase
from tests.conftest import open_phase

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def organiser(client):
    get_user_model().objects.create_superuser("org", "org@example.com", "pw")
    client.login(username="org", password="pw")
    return client


def test_every_admin_list_and_page_opens(organiser, make_game):
    game = make_game(humans=3)
    phase = open_phase(game)
    turns.submit_order(game.seats.get(number=0), phase.number, {"role": "seller"})
    for model in ["game", "seat", "phase", "order", "event", "outboundemail", "player"]:
        assert organiser.get(reverse(f"admin:games_{model}_changelist")).status_code == 200
    assert organiser.get(reverse("admin:games_game_change", args=[game.pk])).status_code == 200
    assert organiser.get(reverse("admin:games_phase_change", args=[phase.pk])).status_code == 200


def test_a_sealed_order_is_not_visible_in_the_admin_before_its_phase_resolves(organiser, make_game):
    game = make_game(humans=3)
    phase = open_phase(game)
    turns.submit_order(game.seats.get(number=0), phase.number, {"role": "seller"})
    for url in [reverse("admin:games_order_changelist"), reverse("admin:games_phase_change", args=[phase.pk])]:
        page = organiser.get(url).content
        assert b"sealed until the phase resolves" in page
        assert b"seller" not in page
    turns.resolve_now(game)
    assert b"seller" in organiser.get(reverse("admin:games_order_changelist")).content


def test_the_admin_never_shows_the_engine_state_or_seed(organiser, make_game):
    game = make_game(humans=3, seed=987654321)
    page = organiser.get(reverse("admin:games_game_change", args=[game.pk])).content
    assert b"987654321" not in page
    hand = game.state.get("hands", [[]])[0]
    assert all(card.encode() not in page for card in hand if isinstance(card, str))


def test_admin_actions_extend_pause_resume_and_resolve(organiser, make_game):
    game = make_game(humans=3)
    before = open_phase(game).deadline
    url = reverse("admin:games_game_changelist")
    organiser.post(url, {"action": "extend_24h", "_selected_action": [game.pk]})
    assert (open_phase(game).deadline - before).total_seconds() == 24 * 3600
    organiser.post(url, {"action": "pause", "_selected_action": [game.pk]})
    assert Game.objects.get(pk=game.pk).status == Game.Status.PAUSED
    organiser.post(url, {"action": "resume", "_selected_action": [game.pk]})
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE
    organiser.post(url, {"action": "resolve_now", "_selected_action": [game.pk]})
    assert Phase.objects.get(game=game, number=1).status == Phase.Status.RESOLVED
    assert Order.objects.filter(is_default=True).count() == 3


def test_the_admin_replaces_a_seats_player(organiser, make_game):
    game = make_game(humans=3)
    seat = game.seats.get(number=2)
    response = organiser.post(
        reverse("admin:games_seat_change", args=[seat.pk]), {"new_email": "sub@example.com", "new_name": "Sub"}
    )
    assert response.status_code == 302
    seat.refresh_from_db()
    assert seat.player.email == "sub@example.com"
