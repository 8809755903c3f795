"""What the API's endpoints share: finding the caller's seat and game, and facts as JSON."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from games.api.auth import Caller
from games.api.problems import Problem
from games.engines.base import ReadBack
from games.models import Game, Phase, Seat, unique_row
from games.outgoing import facts

NO_SEAT = "You do not hold a seat at this table (a seat given to someone else is no longer yours)."


def caller(request: HttpRequest) -> Caller:
    found = request.auth  # type: ignore[attr-defined]
    assert isinstance(found, Caller)
    return found


def game_or_404(game_id: int) -> Game:
    game = unique_row(Game.objects.filter(pk=game_id))
    if game is None:
        raise Problem(404, "no-game", "There is no such game.")
    return game


def my_seat(request: HttpRequest, game_id: int) -> Seat:
    """The caller's seat at the table (with its game and player); 404 for no such game, 403 for not theirs."""
    seat = caller(request).seat(game_id)
    if seat is None:
        game_or_404(game_id)
        raise Problem(403, "not-your-seat", NO_SEAT)
    return seat


def game_json(game_facts: facts.GameFacts, engine: str) -> dict[str, Any]:
    return {
        "id": game_facts.id,
        "title": game_facts.title,
        "engine": engine,
        "engine_title": game_facts.engine_title,
        "status": game_facts.status,
        "result": [row.__dict__ for row in game_facts.result],
    }


def phase_json(phase: Phase | None) -> dict[str, Any] | None:
    return None if phase is None else facts.phase_facts(phase).__dict__


def read_back_json(read: ReadBack) -> dict[str, Any]:
    return {"lines": list(read.lines), "warnings": list(read.warnings)}
