"""The order form's posts. Each answers with a redirect (Post/Redirect/Get), so the address bar holds a page
that a reload only reads again: storing an order, or refusing it, goes back to the game page; "Add a step",
"Remove the last step", a ranked list's buttons and the review's "Change" go back to the game page with the
form as it now stands (kept in the session meanwhile: games/incoming/drafts.py); "Check my order" in a one-seat turn
goes to the review page. Only POSTs change anything, and only through games.play.orders: the form is read and
checked here, and what it says goes to the service as plain data."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from games.engines import get_engine
from games.incoming import drafts, ranked, review
from games.incoming.drafts import Draft
from games.incoming.forms import OrderForm
from games.incoming.sessions import seat_of
from games.incoming.views import not_a_player
from games.models import Seat
from games.outgoing import facts
from games.play import orders, turns

BUILDER_BUTTONS = ("add", "remove", *ranked.BUTTONS)  # they show the form again and store nothing


def _closed(request: HttpRequest, game_id: int) -> HttpResponse:
    messages.error(request, _("That turn is no longer open, so nothing was stored. Here is the game now."))
    return redirect("games-game", game_id=game_id)


def to_form(game_id: int) -> HttpResponseRedirect:
    """The game page, at the order form."""
    return HttpResponseRedirect(reverse("games-game", args=[game_id]) + "#order")


def _again(request: HttpRequest, seat: Seat, phase: int, form: OrderForm, errors: tuple[str, ...] = ()) -> HttpResponse:
    """Back to the form as it was posted (as the builder read it), with `errors` above it."""
    draft = Draft(phase, seat.number, form.typed, data=drafts.form_data(form.data), errors=errors)
    drafts.keep(request, seat.game_id, draft)
    return to_form(seat.game_id)


@require_POST
def submit_order(request: HttpRequest, game_id: int) -> HttpResponse:
    """The order form's buttons: a builder's or a ranked list's show the form again (nothing is stored);
    submitting stores a sealed order, or, where it would resolve a one-seat turn, shows it read back for
    confirmation first; "Change" (from that review) reopens the form with the reviewed order."""
    seat = seat_of(request, game_id, with_turn=True)  # open_turn below then reads nothing more
    if seat is None:
        return not_a_player(request, game_id)
    try:
        phase_number = int(request.POST.get("phase", ""))
    except ValueError:
        phase_number = -1
    try:
        turn = orders.open_turn(seat, phase_number)
    except orders.TurnClosed:
        return _closed(request, game_id)
    game, prompt = seat.game, turn.prompt
    # A steps field's own name is only ever the typed form's text box (the builder's rows are "<name>__<n>"),
    # so it means typed whatever "how" says: a page served with a wrong "how" still stores what was typed.
    typed = request.POST.get("how") == "typed" or any(
        spec["kind"] == "steps" and spec["name"] in request.POST for spec in prompt["fields"]
    )
    if "change" in request.POST:
        try:
            reviewed = review.unsign(seat, request.POST["change"])
        except review.ReviewExpired:
            messages.info(request, _("That review is too old; here is your order form."))
            return redirect("games-game", game_id=game_id)
        initial = OrderForm.initial_from(prompt, reviewed.order, turn.phase_number)
        drafts.keep(request, game_id, Draft(turn.phase_number, seat.number, reviewed.typed, initial=initial))
        return to_form(game_id)
    source = review.steps_source(game, seat.number)
    data = ranked.rearranged(request.POST, prompt)
    form = OrderForm(prompt, data, source=source, typed=typed, remove=request.POST.get("remove", ""))
    if any(button in request.POST for button in BUILDER_BUTTONS) or not form.is_valid():
        return _again(request, seat, turn.phase_number, form)
    if turn.alone:
        return _review(request, seat, turn.phase_number, form)
    return _submitted(request, seat, turn.phase_number, form.order(), form)


def _review(request: HttpRequest, seat: Seat, phase_number: int, form: OrderForm) -> HttpResponse:
    """A turn that is the seat's alone resolves as its order is stored: the order is read back first."""
    try:
        checked = orders.check_order(seat, phase_number, form.order())
    except orders.TurnClosed:
        return _closed(request, seat.game_id)
    except orders.IllegalOrder as error:
        return _again(request, seat, phase_number, form, (str(error),))
    reviewed = review.Reviewed(phase_number, checked.order, form.typed)
    drafts.keep_review(request, seat.game_id, review.sign(seat, reviewed))
    return redirect("games-order-review", game_id=seat.game_id)


@require_GET
def review_page(request: HttpRequest, game_id: int) -> HttpResponse:
    """The order of a one-seat turn read back, before it counts: Confirm stores it, Change reopens the form."""
    seat = seat_of(request, game_id)
    if seat is None:
        return not_a_player(request, game_id)
    game = seat.game
    phase = turns.current_phase(game)
    try:
        token = drafts.review_token(request, game_id)
        reviewed = review.unsign(seat, token)
    except review.ReviewExpired:
        return redirect("games-game", game_id=game_id)
    if phase is None or reviewed.phase_number != phase.number:
        return _closed(request, game_id)
    context = {
        "game": facts.game_facts(game, get_engine(game.engine), list(game.seats.select_related("player"))),
        "phase": facts.phase_facts(phase),
        "read_back": review.read_back(game, seat.number, reviewed.order),
        "token": token,
    }
    return render(request, "games/review.html", context)


def _submitted(
    request: HttpRequest, seat: Seat, phase_number: int, order: dict[str, Any], form: OrderForm | None
) -> HttpResponse:
    """Through games.play.orders, which checks the turn and the order under its lock. A refusal goes back to
    the form it came from (with the engine's reason above it), or, from the review, to the game page."""
    game_id = seat.game_id
    try:
        result = orders.submit_order(seat, phase_number, order)
    except orders.TurnClosed:
        return _closed(request, game_id)
    except orders.OrderRejected as error:
        if form is None:
            messages.error(request, _("Your order was not stored: %(why)s") % {"why": error})
            return redirect("games-game", game_id=game_id)
        return _again(request, seat, phase_number, form, (str(error),))
    drafts.drop(request, game_id)
    messages.success(request, review.outcome_words(result, game_id, phase_number))
    return redirect("games-game", game_id=game_id)


@require_POST
def confirm_order(request: HttpRequest, game_id: int) -> HttpResponse:
    """The review's "Confirm": the order read back, exactly as reviewed, submitted like any order."""
    seat = seat_of(request, game_id)
    if seat is None:
        return not_a_player(request, game_id)
    try:
        reviewed = review.unsign(seat, request.POST.get("order", ""))
    except review.ReviewExpired:
        messages.error(request, _("That confirmation is too old or not yours, so nothing was stored. Submit again."))
        return redirect("games-game", game_id=game_id)
    return _submitted(request, seat, reviewed.phase_number, reviewed.order, None)
