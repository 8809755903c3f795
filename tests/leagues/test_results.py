"""League results read from the database (games/leagues/results.py), checked against an independent count.

Two leagues share players and play on the same server: each league's reliability and standings must count
only its own games' orders, only resolved phases (an open phase's orders are not owed yet), and split a seat
that changed hands between its holders by phase. The rows are written directly (no engine), so the test can
place every order, missed or not, where it wants."""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import UTC, datetime, timedelta

import pytest

from games.leagues.models import League, Membership, Round, Season, Seating, Table
from games.leagues.results import league_ratings, reliability, season_standings
from games.models import Game, Order, Phase, Player, Seat

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
SEATS = 4


def league_of(slug: str, players: list[Player]) -> Season:
    league = League.objects.create(name=slug, slug=slug, engine="piraeus")
    Membership.objects.bulk_create(Membership(league=league, player=p) for p in players)
    return Season.objects.create(league=league, number=1)


def table_game(
    round_: Round, number: int, holders: list[Player], rng: random.Random, *, phases: int, finished: bool
) -> Table:
    """A table whose game has `phases` resolved phases (each owing a random set of seats, some orders
    missed) and, unless finished, an open phase with some orders in."""
    game = Game.objects.create(
        engine="piraeus",
        seed=rng.randrange(1 << 30),
        status=Game.Status.FINISHED if finished else Game.Status.ACTIVE,
        phase_number=phases if finished else phases + 1,
        finished_at=T0 + timedelta(days=number) if finished else None,
        result=[{"seat": s, "score": 10 - s, "rank": s + 1, "detail": ""} for s in range(SEATS)] if finished else [],
    )
    seats = Seat.objects.bulk_create(Seat(game=game, number=n, player=p) for n, p in enumerate(holders))
    orders = []
    for n in range(1, phases + (1 if finished else 2)):
        open_ = n > phases
        owed = sorted(rng.sample(range(SEATS), rng.randint(1, SEATS)))
        phase = Phase.objects.create(
            game=game,
            number=n,
            name=f"turn {n}",
            prompts={str(s): {} for s in owed},
            status=Phase.Status.OPEN if open_ else Phase.Status.RESOLVED,
            deadline=T0,
        )
        for s in owed:
            if open_ and rng.random() < 0.5:
                continue  # not in yet
            orders.append(Order(phase=phase, seat=seats[s], data={}, is_default=not open_ and rng.random() < 0.3))
    Order.objects.bulk_create(orders)
    return Table.objects.create(round=round_, number=number, players=[p.pk for p in holders], game=game)


def independent_count(tables: list[Table]) -> dict[int, tuple[int, int]]:
    """(owed, missed) per player, straight from every order of every phase of the tables' games: an order
    of a resolved phase is owed; a default one is missed; it belongs to whoever's seating covers its phase."""
    counts: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for table in tables:
        seatings = list(Seating.objects.filter(table=table, player__isnull=False))
        for order in Order.objects.filter(phase__game=table.game).select_related("phase", "seat"):
            if order.phase.status != Phase.Status.RESOLVED:
                continue
            holders = [
                s.player_id
                for s in seatings
                if s.seat_number == order.seat.number
                and s.from_phase <= order.phase.number
                and (s.until_phase is None or order.phase.number <= s.until_phase)
            ]
            assert len(holders) <= 1, "seatings of a seat never overlap"
            if not holders or holders[0] is None:
                continue  # a bot's phases: nobody's
            holder = holders[0]
            counts[holder][0] += 1
            counts[holder][1] += order.is_default
    return {player: (owed, missed) for player, (owed, missed) in counts.items() if owed}


