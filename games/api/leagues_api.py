"""A league's public standings (the league page's table)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Router

from games.api.problems import ERRORS, Problem
from games.api.schemas import StandingsOut
from games.leagues import services
from games.leagues.models import League, Season
from games.models import unique_row

router = Router(tags=["leagues"])


@router.get(
    "/leagues/{slug}/standings",
    response={200: StandingsOut, **{code: ERRORS[code] for code in (400, 404, 422)}},
    auth=None,
    summary="A league's standings",
)
def standings(request: HttpRequest, slug: str, season: int | None = None) -> dict[str, Any]:
    """The current season's standings, or season `season`'s; public, as the league's page."""
    league = unique_row(League.objects.filter(slug=slug))
    if league is None:
        raise Problem(404, "no-league", _("There is no such league."))
    seasons = Season.objects.filter(league=league)
    found = unique_row(seasons.filter(number=season)) if season is not None else seasons.order_by("-number").first()
    if season is not None and found is None:
        raise Problem(404, "no-season", _("No such season."))
    rows = services.named_standings(found) if found is not None else []
    return {
        "league": league.slug,
        "name": league.name,
        "season": found.number if found is not None else None,
        "rows": [
            {
                "rank": row.rank,
                "player": person.display_name,
                "points": row.points,
                "games": row.games,
                "wins": row.wins,
                "average_place": row.average_place,
                "reliability": row.reliability,
                "rating": row.rating,
            }
            for row, person in rows
        ],
    }
