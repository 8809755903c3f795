"""From the database to standings: finished games, who held each seat, and missed deadlines.

A seat's result belongs to whoever held it at the end of the game; its missed deadlines belong to whoever
held it in the phase that was missed (a Seating row says who held a seat from which phase on).
"""

from __future__ import annotations

import operator
from collections import defaultdict
from collections.abc import Iterable
from functools import reduce

from django.db.models import Count, Q

from games.leagues.models import League, Membership, Season, Seating, Table
from games.leagues.standings import Finish, Standing, ratings
from games.leagues.standings import season_standings as rank_standings
from games.models import Game, Order, Phase


def finishes(tables: Iterable[Table]) -> list[Finish]:
    """The finished games of `tables` (read with their games), as (player, rank) per seat held at the end."""
    tables = [t for t in tables if t.game is not None and t.game.status == Game.Status.FINISHED]
    holders: dict[tuple[int, int], int] = {}
    ended = Seating.objects.filter(table_id__in=[t.pk for t in tables], until_phase__isnull=True, player__isnull=False)
    for seating in ended.only("table_id", "seat_number", "player_id"):
        assert seating.player_id is not None
        holders[(seating.table_id, seating.seat_number)] = seating.player_id
    result = []
    for table in tables:
        assert table.game is not None and table.game.finished_at is not None
        ranks = [
            (holders[(table.pk, row["seat"])], row["rank"])
            for row in table.game.result
            if (table.pk, row["seat"]) in holders
        ]
        result.append(Finish(game_id=table.game.pk, finished_at=table.game.finished_at, ranks=ranks))
    return result


def reliability(tables: Iterable[Table]) -> dict[int, tuple[int, int]]:
    """(phases owed, deadlines missed) per player over `tables`: every owed order of a resolved phase is a
    row (a missed one is the engine's default, `is_default`), counted for the seat's holder at the time.

    A seat one player held all game (nearly every seat) is counted in SQL, one row per seat; only seats that
    changed hands are read order by order, to split them between their holders."""
    game_of_table = {t.pk: t.game_id for t in tables if t.game_id}
    windows: dict[tuple[int, int], list[Seating]] = defaultdict(list)
    for seating in Seating.objects.filter(table_id__in=list(game_of_table), player__isnull=False):
        windows[(game_of_table[seating.table_id], seating.seat_number)].append(seating)
    orders = Order.objects.filter(
        phase__game_id__in=list(game_of_table.values()), phase__status=Phase.Status.RESOLVED
    ).order_by()
    counts: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    shared: list[Q] = []
    per_seat = orders.values_list("phase__game_id", "seat__number").annotate(
        owed=Count("pk"), missed=Count("pk", filter=Q(is_default=True))
    )
    for game_id, seat, owed, missed in per_seat:
        held = windows.get((game_id, seat), [])
        if len(held) == 1 and held[0].from_phase <= 1 and held[0].until_phase is None:
            assert held[0].player_id is not None
            counts[held[0].player_id][0] += owed
            counts[held[0].player_id][1] += missed
        elif held:
            shared.append(Q(phase__game_id=game_id, seat__number=seat))
    if shared:
        rows = orders.filter(reduce(operator.or_, shared))
        for game_id, seat, phase, is_default in rows.values_list(
            "phase__game_id", "seat__number", "phase__number", "is_default"
        ):
            for seating in windows[(game_id, seat)]:
                if seating.from_phase <= phase and (seating.until_phase is None or phase <= seating.until_phase):
                    assert seating.player_id is not None
                    counts[seating.player_id][0] += 1
                    counts[seating.player_id][1] += is_default
                    break
    return {player: (owed, missed) for player, (owed, missed) in counts.items()}


def season_standings(season: Season) -> list[Standing]:
    """The season's standings, each row with the player's league rating (openskill, across seasons)."""
    league = season.league
    tables = list(
        Table.objects.filter(round__season=season, game__isnull=False).select_related("game").defer("game__state")
    )
    # Inactive members too: a player who lost their seat before finishing a game still shows their misses.
    members = Membership.objects.filter(
        league=league, status__in=[Membership.Status.ACTIVE, Membership.Status.INACTIVE]
    )
    rows = rank_standings(
        finishes(tables),
        league.points,
        reliability(tables),
        players=members.values_list("player_id", flat=True),
    )
    rated = league_ratings(league)
    for row in rows:
        row.rating = rated.get(row.player_id, 0.0)
    return rows


def league_ratings(league: League) -> dict[int, float]:
    tables = Table.objects.filter(round__season__league=league, game__status=Game.Status.FINISHED)
    return ratings(finishes(tables.select_related("game").defer("game__state")))
