"""Thin views: read the session, call the service layer, render. GET never changes game state (mail
scanners follow links); only POSTs do, and only through the services of games.play."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games import extensions, words
from games.engines import all_engines, board_templates, get_engine
from games.incoming import account, drafts, review, sessions, signup
from games.incoming.forms import AddressForm, OrderForm, PlayerSettingsForm, SignInForm, SignUpForm
from games.incoming.middleware import SESSION_LANGUAGE, SESSION_TIME_ZONE
from games.incoming.sessions import seat_of
from games.models import Game, Order, Phase, Player, Seat, unique_row
from games.outgoing import facts, mailpolicy
from games.outgoing.links import SIGN_IN_MINUTES, LinkError, read_token, read_unsubscribe_token
from games.play import addresses, turns


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    # Plain values, as every template gets (games/outgoing/facts.py): not the games (their state) nor the engines.
    games = [
        {"title": words.game_title(e.title), "min_players": e.min_players, "max_players": e.max_players}
        for e in all_engines()
    ]
    recent = [
        {"id": g.pk, "title": g.name, "status": g.get_status_display()} for g in Game.objects.order_by("-pk")[:10]
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
        return render(request, "games/link_error.html", {"message": _("This seat is played by a bot.")}, status=403)
    sessions.grant_seat(request, seat, until=target.expires_at)
    if target.phase.number != seat.game.phase_number and seat.game.status != Game.Status.FINISHED:
        messages.info(
            request,
            _("That email was about an earlier turn (%(turn)s). Here is the game now.") % {"turn": target.phase.label},
        )
    return redirect("games-game", game_id=seat.game_id)


def game_context(request: HttpRequest, game: Game, form: OrderForm | None = None) -> dict[str, Any]:
    """Only what this browser's reader may see (games/outgoing/facts.py): the public facts, their seat's view and
    prompt, their own order's forms (the builder and the typed syntax) and its read-back, and the panels the
    apps add (games/extensions.py, `game_panel`: table talk). A plug-in that shows the page again (a posted
    message with its errors) builds on this."""
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
    typed_form = None
    stored_read_back = None
    if prompt is not None and seat is not None and phase is not None:
        # The form a post left to show (a builder's step, an order refused: games/incoming/drafts.py), if no form is
        # given.
        form = form or _draft_form(request, game, seat, phase.number, prompt)
    typed_open = form is not None and form.typed  # the player was typing: the typed form shows open
    if prompt is not None and seat is not None and phase is not None:
        own_order = unique_row(Order.objects.filter(phase=phase, seat=seat))
        stored = own_order.data if own_order else None
        initial = OrderForm.initial_from(prompt, stored, phase.number)
        if not any(spec["kind"] == "steps" for spec in prompt["fields"]):
            form = form or OrderForm(prompt, initial=initial)
        else:  # steps to build: the builder, and the typed syntax beside it (the one posted keeps its input)
            source = review.steps_source(game, seat.number)
            typed_form = form if form is not None and form.typed else OrderForm(prompt, initial=initial, typed=True)
            form = form if form is not None and not form.typed else OrderForm(prompt, initial=initial, source=source)
        if own_order is not None:
            stored_read_back = review.read_back(game, seat.number, own_order.data)
    return {
        "game": facts.game_facts(game, engine, seats),
        "seat": mine,
        "seat_title": mine.title if mine else "",
        "phase": facts.phase_facts(phase) if phase else None,
        "prompt": prompt,
        "form": form,
        "typed_form": typed_form,
        "typed_open": typed_form is not None and typed_open,
        "single_seat": phase is not None and review.needs_review(phase),
        "own_order": facts.own_order(own_order),
        "read_back": stored_read_back,
        "view": engine.view(game.state, number),
        "board_template": board_templates(game.engine).page,
        "table": table,
        # The latest 200 lines, oldest first (the earlier turns' pages read the same way).
        "events": facts.log_lines(list(turns.visible_events(game, number).order_by("-seq")[:200])[::-1]),
        "rules_url": reverse("games-rules", args=[game.engine]),
        # Earlier turns once one has resolved (the phase after it opened, or the game ended with it).
        "history_url": reverse("games-history", args=[game.pk])
        if game.phase_number > 1 or game.status == Game.Status.FINISHED
        else None,
        # The reader's own address, if its mail bounced or was marked as spam: base.html asks them to fix it.
        "mail_problem": facts.mail_problem(next((s.player for s in seats if s.number == number), None)),
        # What the apps show beside the table (games/extensions.py: table talk, the lobby's rematch).
        "panels": extensions.game_panels(request, game, seat),
    }


def _draft_form(request: HttpRequest, game: Game, seat: Seat, phase: int, prompt: dict[str, Any]) -> OrderForm | None:
    """The order form a post of this seat kept for this turn, shown again with its errors; None if there is none."""
    draft = drafts.take(request, game.pk, seat.number, phase)
    if draft is None:
        return None
    source = review.steps_source(game, seat.number)
    typed = draft.typed and any(spec["kind"] == "steps" for spec in prompt["fields"])  # else there is one form
    if draft.initial is not None:  # the review's "Change": the reviewed order, to start again from
        return OrderForm(prompt, initial=draft.initial, source=source, typed=typed)
    form = OrderForm(prompt, draft.query(), source=source, typed=typed)
    form.is_valid()  # what no longer holds, and what the form itself refuses
    for error in draft.errors:  # what the engine refused
        form.add_error(None, error)
    return form


def not_a_player(request: HttpRequest, game_id: int) -> HttpResponse:
    get_object_or_404(Game, pk=game_id)
    return render(
        request,
        "games/link_error.html",
        {"message": _("You are not signed in as a player of this game. Open the link in your turn email.")},
        status=403,
    )


@require_GET
def game_page(request: HttpRequest, game_id: int) -> HttpResponse:
    game = get_object_or_404(Game, pk=game_id)
    return render(request, "games/game.html", game_context(request, game))


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
        owes = phase is not None and phase.owes(seat.number)
        rows.append(MyGame(seat=seat, phase=phase, owes=owes))
    # Owed orders first, then games in play, newest first.
    rows.sort(key=lambda r: (not r.owes, r.seat.game.status == Game.Status.FINISHED, -r.seat.game_id))
    return rows


def _refused(request: HttpRequest, message: str) -> HttpResponse:
    context = {"title": _("Sign in first"), "message": message}
    return render(request, "games/link_error.html", context, status=403)


@never_cache  # Cache-Control: no-store: it shows a new hook's secret once, the player's address and links
@require_http_methods(["GET", "POST"])
def my_games(request: HttpRequest) -> HttpResponse:
    """Signed in (an account): all the player's tables and their settings. With only seat links opened:
    those seats' tables, and a form that emails a sign-in link to the player's own address."""
    player = sessions.account_player(request)
    if player is None:
        return _my_seats(request)
    if request.method == "POST" and "address" in request.POST:
        return account.change_address(request, player)
    seats = list(Seat.objects.filter(player=player).select_related("game", "player").order_by("-game__pk"))
    settings_form = PlayerSettingsForm(request.POST or None, instance=player)
    if request.method == "POST" and settings_form.is_valid():
        saved = settings_form.save()
        request.session[SESSION_TIME_ZONE] = saved.time_zone
        request.session[SESSION_LANGUAGE] = saved.language
        translation.activate(saved.language)  # the next page's message already in the language chosen
        messages.success(request, _("Settings saved."))
        return redirect("games-mine")
    context = {
        "rows": _rows(seats),
        "player": player,
        "signed_in": True,
        "settings_form": settings_form,
        "sign_in_form": None,
        "mail_problem": facts.mail_problem(player),
        "address_form": AddressForm(initial={"address": player.email}),
    }
    sections = extensions.account_sections(request, player)  # the apps' cards (new games, table talk, API tokens)
    context["games_sections"] = [section for section in sections if section.beside_games]
    context["sections"] = [section for section in sections if not section.beside_games]
    return render(request, "games/mine.html", context, status=400 if settings_form.errors else 200)


def _my_seats(request: HttpRequest) -> HttpResponse:
    if request.method == "POST" and "email" not in request.POST:
        # Whoever holds a forwarded turn email may play that seat, not change the owner's name, time zone
        # or emails.
        return _refused(
            request, _("Only a signed-in player can change settings (a turn link opens one seat). Nothing was changed.")
        )
    form = SignInForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        signup.email_link(request, form.cleaned_data["email"])
        # The same answer for every address: the page does not tell who plays here.
        messages.success(
            request,
            _(
                "A link is on its way to that address: it signs you in, or, for an address new here, makes your "
                "account (it works once, for %(minutes)s minutes). Only a few are sent a day: check your spam "
                "folder before asking again."
            )
            % {"minutes": SIGN_IN_MINUTES},
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
            if player.mail_problem == Player.MailProblem.BOUNCED:  # the link arrived: the address works again
                addresses.address_fixed(player)
    except LinkError as error:
        return render(request, "games/link_error.html", {"message": str(error)}, status=403)
    if request.method == "GET":
        return render(request, "games/sign_in.html", {"player": facts.addressee(player)})
    messages.success(request, _("You are signed in: here are all your games."))
    return redirect("games-mine")


@never_cache  # it shows the address the link is for
@require_http_methods(["GET", "POST"])
def sign_up(request: HttpRequest, token: str) -> HttpResponse:
    """The sign-up link from the email: GET shows a button (mail scanners follow links), POST makes the account
    and signs this browser in (games/incoming/signup.py)."""
    form = SignUpForm(request.POST or None)
    try:
        address = signup.address_of(token)
        if request.method == "POST" and form.is_valid():
            signup.redeem(request, token, form.cleaned_data["name"])
            messages.success(request, _("Welcome: your account is made and this browser is signed in to it."))
            return redirect("games-mine")
    except LinkError as error:
        return render(request, "games/link_error.html", {"message": str(error)}, status=403)
    return render(request, "games/sign_up.html", {"address": address, "form": form}, status=400 if form.errors else 200)


@require_POST
def sign_out(request: HttpRequest) -> HttpResponse:
    request.session.flush()
    return redirect("games-home")


@require_POST
def sign_out_everywhere(request: HttpRequest) -> HttpResponse:
    player = sessions.account_player(request)
    if player is None:
        return _refused(request, _("Only a signed-in player can do that: sign in with the link My games emails you."))
    sessions.sign_out_everywhere(request, player)
    messages.success(
        request, _("You are signed out in every browser, including those that opened one of your turn links.")
    )
    return redirect("games-mine")


@csrf_exempt  # RFC 8058: the mailbox provider POSTs it, with no session and no token; the signed link is the key
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """The one-click unsubscribe of a news email: a POST (the provider's "List-Unsubscribe=One-Click", or the
    confirm page's button) moves the player to the least mail that still lets them play; a GET, which mail
    scanners follow, only shows that button."""
    try:
        player = read_unsubscribe_token(token)
    except LinkError as error:
        return render(request, "games/link_error.html", {"message": str(error)}, status=403)
    done = request.method == "POST"
    if done:
        mailpolicy.decline_news(player)
    return render(request, "games/unsubscribe.html", {"player": facts.addressee(player), "done": done})
