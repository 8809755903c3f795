"""The organiser's season and draw, two at once on PostgreSQL (separate connections, started together): a new
season pressed while a round is drawn, and two organisers drawing a new league's first round. Each time the
league's one lock serializes them: no 500, one round, and never a round drawn into a season that is over. And a
button names the season its page showed: a season started since refuses it. A vacation and an Extend at once
both move the deadline, and two vacations at once stay within the allowance."""

from __future__ import annotations

from datetime import timedelta
from functools import partial

import pytest
from django.contrib import messages
from django.utils import timezone

from games.leagues import jobs, services, vacations
from games.leagues.models import League, Membership, Round, Season
from games.play import organise
from tests.support.leagues import make_league, open_phase_of, started_round
from tests.support.races import run_together

pytestmark = pytest.mark.django_db(transaction=True)


def errors(said: object) -> list[str]:
    assert isinstance(said, list), said  # jobs answer in lines; an exception here is a 500 on the page
    return [line.text for line in said if line.level == messages.ERROR]


def test_a_new_season_pressed_during_a_draw_never_leaves_the_round_in_the_old_season(postgres):
    for attempt in range(4):
        league = make_league(players=6, slug=f"spring{attempt}", name=f"Spring {attempt}")
        first = services.generate_round(services.current_season(league), timezone.now(), seed=1)
        Round.objects.filter(pk=first.pk).update(status=Round.Status.FINISHED)
        results = run_together(partial(jobs.draw_round, league), partial(jobs.new_season, league, 1))
        # Either refuses the other (the round is unfinished; the season moved), or the new season came first and
        # the draw, reading the current season after it, drew season 2's first round: both are right.
        assert sum(len(errors(said)) for said in results) <= 1, results
        newest = Season.objects.filter(league=league).order_by("-number").first()
        assert newest is not None
        stale = Round.objects.filter(season__league=league, season__number__lt=newest.number, number=2)
        assert not stale.exists(), "a round drawn into a season that is over"
        assert Round.objects.filter(season__league=league).count() <= 2


def test_two_organisers_drawing_a_new_leagues_first_round_at_once_draw_one(postgres):
    for attempt in range(4):
        league = make_league(players=6, slug=f"autumn{attempt}", name=f"Autumn {attempt}")
        results = run_together(partial(jobs.draw_round, league), partial(jobs.draw_round, league))
        refused = [line for said in results for line in errors(said)]
        # The one refused is told the round the other drew: before the lock ("... round 1 has not finished
        # yet") or after it ("Another round was drawn meanwhile"), depending on when its read came.
        assert len(refused) == 1, results
        assert "Another round was drawn meanwhile" in refused[0] or "round 1 has not finished yet" in refused[0]
        assert Season.objects.filter(league=league).count() == 1
        assert Round.objects.filter(season__league=league).count() == 1


def test_a_button_names_its_season_and_a_season_started_since_refuses_it(postgres):
    league = make_league(players=6)
    first = services.generate_round(services.current_season(league), timezone.now(), seed=1)
    Round.objects.filter(pk=first.pk).update(status=Round.Status.FINISHED)
    assert not errors(jobs.new_season(league, 1))  # season 2
    drawn = errors(jobs.draw_round(league, season=1))
    assert drawn == [f"{league}: Season 2 was started meanwhile: nothing was drawn."]
    refused = errors(jobs.new_season(league, 1))
    assert refused == [f"{league}: Season 2 was started meanwhile: no other season was started."]
    assert Season.objects.filter(league=league).count() == 2 and Round.objects.count() == 1
    assert not errors(jobs.draw_round(league, season=2))
    assert Round.objects.filter(season__number=2).count() == 1


def test_a_vacation_and_an_extend_at_once_both_move_the_deadline(postgres):
    """The vacation reads the open phase under the lock an Extend takes: neither's move is written over."""
    for attempt in range(3):
        league = make_league(players=4, slug=f"summer{attempt}", vacation_days=10, vacation_cap_days=7)
        game = started_round(league).tables.get().game
        assert game is not None
        start = open_phase_of(game).deadline
        away = Membership.objects.select_related("league", "player").get(league=league, player__email="p1@example.com")
        results = run_together(
            partial(vacations.declare, away, 2), partial(organise.extend_deadline, game, timedelta(hours=24))
        )
        assert not [r for r in results if isinstance(r, Exception)], results
        assert open_phase_of(game).deadline == start + timedelta(days=2, hours=24)


def test_two_vacations_recorded_at_once_stay_within_the_allowance(postgres):
    for attempt in range(3):
        league = make_league(players=4, slug=f"winter{attempt}", vacation_days=5, vacation_cap_days=30)
        started_round(league)

        def away(league: League = league) -> Membership:  # each request reads the member afresh, as a page would
            return Membership.objects.select_related("league", "player").get(
                league=league, player__email="p1@example.com"
            )

        results = run_together(lambda: vacations.declare(away(), 3), lambda: vacations.declare(away(), 3))
        refused = [r for r in results if isinstance(r, services.LeagueError)]
        assert len(refused) == 1 and "left this season" in str(refused[0]), results
        assert vacations.days_used(away()) == 3
