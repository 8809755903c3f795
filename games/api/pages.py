"""The tokens' card on My games and its two POSTs: make a token (shown once, on a page of its own that no
browser keeps), revoke one. Only a signed-in account has it: a seat link opens one seat, not the account."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from games.api import tokens
from games.api.models import Token
from games.extensions import AccountSection
from games.incoming import sessions
from games.models import Player


class TokenForm(forms.Form):
    prefix = "token"  # My games has a settings form with a "name" too: the ids must differ

    name = forms.CharField(
        label=gettext_lazy("Token name"),
        max_length=tokens.NAME_LENGTH,
        help_text=gettext_lazy("What it is for: “my phone”, “my bot”."),
    )
    scope = forms.ChoiceField(
        label=gettext_lazy("It may"), choices=Token.Scope.choices, initial=Token.Scope.READ, widget=forms.RadioSelect
    )


@dataclass(frozen=True)
class TokenLine:
    id: int
    name: str
    scope: str
    hint: str
    created_at: datetime
    last_used_at: datetime | None


def tokens_section(request: HttpRequest, player: Player) -> AccountSection:
    lines = [
        TokenLine(t.pk, t.name, t.get_scope_display(), t.hint, t.created_at, t.last_used_at)
        for t in tokens.live(player)
    ]
    context: dict[str, Any] = {"tokens": lines, "form": TokenForm(), "rate": settings.PBEM_API_RATE}
    return AccountSection(template="api/tokens.html", context=context)


def _signed_in(request: HttpRequest) -> Player | None:
    player = sessions.account_player(request)
    if player is None:
        messages.error(request, _("Only a signed-in player can manage API tokens: sign in on this page first."))
    return player


@require_POST
def create(request: HttpRequest) -> HttpResponse:
    player = _signed_in(request)
    if player is None:
        return redirect("games-mine")
    form = TokenForm(request.POST)
    if not form.is_valid():
        first = next(iter(form.errors.values()))[0]
        messages.error(request, _("No token was made: %(first)s") % {"first": first})
        return redirect("games-mine")
    try:
        made = tokens.make(player, form.cleaned_data["name"], form.cleaned_data["scope"])
    except tokens.TokenRefused as refusal:
        messages.error(request, _("No token was made: %(refusal)s") % {"refusal": refusal})
        return redirect("games-mine")
    context = {"name": made.token.name, "scope": made.token.get_scope_display(), "secret": made.secret}
    response = render(request, "api/token_made.html", context)
    response["Cache-Control"] = "no-store"  # the token is shown once: no browser cache keeps the page
    return response


@require_POST
def revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    player = _signed_in(request)
    if player is None:
        return redirect("games-mine")
    if tokens.revoke(player, token_id):
        messages.success(request, _("The token is revoked: it no longer works."))
    else:
        messages.error(request, _("There is no such token of yours to revoke."))
    return redirect("games-mine")
