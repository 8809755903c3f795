"""The league's missed-turn policy (games/leagues/policy.py) through the core's deadline sweep: the first miss
of a game extends its deadline once for everyone; later misses use default orders; misses are counted per
player; a seat missed N times in a row goes to a substitute."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.core import mail
from django.urls import reverse

from games.leagues import services
from games.leagues.models import Membership, Seating, Substitution, Table
from games.leagues.results import reliability, season_standings
from games.models import Game, Order, Phase
from games.play import orders, sweep, turns
from tests.support.leagues import (
    autopilot,
    first_game,
    make_league,
    open_phase_of,
    owed_turns_of,
    play_phase,
    started_round,
    submit_for,
)
from tests.support.phases import headline

pytestmark = pytest.mark.django_db(transaction=True)
GRACE = timedelta(hours=24)


def one_table(**fields: Any) -> Game:
    fields.setdefault("grace", GRACE)
    league = make_league(players=4, **fields)
    return first_game(started_round(league))


def test_the_first_miss_of_a_game_extends_its_deadline_once_for_everyone():
    game = one_table()
    phase = open_phase_of(game)
    submit_for(game, phase, [0, 1, 2])  # seat 3 misses
    deadline = phase.deadline
    sweep.run(now=deadline + timedelta(seconds=1))
    phase.refresh_from_db()
    assert phase.status == Phase.Status.OPEN and phase.deadline == deadline + GRACE
    assert not Order.objects.filter(phase=phase, is_default=True).exists()
    assert Table.objects.get(game=game).grace_used
    # Everyone may still revise during the grace time: a seat that had ordered changes its order.
    orders.submit_order(game.seats.get(number=0), phase.number, {"role": "seller"})
    assert Order.objects.get(phase=phase, seat__number=0).data == {"role": "seller"}

    sweep.run(now=phase.deadline + timedelta(seconds=1))
    phase.refresh_from_db()
    assert phase.status == Phase.Status.RESOLVED
    assert list(Order.objects.filter(phase=phase, is_default=True).values_list("seat__number", flat=True)) == [3]


def test_an_order_that_arrives_in_the_grace_time_is_used_and_is_no_miss():
    game = one_table()
    phase = open_phase_of(game)
    submit_for(game, phase, [0, 1, 2])
    sweep.run(now=phase.deadline + timedelta(seconds=1))
    submit_for(game, open_phase_of(game), [3])
    phase.refresh_from_db()
    assert phase.status == Phase.Status.RESOLVED and not phase.used_defaults


def test_later_misses_of_the_same_game_use_default_orders_at_the_deadline():
    game = one_table()
    play_phase(game, absent=[3])  # the first miss: graced, then defaulted
    phase = open_phase_of(game)
    absent = phase.owed_seats[:1]
    submit_for(game, phase, [n for n in phase.owed_seats if n not in absent])
    deadline = phase.deadline
    sweep.run(now=deadline + timedelta(seconds=1))
    phase.refresh_from_db()
    assert phase.status == Phase.Status.RESOLVED and phase.deadline == deadline  # no second grace
    assert list(Order.objects.filter(phase=phase, is_default=True).values_list("seat__number", flat=True)) == absent


def test_without_grace_the_first_miss_uses_default_orders_at_once():
    game = one_table(grace=timedelta(0))
    phase = open_phase_of(game)
    submit_for(game, phase, [0, 1, 2])
    sweep.run(now=phase.deadline + timedelta(seconds=1))
    phase.refresh_from_db()
    assert phase.status == Phase.Status.RESOLVED and phase.used_defaults
    assert not Table.objects.get(game=game).grace_used


def test_each_game_of_a_round_has_its_own_grace():
    league = make_league(players=8, grace=GRACE)
    round_ = started_round(league)
    games = [t.game for t in round_.tables.order_by("number")]
    first, second = open_phase_of(games[0]), open_phase_of(games[1])
    submit_for(games[0], first, [0, 1, 2])
    submit_for(games[1], second, [0, 1, 2])
    sweep.run(now=max(first.deadline, second.deadline) + timedelta(seconds=1))
    for phase in (first, second):
        phase.refresh_from_db()
        assert phase.status == Phase.Status.OPEN
    assert Table.objects.filter(round=round_, grace_used=True).count() == 2


def test_misses_are_counted_for_the_player_who_held_the_seat():
    # No substitution here: whether seat 3 is owed three phases in a row (and would lose the seat) depends
    # on the random orders, which this test is not about.
    game = one_table(substitute_after=0)
    table = Table.objects.get(game=game)
    missed_by = {0: 0, 3: 0}
    owed = dict.fromkeys(range(4), 0)
    for turn in range(4):
        phase = open_phase_of(game)
        absent = [n for n in phase.owed_seats if n == 3 or (n == 0 and turn == 2)]
        play_phase(game, absent=absent)
        for n in phase.owed_seats:
            owed[n] += 1
        for n in absent:
            missed_by[n] += 1
    player = {s.seat_number: s.player_id for s in Seating.objects.filter(table=table)}
    counts = reliability([table])
    for number in range(4):
        assert counts[player[number]] == (owed[number], missed_by.get(number, 0))
    rows = {r.player_id: r for r in season_standings(table.round.season)}
    assert rows[player[3]].reliability == pytest.approx(1 - missed_by[3] / owed[3])
    assert rows[player[1]].reliability == 1.0


def test_a_seat_missed_n_times_in_a_row_goes_to_the_first_standby_player():
    league = make_league(players=4, standby=2, grace=GRACE, substitute_after=2)
    game = first_game(started_round(league))
    holder = game.seats.get(number=3).player
    assert holder is not None
    asked = owed_turns_of(game, 3, [True, True])
    offer = Substitution.objects.get()
    assert offer.seat_number == 3 and offer.status == Substitution.Status.OFFERED
    assert offer.standby is not None and offer.standby.player.email == "s1@example.com"
    seating = Seating.objects.get(table__game=game, seat_number=3, player=holder)
    assert seating.until_phase == asked[-1].number  # the holder answers for the phases up to the drop
    message = next(m for m in mail.outbox if m.to == ["s1@example.com"])
    assert "seat is free" in headline(message) and "/leagues/claim/" in str(message.body)


def test_misses_that_are_not_in_a_row_keep_the_seat():
    league = make_league(players=4, standby=1, grace=GRACE, substitute_after=2)
    game = first_game(started_round(league))
    owed_turns_of(game, 3, [True, False, True])
    assert not Substitution.objects.exists()
    assert Seating.objects.get(table__game=game, seat_number=3).until_phase is None


def test_substitute_after_zero_never_takes_a_seat():
    league = make_league(players=4, standby=1, grace=GRACE, substitute_after=0)
    game = first_game(started_round(league))
    owed_turns_of(game, 3, [True, True, True])
    assert not Substitution.objects.exists()


def test_the_grace_keeps_a_daily_deadline_at_its_local_time_across_the_dst_change():
    game = one_table(time_zone="Europe/Paris")
    saturday = datetime(2026, 3, 28, 20, 0, tzinfo=ZoneInfo("Europe/Paris"))
    Phase.objects.filter(game=game, status=Phase.Status.OPEN).update(deadline=saturday)
    phase = open_phase_of(game)
    submit_for(game, phase, [0, 1, 2])
    sweep.run(now=saturday + timedelta(seconds=1))
    phase.refresh_from_db()
    assert phase.status == Phase.Status.OPEN
    assert phase.deadline.astimezone(ZoneInfo("Europe/Paris")).replace(tzinfo=None) == datetime(2026, 3, 29, 20, 0)
    assert phase.deadline - saturday == timedelta(hours=23)


@pytest.mark.parametrize("in_league", [False, True])
def test_the_policy_finds_a_games_league_table_without_a_query_of_its_own(in_league, make_game, monkeypatch):
    """The resolution reads the league table with the phase it locks (the path the leagues app registers
    with games.extensions), so the phase_opened receiver looks nothing up, in a league or outside one."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    game = one_table() if in_league else make_game(humans=4, seed=7)
    phase = open_phase_of(game)
    submit_for(game, phase, [n for n in phase.owed_seats if n != 0])
    with monkeypatch.context() as patch:
        patch.setattr(turns, "after_commit", lambda *args: None)
        with CaptureQueriesContext(connection) as queries:
            assert turns.resolve_phase(phase.pk, use_defaults=True)
    lookups = [q["sql"] for q in queries.captured_queries if q["sql"].startswith('SELECT "leagues_table"')]
    assert lookups == []


