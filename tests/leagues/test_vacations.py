"""Vacations (games/leagues/vacations.py): an allowance of days per season; a vacation moves the deadlines of
the player's running games by the days away in the league's calendar, within the league's cap per game;
organisers see who is away; the player gets a confirmation in their own time zone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.contrib.admin.sites import site
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from games.leagues import emails, services, vacations
from games.leagues.models import League, Membership, Table, Vacation
from games.models import Game, Phase
from tests.support.leagues import autopilot, make_league, open_phase_of, started_round, submit_for
from tests.support.phases import headline

pytestmark = pytest.mark.django_db(transaction=True)
PARIS = ZoneInfo("Europe/Paris")  # summer time from Sunday 2026-03-29
NEW_YORK = ZoneInfo("America/New_York")  # summer time from Sunday 2026-03-08


def member(league: League, email: str = "p1@example.com") -> Membership:
    return Membership.objects.select_related("player", "league").get(league=league, player__email=email)


def games_of(membership: Membership) -> list[Game]:
    return list(Game.objects.filter(seats__player=membership.player, league_table__isnull=False))


def deadline_of(game: Game) -> datetime:
    return open_phase_of(game).deadline


def test_a_vacation_moves_the_deadlines_of_the_players_games_only():
    league = make_league(players=8, vacation_days=10, vacation_cap_days=7)
    round_ = started_round(league)
    me = member(league)
    mine = games_of(me)[0]
    other = Table.objects.filter(round=round_).exclude(game=mine).get().game
    assert other is not None
    before = {mine.pk: deadline_of(mine), other.pk: deadline_of(other)}
    vacation, extended = vacations.declare(me, 3)
    assert [(e.table.game_id, e.days) for e in extended] == [(mine.pk, 3)]
    assert deadline_of(mine) == before[mine.pk] + timedelta(days=3)  # UTC league: plain days
    assert deadline_of(other) == before[other.pk]
    assert vacations.days_used(me) == 3 and vacation.days == 3
    assert Table.objects.get(game=mine).vacation_added == timedelta(days=3)


def test_the_cap_per_game_limits_what_vacations_add_to_one_game():
    league = make_league(players=4, vacation_days=20, vacation_cap_days=7)
    game = started_round(league).tables.get().game
    assert game is not None
    start = deadline_of(game)
    vacations.declare(member(league, "p1@example.com"), 5)
    _, extended = vacations.declare(member(league, "p2@example.com"), 5)  # another player, the same game
    assert [e.days for e in extended] == [2]  # 5 + 2 = the cap of 7
    _, extended = vacations.declare(member(league, "p3@example.com"), 3)
    assert extended == []
    assert deadline_of(game) == start + timedelta(days=7)
    assert vacations.days_used(member(league, "p3@example.com")) == 3  # the days still count as taken


def test_a_vacation_longer_than_the_cap_extends_each_game_by_the_cap():
    league = make_league(players=4, vacation_days=20, vacation_cap_days=7)
    game = started_round(league).tables.get().game
    assert game is not None
    start = deadline_of(game)
    _, extended = vacations.declare(member(league), 10)
    assert [e.days for e in extended] == [7]
    assert deadline_of(game) == start + timedelta(days=7)


def test_the_allowance_per_season_is_enforced_and_a_refusal_changes_nothing():
    league = make_league(players=4, vacation_days=5, vacation_cap_days=30)
    game = started_round(league).tables.get().game
    assert game is not None
    me = member(league)
    vacations.declare(me, 4)
    deadline = deadline_of(game)
    mail.outbox.clear()
    with pytest.raises(services.LeagueError, match="1 vacation day"):
        vacations.declare(me, 2)
    with pytest.raises(services.LeagueError, match="at least one day"):
        vacations.declare(me, 0)
    assert Vacation.objects.count() == 1 and deadline_of(game) == deadline and not mail.outbox
    autopilot(game)  # the round ends,
    services.start_season(league)  # and a new season brings a new allowance
    assert vacations.days_used(me) == 0
    vacations.declare(me, 5)


def test_a_vacation_in_the_league_time_zone_keeps_a_daily_deadline_at_its_local_time_across_dst():
    league = make_league(players=4, time_zone="Europe/Paris", vacation_cap_days=7)
    game = started_round(league).tables.get().game
    assert game is not None
    friday = datetime(2026, 3, 27, 20, 0, tzinfo=PARIS)  # winter time, 19:00 UTC
    Phase.objects.filter(game=game, status=Phase.Status.OPEN).update(deadline=friday)
    vacations.declare(member(league), 3, now=datetime(2026, 3, 27, 9, 0, tzinfo=UTC))
    moved = deadline_of(game)
    assert moved.astimezone(PARIS).replace(tzinfo=None) == datetime(2026, 3, 30, 20, 0)
    assert moved - friday == timedelta(hours=71)  # Sunday had 23 hours


def test_the_vacation_starts_on_the_league_calendars_day():
    league = make_league(players=4, time_zone="Pacific/Auckland")
    started_round(league)
    late_evening_utc = datetime(2026, 6, 1, 23, 30, tzinfo=UTC)  # already 2 June in Auckland
    vacation, _ = vacations.declare(member(league), 2, now=late_evening_utc)
    assert vacation.starts_on.isoformat() == "2026-06-02" and vacation.ends_on.isoformat() == "2026-06-04"


def test_the_confirmation_email_shows_the_new_deadline_in_the_players_own_time_zone():
    league = make_league(players=4, time_zone="Europe/Paris")
    game = started_round(league).tables.get().game
    assert game is not None
    me = member(league)
    me.player.time_zone = "America/New_York"
    me.player.save()
    Phase.objects.filter(game=game, status=Phase.Status.OPEN).update(
        deadline=datetime(2026, 3, 27, 20, 0, tzinfo=PARIS)
    )
    mail.outbox.clear()
    vacations.declare(me, 3, now=datetime(2026, 3, 27, 9, 0, tzinfo=UTC))
    [message] = [m for m in mail.outbox if m.to == ["p1@example.com"]]  # the others are told too (below)
    assert message.to == ["p1@example.com"] and "Vacation of 3 days confirmed" in headline(message)
    # Monday 30 March 20:00 in Paris (UTC+2) is 14:00 in New York (UTC-4).
    assert "Monday 30 March 2026, 14:00" in str(message.body)
    assert game.name in str(message.body)


def test_organisers_see_who_is_away_on_the_league_page_and_in_the_admin(client, admin_client):
    league = make_league(players=4)
    started_round(league)
    away = member(league, "p2@example.com")
    vacations.declare(away, 3)
    page = client.get(reverse("leagues-league", args=[league.slug])).content.decode()
    assert "Away now: P2" in page
    admin = site._registry[Membership]
    flags = {m.player.email: admin.away_now(m) for m in Membership.objects.filter(league=league)}
    assert flags == {"p1@example.com": False, "p2@example.com": True, "p3@example.com": False, "p4@example.com": False}
    listing = admin_client.get(reverse("admin:leagues_membership_changelist"))
    assert listing.status_code == 200 and "away now" in listing.content.decode().lower()
    # Away ends with the vacation (days counted in the league's calendar).
    later = (timezone.now() + timedelta(days=3)).date()
    assert not vacations.away_on(away, later)


def test_a_member_declares_a_vacation_from_their_settings_page(client):
    league = make_league(players=4, vacation_days=5)
    game = started_round(league).tables.get().game
    assert game is not None
    me = member(league)
    deadline = deadline_of(game)
    url = reverse("leagues-member", args=[league.slug])
    assert client.get(emails.settings_url(me).removeprefix("https://pbem.example"))["Location"] == url
    response = client.post(url, {"vacation": "1", "days": "2"})
    assert response.status_code == 302
    assert deadline_of(game) == deadline + timedelta(days=2)
    refused = client.post(url, {"vacation": "1", "days": "4"})
    assert refused.status_code == 400 and "3 vacation days left" in refused.content.decode()
    assert deadline_of(game) == deadline + timedelta(days=2)


def test_a_vacation_tells_the_other_players_of_each_game_the_new_deadline_in_their_own_time_zone():
    league = make_league(players=4, time_zone="Europe/Paris")
    game = started_round(league).tables.get().game
    assert game is not None
    new_york = member(league, "p2@example.com").player
    new_york.time_zone = "America/New_York"
    new_york.save()
    Membership.objects.filter(player__email="p4@example.com").update(notify=Membership.Notify.OWED)
    Phase.objects.filter(game=game, status=Phase.Status.OPEN).update(
        deadline=datetime(2026, 3, 27, 20, 0, tzinfo=PARIS)
    )
    phase = open_phase_of(game)
    for email in ("p3@example.com", "p4@example.com"):  # their orders are in
        submit_for(game, phase, [game.seats.get(player__email=email).number])
    mail.outbox.clear()
    vacations.declare(member(league), 3, now=datetime(2026, 3, 27, 9, 0, tzinfo=UTC))

    told = {m.to[0]: m for m in mail.outbox if m.tags == ["deadline-moved"]}
    # p1 is the one away (their confirmation says it all); p4 owes nothing and asked for emails only then.
    assert sorted(told) == ["p2@example.com", "p3@example.com"]
    assert [m.tags for m in mail.outbox if m.to == ["p1@example.com"]] == [["vacation-confirmed"]]
    # Monday 30 March 20:00 in Paris is 14:00 in New York and 18:00 UTC.
    ny, utc = str(told["p2@example.com"].body), str(told["p3@example.com"].body)
    assert "P1 is on vacation" in ny and game.name in ny
    assert "Monday 30 March 2026, 14:00 (America/New_York)" in ny and "14:00 EDT" in headline(told["p2@example.com"])
    assert "Monday 30 March 2026, 18:00 (UTC)" in utc
    assert "still owed" in ny and "https://pbem.example/l/" in ny  # p2 owes an order: its link again
    assert "still owed" not in utc and "/l/" not in utc
    html = told["p2@example.com"].alternatives[0][0]
    assert "Monday 30 March 2026, 14:00" in html and "https://pbem.example/l/" in html


def test_a_vacation_that_moves_no_deadline_tells_nobody_else():
    league = make_league(players=4, vacation_cap_days=2)
    game = started_round(league).tables.get().game
    assert game is not None
    vacations.declare(member(league, "p2@example.com"), 2)  # the cap is used up
    mail.outbox.clear()
    _, extended = vacations.declare(member(league), 3)
    assert extended == [] and [m.to for m in mail.outbox] == [["p1@example.com"]]
