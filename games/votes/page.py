"""What the game page shows of the table's votes (its panel, games/extensions.py), as plain frozen values: the
open vote (and the reader's own ballot, never anyone else's), what the reader may propose now or why not, and
the votes closed so far with their outcome. Who proposed shows only to the proposer."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils.functional import Promise as StrPromise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games import extensions
from games.extensions import Panel
from games.models import Game, Seat
from games.votes import rules
from games.votes.models import Ballot, Kind, Proposal
from games.votes.rules import GUIDE_SECTION

TEMPLATE = "votes/_panel.html"
PROPOSE: dict[str, StrPromise] = {
    Kind.DRAW: gettext_lazy("Propose a draw"),
    Kind.CANCEL: gettext_lazy("Propose cancelling the game"),
}


@dataclass(frozen=True)
class OpenVote:
    id: int
    kind: str  # draw, cancel
    what: str  # "a draw"
    closes_at: datetime
    proposed_by_me: bool
    my_vote: str  # "yes", or "" before the reader voted (a no closes the vote)


@dataclass(frozen=True)
class ClosedVote:
    id: int
    kind: str
    what: str
    status: str  # passed, failed, void
    why: str
    closed_at: datetime | None


@dataclass(frozen=True)
class VotePanel:
    open: OpenVote | None
    closed: tuple[ClosedVote, ...]
    player: bool  # the reader holds a seat of a game still going
    kinds: tuple[tuple[str, str], ...]  # (kind, label) the reader may propose now
    not_now: str  # why they may not propose now, if they may not
    concede: str  # "" if they may concede, else why not
    guide_section: str = GUIDE_SECTION  # the guide page's anchor of how ending a game early works


def _not_now(game: Game, open_vote: Proposal | None) -> str:
    if open_vote is not None:
        return _("One vote at a time.")
    if game.status == Game.Status.PAUSED:
        return _("This game is paused by its organiser: a vote can be proposed once it resumes.")
    return ""


def _proposable(game: Game, closed: list[Proposal], refused: dict[str, str | None]) -> list[tuple[str, str]]:
    kinds = []
    for kind in rules.KINDS:
        failed = [p for p in closed if p.kind == kind and p.status == Proposal.Status.FAILED]
        in_phase = failed[-1].closed_in_phase if failed else None
        if rules.may_propose_again(in_phase, game.phase_number) and not refused[kind]:
            kinds.append((kind, str(PROPOSE[kind])))
    return kinds


def panel(request: Any, game: Game, seat: Seat | None) -> Panel | None:
    proposals = list(Proposal.objects.filter(game=game).order_by("pk"))
    open_vote = next((p for p in proposals if p.status == Proposal.Status.OPEN), None)
    closed = [p for p in proposals if p.status != Proposal.Status.OPEN]
    player = seat is not None and seat.player_id is not None and game.status != Game.Status.FINISHED
    if not proposals and not player:
        return None
    shown = None
    if open_vote is not None:
        mine = None
        if player and seat is not None and seat.player_id is not None:
            mine = Ballot.objects.filter(proposal=open_vote, seat_number=seat.number, player_id=seat.player_id).first()
        shown = OpenVote(
            id=open_vote.pk,
            kind=open_vote.kind,
            what=open_vote.get_kind_display(),
            closes_at=open_vote.closes_at,
            proposed_by_me=player and seat is not None and open_vote.proposer_id == seat.player_id,
            my_vote=("yes" if mine.yes else "no") if mine is not None else "",
        )
    # What the game's league (if any) allows, asked once per kind.
    refused = {kind: extensions.ending_refused(game, kind) for kind in (*rules.KINDS, rules.CONCEDE)} if player else {}
    not_now = _not_now(game, open_vote) if player else ""
    kinds = tuple(_proposable(game, closed, refused)) if player and not not_now else ()
    if player and not not_now and not kinds:
        not_now = refused[rules.KINDS[0]] or _("A proposal that failed can be made again from the next turn on.")
    concede = (refused[rules.CONCEDE] or "") if player else ""
    facts = VotePanel(
        open=shown,
        closed=tuple(
            ClosedVote(p.pk, p.kind, p.get_kind_display(), p.status, p.get_reason_display(), p.closed_at)
            for p in reversed(closed)
        ),
        player=player,
        kinds=kinds,
        not_now=not_now,
        concede=concede,
    )
    return Panel(TEMPLATE, facts)
