"""The votes' POSTs from the game page: propose, vote, concede. Each acts for the seat this browser holds
(games/incoming/sessions.py: an organiser signed in to the admin holds none, so cannot act as a player), goes through
games.votes.services and comes back to the game page with what happened, or why nothing did."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from games.incoming.sessions import seat_of
from games.incoming.views import not_a_player
from games.models import Seat, posted_id
from games.votes import services
from games.votes.models import Proposal

PROPOSED = gettext_lazy("Proposed: every other player is asked to vote. Nobody is told who proposed it.")
VOTED = {
    "yes": gettext_lazy("Your vote is in: yes. Nobody else sees it."),
    "no": gettext_lazy("Your vote is in: no. Nobody else sees it."),
}
CONCEDED = gettext_lazy("You have left this game; someone else plays your seat from now on. Thank you for playing.")
UNCONFIRMED = gettext_lazy("Tick the box to confirm that you leave this game. Nothing was changed.")
PASSED = {
    "draw": gettext_lazy("Every player agreed: the game ended in a draw."),
    "cancel": gettext_lazy("Every player agreed: the game is cancelled."),
}


def _back(game_id: int) -> HttpResponse:
    return redirect(reverse("games-game", args=[game_id]) + "#votes")


def _acting(request: HttpRequest, game_id: int, action: Callable[[Seat], str]) -> HttpResponse:
    seat = seat_of(request, game_id)
    if seat is None or seat.player_id is None:
        return not_a_player(request, game_id)
    try:
        done = action(seat)
    except services.Refused as refusal:
        messages.error(request, str(refusal))
    else:
        messages.success(request, done)
    return _back(game_id)


def said(outcome: services.Outcome, kind: str, opened: str) -> str:
    if outcome.status == Proposal.Status.PASSED:
        return str(PASSED[kind])
    if outcome.status == Proposal.Status.FAILED:
        return _("The proposal failed. Nobody is told who voted how.")
    return opened


@require_POST
def propose(request: HttpRequest, game_id: int) -> HttpResponse:
    kind = request.POST.get("kind", "")

    def act(seat: Seat) -> str:
        assert seat.player_id is not None
        outcome = services.propose(seat.pk, seat.player_id, kind)
        return said(outcome, kind, str(PROPOSED))

    return _acting(request, game_id, act)


@require_POST
def vote(request: HttpRequest, game_id: int) -> HttpResponse:
    proposal, choice = request.POST.get("proposal", ""), request.POST.get("vote", "")

    def act(seat: Seat) -> str:
        assert seat.player_id is not None
        if choice not in ("yes", "no"):
            raise services.Refused(_("Choose yes or no. Nothing was changed."))
        proposal_id = posted_id(proposal)
        if proposal_id is None:
            raise services.Refused(_("There is no such vote at this table. Nothing was changed."))
        outcome = services.vote(seat.pk, seat.player_id, proposal_id, choice == "yes")
        kind = Proposal.objects.filter(pk=outcome.proposal_id).values_list("kind", flat=True).first() or ""
        return said(outcome, kind, str(VOTED[choice]))

    return _acting(request, game_id, act)


@require_POST
def concede(request: HttpRequest, game_id: int) -> HttpResponse:
    confirmed = request.POST.get("confirm") == "yes"

    def act(seat: Seat) -> str:
        assert seat.player_id is not None
        if not confirmed:
            raise services.Refused(str(UNCONFIRMED))
        services.concede(seat.pk, seat.player_id)
        return str(CONCEDED)

    return _acting(request, game_id, act)
