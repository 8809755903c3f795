"""Earlier turns: each resolved turn as the caller's seat saw it when it was decided (games/play/history.py)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Router

from games.api import calls
from games.api.problems import ERRORS, Problem
from games.api.schemas import PastTurnOut, TurnOut
from games.api.views_common import caller, game_or_404, log_json, read_back_json
from games.engines import get_engine
from games.models import Game

router = Router(tags=["earlier turns"])


def _game(request: HttpRequest, game_id: int) -> tuple[Game, int | None]:
    seat = caller(request).seat(game_id)
    return (seat.game, seat.number) if seat is not None else (game_or_404(game_id), None)


@router.get("/games/{game_id}/turns", response={200: list[PastTurnOut], **ERRORS}, summary="Earlier turns")
def past_turns(request: HttpRequest, game_id: int) -> list[dict[str, Any]]:
    game, _ = _game(request, game_id)
    return [{"number": p.number, "name": p.name} for p in calls.past_phases(game)]


@router.get("/games/{game_id}/turns/{number}", response={200: TurnOut, **ERRORS}, summary="An earlier turn")
def past_turn(request: HttpRequest, game_id: int, number: int) -> dict[str, Any]:
    """Resolved turn `number`: the board as the caller's seat saw it when it was decided (a spectator's where
    they hold none), their own order in it read back, and the lines its resolution logged that they may read."""
    game, seat = _game(request, game_id)
    replayed = calls.replay(game, number)
    if replayed is None:
        raise Problem(404, "no-turn", _("No such earlier turn in this game."))
    engine = get_engine(game.engine)
    read = calls.replayed_read_back(game, replayed, seat) if seat is not None else None
    events = calls.visible_events(game, seat).filter(phase_number=number).order_by("seq")
    return {
        "number": replayed.number,
        "name": replayed.name,
        "view": engine.view(replayed.state, seat) if replayed.state is not None else None,
        "read_back": read_back_json(read) if read is not None else None,
        "log": [log_json(e) for e in events],
    }
