"""Season standings and the league rating, from finished games: pure Python over plain data.

Points per finishing place come from the league's table; players sharing a place split the points of the
places they share. A player who conceded a seat ranks last in that game, after every seat, and scores nothing
for it (games/leagues/early.py). Ties in points are broken by wins, then average place, then reliability. The rating
is openskill's Plackett-Luce model (multiplayer, ties allowed) over every finished game in order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from openskill.models import PlackettLuce, PlackettLuceRating


@dataclass(frozen=True)
class Finish:
    """One finished game: (player id, rank) per seat that a player held at the end (rank 1 is best)."""

    game_id: int
    finished_at: datetime
    ranks: Sequence[tuple[int, int]]
    points: Sequence[float] | None = None  # the points per place it scores (its round's), if not the league's
    # Every seat's rank, held at the end or not: a place shared with a seat nobody held at the end (a bot's, a
    # dropped member's) is still shared. Empty: the ranks above are every seat's.
    places: Sequence[int] = ()
    # Players who conceded a seat of this game: each ranks last, below every seat (games/leagues/early.py),
    # scoring no points.
    conceded: Sequence[int] = ()

    @property
    def last(self) -> int:
        """The conceders' place: after every seat's, whatever the seats' ranks."""
        return len(self.places or self.ranks) + 1

    def ranked(self) -> list[tuple[int, int]]:
        """(player id, rank) for every player of the game: the seats' holders, then those who conceded."""
        return [*self.ranks, *((player, self.last) for player in self.conceded)]


@dataclass
class Standing:
    player_id: int
    points: float = 0.0
    games: int = 0
    wins: float = 0.0  # shared first places count as a share of a win
    places: int = 0  # sum of places, for the average
    owed: int = 0  # phases in which an order was owed
    missed: int = 0  # of those, deadlines missed (a default order was used)
    rank: int = 0
    rating: float = 0.0

    @property
    def average_place(self) -> float:
        return self.places / self.games if self.games else 0.0

    @property
    def reliability(self) -> float:
        """Share of owed orders that were in on time (1.0 when nothing was owed yet)."""
        return 1 - self.missed / self.owed if self.owed else 1.0


def place_points(points: Sequence[float], ranks: Sequence[int]) -> list[float]:
    """Points for each entry of `ranks` (1 = first). Entries sharing a rank share the points of the places
    they occupy: two players tied first with points [10, 6, 3] get 8 each, the next gets 3."""
    shared: dict[int, int] = {}
    for rank in ranks:
        shared[rank] = shared.get(rank, 0) + 1
    result = []
    for rank in ranks:
        occupied = range(rank - 1, rank - 1 + shared[rank])
        total = sum(points[place] if place < len(points) else 0 for place in occupied)
        result.append(total / shared[rank])
    return result


def season_standings(
    finishes: Iterable[Finish],
    points: Sequence[float],
    reliability: dict[int, tuple[int, int]] | None = None,
    players: Iterable[int] = (),
) -> list[Standing]:
    """Standings, best first, ranks shared by players equal on every tie-break. `points` per place, unless a
    finish carries its own (its round's); `reliability` maps a player to (phases owed, deadlines missed);
    `players` adds members who have not finished a game yet."""
    rows: dict[int, Standing] = {p: Standing(p) for p in players}
    for finish in finishes:
        places = list(finish.places) or [rank for _, rank in finish.ranks]
        firsts = places.count(1)
        shares = place_points(points if finish.points is None else finish.points, places)
        by_rank = dict(zip(places, shares, strict=True))
        for player, rank in finish.ranks:
            row = rows.setdefault(player, Standing(player))
            row.points += by_rank[rank]
            row.games += 1
            row.places += rank
            if rank == 1:
                row.wins += 1 / firsts
        for player in finish.conceded:  # a game played, ranked last, no points
            row = rows.setdefault(player, Standing(player))
            row.games += 1
            row.places += finish.last
    for player, (owed, missed) in (reliability or {}).items():
        if player in rows:
            rows[player].owed, rows[player].missed = owed, missed

    def key(row: Standing) -> tuple[float, float, float, float]:
        return (-row.points, -row.wins, row.average_place if row.games else float("inf"), -row.reliability)

    ordered = sorted(rows.values(), key=lambda r: (key(r), r.player_id))
    for i, row in enumerate(ordered):
        row.rank = ordered[i - 1].rank if i and key(ordered[i - 1]) == key(row) else i + 1
    return ordered


def ratings(finishes: Iterable[Finish]) -> dict[int, float]:
    """Each player's openskill rating (the conservative `ordinal`, mu - 3 sigma) after every game, oldest
    first. Recomputed from the games rather than stored, so a corrected result corrects the rating."""
    model = PlackettLuce()
    current: dict[int, PlackettLuceRating] = {}
    for finish in sorted(finishes, key=lambda f: (f.finished_at, f.game_id)):
        ranked = finish.ranked()
        if len(ranked) < 2:
            continue
        teams = [[current.get(player) or model.rating(name=str(player))] for player, _ in ranked]
        rated = model.rate(teams, ranks=[rank for _, rank in ranked])
        for (player, _), team in zip(ranked, rated, strict=True):
            current[player] = team[0]
    return {player: round(rating.ordinal(), 2) for player, rating in current.items()}
