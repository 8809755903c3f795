"""Thin views: read the session, call the service layer, render. GET never changes game state (mail
scanners follow links); only POSTs do, and only through games.turns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games import turns
from games.engines import all_engines, get_engine
from games.forms import OrderForm, PlayerSettingsForm
from games.links import LinkError, read_token
from games.middleware import SESSION_TIME_ZONE
from games.models import Game, Order, Phase, Player, Seat, unique_row

SESSION_PLAYERS = "pbem_players"


def signed_in_players(request: HttpRequest) -> list[int]:
    return list(request.session.get(SESSION_PLAYERS, []))


def seat_of(request: HttpRequest, game_id: int) -> Seat | None:
    """The seat of the signed-in player at this table; with several people signed in on one browser,
    the one whose link was opened last wins."""
    players = signed_in_players(request)
    if not players:
        return None
    found = Seat.objects.filter(game_id=game_id, player_id__in=players).select_related("game", "player").order_by()
    seats = {s.player_id: s for s in found}
    return next((seats[p] for p in players if p in seats), None)


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    recent = Game.objects.order_by("-pk")[:10]
    return render(request, "games/home.html", {"engines": all_engines(), "recent": recent})


@require_GET
def follow_link(request: HttpRequest, token: str) -> HttpResponse:
    """A signed link from an email: sign the player in, then show their game."""
    try:
        target = read_token(token)
    except LinkError as error:
        return render(request, "games/link_error.html", {"message": str(error)}, status=403)
    seat = target.seat
    if seat.player_id is None:
        return render(request, "games/link_error.html", {"message": "This seat is played by a bot."}, status=403)
    players = signed_in_players(request)
    if seat.player_id not in players:
        request.session.cycle_key()  # a new identity in this browser: a new session key
    if players[:1] != [seat.player_id]:
        request.session[SESSION_PLAYERS] = [seat.player_id, *(p for p in players if p != seat.player_id)]
    if seat.player is not None:
        request.session[SESSION_TIME_ZONE] = seat.player.time_zone
    if target.phase.number != seat.game.phase_number and seat.game.status != Game.Status.FINISHED:
        messages.info(request, f"That email was about an earlier turn ({target.phase.name}). Here is the game now.")
    return redirect("games-game", game_id=seat.game_id)


def _game_context(request: HttpRequest, game: Game, form: OrderForm | None = None) -> dict[str, Any]:
    engine = get_engine(game.engine)
    seat = seat_of(request, game.pk)
    number = seat.number if seat else None
    phase = turns.current_phase(game)
    seats = list(game.seats.select_related("player"))
    submitted = turns.submitted_seats(phase) if phase else set()
    prompt = phase.prompt_for(number) if phase and number is not None else None
    own_order = None
    if prompt is not None and seat is not None and phase is not None:
        own_order = unique_row(Order.objects.filter(phase=phase, seat=seat))
        if form is None:
            stored = own_order.data if own_order else None
            form = OrderForm(prompt, initial=OrderForm.initial_from(prompt, stored, phase.number))
    table = [
        {
            "seat": s,
            "title": engine.seat_name(game.state, s.number),
            "owes": phase is not None and phase.prompt_for(s.number) is not None,
            "submitted": s.number in submitted,
            "is_me": s.number == number,
        }
        for s in seats
    ]
    standings = [
        {**r, "seat_obj": seats[r["seat"]], "title": engine.seat_name(game.state, r["seat"])} for r in game.result
    ]
    return {
        "game": game,
        "engine": engine,
        "seat": seat,
        "seat_title": engine.seat_name(game.state, number) if number is not None else "",
        "phase": phase,
        "prompt": prompt,
        "form": form,
        "own_order": own_order,
        "view": engine.view(game.state, number),
        "board_template": f"games/boards/{game.engine}.html",
        "table": table,
        "events": list(turns.visible_events(game, number).order_by("-seq")[:200]),
        "standings": standings,
    }


@require_GET
def game_page(request: HttpRequest, game_id: int) -> HttpResponse:
    game = get_object_or_404(Game, pk=game_id)
    return render(request, "games/game.html", _game_context(request, game))


class FormInvalid(turns.OrderRejected):
    """The form's own checks failed; its errors are on the form."""


@require_POST
def submit_order(request: HttpRequest, game_id: int) -> HttpResponse:
    seat = seat_of(request, game_id)
    if seat is None:
        get_object_or_404(Game, pk=game_id)
        return render(
            request,
            "games/link_error.html",
            {"message": "You are not signed in as a player of this game. Open the link in your turn email."},
            status=403,
        )
    try:
        phase_number = int(request.POST.get("phase", ""))
    except ValueError:
        phase_number = -1
    form: OrderForm | None = None

    def order_from_form(prompt: dict[str, Any]) -> dict[str, Any]:
        nonlocal form
        form = OrderForm(prompt, request.POST)
        if not form.is_valid():
            raise FormInvalid("")
        return form.order()

    try:
        result = turns.submit_order(seat, phase_number, order_from_form)
    except turns.TurnClosed:
        messages.error(request, "That turn is no longer open, so nothing was stored. Here is the game now.")
        return redirect("games-game", game_id=game_id)
    except turns.OrderRejected as error:
        assert form is not None
        if not isinstance(error, FormInvalid):
            form.add_error(None, str(error))
        return render(request, "games/game.html", _game_context(request, seat.game, form), status=400)
    if result.complete:
        messages.success(request, "Order stored. Every order is in: the turn is being resolved.")
    elif result.revised:
        messages.success(request, "Order changed. You can change it again until the turn resolves.")
    else:
        messages.success(request, "Order stored and sealed. You can change it until the turn resolves.")
    return redirect("games-game", game_id=game_id)


@dataclass(frozen=True)
class MyGame:
    seat: Seat
    phase: Phase | None
    owes: bool


@require_http_methods(["GET", "POST"])
def my_games(request: HttpRequest) -> HttpResponse:
    players = list(Player.objects.filter(pk__in=signed_in_players(request)))
    seats = list(Seat.objects.filter(player__in=players).select_related("game", "player").order_by("-game__pk"))
    phases = {
        (p.game_id, p.number): p
        for p in Phase.objects.filter(game__in=[s.game for s in seats], status=Phase.Status.OPEN)
    }
    rows = []
    for seat in seats:
        phase = phases.get((seat.game_id, seat.game.phase_number))
        owes = phase is not None and phase.prompt_for(seat.number) is not None
        rows.append(MyGame(seat=seat, phase=phase, owes=owes))
    # Owed orders first, then games in play, newest first.
    rows.sort(key=lambda r: (not r.owes, r.seat.game.status == Game.Status.FINISHED, -r.seat.game_id))
    settings_form = None
    if players:
        player = players[0]
        settings_form = PlayerSettingsForm(request.POST or None, instance=player)
        if request.method == "POST" and settings_form.is_valid():
            request.session[SESSION_TIME_ZONE] = settings_form.save().time_zone
            messages.success(request, "Settings saved.")
            return redirect("games-mine")
    return render(request, "games/mine.html", {"rows": rows, "players": players, "settings_form": settings_form})


@require_POST
def sign_out(request: HttpRequest) -> HttpResponse:
    request.session.flush()
    return redirect("games-home")
