"""Ending a game early: propose a draw or a cancel, vote on it, concede a seat, close what is due. Plain
ids in, an Outcome or a Refused out; every refusal stores nothing and says why in words for the player.

Each call locks the game as a resolution does (games.play.endings.lock: its open phase and its row together,
then the proposal) before it reads the vote, so a vote and a resolution run one after the other, and a game ends
once: by the vote, or otherwise (the vote is then void). The rules themselves are games/votes/rules.py's. No
log line names a voter or a ballot."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef
from django.dispatch import receiver
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games import extensions
from games.engines.base import M, Msg, joined
from games.models import Game, Seat, attach_apps
from games.outgoing.dispatch import after_commit, task_name
from games.play import endings
from games.votes import mail, rules
from games.votes.models import Ballot, Kind, Proposal

log = logging.getLogger(__name__)
# Re-counts a game's open vote after its seats changed hands (bound in games/votes/tasks.py).
SETTLE_VOTE = task_name("votes.tasks.settle")
OPEN_VOTE = "votes_open"  # set on the game by a resolution (games/extensions.py, phase_annotations)


def open_vote() -> Exists:
    """Over the phase a resolution locks: whether its game has an open vote (read under the game's lock, which a
    proposal takes too, so none opens unseen)."""
    return Exists(Proposal.objects.filter(game=OuterRef("game"), status=Proposal.Status.OPEN))


def vote_open(game: Game) -> bool:
    """Whether the game has an open vote: as the resolution handing us `game` read it, or asked now."""
    known = getattr(game, OPEN_VOTE, None)
    if known is not None:
        return bool(known)
    return Proposal.objects.filter(game=game, status=Proposal.Status.OPEN).exists()


# The log's words for a vote (messages, so each reader reads the line in their language: games/words.py).
KINDS: dict[str, Msg] = {Kind.DRAW: M("a draw"), Kind.CANCEL: M("cancelling the game")}
REASONS: dict[str, Msg] = {
    rules.REFUSED: M("a player voted no"),
    rules.DEADLINE: M("not every player voted by the deadline"),
}


def seat_word(seat: Seat) -> Any:
    """A seat in a log line: its player's name, else its number (a message)."""
    if seat.player is not None and seat.player.name:
        return seat.player.name
    return M("Seat {number}", number=seat.number + 1)


GAME_OVER = gettext_lazy("This game is over: nothing more can be proposed, voted on or conceded.")
NOT_HELD = gettext_lazy("You no longer hold this seat, so you cannot act for it. Nothing was changed.")


class Refused(Exception):
    """Nothing was stored; the message is for the player, as it is."""


@dataclass(frozen=True)
class Outcome:
    proposal_id: int
    status: str  # a Proposal.Status
    reason: str  # a Proposal.Reason ("" while open)


def _held_seat(seat_id: int, player_id: int) -> tuple[Game, Seat]:
    """The seat's game, locked as a resolution locks it, and the seat, if `player_id` still holds it."""
    game_id = Seat.objects.filter(pk=seat_id).values_list("game_id", flat=True).first()
    game, _ = endings.lock(game_id or 0)
    seat = Seat.objects.filter(pk=seat_id).select_related("player").first()
    if game is None or seat is None or seat.player_id != player_id:
        raise Refused(str(NOT_HELD))
    if game.status == Game.Status.FINISHED:
        raise Refused(str(GAME_OVER))
    return game, seat


def voters(game: Game) -> set[rules.Voter]:
    """Every seat held by a player now (a seat on autopilot too: its player reads the emails)."""
    return set(Seat.objects.filter(game=game, player__isnull=False).values_list("number", "player_id"))


