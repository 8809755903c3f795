"""Standings and ratings from finished games (games/leagues/standings.py): pure, no database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from games.leagues.standings import Finish, place_points, ratings, season_standings

T0 = datetime(2026, 1, 1, tzinfo=UTC)
POINTS = [10, 6, 3, 1]


def finish(game_id: int, *ranks: tuple[int, int]) -> Finish:
    return Finish(game_id=game_id, finished_at=T0 + timedelta(days=game_id), ranks=list(ranks))


def test_shared_places_split_the_points_of_the_places_they_occupy():
    assert place_points(POINTS, [1, 2, 3, 4]) == [10, 6, 3, 1]
    assert place_points(POINTS, [1, 1, 3, 4]) == [8, 8, 3, 1]
    assert place_points(POINTS, [1, 2, 2, 2]) == [10, 10 / 3, 10 / 3, 10 / 3]
    assert place_points(POINTS, [1, 2, 3, 4, 5, 6]) == [10, 6, 3, 1, 0, 0]


def test_points_add_up_over_games_and_order_the_standings():
    rows = season_standings([finish(1, (1, 1), (2, 2), (3, 3)), finish(2, (2, 1), (1, 2), (3, 3))], POINTS)
    assert [(r.player_id, r.points, r.rank) for r in rows] == [(1, 16, 1), (2, 16, 1), (3, 6, 3)]


def test_equal_points_are_broken_by_wins_then_average_place():
    # 1: 1st + 4th = 11 points, one win; 2: 2nd + 2nd... = 12; make 3 equal to 1 on points without a win.
    rows = season_standings(
        [
            finish(1, (1, 1), (2, 2), (3, 3), (4, 4)),
            finish(2, (1, 4), (3, 2), (2, 3), (4, 1)),
        ],
        [10, 6, 5, 1],
    )
    by_player = {r.player_id: r for r in rows}
    assert by_player[1].points == by_player[3].points == 11
    assert by_player[1].rank < by_player[3].rank  # a win beats none
    assert by_player[1].wins == 1 and by_player[3].wins == 0


def test_a_shared_win_counts_as_a_share_of_a_win():
    rows = season_standings([finish(1, (1, 1), (2, 1), (3, 3))], POINTS)
    assert {r.player_id: r.wins for r in rows} == {1: 0.5, 2: 0.5, 3: 0}


def test_a_place_shared_with_a_seat_nobody_held_at_the_end_is_still_shared():
    # Seat of player 2 tied first with a seat left to a bot (a dropped member's): 8 points and half a win, as
    # if its holder had stayed (found by tests/leagues/test_machine.py: the standings gave the whole 10).
    shared = Finish(game_id=1, finished_at=T0, ranks=[(2, 1), (3, 3)], places=[1, 1, 3])
    rows = {r.player_id: r for r in season_standings([shared], POINTS)}
    assert (rows[2].points, rows[2].wins, rows[3].points) == (8, 0.5, 3)


def test_reliability_breaks_the_last_ties_and_members_without_games_are_listed():
    rows = season_standings([finish(1, (1, 1), (2, 1))], POINTS, reliability={1: (10, 5), 2: (10, 0)}, players=[9])
    assert [r.player_id for r in rows] == [2, 1, 9]
    assert rows[1].reliability == 0.5 and rows[2].games == 0 and rows[2].rank == 3


def test_ratings_rise_for_winners_fall_for_losers_and_ties_rate_equal():
    rated = ratings([finish(1, (1, 1), (2, 2), (3, 3))])
    assert rated[1] > rated[2] > rated[3]
    tied = ratings([finish(1, (1, 1), (2, 1), (3, 3))])
    assert tied[1] == tied[2] > tied[3]


def test_ratings_carry_over_from_game_to_game_in_order():
    one = ratings([finish(1, (1, 1), (2, 2), (3, 3))])
    two = ratings([finish(1, (1, 1), (2, 2), (3, 3)), finish(2, (1, 1), (2, 2), (3, 3))])
    assert two[1] > one[1] and two[3] < one[3]
    # the order is the games' finishing order, not the order they are given in
    assert ratings([finish(2, (3, 1), (1, 2)), finish(1, (1, 1), (3, 2))]) == ratings(
        [finish(1, (1, 1), (3, 2)), finish(2, (3, 1), (1, 2))]
    )
