"""The organiser's console, one path per job, and names instead of ids (issue 28): a league's round on one page
(tables, phases, deadlines with their time zone, who still owes an order by name, never what anyone
ordered), its buttons running the admin lists' own actions and coming back; the game list filtered by league
and round; dropping a member from their form as from the action; replacing a seat on its page keeping the
league's record and telling the old player."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.urls import reverse

from games.leagues import services
from games.leagues.models import League, Membership, Round, Substitution
from games.models import Phase, Seat
from tests.support.leagues import (
    autopilot,
    first_game,
    make_league,
    open_phase_of,
    organiser_of,
    started_round,
    submit_for,
)
from tests.support.organisers import replace_seat, said

pytestmark = pytest.mark.django_db(transaction=True)


def console(league: League) -> str:
    return reverse("admin:leagues_league_console", args=[league.pk])


def test_the_console_shows_each_table_its_deadline_and_who_still_owes_an_order_by_name(client):
    league = make_league(players=8, time_zone="Europe/Paris")
    round_ = started_round(league)
    game = first_game(round_)
    phase = open_phase_of(game)
    first = phase.owed_seats[0]
    submit_for(game, phase, [first])
    order = game.seats.get(number=first).orders.get().data
    client.force_login(organiser_of(league))
    page = client.get(console(league))
    assert page.status_code == 200
    body = page.content.decode()
    assert phase.name in body and " CET (in " in body  # the league's time zone, named
    owing = [s for s in game.seats.select_related("player") if s.number in phase.owed_seats[1:]]
    assert owing and all(f"seat {s.number + 1}: {s.player.display_name}</li>" in body for s in owing)
    ordered = game.seats.get(number=first).player.display_name
    assert all(str(value) not in body for value in order.values() if len(str(value)) > 3)
    rows = page.context["tables"]
    assert [len(r.seats) for r in rows] == [4, 4] and f"seat {first + 1}: {ordered}" not in rows[0].owing
    assert "[" not in " ".join(s.holder for r in rows for s in r.seats)  # names, never ids


def test_the_consoles_buttons_run_the_lists_actions_and_come_back_with_what_they_did(client):
    league = make_league(players=4)
    game = first_game(started_round(league))
    client.force_login(organiser_of(league))
    here = console(league)
    back = client.post(
        reverse("admin:games_game_changelist"),
        {"action": "pause", "_selected_action": [game.pk], "next": here},
    )
    assert back.status_code == 302 and back["Location"] == here
    assert said(client.get(here)) == [f"Paused 1: {game}."]
    asked = client.post(
        reverse("admin:games_game_changelist"),
        {"action": "resolve_now", "_selected_action": [game.pk], "next": here},
    )
    assert b"Yes, resolve now" in asked.content and f'value="{here}"'.encode() in asked.content
    done = client.post(
        reverse("admin:games_game_changelist"),
        {"action": "resolve_now", "_selected_action": [game.pk], "next": here, "confirmed": "yes"},
    )
    assert done["Location"] == here and Phase.objects.get(game=game, number=1).status == Phase.Status.RESOLVED
    elsewhere = client.post(
        reverse("admin:games_game_changelist"),
        {"action": "resume", "_selected_action": [game.pk], "next": "https://evil.example/"},
    )
    assert elsewhere["Location"] != "https://evil.example/"


def test_the_console_of_another_organisers_league_is_not_found(client):
    ours = make_league(players=4)
    theirs = League.objects.create(name="Autumn", slug="autumn", engine="piraeus")
    client.force_login(organiser_of(ours))
    assert client.get(console(theirs)).status_code == 404


def test_games_are_filtered_by_league_and_round_by_name(client, toy_game):
    league = make_league(players=4, engine=toy_game)
    first = started_round(league)
    autopilot(first_game(first))  # its end closes the round
    second = started_round(league, seed=2)
    client.force_login(organiser_of(league))
    listed = client.get(reverse("admin:games_game_changelist")).content.decode()
    assert "Spring Cup S1 R1" in listed and "Spring Cup S1 R2" in listed  # the round filter's choices, by name
    only = client.get(reverse("admin:games_game_changelist"), {"round": second.pk})
    assert [g.pk for g in only.context["cl"].result_list] == [first_game(second).pk]
    by_league = client.get(reverse("admin:games_game_changelist"), {"league": league.pk})
    assert len(by_league.context["cl"].result_list) == 2
    assert client.get(reverse("admin:games_game_changelist"), {"round": "1 OR 1=1"}).status_code == 200


def test_the_round_page_names_its_players(client):
    league = make_league(players=4)
    round_ = started_round(league)
    client.force_login(organiser_of(league))
    page = client.get(reverse("admin:leagues_round_change", args=[round_.pk])).content.decode()
    names = [s.player.display_name for s in first_game(round_).seats.select_related("player").order_by("number")]
    assert ", ".join(f"{n}. {name}" for n, name in enumerate(names, start=1)) in page


def test_dropping_a_member_in_their_form_does_what_the_drop_action_does(client):
    league = make_league(players=4, standby=1)
    game = first_game(started_round(league))
    member = Membership.objects.select_related("player").get(league=league, player=game.seats.get(number=1).player)
    client.force_login(organiser_of(league))
    change_page = client.get(reverse("admin:leagues_membership_change", args=[member.pk])).content.decode()
    assert 'name="calendar_key"' not in change_page, "the member's feed key is not the organiser's to edit"
    form = {
        "league": league.pk,
        "player": member.player_id,
        "status": "dropped",
        "notify": member.notify,
        "joined_at_0": member.joined_at.strftime("%Y-%m-%d"),
        "joined_at_1": member.joined_at.strftime("%H:%M:%S"),
    }
    page = client.post(reverse("admin:leagues_membership_change", args=[member.pk]), form, follow=True)
    assert page.status_code == 200, page.content.decode()[:3000]
    name = member.player.display_name
    assert f"{name} dropped; 1 seat in running games offered to the standby list." in said(page)
    assert Seat.objects.get(game=game, number=1).player is None  # vacated, its old links dead
    assert Substitution.objects.get().status == Substitution.Status.OFFERED


def test_replacing_a_seat_on_its_page_keeps_the_leagues_record_and_tells_the_old_player(client):
    league = make_league(players=4)
    game = first_game(started_round(league))
    seat = game.seats.select_related("player").get(number=2)
    old = seat.player
    client.force_login(organiser_of(league))
    page = replace_seat(client, seat, follow=True, new_email="new@example.com", new_name="Nova")
    assert f"Seat 3 of {game}: {old.display_name} → Nova (new@example.com)" in said(page)[0]
    assert Membership.objects.get(league=league, player__email="new@example.com").status == Membership.Status.ACTIVE
    assert Membership.objects.get(league=league, player=old).status == Membership.Status.INACTIVE
    record = Substitution.objects.get()
    assert (record.seat_number, record.status, record.standby.player.email) == (2, "claimed", "new@example.com")
    told = [m for m in mail.outbox if m.to == [old.email] and m.tags == ["seat-replaced"]]
    assert len(told) == 1 and "gave your seat" in str(told[0].body) and "/leagues/spring/me/?k=" in str(told[0].body)
    assert Round.objects.get().status == Round.Status.STARTED


def test_a_scheduled_rounds_start_moves_on_its_page_and_a_started_rounds_does_not(client):
    league = make_league(players=8)
    client.force_login(organiser_of(league))
    client.post(
        reverse("admin:leagues_league_changelist"), {"action": "draw_round_tomorrow", "_selected_action": [league.pk]}
    )
    round_ = Round.objects.get()
    url = reverse("admin:leagues_round_change", args=[round_.pk])
    page = client.get(url).content.decode()
    form = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))
    assert 'type="datetime-local" name="starts_at"' in page and 'for="id_starts_at"' in page
    form["starts_at"] = "2030-01-02T20:30"
    assert client.post(url, form).status_code == 302
    round_.refresh_from_db()
    assert round_.starts_at.isoformat() == "2030-01-02T20:30:00+00:00"
    services.start_round(round_.pk)
    assert 'name="starts_at"' not in client.get(url).content.decode()  # started: its start is history


def test_giving_a_seat_to_the_player_who_holds_it_changes_nothing(client):
    league = make_league(players=4)
    game = first_game(started_round(league))
    seat = game.seats.select_related("player").get(number=1)
    key = seat.link_key
    client.force_login(organiser_of(league))
    page = replace_seat(client, seat, follow=True, new_email=seat.player.email)
    assert said(page)[0] == f"{seat.player.email} already holds this seat: nothing was changed."
    seat.refresh_from_db()
    assert seat.link_key == key and not Substitution.objects.exists()
    assert Membership.objects.get(league=league, player=seat.player).status == Membership.Status.ACTIVE
