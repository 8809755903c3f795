"""The organiser's day in the admin (issue 38): one time zone, the league's, named on every page and read by
every form; people and games by name, never by id; the consoles linked from the admin's home; a console
address that is no league's is not found; a dropped member is told, a newcomer seated from the Seat page is
welcomed; recording a vacation from the console offers that league's members only."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from django.core import mail
from django.urls import reverse

from games.leagues.models import League, Membership, Round
from games.models import Game
from games.play import turns
from tests.support.leagues import first_game, make_league, open_phase_of, organiser_of, started_round, submit_for
from tests.support.organisers import act, replace_seat

pytestmark = pytest.mark.django_db(transaction=True)

PARIS = "Europe/Paris"


def test_a_console_address_that_is_no_league_is_not_found(client):
    league = make_league(players=4)
    client.force_login(organiser_of(league))
    for league_id in ("abc", "1x", "1/2", "99999"):
        assert client.get(f"/admin/leagues/league/{league_id}/console/").status_code == 404, league_id
    assert client.get(reverse("admin:leagues_league_console", args=[league.pk])).status_code == 200


def test_the_admin_home_links_the_console_of_each_of_the_organisers_leagues_only(client):
    ours = make_league(players=4, time_zone=PARIS)
    League.objects.create(name="Autumn Cup", slug="autumn", engine="piraeus")
    client.force_login(organiser_of(ours))
    home = client.get(reverse("admin:index")).content.decode()
    assert f'href="{reverse("admin:leagues_league_console", args=[ours.pk])}"' in home
    assert "Spring Cup: console" in home and "Autumn Cup" not in home


def test_every_organiser_page_speaks_the_leagues_time_zone_and_names_it(client):
    league = make_league(players=4, time_zone=PARIS)
    game = first_game(started_round(league))
    client.force_login(organiser_of(league))
    deadline = open_phase_of(game).deadline.astimezone(ZoneInfo(PARIS))
    local = f"{deadline:%H:%M} {deadline.tzname()}"
    pages = [
        reverse("admin:index"),
        reverse("admin:games_game_changelist"),
        reverse("admin:games_game_change", args=[game.pk]),
        reverse("admin:games_phase_changelist"),
        reverse("admin:leagues_round_change", args=[Round.objects.get().pk]),
        reverse("admin:leagues_league_console", args=[league.pk]),
        reverse("admin:leagues_membership_changelist"),
    ]
    for path in pages:
        assert f"Times are in {PARIS}" in client.get(path).content.decode(), path
    for path in pages[1:3]:
        assert local in client.get(path).content.decode(), path
    asked = act(client, "game", "resolve_now", game, app="games").content.decode()
    assert local in asked and " UTC" not in asked


def test_a_rounds_start_is_typed_and_read_in_the_leagues_time_zone(client):
    league = make_league(players=8, time_zone=PARIS)
    client.force_login(organiser_of(league))
    act(client, "league", "draw_round_tomorrow", league)
    round_ = Round.objects.get()
    url = reverse("admin:leagues_round_change", args=[round_.pk])
    page = client.get(url).content.decode()
    assert f"In {PARIS}, as every time on these pages." in page
    form = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))
    assert client.post(url, {**form, "starts_at": "2030-01-02T20:30"}).status_code == 302
    round_.refresh_from_db()
    assert round_.starts_at == datetime(2030, 1, 2, 19, 30, tzinfo=UTC)  # 20:30 in Paris, in winter


def test_people_and_games_are_named_never_numbered(client):
    league = make_league(players=4)
    game = first_game(started_round(league))
    phase = open_phase_of(game)
    submit_for(game, phase, phase.owed_seats[:1])
    client.force_login(organiser_of(league))
    seat = game.seats.select_related("player").get(number=phase.owed_seats[0])
    for model in ("order", "phase", "seat", "outboundemail"):
        page = client.get(reverse(f"admin:games_{model}_changelist")).content.decode()
        assert f"of game {game.pk}" not in page and f"game {game.pk} phase" not in page, model
        assert str(game.name) in page, model
    orders = client.get(reverse("admin:games_order_changelist")).content.decode()
    assert f"seat {seat.number + 1}: {seat.player.display_name}" in orders and phase.name in orders


def test_a_dropped_member_is_told_and_a_newcomer_seated_from_the_seat_page_is_welcomed(client):
    league = make_league(players=4, standby=1)
    game = first_game(started_round(league))
    client.force_login(organiser_of(league))
    leaving = Membership.objects.select_related("player").get(league=league, player=game.seats.get(number=1).player)
    mail.outbox.clear()
    act(client, "membership", "drop", leaving)
    [told] = [m for m in mail.outbox if m.tags == ["member-dropped"]]
    assert told.to == [leaving.player.email]
    assert "dropped you from the league" in str(told.body) and "Spring Cup" in str(told.body)
    seat = game.seats.get(number=2)
    replace_seat(client, seat, new_email="nova@example.com", new_name="Nova")
    [welcome] = [m for m in mail.outbox if m.tags == ["seat-welcome"]]
    assert welcome.to == ["nova@example.com"] and f"seat 3 in {game.title}" in str(welcome.body)
    assert "/leagues/spring/me/?k=" in str(welcome.body)  # their settings page
    assert Game.objects.get(pk=game.pk).seats.get(number=2).player.email == "nova@example.com"


def test_recording_a_vacation_from_the_console_offers_that_leagues_members_only(client):
    ours = make_league(players=4)
    other = League.objects.create(name="Autumn Cup", slug="autumn", engine="piraeus")
    Membership.objects.create(league=other, player=turns.player_for("a@example.com", "Autumn Ann"))
    client.force_login(organiser_of(ours, other))
    console = client.get(reverse("admin:leagues_league_console", args=[ours.pk])).content.decode()
    link = re.search(r'href="([^"]*/vacation/add/[^"]*)">Record a vacation', console)
    assert link is not None
    form = client.get(link.group(1).replace("&amp;", "&")).content.decode()
    assert "P1" in form and "Autumn Ann" not in form
