"""Drawing a round's tables (games/leagues/scheduling.py): pure properties, no database."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from games.leagues.scheduling import draw_round, met_pairs, table_sizes

sizes = st.sampled_from([(3, 6), (3, 5), (4, 4), (2, 4), (3, 3)])


@given(players=st.integers(min_value=6, max_value=80), bounds=sizes, seed=st.integers(0, 10**9))
@settings(max_examples=60, deadline=None)
def test_every_player_is_seated_exactly_once_at_a_table_of_valid_size(players, bounds, seed):
    low, high = bounds
    try:
        table_sizes(players, low, high)
    except ValueError:
        assume(False)  # e.g. 6 players at tables of exactly 4: refused, tested below
    ids = [1000 + i for i in range(players)]
    tables = draw_round(ids, low, high, seed)
    seated = [p for table in tables for p in table]
    assert sorted(seated) == ids
    assert all(low <= len(table) <= high for table in tables)
    assert max(map(len, tables)) - min(map(len, tables)) <= 1


@given(players=st.integers(min_value=6, max_value=40), seed=st.integers(0, 10**9), swiss=st.booleans())
@settings(max_examples=30, deadline=None)
def test_the_same_seed_draws_the_same_tables(players, seed, swiss):
    ids = list(range(players))
    met = met_pairs(draw_round(ids, 3, 5, seed + 1))
    standings = list(reversed(ids)) if swiss else None
    assert draw_round(ids, 3, 5, seed, met, standings) == draw_round(ids, 3, 5, seed, met, standings)


@pytest.mark.parametrize(("players", "size", "rounds"), [(16, 4, 3), (9, 3, 4), (12, 3, 3), (25, 5, 3)])
def test_nobody_meets_an_opponent_twice_while_a_schedule_without_repeats_exists(players, size, rounds):
    """These sizes have schedules without repeats (social golfer solutions); the draw finds one."""
    met = met_pairs([])
    for number in range(rounds):
        met += met_pairs(draw_round(list(range(players)), size, size, f"s:{number}", met))
    assert max(met.values()) == 1


def test_when_repeats_are_unavoidable_the_draw_keeps_them_to_the_minimum():
    """12 players at 3 tables of 4: in round 2 every table holds 4 players from 3 earlier tables, so at least
    one pair per table meets again (3 in all); the draw finds exactly that minimum."""
    players = list(range(12))
    for seed in range(5):
        met = met_pairs(draw_round(players, 4, 4, f"{seed}:1"))
        second = draw_round(players, 4, 4, f"{seed}:2", met)
        assert sum(met.get(pair, 0) for pair in met_pairs(second)) == 3


def test_swiss_draw_seats_neighbours_in_the_standings_together():
    standings = list(range(16))  # 0 leads
    tables = draw_round(standings, 4, 4, seed=7, standings=standings)
    assert sorted(sorted(t) for t in tables) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]]


def test_swiss_still_prefers_new_opponents_over_standings_neighbours():
    standings = list(range(8))
    met = met_pairs([[0, 1, 2, 3], [4, 5, 6, 7]])
    tables = draw_round(standings, 4, 4, seed=1, met=met, standings=standings)
    assert all(max(met.get((a, b), 0) for a in t for b in t if a < b) <= 1 for t in tables)
    assert sum(met.get((min(a, b), max(a, b)), 0) for t in tables for a in t for b in t if a < b) == 4


def test_table_sizes_are_balanced_and_impossible_counts_are_refused():
    assert table_sizes(13, 3, 4) == [4, 3, 3, 3]
    assert table_sizes(7, 3, 6) == [4, 3]
    assert table_sizes(12, 3, 6) == [6, 6]
    with pytest.raises(ValueError, match="cannot be seated"):
        table_sizes(2, 3, 6)
    with pytest.raises(ValueError):
        table_sizes(7, 4, 5)
