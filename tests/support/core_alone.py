"""The core with its plug-in apps (the leagues, table talk, the API, ...) removed from INSTALLED_APPS, run by
tests/test_core_alone.py in a pytest of its own (tests/support/settings_core_alone.py): nothing in the core names
them, it only reads what an app registers with games.extensions."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core import mail
from django.urls import reverse

from games import extensions
from games.models import Game, Order, OutboundEmail, Phase, Receipt
from games.outgoing import emails
from games.outgoing.links import make_token
from games.play import sweep, turns
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)  # tasks run inline after each commit


def test_no_plug_in_is_installed_and_none_registers_anything() -> None:
    assert not apps.is_installed("games.leagues") and not apps.is_installed("games.talk")
    assert extensions.phase_related() == ["game"]
    assert extensions.games_of(None) == [] and extensions.players_of(None) == []
    assert extensions.game_options() == [] and extensions.turn_email_sections() == []
    # The core's own outboxes, registered the way an app's is: the only ones.
    assert [outbox.model for outbox in extensions.outboxes()] == [OutboundEmail, Receipt]


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


def test_the_game_page_shows_no_table_talk_and_its_urls_are_gone(client, make_game) -> None:
    game = make_game(humans=3)
    seat = game.seats.get(number=0)
    assert client.get(reverse("games-link", args=[make_token(seat, open_phase(game))])).status_code == 302
    page = client.get(reverse("games-game", args=[game.pk]))
    assert page.status_code == 200 and page.context["panels"] == [] and b"Table talk" not in page.content
    assert client.post(f"/games/{game.pk}/talk/", {"text": "hello"}).status_code == 404


def test_turn_emails_are_sent_without_a_table_talk_section(make_game) -> None:
    game = make_game(humans=3)
    emails.send_pending(game.pk)
    sent = OutboundEmail.objects.filter(game=game, kind=OutboundEmail.Kind.TURN_STARTED)
    assert sent.count() == 3 and set(sent.values_list("status", flat=True)) == {"sent"}
    assert mail.outbox and not any("Table talk" in message.body for message in mail.outbox)
