"""What the API's endpoints share: finding the caller's seat and game, and facts as JSON."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.api.auth import Caller
from games.api.problems import Problem
from games.engines.base import ReadBack
from games.models import Event, Game, Phase, Seat, unique_row
from games.outgoing import facts

NO_SEAT = gettext_lazy("You do not hold a seat at this table (a seat given to someone else is no longer yours).")


def caller(request: HttpRequest) -> Caller:
    found = request.auth  # type: ignore[attr-defined]
    assert isinstance(found, Caller)
    return found


def game_or_404(game_id: int) -> Game:
    game = unique_row(Game.objects.filter(pk=game_id))
    if game is None:
        raise Problem(404, "no-game", _("There is no such game."))
    return game


def my_seat(request: HttpRequest, game_id: int) -> Seat:
    """The caller's seat at the table (with its game and player); 404 for no such game, 403 for not theirs."""
    seat = caller(request).seat(game_id)
    if seat is None:
        game_or_404(game_id)
        raise Problem(403, "not-your-seat", str(NO_SEAT))
    return seat


def game_json(game_facts: facts.GameFacts, engine: str) -> dict[str, Any]:
    return {
        "id": game_facts.id,
        "title": str(game_facts.title),
        "given_title": game_facts.given_title,
        "engine": engine,
        "engine_title": str(game_facts.engine_title),
        "status": game_facts.status,
        # A final standing's detail is read in the caller's language here (facts keep it lazy).
        "result": [{**row.__dict__, "detail": str(row.detail)} for row in game_facts.result],
    }


def phase_json(phase: Phase | None) -> dict[str, Any] | None:
    """The turn as the API gives it: its name in the caller's language and as the engine's message."""
    if phase is None:
        return None
    return {"number": phase.number, "name": phase.label, "message": phase.message, "deadline": phase.deadline}


def read_back_json(read: ReadBack) -> dict[str, Any]:
    return {"lines": list(read.lines), "warnings": list(read.warnings)}


def log_json(event: Event) -> dict[str, Any]:
    """A log line as the API gives it: as text in the caller's language, and as the engine's message (id and
    params; null for a line stored before the engines spoke in messages)."""
    return {
        "phase": event.phase_number,
        "text": event.words,
        "message": event.message,
        "private": event.seat is not None,
    }
