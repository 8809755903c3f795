"""The lobby's pages: open tables, proposing a table, a table's page and what can be done there, the
invitation's join and decline links, and a rematch. Thin: read who this browser speaks for, call the
services (games/lobby/tables.py, invitations.py), render plain facts. GET changes nothing (mail scanners
follow links), except the join link's grant of this browser and the ready check of a table whose start time
has passed (what the sweep does anyway). A refusal shows its reason and changes nothing."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, pgettext
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games import words
from games.engines import all_engines
from games.incoming import sessions
from games.lobby import invitations, links, ready, tables
from games.lobby.facts import table_facts
from games.lobby.forms import AcceptForm, DeclineForm, InviteForm, TableForm
from games.lobby.limits import LobbyError
from games.lobby.models import Invitation, Table
from games.models import Game, Player, Seat
from games.outgoing.links import link_expiry
from games.play import turns


def _error(request: HttpRequest, message: str, status: int = 400, title: str = "") -> HttpResponse:
    return render(request, "games/link_error.html", {"message": message, "title": title}, status=status)


def _sign_in_first(request: HttpRequest, what: str) -> HttpResponse:
    return _error(
        request,
        gettext(
            "Only a signed-in player can %(what)s. My games emails you a link that signs you in, or makes your "
            "account if you have none yet (a turn link opens one seat only)."
        )
        % {"what": what},
        status=403,
        title=gettext("Sign in first"),
    )


@require_GET
def open_tables(request: HttpRequest) -> HttpResponse:
    """Every public table waiting for players, soonest start first."""
    ready.settle_due()
    shown = Table.objects.filter(status=Table.Status.OPEN, private=False).select_related("creator").order_by("start_by")
    rows = [facts for facts in (table_facts(table) for table in shown[:100]) if facts.open_seats]
    return render(request, "lobby/open.html", {"tables": rows, "signed_in": bool(sessions.account_player(request))})


@require_http_methods(["GET", "POST"])
def new_table(request: HttpRequest) -> HttpResponse:
    """Choose a game, then describe the table (the form is the chosen game's: its own options)."""
    player = sessions.account_player(request)
    if player is None:
        return _sign_in_first(request, gettext("start a game"))
    slug = request.POST.get("game") or request.GET.get("game", "")
    engines = {engine.slug: engine for engine in all_engines()}
    if slug not in engines:
        games = [
            {"slug": e.slug, "title": words.game_title(e.title), "min": e.min_players, "max": e.max_players}
            for e in engines.values()
        ]
        return render(request, "lobby/choose.html", {"games": games})
    engine = engines[slug]
    seats = _seats_asked(request, engine)
    per_seat = [words.render(spec.item) or _("choice") for spec in engine.options if spec.kind == "seat-list"]
    if seats is None and per_seat:
        # A value per seat (Piraeus' countries): the table's size first, then one drop-down per seat.
        context = {
            "game": {"slug": slug, "title": words.game_title(engine.title)},
            "least": engine.min_players,
            "item": per_seat[0],
        }
        return render(request, "lobby/seats.html", context | {"most": engine.max_players})
    form = TableForm(slug, player.time_zone, request.POST or None, initial={"name": player.name}, seats=seats)
    if request.method == "POST" and form.is_valid():
        try:
            table = tables.create_table(
                player, form.spec(), form.cleaned_data["invite"], name=form.cleaned_data["name"]
            )
        except LobbyError as error:
            form.add_error(None, str(error))
        else:
            messages.success(
                request, _("Your table is waiting for its players: share its link, or wait for the answers.")
            )
            return redirect("lobby-table", key=table.key)
    context = {"form": form, "game": {"slug": slug, "title": words.game_title(engines[slug].title)}}
    return render(request, "lobby/new.html", context, status=400 if form.errors else 200)


def _seats_asked(request: HttpRequest, engine: Any) -> int | None:
    """The table's size the page was asked for (the size step's, or the form's own), if it is one the game takes."""
    asked = request.POST.get("size") or request.GET.get("size", "")
    if asked.isascii() and asked.isdigit() and engine.min_players <= int(asked) <= engine.max_players:
        return int(asked)
    return None


def _table(key: str) -> Table:
    table = get_object_or_404(Table.objects.select_related("creator"), key=key)
    if table.status == Table.Status.OPEN and table.start_by <= timezone.now():
        ready.settle(table.pk, timezone.now())  # its start time passed: what the sweep would do
        table.refresh_from_db()
    return table


@require_GET
def table_page(request: HttpRequest, key: str) -> HttpResponse:
    table = _table(key)
    player = sessions.account_player(request)
    invitation, _ = _answerer(request, table)
    viewer = player.pk if player else invitation.player_id if invitation else None
    facts = table_facts(table, viewer)
    seated = viewer is not None and any(seat.you for seat in facts.seats)
    context: dict[str, Any] = {
        "table": facts,
        "signed_in": player is not None,
        "creator": player is not None and player.pk == table.creator_id,
        "seated": seated,
        "invited": invitation is not None and table.status == Table.Status.OPEN,
        "can_join": player is not None and not seated and invitation is None and facts.open_seats > 0,
        "accept_form": AcceptForm(initial={"name": invitation.player.name if invitation.player else ""})
        if invitation
        else None,
        "decline_form": DeclineForm() if invitation else None,
        "invite_form": InviteForm(),
        "game_url": reverse("games-game", args=[table.game_id]) if table.game_id else "",
        # This browser acts for a seat of the started game (an account, a seat link, the Accept that started it).
        "game_seated": table.game_id is not None and sessions.seat_of(request, table.game_id) is not None,
    }
    return render(request, "lobby/table.html", context)


def _act(request: HttpRequest, key: str, done: str, action: Any) -> HttpResponse:
    """Run a table action for the signed-in player; its refusal shown on the table's page."""
    table = get_object_or_404(Table, key=key)
    player = sessions.account_player(request)
    if player is None:
        return _sign_in_first(request, gettext("do that"))
    try:
        action(table, player)
    except LobbyError as error:
        said = str(error)
        # Most refusals say already that nothing was changed (or sent); the others get it said.
        if pgettext("as in 'Nothing was changed.'", "Nothing") not in said:
            said = gettext("%(error)s Nothing was changed.") % {"error": said}
        messages.error(request, said)
    else:
        messages.success(request, done)
    return redirect("lobby-table", key=key)


@require_POST
def join(request: HttpRequest, key: str) -> HttpResponse:
    return _act(request, key, gettext("You have a seat at this table."), lambda t, p: tables.join(t.pk, p))


@require_POST
def leave(request: HttpRequest, key: str) -> HttpResponse:
    return _act(
        request, key, gettext("You left this table: your seat is open again."), lambda t, p: tables.leave(t.pk, p)
    )


@require_POST
def cancel(request: HttpRequest, key: str) -> HttpResponse:
    return _act(
        request, key, gettext("The table is cancelled; everyone at it is told."), lambda t, p: tables.cancel(t.pk, p)
    )


@require_POST
def invite(request: HttpRequest, key: str) -> HttpResponse:
    form = InviteForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Give an email address to invite. Nothing was sent."))
        return redirect("lobby-table", key=key)
    address = form.cleaned_data["address"]
    return _act(
        request,
        key,
        gettext("An invitation is on its way to %(address)s.") % {"address": address},
        lambda t, p: invitations.invite_more(t.pk, p, address),
    )


def _answerer(request: HttpRequest, table: Table) -> tuple[Invitation | None, Player | None]:
    """The pending invitation to `table` this browser may answer, and the account answering it: through the
    join link it opened (no account: whoever holds the link answers for the invited address), or the
    signed-in account's own."""
    invitation = links.granted(request, table)
    if invitation is not None:
        return invitation, None
    player = sessions.account_player(request)
    return (invitations.pending_of(table, player), player) if player is not None else (None, None)


def _answer(request: HttpRequest, key: str, act: Any) -> HttpResponse:
    """Answer this browser's invitation to the table with `act(invitation, account)`, which returns what to
    say, and the page to go on to if not the table's; a refusal is shown instead."""
    table = get_object_or_404(Table, key=key)
    invitation, account = _answerer(request, table)
    if invitation is None:
        messages.error(request, str(invitations.NO_INVITATION))
        return redirect("lobby-table", key=key)
    try:
        said, then = act(invitation, account)
    except LobbyError as error:
        messages.error(request, _("%(error)s Nothing was changed.") % {"error": error})
        return redirect("lobby-table", key=key)
    messages.success(request, said)
    return redirect(then or reverse("lobby-table", args=[key]))


def _seated(request: HttpRequest, table: Table, invitation: Invitation) -> str:
    """The game `table` started as, with this browser acting for the invitee's seat in it (as their seat link
    would): the answer's last tap lands them in their seat, not watching. Its page's address."""
    player_id = Invitation.objects.values_list("player_id", flat=True).get(pk=invitation.pk)  # set by the Accept
    seat = Seat.objects.select_related("player", "game").get(game=table.game, player__pk=player_id)
    phase = turns.current_phase(seat.game)
    if phase is not None:
        sessions.grant_seat(request, seat, until=link_expiry(phase, seat.game, timezone.now()))
    return reverse("games-game", args=[seat.game_id])


@require_POST
def accept(request: HttpRequest, key: str) -> HttpResponse:
    form = AcceptForm(request.POST)
    name = form.cleaned_data["name"] if form.is_valid() else ""

    def act(invitation: Invitation, account: Player | None) -> tuple[str, str]:
        table = invitations.accept(invitation.pk, account, name)
        if table.status == Table.Status.STARTED:
            said = gettext("You accepted, and every seat is taken: the game has started. This is your seat.")
            return said, _seated(request, table, invitation)
        return gettext("You accepted: the game starts when every seat is taken, or at the start time."), ""

    return _answer(request, key, act)


@require_POST
def decline_here(request: HttpRequest, key: str) -> HttpResponse:
    form = DeclineForm(request.POST)
    everyone = form.is_valid() and form.cleaned_data["everyone"]

    def act(invitation: Invitation, account: Player | None) -> tuple[str, str]:
        invitations.decline(invitation.pk, everyone=everyone)
        return gettext("You declined. You will get no more invitations from this player."), ""

    return _answer(request, key, act)


@require_GET
def join_link(request: HttpRequest, token: str) -> HttpResponse:
    """The invitation's join link: this browser may answer that invitation (and nothing else), then the
    table's page shows the invitation's buttons."""
    try:
        invitation = links.read(token)
    except links.LinkError as error:
        return _error(request, str(error), status=403)
    if why := invitations.refusal(invitation, invitation.table):
        messages.info(request, why)
    else:
        links.grant(request, invitation)
    return redirect("lobby-table", key=invitation.table.key)


@csrf_exempt  # RFC 8058: the mailbox provider POSTs the one-click decline with no session; the signed link is the key
@require_http_methods(["GET", "POST"])
def decline(request: HttpRequest, token: str) -> HttpResponse:
    """The invitation's decline link: GET shows the button (mail scanners follow links), POST declines (the
    page's button, or a mail client's one-click "List-Unsubscribe=One-Click")."""
    try:
        invitation = links.read(token)
        if request.method == "POST":
            form = DeclineForm(request.POST)
            invitations.decline(invitation.pk, everyone=form.is_valid() and form.cleaned_data["everyone"])
    except (links.LinkError, LobbyError) as error:
        return _error(request, str(error), status=403)
    context = {"done": request.method == "POST", "inviter": invitation.inviter.display_name, "form": DeclineForm()}
    context["title"] = invitation.table.title or words.engine_name(invitation.table.engine)
    return render(request, "lobby/decline.html", context)


@require_POST
def rematch(request: HttpRequest, game_id: int) -> HttpResponse:
    """The same table again, proposed by a player of the finished game (their account, or their seat link)."""
    game = get_object_or_404(Game, pk=game_id)
    seat = sessions.seat_of(request, game.pk)
    player: Player | None = seat.player if seat is not None else None
    if player is None:
        return _error(request, _("Only a player of this game can offer a rematch."), status=403)
    try:
        table = tables.rematch(game, player)
    except LobbyError as error:
        messages.error(request, _("%(error)s") % {"error": error})
        return redirect("games-game", game_id=game.pk)
    messages.success(request, _("The same table again: the other players are invited. It starts when they accept."))
    return redirect("lobby-table", key=table.key)
