"""Table talk's POSTs from the game page: write a message, report one, share a conversation with a seat's
new holder. Each goes through games.talk.services and comes back to the game page, at the conversation."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.incoming import sessions
from games.incoming.sessions import seat_of
from games.incoming.views import game_context, not_a_player
from games.models import Seat, posted_id
from games.talk import services
from games.talk.forms import delivery_form
from games.talk.models import TABLE
from games.talk.page import PANEL, game_panel, message_form


def _back(game_id: int, thread: str) -> HttpResponse:
    query = "" if thread == TABLE else "?" + urlencode({"talk": thread})
    return redirect(reverse("games-game", args=[game_id]) + query + "#talk")


@require_POST
def write(request: HttpRequest, game_id: int) -> HttpResponse:
    seat = seat_of(request, game_id)
    if seat is None:
        return not_a_player(request, game_id)
    game = seat.game
    seats = list(Seat.objects.filter(game=game).select_related("player"))
    form = message_form(game, seats, seat, data=request.POST)
    if not form.private and request.POST.getlist("to"):
        # A private message posted where only the table may be written to: not sent to everyone instead.
        form.add_error(None, str(services.TABLE_ONLY))
    if form.is_valid():
        try:
            message = services.post(seat, seat.player, form.cleaned_data["text"], form.cleaned_data.get("to") or ())
        except services.Refused as refusal:
            form.add_error(refusal.field if refusal.field in form.fields else None, str(refusal))
        else:
            messages.success(request, _("Your message was sent."))
            return _back(game_id, message.thread)
    # The page again, its table talk panel holding the posted form with its errors.
    context = game_context(request, game)
    context["panels"] = [game_panel(request, game, seat, form) if p.template == PANEL else p for p in context["panels"]]
    return render(request, "games/game.html", context, status=400)


@require_POST
def report(request: HttpRequest, game_id: int) -> HttpResponse:
    seat = seat_of(request, game_id)
    if seat is None:
        return not_a_player(request, game_id)
    thread = request.POST.get("thread", TABLE)
    message = posted_id(request.POST.get("message", ""))
    try:
        if message is None:
            raise ValueError(message)
        services.report(seat, message, request.POST.get("reason", ""))
    except ValueError:
        messages.error(request, _("There is no such message for you to report."))
    except services.Refused as refusal:
        messages.error(request, str(refusal))
    else:
        messages.success(request, _("Thank you: the organisers can now read that message, and only that one."))
    return _back(game_id, thread)


@require_POST
def share(request: HttpRequest, game_id: int) -> HttpResponse:
    seat = seat_of(request, game_id)
    if seat is None:
        return not_a_player(request, game_id)
    thread = request.POST.get("thread", TABLE)
    try:
        services.share(seat, thread, int(request.POST.get("seat", "x")[:3]))
    except (ValueError, services.Refused):
        messages.error(request, _("There is nothing of this conversation to share with that seat."))
    else:
        messages.success(request, _("Shared: the seat's new holder can now read this conversation's earlier messages."))
    return _back(game_id, thread)


@require_POST
def delivery(request: HttpRequest) -> HttpResponse:
    """Save it: like every setting, only in a signed-in browser (not one that opened a seat link)."""
    player = sessions.account_player(request)
    if player is None:
        context = {
            "title": _("Sign in first"),
            "message": _("Only a signed-in player can change settings. Nothing was changed."),
        }
        return render(request, "games/link_error.html", context, status=403)
    form = delivery_form(player.pk, request.POST)
    if form.is_valid():
        form.save()
        messages.success(request, _("Saved: how you get table talk by email."))
    else:
        messages.error(request, _("Choose one of the ways listed; nothing was changed."))
    return redirect("games-mine")
