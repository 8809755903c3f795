"""The lobby (games/lobby): the open tables, a table as its page shows it, taking an open seat (or accepting
one's own invitation to it) and leaving one, through the lobby's services with their refusals. Proposing a
table and inviting by email stay on the page: an invitation form behind a token would be a mail relay for
scripts, and the page's limits are made for people."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import HttpRequest
from ninja import Router, Schema, Status

from games.api.problems import ERRORS, Problem
from games.api.views_common import caller
from games.lobby import ready, tables
from games.lobby.facts import TableFacts, table_facts
from games.lobby.limits import LobbyError
from games.lobby.models import Table
from games.models import Player, unique_row

router = Router(tags=["lobby"])


class SeatLineOut(Schema):
    number: int
    label: str
    state: str  # taken, invited, open or bot


class TableOut(Schema):
    key: str
    url: str
    title: str
    game: str
    creator: str
    options: list[str]
    deadlines: str
    start_by: datetime
    status: str  # open, started or cancelled
    private: bool
    size: int
    seats_left: int
    open_seats: int
    seats: list[SeatLineOut]
    game_id: int | None
    why_cancelled: str


def _out(facts: TableFacts) -> dict[str, Any]:
    return {
        **{name: getattr(facts, name) for name in ("key", "url", "title", "creator", "deadlines", "start_by")},
        **{name: getattr(facts, name) for name in ("status", "private", "size", "seats_left", "open_seats")},
        "game": facts.engine_title,
        "options": list(facts.options),
        "seats": [{"number": s.number, "label": s.label, "state": s.state} for s in facts.seats],
        "game_id": facts.game_id,
        "why_cancelled": facts.why_cancelled,
    }


def _table(key: str) -> Table:
    table = unique_row(Table.objects.select_related("creator").filter(key=key))
    if table is None:
        raise Problem(404, "no-table", "There is no such table.")
    return table


def _player(request: HttpRequest) -> Player:
    who = caller(request)
    who.must_play()
    if who.player is None:
        raise Problem(403, "sign-in-required", "Only a signed-in player can take a seat: sign in on My games.")
    return who.player


@router.get("/lobby/tables", response={200: list[TableOut], **ERRORS}, auth=None, summary="Tables waiting for players")
def open_tables(request: HttpRequest) -> list[dict[str, Any]]:
    """The public tables waiting for players with a seat open, soonest start first (as /lobby/ lists them)."""
    ready.settle_due()
    shown = Table.objects.filter(status=Table.Status.OPEN, private=False).select_related("creator")
    found = (table_facts(table) for table in shown.order_by("start_by")[:100])
    return [_out(facts) for facts in found if facts.open_seats]


@router.get("/lobby/tables/{key}", response={200: TableOut, **ERRORS}, auth=None, summary="A table")
def table(request: HttpRequest, key: str) -> dict[str, Any]:
    """A table as anyone with its key sees it (a private one's key is its link)."""
    return _out(table_facts(_table(key)))


@router.post("/lobby/tables/{key}/join", response={200: TableOut, **ERRORS}, summary="Take an open seat")
def join(request: HttpRequest, key: str) -> dict[str, Any]:
    """The first open seat, or the caller's own invitation to the table accepted; the game starts if that was
    the last seat. Refused (422, with the lobby's reason) for a full table, one that moved on, a seat held."""
    player = _player(request)
    found = _table(key)
    try:
        tables.join(found.pk, player)
    except LobbyError as error:
        raise Problem(422, "lobby-refused", str(error)) from None
    found.refresh_from_db()
    return _out(table_facts(found, player.pk))


@router.post("/lobby/tables/{key}/leave", response={204: None, **ERRORS}, summary="Leave a table before it starts")
def leave(request: HttpRequest, key: str) -> Status[None]:
    player = _player(request)
    found = _table(key)
    try:
        tables.leave(found.pk, player)
    except LobbyError as error:
        raise Problem(422, "lobby-refused", str(error)) from None
    return Status(204, None)
