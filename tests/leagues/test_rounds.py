"""Leagues on the database: rounds drawn and started, emails, the public page, CSV, calendar, admin."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse
from django.utils import timezone
from icalendar import Calendar

from games.leagues import services
from games.leagues.models import Round, Seating, Table
from games.models import Game, OutboundEmail
from games.play import orders, organise
from tests.support.leagues import first_game, make_league, open_phase_of, started_round
from tests.support.organisers import answer
from tests.support.phases import headline

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_drawn_round_waits_for_its_start_time_then_creates_the_games_and_emails():
    league = make_league(players=8)
    season = services.current_season(league)
    start = timezone.now() + timedelta(hours=2)
    round_ = services.generate_round(season, starts_at=start, seed=5)
    tables = list(round_.tables.all())
    assert sorted(len(t.players) for t in tables) == [4, 4]
    assert all(t.game is None for t in tables)
    assert services.start_due_rounds(now=timezone.now()) == 0
    assert services.start_due_rounds(now=start) == 1
    round_.refresh_from_db()
    assert round_.status == Round.Status.STARTED
    games = Game.objects.filter(league_table__round=round_)
    assert games.count() == 2
    kinds = sorted(m.tags[0] for m in mail.outbox)  # anymail's test backend keeps the tags
    assert kinds.count("turn-started") >= 2
    subjects = [headline(m) for m in mail.outbox]
    assert sum("Season 1, round 1 has started" in s for s in subjects) == 8
    assert Seating.objects.filter(table__round=round_).count() == 8
    assert services.start_due_rounds(now=start) == 0  # once only


def test_round_started_email_lists_the_players_table():
    league = make_league(players=6)
    round_ = started_round(league)
    table = Table.objects.get(round=round_)
    message = next(m for m in mail.outbox if m.to == ["p1@example.com"] and "has started" in headline(m))
    assert f"Table {table.number}" in message.body and "P2" in message.body


def test_a_new_round_waits_until_the_current_one_is_over():
    league = make_league(players=6)
    started_round(league)
    with pytest.raises(services.LeagueError, match="not finished"):
        services.generate_round(services.current_season(league))


def test_too_few_players_for_a_table_is_a_clear_error_and_draws_nothing():
    league = make_league(players=2)
    with pytest.raises(services.LeagueError, match="cannot be seated"):
        services.generate_round(services.current_season(league))
    assert not Round.objects.exists()


def test_the_league_page_shows_standings_rounds_and_links_to_the_public_log(client):
    league = make_league(players=6)
    round_ = started_round(league)
    game = first_game(round_)
    page = client.get(reverse("leagues-league", args=[league.slug]))
    assert page.status_code == 200
    body = page.content.decode()
    assert "Spring Cup" in body and "P1" in body and reverse("games-game", args=[game.pk]) in body
    assert league.invite_key not in body
    # Nobody has finished a game yet: no average place to show, rather than 0.00 (better than any real one).
    assert body.count('<td data-label="Avg. place">—</td>') == 6


PUBLIC = ["leagues-league", "leagues-standings-csv", "leagues-results-csv"]


def test_the_public_pages_and_csv_reveal_no_hand_or_sealed_order(client):
    league = make_league(players=6)
    game = first_game(started_round(league))
    phase = open_phase_of(game)
    seat = game.seats.get(number=0)
    orders.submit_order(seat, phase.number, {"role": "seller"})
    hand = set(game.state["hands"][0])
    bodies = [client.get(reverse(url, args=[league.slug])).content.decode() for url in PUBLIC]
    bodies += [m.body for m in mail.outbox if "has started" in headline(m)]
    for body in bodies:
        assert "seller" not in body
        assert not any(card in body for card in hand)


def test_calendar_feed_lists_the_players_owed_deadlines_behind_a_secret_address(client):
    league = make_league(players=6)
    game = first_game(started_round(league))
    phase = open_phase_of(game)
    member = league.memberships.get(player__email="p1@example.com")
    response = client.get(reverse("leagues-calendar", args=[member.calendar_key]))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/calendar")
    events = Calendar.from_ical(response.content).walk("VEVENT")
    assert len(events) == 1
    assert events[0].decoded("dtend") == phase.deadline.replace(microsecond=0)
    assert game.name in str(events[0]["summary"])
    assert client.get(reverse("leagues-calendar", args=["guessed"])).status_code == 404


def test_bulk_actions_extend_pause_and_resume_a_whole_round():
    league = make_league(players=8)
    round_ = started_round(league)
    before = {g.pk: open_phase_of(g).deadline for g in services.round_games(round_)}
    games = list(services.round_games(round_).order_by("pk"))
    shown = {g.pk: organise.Shown(open_phase_of(g).number, before[g.pk]) for g in games}
    assert services.extend_round(round_, timedelta(hours=24), shown) == (games, [])
    for game in services.round_games(round_):
        assert open_phase_of(game).deadline == before[game.pk] + timedelta(hours=24)
    assert services.pause_round(round_) == (games, [])
    assert set(services.round_games(round_).values_list("status", flat=True)) == {Game.Status.PAUSED}
    assert services.resume_round(round_) == (games, [])
    assert set(services.round_games(round_).values_list("status", flat=True)) == {Game.Status.ACTIVE}


@pytest.fixture
def organiser(client):
    client.force_login(get_user_model().objects.create_superuser("org", "org@example.com", "pw"))
    return client


def test_every_league_admin_page_opens_and_the_round_actions_work(organiser):
    league = make_league(players=6, standby=1)
    round_ = started_round(league)
    for model in ["league", "season", "round", "membership", "vacation", "substitution", "leagueemail"]:
        assert organiser.get(reverse(f"admin:leagues_{model}_changelist")).status_code == 200
    assert organiser.get(reverse("admin:leagues_league_change", args=[league.pk])).status_code == 200
    assert organiser.get(reverse("admin:leagues_round_change", args=[round_.pk])).status_code == 200
    game = first_game(round_)
    deadline = open_phase_of(game).deadline
    asked = organiser.post(
        reverse("admin:leagues_round_changelist"), {"action": "extend_24h", "_selected_action": [round_.pk]}
    )
    answer(organiser, asked)
    assert open_phase_of(game).deadline == deadline + timedelta(hours=24)


def test_the_admin_draws_and_starts_a_round_from_the_league(organiser):
    league = make_league(players=7)
    organiser.post(
        reverse("admin:leagues_league_changelist"), {"action": "draw_round_now", "_selected_action": [league.pk]}
    )
    round_ = Round.objects.get()
    assert round_.status == Round.Status.STARTED
    assert sorted(len(t.players) for t in round_.tables.all()) == [3, 4]


def test_games_outside_leagues_keep_their_own_deadlines(make_game):
    game = make_game(humans=3)
    phase = open_phase_of(game)
    assert phase.deadline - phase.opened_at == timedelta(hours=48)
    assert OutboundEmail.objects.filter(game=game).count() == 3
