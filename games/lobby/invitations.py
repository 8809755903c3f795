"""Invitations: sending one (within the limits of games/lobby/limits.py), accepting, declining, and what a
bounce or a complaint does to one. Each runs under the table's row lock, so of two answers racing (an
accept and a decline, two browsers accepting) one wins and the other is refused with the reason."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from anymail.signals import AnymailTrackingEvent, tracking
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Q
from django.dispatch import receiver
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.incoming.mail import bounces
from games.lobby import emails, ready
from games.lobby.limits import LobbyError, check_address, check_inviter_quota
from games.lobby.models import Block, Invitation, Table, TableSeat
from games.models import Player
from games.play import turns

log = logging.getLogger(__name__)
NAME_LENGTH = Player._meta.get_field("name").max_length or 80
NO_INVITATION = gettext_lazy(
    "There is no invitation of yours to this table waiting for an answer. Nothing was changed."
)


def clean_address(text: str) -> str:
    address = text.strip().lower()
    try:
        validate_email(address)
    except ValidationError:
        raise LobbyError(_("%(strip)s is not an email address.") % {"strip": repr(text.strip()[:60])}) from None
    return address


def locked(table_id: int) -> Table:
    """The table, locked for the rest of the transaction: every change to a table and its seats goes
    through this lock."""
    return Table.objects.select_for_update().select_related("creator").get(pk=table_id)


def invite(table: Table, inviter: Player, address: str, now: datetime, seat: TableSeat | None = None) -> Invitation:
    """Invite `address` to an open seat of `table` (the given one, or the first), emailing it an invitation.
    The caller holds the table's lock and has checked the inviter's quota. LobbyError if refused."""
    address = clean_address(address)
    if address == inviter.email:
        raise LobbyError(_("You sit at this table already: invite someone else."))
    if (
        table.seats.filter(player__email=address).exists()
        or table.invitations.filter(address=address, answer=Invitation.Answer.PENDING).exists()
    ):
        raise LobbyError(_("%(address)s is invited to this table already.") % {"address": address})
    check_address(inviter, address, now)
    seat = seat or table.seats.filter(state=TableSeat.State.OPEN).order_by("number").first()
    if seat is None or seat.state != TableSeat.State.OPEN:
        raise LobbyError(_("The table has no open seat left to invite to."))
    player = Player.objects.filter(email=address).first()  # a newcomer's is created if they accept
    invitation = Invitation.objects.create(table=table, inviter=inviter, player=player, address=address, sent_at=now)
    seat.state, seat.invitation = TableSeat.State.INVITED, invitation
    seat.save(update_fields=["state", "invitation"])
    emails.queue(table, emails.INVITATION, player, invitation)
    return invitation


def invite_more(table_id: int, inviter: Player, address: str, now: datetime | None = None) -> Invitation:
    """The creator invites one more address to an open seat of their waiting table."""
    now = now or timezone.now()
    with transaction.atomic():
        table = locked(table_id)
        if table.creator_id != inviter.pk:
            raise LobbyError(_("Only the table's creator can invite to it."))
        if table.status != Table.Status.OPEN:
            raise LobbyError(_("This table is no longer waiting for players."))
        check_inviter_quota(inviter, 1, now)
        return invite(table, inviter, address, now)


def pending_of(table: Table, player: Player) -> Invitation | None:
    """The signed-in player's invitation to `table` waiting for an answer (to their player, or their address)."""
    mine = Q(player=player) | Q(address=player.email)
    return table.invitations.filter(mine, answer=Invitation.Answer.PENDING).select_related("player").first()


def refusal(invitation: Invitation, table: Table) -> str:
    """Why an invitation can no longer be accepted, or "" if it can."""
    if invitation.answer == Invitation.Answer.ACCEPTED:
        return _("You have accepted this invitation already.")
    if invitation.answer == Invitation.Answer.DECLINED:
        return _("You declined this invitation.")
    if table.status == Table.Status.STARTED:
        return _("This table has started without this seat.")
    if table.status == Table.Status.CANCELLED:
        return _("This table was cancelled.")
    if invitation.answer != Invitation.Answer.PENDING:
        return _("This invitation was withdrawn.")
    return ""


