"""Thin views: read the session, call the service layer, render. GET never changes game state (mail
scanners follow links); only POSTs do, and only through games.turns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games import facts, sessions, turns
from games.engines import all_engines, board_templates, get_engine
from games.forms import OrderForm, PlayerSettingsForm, SignInForm
from games.links import SIGN_IN_MINUTES, LinkError, read_token
from games.middleware import SESSION_TIME_ZONE
from games.models import Game, Order, Phase, Seat, unique_row
from games.sessions import seat_of


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    # Plain values, as every template gets (games/facts.py): not the games (their state) nor the engines.
    games = [
        {"title": e.title, "min_players": e.min_players, "max_players": e.max_players} for e in all_engines()
    ]
    recent = [
        {"id": g.pk, "title": g.title, "status": g.get_status_display()} for g in Game.objects.order_by("-pk")[:10]
    ]
    return render(request, "games/home.html", {"engines": games, "recent": recent})


@require_GET
def follow_link(request: HttpRequest, token: str) -> HttpResponse:
    """A signed link from an email: this browser may act for that seat (not the player's other games),
    then show the game. It changes nothing in the game."""
    try:
        target = read_token(token)
    except LinkError as error:
        return render(request, "games/link_error.html", {"message": str(error)}, status=403)
    seat = target.seat
    if seat.player is None:
        return render(request, "games/link_error.html", {"message": "This seat is played by a bot."}, status=403)
    sessions.grant_seat(request, seat, until=target.expires_at)
    if target.phase.number != seat.game.phase_number and seat.game.status != Game.Status.FINISHED:
        messages.info(request, f"That email was about an earlier turn ({target.phase.name}). Here is the game now.")
    return redirect("games-game", game_id=seat.game_id)


def _game_context(request: HttpRequest, game: Game, form: OrderForm | None = None) -> dict[str, Any]:
    """Only what this browser's reader may see (games/facts.py): the public facts, their seat's view and
    prompt, their own order's form."""
    engine = get_engine(game.engine)
    seat = seat_of(request, game.pk)
    number = seat.number if seat else None
    phase = turns.current_phase(game)
    seats = list(game.seats.select_related("player"))
    submitted = turns.submitted_seats(phase) if phase else set()
    table = facts.seat_facts(game, engine, seats, phase, submitted)
    mine = next((row for row in table if row.number == number), None)
    prompt = phase.prompt_for(number) if phase and number is not None else None
    own_order = None
    if prompt is not None and seat is not None and phase is not None:
        own_order = unique_row(Order.objects.filter(phase=phase, seat=seat))
        if form is None:
            stored = own_order.data if own_order else None
            form = OrderForm(prompt, initial=OrderForm.initial_from(prompt, stored, phase.number))
    return {
        "game": facts.game_facts(game, engine, seats),
        "seat": mine,
        "seat_title": mine.title if mine else "",
        "phase": facts.phase_facts(phase) if phase else None,
        "prompt": prompt,
        "form": form,
        "own_order": facts.own_order(own_order),
        "view": engine.view(game.state, number),
        "board_template": board_templates(game.engine).page,
        "table": table,
        "events": facts.log_lines(turns.visible_events(game, number).order_by("-seq")[:200]),
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


def _rows(seats: list[Seat]) -> list[MyGame]:
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
    return rows


def _refused(request: HttpRequest, message: str) -> HttpResponse:
    context = {"title": "Sign in first", "message": message}
    return render(request, "games/link_error.html", context, status=403)


@require_http_methods(["GET", "POST"])
def my_games(request: HttpRequest) -> HttpResponse:
    """Signed in (an account): all the player's tables and their settings. With only seat links opened:
    those seats' tables, and a form that emails a sign-in link to the player's own address."""
    player = sessions.account_player(request)
    if player is None:
        return _my_seats(request)
    seats = list(Seat.objects.filter(player=player).select_related("game", "player").order_by("-game__pk"))
    settings_form = PlayerSettingsForm(request.POST or None, instance=player)
    if request.method == "POST" and settings_form.is_valid():
        request.session[SESSION_TIME_ZONE] = settings_form.save().time_zone
        messages.success(request, "Settings saved.")
        return redirect("games-mine")
    context = {
        "rows": _rows(seats),
        "player": player,
        "signed_in": True,
        "settings_form": settings_form,
        "sign_in_form": None,
    }
    return render(request, "games/mine.html", context, status=400 if settings_form.errors else 200)


def _my_seats(request: HttpRequest) -> HttpResponse:
    if request.method == "POST" and "email" not in request.POST:
        # Whoever holds a forwarded turn email may play that seat, not change the owner's name, time zone
        # or emails.
        return _refused(
            request, "Only a signed-in player can change settings (a turn link opens one seat). Nothing was changed."
        )
    form = SignInForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        sessions.email_sign_in_link(form.cleaned_data["email"])
        # The same answer for every address: the page does not tell who plays here.
        messages.success(
            request,
            f"If that address belongs to a player, a sign-in link is on its way to it (it works once, for "
            f"{SIGN_IN_MINUTES} minutes). Only a few are sent a day: check your spam folder before asking again.",
        )
        return redirect("games-mine")
    seats = sessions.granted_seats(request)
    context = {
        "rows": _rows(seats),
        "player": None,
        "signed_in": bool(seats),
        "settings_form": None,
        "sign_in_form": form,
        "sign_in_minutes": SIGN_IN_MINUTES,
    }
    return render(request, "games/mine.html", context, status=400 if form.errors else 200)


@require_http_methods(["GET", "POST"])
def sign_in(request: HttpRequest, token: str) -> HttpResponse:
    """The sign-in link from the email: GET shows a button (mail scanners follow links), POST signs in."""
    try:
        player = sessions.sign_in_link_player(token)
        if request.method == "POST":
            sessions.redeem_sign_in_link(request, token)
    except LinkError as error:
        return render(request, "games/link_error.html", {"message": str(error)}, status=403)
    if request.method == "GET":
        return render(request, "games/sign_in.html", {"player": facts.addressee(player)})
    messages.success(request, "You are signed in: here are all your games.")
    return redirect("games-mine")


@require_POST
def sign_out(request: HttpRequest) -> HttpResponse:
    request.session.flush()
    return redirect("games-home")


@require_POST
def sign_out_everywhere(request: HttpRequest) -> HttpResponse:
    player = sessions.account_player(request)
    if player is None:
        return _refused(request, "Only a signed-in player can do that: sign in with the link My games emails you.")
    sessions.sign_out_everywhere(request, player)
    messages.success(
        request, "You are signed out in every browser, including those that opened one of your turn links."
    )
    return redirect("games-mine")

