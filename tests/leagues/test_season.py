"""A whole small season through the tasks on PostgreSQL (12 players, 3 rounds of Port of Piraeus played by
the core's bots, standings checked against the games' results), and a round started by a real Celery worker
on Redis."""

from __future__ import annotations

import csv
import io
from collections import Counter, defaultdict

import pytest
from django.urls import reverse
from django.utils import timezone

from games.leagues import services
from games.leagues.models import LeagueEmail, Round, Seating, Table
from games.leagues.results import season_standings
from games.leagues.tasks import sweep_leagues
from games.models import Game, OutboundEmail
from tests.support.leagues import autopilot, make_league
from tests.support.workers import wait_for

pytestmark = pytest.mark.django_db(transaction=True)
POINTS = [10, 6, 3, 1]


def expected_points(tables: list[Table]) -> dict[int, float]:
    """Points per player straight from each game's result: the places a tie occupies share their points."""
    totals: dict[int, float] = defaultdict(float)
    for table in tables:
        assert table.game is not None
        holders = Seating.objects.filter(table=table, until_phase__isnull=True, player__isnull=False)
        holder = {s.seat_number: s.player_id or 0 for s in holders}
        by_rank = Counter(row["rank"] for row in table.game.result)
        for row in table.game.result:
            tied = by_rank[row["rank"]]
            places = range(row["rank"] - 1, row["rank"] - 1 + tied)
            totals[holder[row["seat"]]] += sum(POINTS[p] for p in places if p < len(POINTS)) / tied
    return totals


def test_a_season_of_three_rounds_of_bot_games_through_the_tasks(postgres, client):
    league = make_league(players=12, points=POINTS)
    season = services.current_season(league)
    members = set(league.memberships.values_list("player_id", flat=True))
    for number in (1, 2, 3):
        round_ = services.generate_round(season, starts_at=timezone.now(), seed=number)
        assert sweep_leagues.delay().get()["started"] == 1
        round_.refresh_from_db()
        assert round_.status == Round.Status.STARTED
        tables = list(round_.tables.select_related("game"))
        seated = [p for t in tables for p in t.players]
        assert sorted(seated) == sorted(members)  # everyone once
        assert all(3 <= len(t.players) <= 6 for t in tables)
        for table in tables:
            assert table.game is not None
            autopilot(table.game)
        assert set(services.round_games(round_).values_list("status", flat=True)) == {Game.Status.FINISHED}
        assert sweep_leagues.delay().get()["finished"] == 0  # the last game's end closed it already
        round_.refresh_from_db()
        assert round_.status == Round.Status.FINISHED
        assert LeagueEmail.objects.filter(kind="standings", headline__contains=f"after round {number}").count() == 12

    tables = list(Table.objects.filter(round__season=season).select_related("game"))
    assert len(tables) == 6
    rows = season_standings(season)
    expected = expected_points(tables)
    assert {r.player_id: r.points for r in rows} == pytest.approx(dict(expected))
    assert sum(r.points for r in rows) == pytest.approx(sum(POINTS) * len(tables))
    assert all(r.games == 3 for r in rows)
    assert [r.points for r in rows] == sorted((r.points for r in rows), reverse=True)
    assert rows[0].rank == 1 and all(a.rank <= b.rank for a, b in zip(rows, rows[1:], strict=False))
    assert all(r.reliability == 1.0 for r in rows)  # bots never miss a deadline
    assert len({r.rating for r in rows}) > 1  # openskill moved the ratings apart

    standings_csv = list(
        csv.reader(io.StringIO(client.get(reverse("leagues-standings-csv", args=["spring"])).content.decode()))
    )
    assert len(standings_csv) == 13 and standings_csv[1][0] == "1"
    results_csv = client.get(reverse("leagues-results-csv", args=["spring"])).content.decode()
    assert len(results_csv.strip().splitlines()) == 1 + 12 * 3


def test_a_real_worker_starts_a_round_and_sends_its_emails(worker):  # noqa: F811
    league = make_league(players=7)
    round_ = services.generate_round(services.current_season(league), starts_at=timezone.now(), seed=3)
    sweep_leagues.delay()

    def started() -> bool:
        return Round.objects.filter(pk=round_.pk, status=Round.Status.STARTED).exists()

    wait_for(started, 60, "the worker to start the round", worker)
    games = Game.objects.filter(league_table__round=round_)
    assert games.count() == 2
    wait_for(
        lambda: LeagueEmail.objects.filter(kind="round-started", status="sent").count() == 7,
        60,
        "the worker to send the round-started emails",
        worker,
    )
    wait_for(
        lambda: OutboundEmail.objects.filter(game__in=games, kind="turn-started", status="sent").count() == 7,
        60,
        "the worker to send the first turn emails",
        worker,
    )
