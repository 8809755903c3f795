"""The Organiser role (issue 28): a group the project makes with exactly the permissions of an organiser's
routine jobs. A member of it, not a superuser and given nothing by hand, does each job through the admin in
their own league, and reaches nothing of another organiser's league."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from games.leagues import roles, services
from games.leagues.models import Membership, Round
from games.models import Game, Phase, Seat
from tests.support.leagues import first_game, make_league, open_phase_of, organiser_of, started_round
from tests.support.organisers import act, answer, replace_seat, said, two_leagues

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_organiser_group_has_exactly_the_routine_jobs_permissions():
    group = Group.objects.get(name="Organiser")
    held = {(p.content_type.app_label, p.codename) for p in group.permissions.select_related("content_type")}
    assert held == {(app, codename) for app, codenames in roles.PERMISSIONS.items() for codename in codenames}
    assert not any(codename.startswith("delete_") for _, codename in held)
    assert ("games", "change_player") not in held and ("games", "add_game") not in held


def test_an_organiser_draws_extends_pauses_resumes_and_replaces_in_their_league(client):
    ours, theirs = two_leagues()
    client.force_login(organiser_of(ours))
    drawn = act(client, "league", "draw_round_now", ours)
    assert said(drawn) == ["Spring Cup season 1 round 1 drawn: 1 table started."]
    game = Game.objects.get(league_table__round__season__league=ours)
    # The round's page links its game, and the game's page opens.
    round_page = client.get(reverse("admin:leagues_round_change", args=[Round.objects.get().pk]))
    assert reverse("admin:games_game_change", args=[game.pk]) in round_page.content.decode()
    assert client.get(reverse("admin:games_game_change", args=[game.pk])).status_code == 200
    deadline = open_phase_of(game).deadline
    answer(client, act(client, "game", "extend_24h", game, app="games"))
    assert (open_phase_of(game).deadline - deadline).total_seconds() == 24 * 3600
    act(client, "game", "pause", game, app="games")
    game.refresh_from_db()
    assert game.status == Game.Status.PAUSED
    act(client, "game", "resume", game, app="games")
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    seat = Seat.objects.get(game=game, number=0)
    page = replace_seat(client, seat, new_email="new@example.com")
    assert page.status_code == 302
    seat.refresh_from_db()
    assert seat.player is not None and seat.player.email == "new@example.com"
    phase = open_phase_of(game)
    act(client, "game", "resolve_now", game, app="games", confirmed="yes")
    phase.refresh_from_db()
    assert phase.status == Phase.Status.RESOLVED
    away = Membership.objects.get(league=ours, player__email="p2@example.com")
    recorded = client.post(reverse("admin:leagues_vacation_add"), {"membership": away.pk, "days": 2})
    assert recorded.status_code == 302 and away.vacations.get().days == 2
    assert client.get(reverse("admin:leagues_league_console", args=[ours.pk])).status_code == 200
    standings = client.get(reverse("leagues-league", args=[ours.slug]))  # linked from the console
    assert standings.status_code == 200 and "P2" in standings.content.decode()


def test_an_organiser_reaches_nothing_of_another_organisers_league(client):
    ours, theirs = two_leagues()
    game = first_game(started_round(theirs))
    member = Membership.objects.filter(league=theirs).first()
    client.force_login(organiser_of(ours))
    for path in [
        reverse("admin:games_game_change", args=[game.pk]),
        reverse("admin:leagues_league_change", args=[theirs.pk]),
        reverse("admin:leagues_membership_change", args=[member.pk]),
        reverse("admin:games_seat_change", args=[game.seats.first().pk]),
    ]:
        assert client.get(path).status_code == 302, path  # the admin's "no such row": it tells nothing
    assert client.get(reverse("admin:leagues_league_console", args=[theirs.pk])).status_code == 404
    phase = open_phase_of(game)
    asked = act(client, "game", "extend_72h", game, app="games")
    assert str(game) not in asked.content.decode()  # not on the question: it is not theirs
    forged = {f"phase_{game.pk}": str(phase.number), f"deadline_{game.pk}": phase.deadline.isoformat()}
    act(client, "game", "extend_72h", game, app="games", confirmed="yes", **forged)
    act(client, "game", "pause", game, app="games")
    act(client, "game", "resolve_now", game, app="games", confirmed="yes")
    act(client, "league", "draw_round_now", theirs)
    act(client, "membership", "drop", member)
    refused = client.post(reverse("admin:leagues_vacation_add"), {"membership": member.pk, "days": 2})
    assert refused.status_code == 200 and not member.vacations.exists()
    game.refresh_from_db()
    member.refresh_from_db()
    assert open_phase_of(game) == phase and open_phase_of(game).deadline == phase.deadline
    assert game.status == Game.Status.ACTIVE
    assert member.status == Membership.Status.ACTIVE and Round.objects.filter(season__league=theirs).count() == 1
    seat = game.seats.first()
    client.post(reverse("admin:games_seat_change", args=[seat.pk]), {"new_email": "thief@example.com"})
    seat.refresh_from_db()
    assert seat.player is not None and seat.player.email != "thief@example.com"


def test_an_organiser_drops_a_member_and_their_seat_is_offered(client):
    league = make_league(players=4, standby=1)
    game = first_game(started_round(league))
    member = Membership.objects.get(league=league, player=game.seats.get(number=2).player)
    client.force_login(organiser_of(league))
    page = act(client, "membership", "drop", member)
    member.refresh_from_db()
    assert member.status == Membership.Status.DROPPED
    name = member.player.display_name
    assert said(page) == [f"{name} dropped; 1 seat in running games offered to the standby list."]
    assert services.round_games(Round.objects.get()).count() == 1
