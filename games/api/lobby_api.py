"""The lobby (games/lobby): the games a table may be proposed for, proposing one (through the page's own form,
games/api/lobby_forms.py), the open tables, a table as its page shows it and the caller's own tables with their
ready check, taking an open seat, accepting or declining an invitation, inviting one more address, leaving,
cancelling, and a rematch of a finished game; each through the lobby's services with their caps and refusals.

Whatever sends an invitation email (proposing a table with addresses, inviting, a rematch) needs a signed-in
player with a play token, and counts against the same caps as the page (games/lobby/limits.py): a token is
no way around them."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Field, Router, Schema, Status

from games.api.auth import optional_caller
from games.api.lobby_forms import GameOptionsOut, TableIn, games_offered, table_form
from games.api.problems import ERRORS, Problem
from games.api.views_common import caller, game_or_404, my_seat
from games.lobby import invitations, panels, ready, tables
from games.lobby.facts import TableFacts, table_facts
from games.lobby.forms import AcceptForm
from games.lobby.invitations import NAME_LENGTH
from games.lobby.limits import LobbyError
from games.lobby.models import Table
from games.models import Player, unique_row

router = Router(tags=["lobby"])


class SeatLineOut(Schema):
    number: int
    label: str = Field(description="A player's name; to the table's creator, an invited seat's address too.")
    state: str = Field(description="taken, invited, open or bot")
    creator: bool = False
    you: bool = False


class TableOut(Schema):
    key: str
    url: str
    title: str
    game: str
    creator: str
    options: list[str]
    deadlines: str
    start_by: datetime
    status: str = Field(description="open (the ready check waits), started or cancelled")
    private: bool
    bots_fill: bool = Field(description="At the start time, seats nobody took become bots.")
    size: int
    seats_left: int = Field(description="Seats nobody holds yet: open, or waiting for an invitee's answer.")
    open_seats: int
    seats: list[SeatLineOut]
    game_id: int | None
    why_cancelled: str
    invited: bool = Field(False, description="An invitation of yours to this table waits for your answer.")


class AcceptIn(Schema):
    name: str = Field("", max_length=NAME_LENGTH, description="Your name as the table sees it; blank: yours.")


class DeclineIn(Schema):
    everyone: bool = Field(False, description="Also refuse invitations from anyone else on this server.")


class InviteIn(Schema):
    address: str


def _out(facts: TableFacts) -> dict[str, Any]:
    return {
        **{name: getattr(facts, name) for name in ("key", "url", "creator", "deadlines", "start_by")},
        "title": str(facts.title),  # an untitled table's is its game's name, rendered in the caller's language
        **{name: getattr(facts, name) for name in ("status", "private", "bots_fill", "size", "seats_left")},
        "open_seats": facts.open_seats,
        "game": str(facts.engine_title),
        "options": list(facts.options),
        "seats": [s.__dict__ for s in facts.seats],
        "game_id": facts.game_id,
        "why_cancelled": facts.why_cancelled,
    }


def _seen_by(table: Table, player: Player) -> dict[str, Any]:
    """The table as `player` sees it on its page: invited addresses if they created it, their own seat."""
    table.refresh_from_db()
    return {**_out(table_facts(table, player.pk)), "invited": invitations.pending_of(table, player) is not None}


def _refused(error: LobbyError) -> Problem:
    return Problem(422, "lobby-refused", str(error))


def _table(key: str) -> Table:
    table = unique_row(Table.objects.select_related("creator").filter(key=key))
    if table is None:
        raise Problem(404, "no-table", _("There is no such table."))
    return table


def _player(request: HttpRequest, play: bool = True) -> Player:
    who = caller(request)
    if play:
        who.must_play()
    if who.player is None:
        raise Problem(403, "sign-in-required", _("Only a signed-in player can do that: sign in on My games."))
    return who.player


@router.get("/lobby/games", response={200: list[GameOptionsOut], **ERRORS}, auth=None, summary="Games to propose")
def games(request: HttpRequest) -> list[dict[str, Any]]:
    """Each game a table may be proposed for, with its player counts and the options the page's form offers."""
    return games_offered()


@router.post("/lobby/tables", response={201: TableOut, **ERRORS}, summary="Propose a table")
def propose(request: HttpRequest, body: TableIn) -> Status[dict[str, Any]]:
    """A new table with the caller in seat 1: the page's form and checks (the game's own setup checks the
    options), an invitation emailed to each address within the page's caps (422 with the reason: too many
    today, an address that declined or bounced). If nothing waits for anyone, the game starts at once."""
    player = _player(request)
    form = table_form(body, player)
    try:
        table = tables.create_table(player, form.spec(), form.cleaned_data["invite"], name=form.cleaned_data["name"])
    except LobbyError as error:
        raise _refused(error) from None
    return Status(201, _seen_by(table, player))


@router.get("/lobby/mine", response={200: list[TableOut], **ERRORS}, summary="My tables waiting for players")
def mine(request: HttpRequest) -> list[dict[str, Any]]:
    """The tables waiting for players where the caller sits or has an invitation to answer, soonest start
    first, as My games lists them: each one's ready check (which seats are taken, invited, open or bots, and
    the start time), with the invited addresses to the table's creator."""
    player = _player(request, play=False)
    return [_seen_by(table, player) for table in panels.waiting_for(player)]