def test_a_member_substituted_for_missing_turns_is_drawn_no_more_until_they_say_they_are_back(client, admin_client):
    league = make_league(players=4, standby=1, grace=GRACE, substitute_after=2)
    first = first_game(started_round(league, seed=1))
    holder = first.seats.get(number=3).player
    assert holder is not None
    mail.outbox.clear()
    owed_turns_of(first, 3, [True, True])
    member = Membership.objects.get(league=league, player=holder)
    assert member.status == Membership.Status.INACTIVE
    [notice] = [m for m in mail.outbox if m.to == [holder.email] and m.tags == ["member-inactive"]]
    assert first.name in headline(notice) and "substitute" in headline(notice)
    body = str(notice.body)
    assert "missed 2 turns in a row" in body and "I'm back, draw me again" in body
    found = re.search(r"https://pbem\.example(/leagues/spring/me/\?k=\S+)", body)
    assert found is not None

    autopilot(first)  # its end closes the round
    assert services.finish_rounds() == 0
    second = started_round(league, seed=2)
    assert [holder.pk not in t.players for t in second.tables.all()] == [True]  # a table of the other three
    page = client.get(reverse("leagues-league", args=[league.slug])).content.decode()
    assert 'title="not drawn for new rounds">inactive</span>' in page
    listed = admin_client.get(reverse("admin:leagues_membership_changelist"), {"status__exact": "inactive"})
    assert listed.status_code == 200 and [m.pk for m in listed.context["cl"].result_list] == [member.pk]
    rows = {row.player_id: row for row in season_standings(second.season)}
    assert rows[holder.pk].games == 0 and rows[holder.pk].missed == 2  # still in the standings, misses shown

    assert client.get(found.group(1)).status_code == 302  # the link from the email signs them in
    settings_page = client.get(reverse("leagues-member", args=[league.slug])).content.decode()
    assert "You are not being drawn for new rounds" in settings_page
    back = client.post(reverse("leagues-member", args=[league.slug]), {"back": "1"}, follow=True)
    assert "Welcome back" in back.content.decode() and "I&#x27;m back" not in back.content.decode()
    assert Membership.objects.get(pk=member.pk).status == Membership.Status.ACTIVE
    autopilot(first_game(second))
    assert services.finish_rounds() == 0
    third = started_round(league, seed=3)
    assert holder.pk in [p for t in third.tables.all() for p in t.players]


