"""Ending a game early (games/votes): the table's votes as the game page's panel shows them to the caller, and
proposing a draw or a cancel, voting, conceding, through games.votes.services with the page's refusals and
words.

Ballots are secret: no answer says how anyone voted, nor who proposed, nor how many have voted, before or after
the vote closes (the page shows none of it); the caller reads only their own ballot of the open vote and whether
they proposed it. tests/api/test_secrecy.py changes the other seats' ballots and checks no answer changes."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Field, Router, Schema

from games.api.problems import ERRORS, Problem
from games.api.views_common import caller, game_or_404, my_seat
from games.models import Seat
from games.votes import services, views
from games.votes.models import Proposal
from games.votes.page import VotePanel, panel

router = Router(tags=["ending a game early"])


class VoteOut(Schema):
    id: int
    kind: str = Field(description="draw or cancel")
    what: str = Field(description="The proposal in words: 'a draw'.")
    status: str = Field(description="open; passed, failed or void once closed")
    why: str = Field(description="Why it closed ('a player voted no'); blank while open.")
    closes_at: datetime | None = Field(description="While open: when a missing vote counts as no.")
    closed_at: datetime | None
    proposed_by_me: bool = Field(description="While open: you proposed it (nobody else is ever told who did).")
    my_vote: str = Field(description="While open: your own ballot, yes or no; blank before you voted.")


class VotesOut(Schema):
    open: VoteOut | None
    closed: list[VoteOut] = Field(description="The votes closed so far, newest first.")
    player: bool = Field(description="You hold a seat of this game, still going: you may vote and propose.")
    may_propose: list[str] = Field(description="What you may propose now: draw, cancel.")
    not_now: str = Field(description="Why you may propose nothing now, if so.")
    concede: str = Field(description="Why you may not concede (a league that does not allow it); blank: you may.")


class ProposeIn(Schema):
    kind: Literal["draw", "cancel"]


class BallotIn(Schema):
    vote: Literal["yes", "no"]


class ConcedeIn(Schema):
    confirm: bool = Field(description="true: you leave this game for good (the page's tick box).")


class ActedOut(Schema):
    message: str = Field(description="What happened, in the page's words.")
    votes: VotesOut


def _votes(request: HttpRequest, game_id: int) -> dict[str, Any]:
    """The panel the game page shows this caller, as JSON: the very facts the page renders."""
    seat = caller(request).seat(game_id)
    game = seat.game if seat is not None else game_or_404(game_id)
    shown = panel(request, game, seat)
    facts = shown.context if shown is not None else VotePanel(None, (), False, (), "", "")
    assert isinstance(facts, VotePanel)
    current = None
    if facts.open is not None:
        current = {**facts.open.__dict__, "status": "open", "why": "", "closed_at": None}
    return {
        "open": current,
        "closed": [
            {**past.__dict__, "closes_at": None, "proposed_by_me": False, "my_vote": ""} for past in facts.closed
        ],
        "player": facts.player,
        "may_propose": [kind for kind, _ in facts.kinds],
        "not_now": facts.not_now,
        "concede": facts.concede,
    }


def _acting(request: HttpRequest, game_id: int) -> tuple[Seat, int]:
    caller(request).must_play()
    seat = my_seat(request, game_id)
    if seat.player_id is None:
        raise Problem(403, "not-your-seat", _("You do not hold a seat at this table."))
    return seat, seat.player_id


def _refused(refusal: services.Refused) -> Problem:
    return Problem(422, "vote-refused", str(refusal))


@router.get("/games/{game_id}/votes", response={200: VotesOut, **ERRORS}, summary="The table's votes")
def votes(request: HttpRequest, game_id: int) -> dict[str, Any]:
    """The open vote (with your own ballot) and the closed ones with their outcome, what you may propose now and
    whether you may concede: what the game page's panel shows you."""
    return _votes(request, game_id)


@router.get("/games/{game_id}/votes/{proposal_id}", response={200: VoteOut, **ERRORS}, summary="A vote")
def one_vote(request: HttpRequest, game_id: int, proposal_id: int) -> dict[str, Any]:
    found = _votes(request, game_id)
    for row in [found["open"], *found["closed"]]:
        if row is not None and row["id"] == proposal_id:
            return row
    raise Problem(404, "no-vote", _("There is no such vote at this table."))


@router.post(
    "/games/{game_id}/votes",
    response={200: ActedOut, **ERRORS},
    summary="Propose a draw or a cancel",
    operation_id="propose_vote",  # the lobby's `propose` proposes a table: an operationId is unique
)
def propose(request: HttpRequest, game_id: int, body: ProposeIn) -> dict[str, Any]:
    """Propose to the table, voting yes; every other player is asked by email. Refused (422) while a vote is
    open, once the same proposal failed in this turn, while the game is paused, or where its league does not
    allow it."""
    seat, player = _acting(request, game_id)
    try:
        outcome = services.propose(seat.pk, player, body.kind)
    except services.Refused as refusal:
        raise _refused(refusal) from None
    return {"message": views.said(outcome, body.kind, str(views.PROPOSED)), "votes": _votes(request, game_id)}


@router.post("/games/{game_id}/votes/{proposal_id}/ballot", response={200: ActedOut, **ERRORS}, summary="Vote")
def ballot(request: HttpRequest, game_id: int, proposal_id: int, body: BallotIn) -> dict[str, Any]:
    """Your secret ballot on the open vote. A yes may become a no until the vote closes; a no closes it."""
    seat, player = _acting(request, game_id)
    try:
        outcome = services.vote(seat.pk, player, proposal_id, body.vote == "yes")
    except services.Refused as refusal:
        raise _refused(refusal) from None
    kind = Proposal.objects.filter(pk=outcome.proposal_id).values_list("kind", flat=True).first() or ""
    return {"message": views.said(outcome, kind, str(views.VOTED[body.vote])), "votes": _votes(request, game_id)}


@router.post("/games/{game_id}/concede", response={200: ActedOut, **ERRORS}, summary="Concede: leave the game")
def concede(request: HttpRequest, game_id: int, body: ConcedeIn) -> dict[str, Any]:
    """Leave the game for good, no vote needed: a standby player (in a league) or a bot plays the seat from now
    on, and this seat's links and tokens no longer reach it. Needs `confirm: true`."""
    seat, player = _acting(request, game_id)
    try:
        if not body.confirm:
            raise services.Refused(str(views.UNCONFIRMED))
        services.concede(seat.pk, player)
    except services.Refused as refusal:
        raise _refused(refusal) from None
    caller(request).forget(game_id)  # the seat is someone else's now: the panel is a spectator's
    return {"message": str(views.CONCEDED), "votes": _votes(request, game_id)}
