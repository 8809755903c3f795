"""Read-only pages beside a game's page: the game's player's guide (games/outgoing/guides.py), and the game's earlier
phases as this browser's seat saw them (games/play/history.py). Like every page they get facts, never models
(games/outgoing/facts.py)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import translation
from django.views.decorators.http import require_GET

from games.engines import board_templates
from games.incoming.favicon import ico
from games.incoming.sessions import seat_of
from games.models import Game
from games.outgoing import facts
from games.outgoing.guides import player_guide
from games.play import history, turns


@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    """The site's icon (games/incoming/favicon.py), which browsers ask for on every page."""
    response = HttpResponse(ico(), content_type="image/x-icon")
    response["Cache-Control"] = "public, max-age=86400"
    return response


@require_GET
def rules(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        guide = player_guide(slug, translation.get_language() or "en")
    except KeyError:
        raise Http404("No such game.") from None
    return render(request, "games/rules.html", {"guide": guide})


@require_GET
def game_history(request: HttpRequest, game_id: int) -> HttpResponse:
    """Phase `?phase=N` (else the latest resolved one): its board as it was decided, for this browser's seat
    (or a spectator), with the lines its resolution logged that the seat may read and the seat's own order."""
    game = get_object_or_404(Game, pk=game_id)
    past = history.past_phases(game)
    if not past:
        return redirect("games-game", game_id=game.pk)
    numbers = [phase.number for phase in past]
    try:
        number = int(request.GET.get("phase", numbers[-1]))
    except ValueError:
        number = -1
    if number not in numbers:
        raise Http404("No such earlier turn in this game.")
    seat = seat_of(request, game.pk)
    reader = seat.number if seat else None
    replayed = history.replay(game, number)
    assert replayed is not None  # a resolved phase of this game
    engine = turns.engine_of(game)
    seats = list(game.seats.select_related("player"))
    table = facts.seat_facts(game, engine, seats)
    at = numbers.index(number)
    context = {
        "game": facts.game_facts(game, engine, seats),
        "seat": next((row for row in table if row.number == reader), None),
        "shown": past[at],
        "earlier": past[at - 1] if at > 0 else None,
        "later": past[at + 1] if at + 1 < len(past) else None,
        "phases": past,
        "view": engine.view(replayed.state, reader) if replayed.state is not None else None,
        "board_template": board_templates(game.engine).page,
        "read_back": history.read_back(game, replayed, reader) if reader is not None else None,
        "events": facts.log_lines(turns.visible_events(game, reader).filter(phase_number=number).order_by("seq")),
    }
    return render(request, "games/history.html", context)