def test_an_inactive_member_can_also_come_back_by_signing_up_again():
    league = make_league(players=4, grace=GRACE, substitute_after=1)
    game = first_game(started_round(league))
    member = Membership.objects.select_related("player").get(league=league, player=game.seats.get(number=3).player)
    owed_turns_of(game, 3, [True])
    member.refresh_from_db()
    assert member.status == Membership.Status.INACTIVE
    mail.outbox.clear()
    services.request_signup(league, member.player.email, "", "UTC")
    link = re.search(r"https://pbem\.example/leagues/confirm/(\S+)/", str(mail.outbox[0].body))
    assert link is not None
    assert services.confirm_signup(link.group(1)).status == Membership.Status.ACTIVE


def test_the_grace_tells_every_player_of_the_game_the_moved_deadline():
    game = one_table()
    Membership.objects.filter(player__email="p1@example.com").update(notify=Membership.Notify.OWED)
    phase = open_phase_of(game)
    late = game.seats.get(player__email="p1@example.com").number
    submit_for(game, phase, [n for n in phase.owed_seats if n != late])
    mail.outbox.clear()
    sweep.run(now=phase.deadline + timedelta(seconds=1))
    phase.refresh_from_db()
    told = {m.to[0]: str(m.body) for m in mail.outbox if m.tags == ["deadline-moved"]}
    assert sorted(told) == [f"p{i}@example.com" for i in range(1, 5)]  # p1 owes, so "only when owed" is told
    when = phase.deadline.strftime("%A %-d %B %Y, %H:%M") + " (UTC)"
    assert all(when in body and "grace" in body for body in told.values())
    assert "still owed" in told["p1@example.com"] and "https://pbem.example/l/" in told["p1@example.com"]
    assert not any("still owed" in body for email, body in told.items() if email != "p1@example.com")
    mail.outbox.clear()
    sweep.run(now=phase.deadline + timedelta(seconds=1))  # the second miss: no grace, no news
    assert not [m for m in mail.outbox if m.tags == ["deadline-moved"]]