@router.get("/lobby/tables", response={200: list[TableOut], **ERRORS}, auth=None, summary="Tables waiting for players")
def open_tables(request: HttpRequest) -> list[dict[str, Any]]:
    """The public tables waiting for players with a seat open, soonest start first (as /lobby/ lists them)."""
    ready.settle_due()
    shown = Table.objects.filter(status=Table.Status.OPEN, private=False).select_related("creator")
    found = (table_facts(table) for table in shown.order_by("start_by")[:100])
    return [_out(facts) for facts in found if facts.open_seats]


@router.get("/lobby/tables/{key}", response={200: TableOut, **ERRORS}, auth=None, summary="A table")
def table(request: HttpRequest, key: str) -> dict[str, Any]:
    """A table as anyone with its key sees it (a private one's key is its link); with a token (or a session), as
    its player sees it: their own seat (`you`), their invitation (`invited`), the invited addresses to its creator."""
    found = _table(key)
    who = optional_caller(request)
    if who is None or who.player is None:
        return _out(table_facts(found))
    return _seen_by(found, who.player)


def _act(request: HttpRequest, key: str, action: Callable[[Table, Player], object]) -> tuple[Table, Player]:
    """Run a lobby service on the table for the signed-in caller (a play token): its refusal as a 422 problem."""
    player = _player(request)
    found = _table(key)
    try:
        action(found, player)
    except LobbyError as error:
        raise _refused(error) from None
    return found, player


@router.post("/lobby/tables/{key}/join", response={200: TableOut, **ERRORS}, summary="Take an open seat")
def join(request: HttpRequest, key: str) -> dict[str, Any]:
    """The first open seat, or the caller's own invitation to the table accepted; the game starts if that was
    the last seat. Refused (422, with the lobby's reason) for a full table, one that moved on, a seat held."""
    return _seen_by(*_act(request, key, lambda table, player: tables.join(table.pk, player)))


@router.post("/lobby/tables/{key}/leave", response={204: None, **ERRORS}, summary="Leave a table before it starts")
def leave(request: HttpRequest, key: str) -> Status[None]:
    _act(request, key, lambda table, player: tables.leave(table.pk, player))
    return Status(204, None)


def _invitation(table: Table, player: Player) -> int:
    found = invitations.pending_of(table, player)
    if found is None:
        raise Problem(422, "lobby-refused", str(invitations.NO_INVITATION))
    return found.pk


@router.post("/lobby/tables/{key}/accept", response={200: TableOut, **ERRORS}, summary="Accept my invitation")
def accept(request: HttpRequest, key: str, body: AcceptIn) -> dict[str, Any]:
    """Take the seat the caller is invited to (by their address or their player), under `name` if given; the
    game starts if that was the last seat."""
    form = AcceptForm({"name": body.name})  # the page's own field: its length, no control characters
    if not form.is_valid():
        raise Problem(422, "lobby-refused", _("name: %(errors)s") % {"errors": form.errors["name"][0]})
    name = form.cleaned_data["name"]
    return _seen_by(*_act(request, key, lambda t, p: invitations.accept(_invitation(t, p), p, name)))


@router.post("/lobby/tables/{key}/decline", response={204: None, **ERRORS}, summary="Decline my invitation")
def decline(request: HttpRequest, key: str, body: DeclineIn) -> Status[None]:
    """The seat opens again, and its creator may not invite the caller's address again (`everyone`: nobody may)."""
    _act(request, key, lambda t, p: invitations.decline(_invitation(t, p), everyone=body.everyone))
    return Status(204, None)


@router.post("/lobby/tables/{key}/invite", response={200: TableOut, **ERRORS}, summary="Invite one more address")
def invite(request: HttpRequest, key: str, body: InviteIn) -> dict[str, Any]:
    """The table's creator invites an address to an open seat, within the page's caps."""
    return _seen_by(*_act(request, key, lambda table, player: invitations.invite_more(table.pk, player, body.address)))


@router.post("/lobby/tables/{key}/cancel", response={200: TableOut, **ERRORS}, summary="Cancel my table")
def cancel(request: HttpRequest, key: str) -> dict[str, Any]:
    """The table's creator calls it off before it starts; everyone who sat at it or was invited is told."""
    return _seen_by(*_act(request, key, lambda table, player: tables.cancel(table.pk, player)))


@router.post("/games/{game_id}/rematch", response={200: TableOut, **ERRORS}, summary="Offer a rematch")
def rematch(request: HttpRequest, game_id: int) -> dict[str, Any]:
    """After the game ended, the same table again: a private table of the same game, options and deadlines,
    the caller in seat 1 and the other players invited (within the caps). A rematch already proposed is
    answered instead, inviting nobody twice."""
    caller(request).must_play()
    seat = my_seat(request, game_id)
    if seat.player is None:
        game_or_404(game_id)
        raise Problem(403, "not-your-seat", _("Only a player of this game can offer a rematch."))
    try:
        table = tables.rematch(seat.game, seat.player)
    except LobbyError as error:
        raise _refused(error) from None
    return _seen_by(table, seat.player)
