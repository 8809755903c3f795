"""Who is away: a member's declared vacations, read by the draw (games/leagues/services.py), the vacations
themselves (games/leagues/vacations.py) and the pages. Days are the league's calendar days: a vacation of 3
days from Monday covers Monday to Wednesday."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from games.leagues.models import League, Membership, Vacation


def away_on(membership: Membership, day: date) -> bool:
    """Whether the member is away on `day` (reads the prefetched `vacations`, if any)."""
    return any(v.starts_on <= day < v.ends_on for v in membership.vacations.all())


def days_away(league: League, player_ids: Iterable[int], day: date) -> dict[int, int]:
    """The members of `players` away on `day`, each with the days of vacation they have left from it (the
    day included): {player id: days}. One query."""
    away: dict[int, int] = {}
    vacations = Vacation.objects.filter(
        membership__league=league, membership__player_id__in=list(player_ids), starts_on__lte=day
    ).values_list("membership__player_id", "starts_on", "days")
    for player_id, starts_on, days in vacations:
        left = (starts_on - day).days + days
        if left > 0:
            away[player_id] = max(away.get(player_id, 0), left)
    return away