def propose(seat_id: int, player_id: int, kind: str, now: datetime | None = None) -> Outcome:
    """The player at the seat proposes `kind` ("draw" or "cancel") to the table, voting yes. Refused when the
    game is over or paused, its league does not allow it, a vote is open already, or the same proposal failed
    in this turn."""
    now = now or timezone.now()
    if kind not in rules.KINDS:
        raise Refused(_("There is no such proposal: a table may propose a draw or to cancel the game."))
    with transaction.atomic():
        game, seat = _held_seat(seat_id, player_id)
        if game.status == Game.Status.PAUSED:
            raise Refused(_("This game is paused by its organiser: a vote can be proposed once it resumes."))
        if reason := extensions.ending_refused(game, kind):
            raise Refused(reason)
        if Proposal.objects.filter(game=game, status=Proposal.Status.OPEN).exists():
            raise Refused(_("A vote is open at this table already: one vote at a time. Nothing was proposed."))
        failed = Proposal.objects.filter(game=game, kind=kind, status=Proposal.Status.FAILED).order_by("-pk").first()
        if failed is not None and not rules.may_propose_again(failed.closed_in_phase, game.phase_number):
            raise Refused(
                _("A vote on %(label)s failed in this turn: it may be proposed again from the next.")
                % {"label": Kind(kind).label}
            )
        try:
            with transaction.atomic():
                proposal = Proposal.objects.create(
                    game=game,
                    kind=kind,
                    proposer_id=player_id,
                    opened_at=now,
                    opened_in_phase=game.phase_number,
                    closes_at=rules.closes_at(now, game.phase_length),
                )
        except IntegrityError:  # another proposal won the race
            raise Refused(
                _("A vote is open at this table already: one vote at a time. Nothing was proposed.")
            ) from None
        attach_apps(Game.objects.filter(pk=game.pk))  # its resolutions ask whether a vote is open (under this lock)
        Ballot.objects.create(proposal=proposal, seat_number=seat.number, player_id=player_id, yes=True, cast_at=now)
        endings.log_line(game, game.phase_number, M("A player proposed {kind}: every player votes.", kind=KINDS[kind]))
        outcome = _settle(game, proposal, now)
        if outcome.status == Proposal.Status.OPEN:
            mail.vote_opened(game, proposal, exclude=seat.number)
    log.info("proposal %s opened in game %s", proposal.pk, game.pk)
    return outcome


def vote(seat_id: int, player_id: int, proposal_id: int, yes: bool, now: datetime | None = None) -> Outcome:
    """The player at the seat votes on the table's open proposal. A yes may become a no; the same vote twice,
    a vote on a closed proposal or on another table's is refused."""
    now = now or timezone.now()
    with transaction.atomic():
        game, seat = _held_seat(seat_id, player_id)
        proposal = Proposal.objects.select_for_update().filter(pk=proposal_id, game=game).first()
        if proposal is None:
            raise Refused(_("There is no such vote at this table. Nothing was changed."))
        if proposal.status != Proposal.Status.OPEN:
            said = Proposal.Reason(proposal.reason).label
            raise Refused(_("This vote has closed (%(said)s): your vote was not counted.") % {"said": said})
        ballot = Ballot.objects.filter(proposal=proposal, seat_number=seat.number, player_id=player_id).first()
        if ballot is not None and ballot.yes == yes:
            raise Refused(
                _("You have voted yes already. Nothing was changed.")
                if yes
                else _("You have voted no already. Nothing was changed.")
            )
        if ballot is None:
            Ballot.objects.create(proposal=proposal, seat_number=seat.number, player_id=player_id, yes=yes, cast_at=now)
        else:
            Ballot.objects.filter(pk=ballot.pk).update(yes=yes, cast_at=now)
        outcome = _settle(game, proposal, now)
    log.info("ballot cast on proposal %s", proposal.pk)  # never the vote nor the seat
    return outcome


def concede(seat_id: int, player_id: int, now: datetime | None = None) -> None:
    """The player at the seat leaves the game for good (rules.py: a right, not a vote). Refused for the last
    player at the table, or where the league does not allow it."""
    now = now or timezone.now()
    with transaction.atomic():
        game, seat = _held_seat(seat_id, player_id)
        if reason := extensions.ending_refused(game, rules.CONCEDE):
            raise Refused(reason)
        if not Seat.objects.filter(game=game, player__isnull=False).exclude(pk=seat.pk).exists():
            raise Refused(
                _(
                    "You are the last player at this table, so there is nobody to leave the game to. Propose to "
                    "cancel it instead: with nobody else to ask, that passes at once."
                )
            )
        line = M("{seat} conceded and left the game; someone else plays the seat from now on.", seat=seat_word(seat))
        endings.leave_seat(seat.pk, player_id, line, now)
        if Proposal.objects.filter(game=game, status=Proposal.Status.OPEN).exists():
            after_commit(SETTLE_VOTE, game.pk)
    log.info("seat %s of game %s conceded", seat.number + 1, game.pk)


