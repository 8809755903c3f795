"""A player's own address: what the provider told us of it (a bounce, a complaint: `mark`, from
games/incoming/mail/bounces.py; `address_fixed`), and its change. A new address is used only once a link
sent to it is opened and its button pressed, so nobody (a forwarded turn link's holder, a shared browser)
can move a player's mail, and with it their sign-in links, to an address they hold. An organiser cannot change it at
all; a superuser can, in the admin, which ends the player's sessions (games/admin/games.py)."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.core import signing
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from games.models import Game, Phase, Player, Seat, unique_row
from games.outgoing import mailpolicy, messages, signed
from games.outgoing.dispatch import SEND_ADDRESS_CONFIRMATION, after_commit
from games.outgoing.facts import addressee
from games.outgoing.links import LinkError
from games.play import bots

log = logging.getLogger(__name__)
SALT = "pbem.address-change"
LINK_HOURS = 24
TAKEN = gettext_lazy("That address cannot be used here, so nothing was changed. Your organiser can help.")
USED = gettext_lazy("This link is not valid any more: it was used, a newer one was sent, or it is over a day old.")


def ask_to_change(player: Player, address: str, now: datetime | None = None) -> str | None:
    """Email a confirmation link to `address`, the player's new address (within the sign-in emails' quota:
    the form must not flood someone else's inbox). Returns why nothing was sent, or None. The address in use
    does not change until the link is used."""
    now = now or timezone.now()
    address = address.strip().lower()
    # Not "another player has it": the page must not tell who plays here.
    if Player.objects.filter(email__iexact=address).exclude(pk=player.pk).exists():
        return str(TAKEN)
    with transaction.atomic():
        locked = unique_row(Player.objects.select_for_update().filter(pk=player.pk))
        assert locked is not None
        if not mailpolicy.take_email_quota(locked, now):
            return gettext("Too many emails were sent for you today: please try again in a few hours.")
        locked.new_email, locked.new_email_sent_at = address, now
        locked.save(update_fields=["new_email", "new_email_sent_at", "sign_in_quota_at"])
        after_commit(SEND_ADDRESS_CONFIRMATION, player.pk)
    log.info("player %s asked to change their address", player.pk)
    return None


def confirmation_url(player: Player) -> str:
    assert player.new_email_sent_at is not None
    payload = {"p": player.pk, "e": player.new_email, "t": player.new_email_sent_at.isoformat()}
    return settings.SITE_URL + reverse("games-address", args=[signed.dumps(payload, salt=SALT)])


def send_confirmation(player_id: int) -> bool:
    """Email the link to the new address (the task woken by ask_to_change). Sent at once, not through the
    outbox, like a sign-in link: it is worth something only for a day, and the player can ask again."""
    player = unique_row(Player.objects.filter(pk=player_id, new_email_sent_at__isnull=False).exclude(new_email=""))
    if player is None:
        return False
    context = {"player": addressee(player), "link": confirmation_url(player), "hours": LINK_HOURS}
    zone, language = messages.zone_of(player.time_zone), messages.language_of(player)
    rendered = messages.render("emails/address-confirm", context, zone, language=language)
    return messages.send_at_once(rendered, player.new_email, kind="address", player_id=player.pk)


def pending_change(token: str) -> Player:
    """The player whose new address the link confirms, if it is genuine, under a day old and the latest
    asked for. Changes nothing (GET). Raises LinkError."""
    try:
        data = signed.loads(token, salt=SALT, max_age=timedelta(hours=LINK_HOURS))
        player_id, address, asked = int(data["p"]), str(data["e"]), datetime.fromisoformat(data["t"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        raise LinkError(USED) from None
    player = unique_row(Player.objects.filter(pk=player_id, new_email=address, new_email_sent_at=asked))
    if player is None:
        raise LinkError(USED)
    return player


def confirm_change(token: str) -> Player:
    """Use the new address from now on (the link proved it receives mail: any bounce mark goes)."""
    with transaction.atomic():
        player = pending_change(token)
        player = Player.objects.select_for_update().get(pk=player.pk)
        if Player.objects.filter(email__iexact=player.new_email).exclude(pk=player.pk).exists():
            raise LinkError(TAKEN)
        changed = Player.objects.filter(pk=player.pk, new_email=player.new_email)
        changed.update(email=player.new_email, new_email="", new_email_sent_at=None)
        player.refresh_from_db()
    if player.mail_problem:
        address_fixed(player)
    log.info("player %s changed their address", player.pk)
    return player


def mark(player: Player, problem: str, detail: str) -> bool:
    """Mark the address; a bounce outranks a complaint (nothing is sent at all). Returns whether it changed."""
    if player.mail_problem == Player.MailProblem.BOUNCED and problem == Player.MailProblem.COMPLAINED:
        return False
    with transaction.atomic():
        changed = player.mail_problem != problem
        Player.objects.filter(pk=player.pk).update(
            mail_problem=problem, mail_problem_at=timezone.now(), mail_problem_detail=detail[:200]
        )
        player.mail_problem = problem
        if problem == Player.MailProblem.BOUNCED:
            stand_in_for(player)
    return changed


def stand_in_for(player: Player) -> None:
    """The player's seats owing an order in an open phase play their default order (bots.play_bots), now."""
    seats = Seat.objects.filter(player=player, is_bot=False, game__status=Game.Status.ACTIVE).select_related("game")
    for seat in seats:
        phase = unique_row(
            Phase.objects.filter(game=seat.game, number=seat.game.phase_number, status=Phase.Status.OPEN)
        )
        if phase is not None and phase.owes(seat.number):
            bots.ask_bots(phase)


def address_fixed(player: Player) -> None:
    """The player confirmed or changed their address (or used a sign-in link): mail goes to it again."""
    Player.objects.filter(pk=player.pk).update(mail_problem="", mail_problem_at=None, mail_problem_detail="")
    player.mail_problem, player.mail_problem_at, player.mail_problem_detail = "", None, ""