def accept(invitation_id: int, account: Player | None = None, name: str = "", now: datetime | None = None) -> Table:
    """The invitee takes the seat: `account`, a signed-in player whose invitation it is, or (None) whoever
    opened its join link, as the invited address's player (created now for a newcomer, with `name`). The
    game starts if that was the last seat (ready.check)."""
    now = now or timezone.now()
    name = " ".join(name.split())
    if len(name) > NAME_LENGTH:
        raise LobbyError(_("A name has at most %(NAME_LENGTH)s characters.") % {"NAME_LENGTH": NAME_LENGTH})
    with transaction.atomic():
        invitation = Invitation.objects.select_related("table").get(pk=invitation_id)
        table = locked(invitation.table_id)
        invitation.refresh_from_db()
        if account is not None and account.pk != invitation.player_id and account.email != invitation.address:
            raise LobbyError(_("This invitation is for someone else."))
        if why := refusal(invitation, table):
            raise LobbyError(why)
        player = invitation.player or account or turns.player_for(invitation.address, name)
        if table.seats.filter(player=player).exists():
            raise LobbyError(_("You sit at this table already."))
        seat = table.seats.get(invitation=invitation, state=TableSeat.State.INVITED)
        seat.state, seat.player = TableSeat.State.TAKEN, player
        seat.save(update_fields=["state", "player"])
        invitation.answer, invitation.answered_at, invitation.player = Invitation.Answer.ACCEPTED, now, player
        invitation.save(update_fields=["answer", "answered_at", "player"])
        if name and name != player.name:
            player.name = name
            player.save(update_fields=["name"])
        ready.check(table, now)
    return table


def decline(invitation_id: int, *, everyone: bool = False, now: datetime | None = None) -> bool:
    """The invitee declines: the seat opens again and the inviter may not invite the address again
    (`everyone`: nobody may). Declining again, or a table that has moved on, still records the wish.
    LobbyError for an invitation accepted already (leaving is the table page's). Returns whether the answer
    changed."""
    now = now or timezone.now()
    with transaction.atomic():
        invitation = Invitation.objects.get(pk=invitation_id)
        table = locked(invitation.table_id)
        invitation.refresh_from_db()
        if invitation.answer == Invitation.Answer.ACCEPTED:
            raise LobbyError(_("You accepted this invitation: to leave the table, use the Leave button on its page."))
        block(invitation.inviter, invitation.address, Block.Reason.DECLINED, now)
        if everyone:
            block(None, invitation.address, Block.Reason.NO_INVITATIONS, now)
        if invitation.answer != Invitation.Answer.PENDING:
            return False
        invitation.answer, invitation.answered_at = Invitation.Answer.DECLINED, now
        invitation.save(update_fields=["answer", "answered_at"])
        free_seat(invitation)
        log.info("invitation %s to table %s declined", invitation.pk, table.pk)
    return True


def free_seat(invitation: Invitation) -> None:
    TableSeat.objects.filter(invitation=invitation, state=TableSeat.State.INVITED).update(
        state=TableSeat.State.OPEN, invitation=None, player=None
    )


def block(inviter: Player | None, address: str, reason: str, now: datetime) -> None:
    if not Block.objects.filter(inviter=inviter, address=address).exists():
        Block.objects.create(inviter=inviter, address=address, reason=reason, at=now)


def bounced(address: str, problem: str, now: datetime | None = None) -> int:
    """The provider says mail to `address` bounced, or its reader marked ours as spam: every inviter who wrote
    to it may not again, and its invitations still waiting are withdrawn (their seats open again). Returns
    how many were waiting."""
    now = now or timezone.now()
    reason = Block.Reason.COMPLAINED if problem == Player.MailProblem.COMPLAINED else Block.Reason.BOUNCED
    address = address.strip().lower()
    waiting = 0
    for invitation in Invitation.objects.filter(address=address).select_related("inviter").order_by("pk"):
        with transaction.atomic():
            locked(invitation.table_id)
            block(invitation.inviter, address, reason, now)
            if Invitation.objects.filter(pk=invitation.pk, answer=Invitation.Answer.PENDING).update(
                answer=Invitation.Answer.BOUNCED, answered_at=now
            ):
                free_seat(invitation)
                waiting += 1
    return waiting


@receiver(tracking, dispatch_uid="pbem-lobby-bounces")
def handle_tracking(sender: Any, event: AnymailTrackingEvent, esp_name: str, **kwargs: Any) -> None:
    problem = bounces.verdict(event)
    if problem is not None and event.recipient:
        bounced(event.recipient, problem)