def settle(game_id: int, now: datetime | None = None) -> Outcome | None:
    """Count the game's open vote again (its seats changed hands, its deadline passed): close it if it is
    decided. None if no vote is open."""
    now = now or timezone.now()
    with transaction.atomic():
        game, _ = endings.lock(game_id)
        proposal = Proposal.objects.select_for_update().filter(game_id=game_id, status=Proposal.Status.OPEN).first()
        if game is None or proposal is None:
            return None
        return _settle(game, proposal, now)


def close_due(now: datetime | None = None) -> int:
    """Close every open vote whose deadline has passed (the beat's sweep). Returns how many closed."""
    now = now or timezone.now()
    due = Proposal.objects.filter(status=Proposal.Status.OPEN, closes_at__lte=now).values_list("game_id", flat=True)
    closed = 0
    for game_id in sorted(set(due)):
        outcome = settle(game_id, now)
        closed += outcome is not None and outcome.status != Proposal.Status.OPEN
    return closed


def _settle(game: Game, proposal: Proposal, now: datetime) -> Outcome:
    """Decide the open `proposal` (its game locked) by the rules, and close it if it is decided."""
    ballots = {
        (seat, player): yes for seat, player, yes in proposal.ballots.values_list("seat_number", "player_id", "yes")
    }
    decision = rules.decide(voters(game), ballots, now, proposal.closes_at)
    if decision is None:
        return Outcome(proposal.pk, Proposal.Status.OPEN, "")
    passed = decision == rules.AGREED
    proposal.status = Proposal.Status.PASSED if passed else Proposal.Status.FAILED
    proposal.reason = decision
    proposal.closed_at = now
    proposal.closed_in_phase = game.phase_number
    proposal.save(update_fields=["status", "reason", "closed_at", "closed_in_phase"])
    if passed:
        _end(game, proposal, now)
    else:
        failed = M("The vote on {kind} failed: {why}.", kind=KINDS[proposal.kind], why=REASONS[decision])
        endings.log_line(game, game.phase_number, failed)
        mail.vote_failed(game, proposal)
    return Outcome(proposal.pk, proposal.status, proposal.reason)


def _end(game: Game, proposal: Proposal, now: datetime) -> None:
    seats = list(Seat.objects.filter(game=game).select_related("player"))
    if proposal.kind == Kind.DRAW:
        standings = sorted(
            rules.draw_standings((s.number, s.player_id is not None) for s in seats), key=lambda s: (s.rank, s.seat)
        )
        shared = joined([seat_word(s) for s in seats if s.player_id is not None])
        line = M(
            "The table agreed to a draw: {names} share the win. The turn in progress was not played.", names=shared
        )
    else:
        standings = []
        line = M("The table agreed to cancel the game: it ends with no result. The turn in progress was not played.")
    endings.finish_early(game.pk, standings, line, now)


@receiver(extensions.game_finished, sender=Game)
def on_game_finished(game: Game, now: datetime, **kwargs: Any) -> None:
    """The game ended otherwise (its last turn, or another vote) while a vote was open: that vote is void."""
    if getattr(game, OPEN_VOTE, None) is False:
        return
    Proposal.objects.filter(game=game, status=Proposal.Status.OPEN).update(
        status=Proposal.Status.VOID, reason=Proposal.Reason.GAME_OVER, closed_at=now, closed_in_phase=game.phase_number
    )


@receiver(extensions.phase_opened, sender=Game)
def on_phase_opened(game: Game, **kwargs: Any) -> None:
    """A turn went by: a league may have dropped an absent player's seat as it opened (its ballot no longer
    counts, so the vote may be decided now); counted again after commit."""
    if vote_open(game):
        after_commit(SETTLE_VOTE, game.pk)


@receiver(extensions.seat_replaced, sender=Seat)
def on_seat_replaced(seat: Seat, now: datetime, **kwargs: Any) -> None:
    """A seat changed hands (an organiser, a league's substitute): the open vote is counted again after commit,
    outside the replacement's own locks (the newcomer has not voted yet, the leaver's ballot no longer counts)."""
    if Proposal.objects.filter(game_id=seat.game_id, status=Proposal.Status.OPEN).exists():
        after_commit(SETTLE_VOTE, seat.game_id)
