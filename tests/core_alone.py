"""The core with the leagues app removed from INSTALLED_APPS, run by tests/test_core_alone.py in a pytest
of its own (tests/settings_core_alone.py): nothing in the core names the leagues, it only reads what an app
registers with games.extensions."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.urls import reverse

from games import extensions
from games.models import Game, Order, Phase
from games.play import sweep, turns
from tests.conftest import open_phase

pytestmark = pytest.mark.django_db(transaction=True)  # tasks run inline after each commit


def test_the_leagues_app_is_not_installed_and_registers_nothing() -> None:
    assert not apps.is_installed("games.leagues")
    assert extensions.phase_related() == ["game"]
    assert extensions.games_of(None) == [] and extensions.players_of(None) == []


def test_a_game_of_bots_plays_to_its_end(make_game) -> None:
    game = make_game(humans=0, bots=4)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert len(game.result) == 4


def test_the_sweep_resolves_an_overdue_phase_with_default_orders(make_game) -> None:
    game = make_game(humans=3)
    phase = open_phase(game)
    sweep.run(now=phase.deadline + timedelta(seconds=1))
    phase.refresh_from_db()
    assert phase.status == Phase.Status.RESOLVED
    assert Order.objects.filter(phase=phase, is_default=True).count() == len(phase.owed_seats)


def test_a_staff_organiser_sees_only_the_games_they_started_and_their_players(client, make_game) -> None:
    theirs, other = make_game(humans=3), make_game(humans=3, title="Someone else's")
    other.seats.filter(number=0).update(player=turns.player_for("stranger@example.com"))
    user = get_user_model().objects.create_user("org", "org@example.com", "pw", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(content_type__app_label="games"))
    Game.objects.filter(pk=theirs.pk).update(started_by=user)
    client.force_login(user)
    games = client.get(reverse("admin:games_game_changelist")).context["cl"].queryset
    players = client.get(reverse("admin:games_player_changelist")).context["cl"].queryset
    assert set(games.values_list("pk", flat=True)) == {theirs.pk}
    assert "stranger@example.com" not in set(players.values_list("email", flat=True))
    assert players.count() == 3


def test_no_league_page_is_served(client) -> None:
    assert client.get("/leagues/spring/").status_code == 404
