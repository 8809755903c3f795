"""A signed-in player's own address: kept (confirmed right after a bounce or a complaint), or changed, which
takes effect only from the link emailed to the new address (games/play/addresses.py)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from games.incoming.forms import AddressForm
from games.models import Player
from games.outgoing import facts
from games.outgoing.links import LinkError
from games.play import addresses


def change_address(request: HttpRequest, player: Player) -> HttpResponse:
    """The address kept (confirmed right after a bounce or a complaint: mail goes to it again), or a new one,
    which is used once the link emailed to it is opened (games/play/addresses.py)."""
    form = AddressForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("That is not an email address, so nothing was changed."))
    elif form.cleaned_data["address"].strip().lower() == player.email:
        addresses.address_fixed(player)
        messages.success(request, _("Thank you: mail goes to %(address)s.") % {"address": player.email})
    elif refused := addresses.ask_to_change(player, form.cleaned_data["address"]):
        messages.error(request, refused)
    else:
        messages.success(
            request,
            _(
                "We emailed a link to %(new)s: open it, within a day, to use that address. Until then your mail "
                "goes to %(address)s."
            )
            % {"new": form.cleaned_data["address"].strip().lower(), "address": player.email},
        )
    return redirect("games-mine")


@require_http_methods(["GET", "POST"])
def confirm_address(request: HttpRequest, token: str) -> HttpResponse:
    """The link emailed to a new address: GET shows a button (mail scanners follow links), POST uses it."""
    try:
        player = addresses.pending_change(token)
        if request.method == "POST":
            player = addresses.confirm_change(token)
    except LinkError as error:
        return render(request, "games/link_error.html", {"message": str(error)}, status=403)
    if request.method == "GET":
        context = {"player": facts.addressee(player), "address": player.new_email}
        return render(request, "games/address_confirm.html", context)
    messages.success(request, _("Done: your mail goes to %(address)s from now on.") % {"address": player.email})
    return redirect("games-mine")
