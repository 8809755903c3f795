"""Forced resolves and vacations are not misses (issue 28). An organiser's *Resolve now* asks first, naming
who has not ordered; before the deadline their default orders are played but excused: no missed turn, no
lost reliability, no step towards losing the seat. A member on a declared vacation who misses a deadline
plays the default order too, excused. A deadline that passed is a miss, whoever resolves it."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.urls import reverse

from games.leagues import services, vacations
from games.leagues.models import LeagueEmail, Membership, Substitution
from games.models import Order, Phase
from games.play import sweep
from tests.support.leagues import (
    first_game,
    make_league,
    open_phase_of,
    organiser_of,
    started_round,
    submit_for,
)
from tests.support.organisers import act, said
from tests.support.phases import headline

pytestmark = pytest.mark.django_db(transaction=True)


def reliability(league) -> dict[str, tuple[int, int]]:
    """(owed, missed) per member's name, in the season's standings."""
    season = services.current_season(league)
    return {person.display_name: (row.owed, row.missed) for row, person in services.named_standings(season)}


def test_resolve_now_asks_first_and_names_who_has_not_ordered(client):
    league = make_league(players=4)
    game = first_game(started_round(league))
    phase = open_phase_of(game)
    submit_for(game, phase, [phase.owed_seats[0]])
    ordered = game.seats.get(number=phase.owed_seats[0]).player
    client.force_login(organiser_of(league))
    asked = act(client, "game", "resolve_now", game, app="games")
    page = asked.content.decode()
    assert "Resolve now?" in page and "is not counted against anyone" in page
    waiting = [game.seats.get(number=n).player.display_name for n in phase.owed_seats[1:]]
    # Whole words of the page, its random values (the CSP nonce, the CSRF token) left out: either may spell "P2".
    words = set(re.findall(r"\w+", re.sub(r'(nonce|value)="[^"]*"', "", page)))
    assert waiting and all(name in words for name in waiting) and ordered.display_name not in words
    phase.refresh_from_db()
    assert phase.status == Phase.Status.OPEN  # asking changed nothing
    confirm = {"action": "resolve_now", "_selected_action": [game.pk], "confirmed": "yes"}
    done = client.post(reverse("admin:games_game_changelist"), confirm, follow=True)
    phase.refresh_from_db()
    assert phase.status == Phase.Status.RESOLVED
    assert said(done) == [f"Resolved 1: {game}."]


def test_four_early_resolves_make_nobody_inactive_and_cost_no_reliability(client):
    league = make_league(players=4, standby=1, substitute_after=3, grace=timedelta(0))
    game = first_game(started_round(league))
    client.force_login(organiser_of(league))
    confirm = {"action": "resolve_now", "_selected_action": [game.pk], "confirmed": "yes"}
    for _ in range(4):
        client.post(reverse("admin:games_game_changelist"), confirm)
    assert Order.objects.filter(seat__game=game, is_default=True, excused=True).count() >= 4
    assert not Order.objects.filter(seat__game=game, is_default=True, excused=False).exists()
    assert set(Membership.objects.filter(league=league).values_list("status", flat=True)) == {"active", "standby"}
    assert not Substitution.objects.exists() and not LeagueEmail.objects.filter(kind="member-inactive").exists()
    assert not any("missed" in headline(m) for m in mail.outbox)
    assert all(missed == 0 for _, missed in reliability(league).values())


def test_a_deadline_that_passed_is_a_miss_even_when_the_organiser_resolves_it(client):
    league = make_league(players=4, grace=timedelta(0))
    game = first_game(started_round(league))
    phase = open_phase_of(game)
    absent = phase.owed_seats[0]
    submit_for(game, phase, phase.owed_seats[1:])
    phase.deadline = phase.opened_at - timedelta(seconds=1)  # one seat short, and the deadline has passed
    phase.save(update_fields=["deadline"])
    client.force_login(organiser_of(league))
    confirm = {"action": "resolve_now", "_selected_action": [game.pk], "confirmed": "yes"}
    client.post(reverse("admin:games_game_changelist"), confirm)
    missed = Order.objects.get(phase=phase, seat__number=absent)
    assert (missed.is_default, missed.excused) == (True, False)
    assert reliability(league)[game.seats.get(number=absent).player.display_name][1] == 1


def test_a_member_on_vacation_plays_the_default_and_it_is_no_miss():
    league = make_league(players=4, substitute_after=2, grace=timedelta(0), vacation_cap_days=1)
    game = first_game(started_round(league))
    away = Membership.objects.get(league=league, player=game.seats.get(number=0).player)
    vacations.declare(away, 10)  # longer than the cap: the deadlines come back while they are away
    for _ in range(3):
        phase = open_phase_of(game)
        submit_for(game, phase, [n for n in phase.owed_seats if n != 0])
        phase.refresh_from_db()
        if phase.status == Phase.Status.OPEN:
            sweep.run(now=phase.deadline + timedelta(seconds=1))
    mine = Order.objects.filter(seat__game=game, seat__number=0, is_default=True)
    assert mine.exists() and not mine.filter(excused=False).exists()
    away.refresh_from_db()
    assert away.status == Membership.Status.ACTIVE and not Substitution.objects.exists()
    assert reliability(league)[away.player.display_name] == (0, 0)