def two_leagues() -> tuple[list[int], Season, list[Table], Season, list[Table]]:
    rng = random.Random(14)
    people = [Player.objects.create(email=f"r{i}@example.com") for i in range(10)]
    # A: players 0-7, three finished tables and one still running; B: players 0-3 and 8-9, sharing 0-3.
    season_a, season_b = league_of("a", people[:8]), league_of("b", people[:4] + people[8:])
    tables_a: list[Table] = []
    first = Round.objects.create(season=season_a, number=1, starts_at=T0, draw_seed=1, status=Round.Status.FINISHED)
    for number, seated in enumerate([people[0:4], people[4:8]], start=1):
        tables_a.append(table_game(first, number, seated, rng, phases=9, finished=True))
    second = Round.objects.create(season=season_a, number=2, starts_at=T0, draw_seed=2, status=Round.Status.STARTED)
    tables_a.append(table_game(second, 1, [people[i] for i in (0, 5, 2, 7)], rng, phases=9, finished=True))
    tables_a.append(table_game(second, 2, [people[i] for i in (4, 1, 6, 3)], rng, phases=6, finished=False))
    round_b = Round.objects.create(season=season_b, number=1, starts_at=T0, draw_seed=3, status=Round.Status.FINISHED)
    tables_b = [table_game(round_b, 1, people[:4], rng, phases=12, finished=True)]
    tables_b.append(table_game(round_b, 2, [people[i] for i in (8, 9, 1, 0)], rng, phases=12, finished=True))
    for table in tables_a + tables_b:
        Seating.objects.bulk_create(
            Seating(table=table, seat_number=n, player_id=p) for n, p in enumerate(table.players)
        )
    # Seat 2 of A's first table changed hands after phase 4: player 9 (B's member, A's standby who claimed it,
    # so now active in A too) held it from phase 5. Seat 1 of A's running table went to a bot after phase 3
    # (a seating without a player).
    Seating.objects.filter(table=tables_a[0], seat_number=2).update(until_phase=4)
    Seating.objects.create(table=tables_a[0], seat_number=2, player=people[9], from_phase=5)
    Seat.objects.filter(game=tables_a[0].game, number=2).update(player=people[9])
    Membership.objects.create(league=season_a.league, player=people[9])
    Seating.objects.filter(table=tables_a[3], seat_number=1).update(until_phase=3)
    Seating.objects.create(table=tables_a[3], seat_number=1, player=None, from_phase=4)
    Seat.objects.filter(game=tables_a[3].game, number=1).update(player=None, is_bot=True)
    return [p.pk for p in people], season_a, tables_a, season_b, tables_b


def test_reliability_and_standings_match_an_independent_count_and_leagues_do_not_mix(postgres):
    people, season_a, tables_a, season_b, tables_b = two_leagues()
    expected_a, expected_b = independent_count(tables_a), independent_count(tables_b)
    # The data is what the test is about: shared players owe and miss in both leagues, the changed seat's
    # newcomer owes in A too, and the running game has orders in its open phase.
    shared = set(people[:4])
    assert shared <= set(expected_a) & set(expected_b) and people[9] in expected_a
    assert all(expected_a[p] != expected_b[p] for p in shared)
    assert all(missed for _, missed in expected_a.values())
    assert Order.objects.filter(phase__game=tables_a[3].game, phase__status=Phase.Status.OPEN).exists()

    assert reliability(tables_a) == expected_a
    assert reliability(tables_b) == expected_b
    both = independent_count(tables_a + tables_b)
    assert reliability(tables_a + tables_b) == both
    assert both[people[0]] == tuple(a + b for a, b in zip(expected_a[people[0]], expected_b[people[0]], strict=True))
    for season, expected in ((season_a, expected_a), (season_b, expected_b)):
        rows = season_standings(season)
        members = set(season.league.memberships.values_list("player_id", flat=True))
        assert {r.player_id for r in rows} == members
        for row in rows:
            assert (row.owed, row.missed) == expected.get(row.player_id, (0, 0))


def test_ratings_and_points_count_only_the_leagues_own_finished_games(postgres):
    people, season_a, tables_a, season_b, _ = two_leagues()
    finished_a = [t for t in tables_a if t.game is not None and t.game.status == Game.Status.FINISHED]
    rows = {r.player_id: r for r in season_standings(season_a)}
    holders = {
        (s.table_id, s.seat_number): s.player_id
        for s in Seating.objects.filter(table__in=finished_a, until_phase__isnull=True)
    }
    games: dict[int, int] = defaultdict(int)
    for table in finished_a:
        for seat in range(SEATS):
            games[holders[(table.pk, seat)]] += 1
    assert {p: r.games for p, r in rows.items() if r.games} == dict(games)
    assert set(league_ratings(season_a.league)) == set(games)
    assert set(league_ratings(season_b.league)).isdisjoint(people[4:8])
